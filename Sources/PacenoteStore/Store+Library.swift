import Foundation
import GRDB
import PacenoteCore

/// What one library mirror pass changed.
public struct LibraryMirrorSummary: Equatable, Sendable {
    public var added = 0
    public var updated = 0
    public var removed = 0
    public var bpmFromStickers = 0
}

extension Store {
    /// `player`'s library as last mirrored: URI → MPD's Last-Modified (ms; -1 while its
    /// tags are still to be read).
    public func libraryIndex(player: String) throws(StoreError) -> [String: Int64] {
        try read { db in
            var index: [String: Int64] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT t.uri, f.modified_at_ms FROM library_files f JOIN tracks t ON t.id = f.track_id
                WHERE f.player = ?
                """, arguments: [player])
            while let row = try rows.next() { index[row[0]] = row[1] }
            return index
        }
    }

    /// The MPD database update time last mirrored for `player`.
    public func libraryUpdateTime(player: String) throws(StoreError) -> Int? {
        try read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: ["library_update:\(player)"]).flatMap { Int($0) }
        }
    }

    /// Applies one mirror pass of `player`'s library in one transaction: new and changed
    /// songs, files gone from it (the track is kept, so its plays stay; it leaves
    /// `in_library` when no player has it), and the `bpm` stickers when they were read.
    /// Changed songs are stored with their Last-Modified unknown until `applyTagBPM` has
    /// read their tags, so an interrupted pass resumes.
    public func applyLibrary(
        player: String, changed: [SongInfo], removed: [String], stickers: [String: Double]?, now: Date = Date()
    ) throws(StoreError) -> LibraryMirrorSummary {
        try write { db in
            var summary = LibraryMirrorSummary()
            let known = try Set(String.fetchAll(
                db, sql: "SELECT t.uri FROM library_files f JOIN tracks t ON t.id = f.track_id WHERE f.player = ?",
                arguments: [player]))
            let markPending = try db.makeStatement(sql: """
                INSERT INTO library_files (player, track_id, modified_at_ms) VALUES (?, ?, -1)
                ON CONFLICT (player, track_id) DO UPDATE SET modified_at_ms = -1
                """)
            for song in changed {
                if known.contains(song.uri) { summary.updated += 1 } else { summary.added += 1 }
                let id = try Store.saveTrack(song.track, at: now, in: db)
                try markPending.execute(arguments: [player, id])
            }
            let remove = try db.makeStatement(sql: """
                DELETE FROM library_files WHERE player = ? AND track_id = (SELECT id FROM tracks WHERE uri = ?)
                """)
            for uri in removed {
                try remove.execute(arguments: [player, uri])
                summary.removed += db.changesCount
            }
            if let stickers {
                try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS sticker_uris (uri TEXT PRIMARY KEY) WITHOUT ROWID; DELETE FROM temp.sticker_uris")
                let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO temp.sticker_uris (uri) VALUES (?)")
                for (uri, value) in stickers {
                    try insert.execute(arguments: [uri])
                    guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE uri = ?", arguments: [uri]) else { continue }
                    try Store.setBPM(trackID: id, BPM(value: value, source: .sticker), in: db)
                    summary.bpmFromStickers += 1
                }
                // A sticker deleted from this player's MPD takes its BPM with it.
                try db.execute(sql: """
                    UPDATE tracks SET bpm = NULL, bpm_source = NULL, bpm_confidence = NULL
                    WHERE bpm_source = 'sticker' AND uri NOT IN (SELECT uri FROM temp.sticker_uris)
                      AND id IN (SELECT track_id FROM library_files WHERE player = ?)
                    """, arguments: [player])
                try db.execute(sql: "DELETE FROM temp.sticker_uris")
            }
            return summary
        }
    }

    /// Stores what the tags of some files say about their BPM (`BPM`, `TBPM`, `TEMPO`),
    /// and their Last-Modified, which marks them as mirrored. Returns how many had a BPM.
    @discardableResult
    public func applyTagBPM(player: String, _ files: [(uri: String, modifiedMs: Int64, bpm: Double?)]) throws(StoreError) -> Int {
        try write { db in
            var withBPM = 0
            let setModified = try db.makeStatement(sql: "UPDATE library_files SET modified_at_ms = ? WHERE player = ? AND track_id = ?")
            for file in files {
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE uri = ?", arguments: [file.uri]) else { continue }
                if let value = file.bpm {
                    try Store.setBPM(trackID: id, BPM(value: value, source: .tag, confidence: 1), in: db)
                    withBPM += 1
                } else {
                    try Store.setBPM(trackID: id, nil, clearingSource: .tag, in: db)
                }
                try setModified.execute(arguments: [file.modifiedMs, player, id])
            }
            return withBPM
        }
    }

    /// Records that `player`'s library is mirrored as of MPD's database update `time`.
    public func setLibraryUpdateTime(_ time: Int, player: String) throws(StoreError) {
        try write { db in
            try db.execute(
                sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                arguments: ["library_update:\(player)", String(time)])
        }
    }

    /// The track stored for an MPD URI.
    public func track(uri: String) throws(StoreError) -> Track? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Store.trackColumns("tracks")) FROM tracks WHERE uri = ?", arguments: [uri])
                .map { Store.track(from: $0) }
        }
    }

    /// Whether the track with this URI is still in MPD's library.
    public func isInLibrary(uri: String) throws(StoreError) -> Bool? {
        try read { db in try Bool.fetchOne(db, sql: "SELECT in_library FROM tracks WHERE uri = ?", arguments: [uri]) }
    }
}
