import Foundation
import GRDB
import PacenoteCore

/// Corrections to the history: deleting, editing and adding plays, merging tracks, artists
/// and albums. Each is one transaction that also writes its `curation_log` entry, with
/// what undoing it needs (`CurationUndo`); `undo` reverses one as a whole. Rollups follow:
/// the plays' triggers keep the track, period and entity rollups when plays move, and the
/// rollups of artists and albums whose credits or tracks move are summed again from their
/// plays (`recomputeEntityRollups`).
extension Store {
    // MARK: Plays

    /// Deletes plays; their rows go to the log entry, to be put back by an undo.
    public func curateDelete(playIDs: [Int64], request: String, source: String,
                             at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, deleted: [PlayWithTrack]) {
        return try write { db in
            var undo = CurationUndo()
            var deleted: [PlayWithTrack] = []
            var touches: Set<String> = []
            for id in playIDs {
                guard let play = try Store.playWithTrack(id: id, in: db) else {
                    throw StoreError.refused(.missing, "no play \(id)")
                }
                deleted.append(play)
                undo.restorePlays.append(try StoredRow.fetch(table: "plays", id: id, in: db))
                touches.formUnion(["play:\(id)", "track:\(play.play.trackID)"])
                try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [id])
            }
            let one = deleted.count == 1 ? deleted.first : nil
            let facts = CurationFacts.deleted(plays: deleted.count, title: one?.track.title, startedAt: one?.play.startedAt)
            let entry = try Store.log(.delete, facts: facts, request: request, undo: undo, touches: touches,
                                      source: source, at: now, in: db)
            return (entry, deleted)
        }
    }

    /// What an edit changes in a play: its track (by id, or by title, artist and album
    /// text: found or added like a submitted listen's) and whether it counted.
    public struct PlayEdit: Sendable {
        public var trackID: Int64?
        public var track: Track?
        public var counted: Bool?

        public init(trackID: Int64? = nil, track: Track? = nil, counted: Bool? = nil) {
            self.trackID = trackID
            self.track = track
            self.counted = counted
        }
    }

    public func curateEdit(playID: Int64, _ edit: PlayEdit, request: String, source: String,
                           at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, play: PlayWithTrack) {
        return try write { db in
            guard let before = try Store.playWithTrack(id: playID, in: db) else {
                throw StoreError.refused(.missing, "no play \(playID)")
            }
            var trackID = before.play.trackID
            var undo = CurationUndo()
            if let id = edit.trackID {
                guard let kept = try Int64.fetchOne(db, sql: "SELECT COALESCE(merged_into, id) FROM tracks WHERE id = ?", arguments: [id]) else {
                    throw StoreError.refused(.missing, "no track \(id)")
                }
                trackID = kept
            } else if let track = edit.track {
                let mark = try CurationUndo.Created.mark(in: db)
                trackID = try Store.saveTrack(track, at: now, in: db)
                undo.created = try mark.since(in: db)
            }
            let counted = edit.counted ?? before.play.counted
            if trackID != before.play.trackID,
               try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plays WHERE track_id = ? AND started_at_ms = ?)",
                                 arguments: [trackID, Store.milliseconds(before.play.startedAt)]) == true {
                throw StoreError.refused(.duplicatePlay, "track \(trackID) already has a play at \(ISO8601.string(before.play.startedAt))")
            }
            try db.execute(sql: "UPDATE plays SET track_id = ?, counted = ? WHERE id = ?", arguments: [trackID, counted, playID])
            undo.playValues = [.init(id: playID, trackID: before.play.trackID, counted: before.play.counted)]
            guard let after = try Store.playWithTrack(id: playID, in: db) else { throw StoreError.sqlite("the edited play is gone") }
            let retracked = trackID != before.play.trackID
            let facts = CurationFacts.edited(startedAt: before.play.startedAt, titleBefore: retracked ? before.track.title : nil,
                                             titleAfter: retracked ? after.track.title : nil,
                                             counted: counted != before.play.counted ? counted : nil)
            let entry = try Store.log(.edit, facts: facts, request: request, undo: undo,
                                      touches: ["play:\(playID)", "track:\(before.play.trackID)", "track:\(trackID)"],
                                      source: source, at: now, in: db)
            return (entry, after)
        }
    }

    /// What to add: a track (by id, by MPD file, or by text) or an album's tracks, back
    /// to back from `startedAt` by their lengths.
    public enum PlayAddition: Sendable {
        case track(id: Int64)
        case file(uri: String)
        case text(Track)
        case album(id: Int64)
    }

    /// Adds plays that were never logged: counted, `source` `manual`. Plays already stored
    /// (same track, same start) are not added twice.
    public func curateAdd(_ addition: PlayAddition, startedAt: Date, request: String, source: String,
                          at now: Date = Date()) throws(StoreError) -> (entry: CurationEntry, added: [PlayWithTrack]) {
        let localTime = self.localTime
        return try write { db in
            var tracks: [(id: Int64, duration: Double?)] = []
            var undo = CurationUndo()
            switch addition {
            case .track(let id):
                guard let row = try Row.fetchOne(db, sql: "SELECT COALESCE(merged_into, id), duration_s FROM tracks WHERE id = ?", arguments: [id]) else {
                    throw StoreError.refused(.missing, "no track \(id)")
                }
                tracks = [(row[0], row[1])]
            case .file(let uri):
                guard let row = try Row.fetchOne(db, sql: "SELECT COALESCE(merged_into, id), duration_s FROM tracks WHERE uri = ?", arguments: [uri]) else {
                    throw StoreError.refused(.missing, "no file \(uri) in the library")
                }
                tracks = [(row[0], row[1])]
            case .text(let track):
                let mark = try CurationUndo.Created.mark(in: db)
                let id = try Store.saveTrack(track, at: now, in: db)
                undo.created = try mark.since(in: db)
                tracks = [(id, try Double.fetchOne(db, sql: "SELECT duration_s FROM tracks WHERE id = ?", arguments: [id]))]
            case .album(let id):
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM albums WHERE id = ?)", arguments: [id]) == true else {
                    throw StoreError.refused(.missing, "no album \(id)")
                }
                // The album's files as MPD has them, in order; tracks only ever listened to
                // elsewhere (no file) when it has none.
                let rows = try Row.fetchAll(db, sql: """
                    SELECT id, duration_s FROM tracks WHERE album_id = ? AND merged_into IS NULL
                    ORDER BY in_library DESC, uri IS NULL, COALESCE(disc_number, 1), COALESCE(track_number, 0), uri, id
                    """, arguments: [id])
                let inLibrary = try Set(Int64.fetchAll(db, sql: "SELECT id FROM tracks WHERE album_id = ? AND in_library = 1", arguments: [id]))
                tracks = rows.map { ($0[0], $0[1]) }.filter { inLibrary.isEmpty || inLibrary.contains($0.0) }
                guard !tracks.isEmpty else { throw StoreError.refused(.emptyAlbum, "album \(id) has no tracks") }
                if let missing = tracks.first(where: { ($0.duration ?? 0) <= 0 }) {
                    throw StoreError.refused(.unknownDuration, "track \(missing.id) of album \(id) has no known length")
                }
            }
            var start = startedAt
            var added: [PlayWithTrack] = []
            var touches: Set<String> = []
            for track in tracks {
                let length = max(track.duration ?? 0, 0)
                let play = Play(trackID: track.id, startedAt: start, endedAt: start.addingTimeInterval(length),
                                playedSeconds: length, counted: true, source: "manual")
                start = start.addingTimeInterval(length)
                guard let id = try Store.insertPlay(play, localTime: localTime, in: db) else { continue }
                undo.removePlays.append(id)
                touches.formUnion(["play:\(id)", "track:\(track.id)"])
                if let stored = try Store.playWithTrack(id: id, in: db) { added.append(stored) }
            }
            guard !added.isEmpty else {
                throw StoreError.refused(.duplicatePlay, "every play asked for is already stored")
            }
            let facts = CurationFacts.added(plays: added.count, title: added.count == 1 ? added[0].track.title : nil, startedAt: startedAt)
            let entry = try Store.log(.add, facts: facts, request: request, undo: undo, touches: touches,
                                      source: source, at: now, in: db)
            return (entry, added)
        }
    }

    // MARK: The log

    /// Entries, newest first (at most `limit`, before the id `before` when given).
    public func curationLog(limit: Int = 50, before: Int64? = nil) throws(StoreError) -> [CurationEntry] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, at_ms, kind, summary, request_json, source, undone_at_ms, touches, facts_json FROM curation_log
                WHERE id < ? ORDER BY id DESC LIMIT ?
                """, arguments: [before ?? Int64.max, limit]).map(Store.curationEntry)
        }
    }

    public func curationEntry(id: Int64) throws(StoreError) -> CurationEntry? {
        try read { db in try Store.curationEntry(id: id, in: db) }
    }

    static func curationEntry(id: Int64, in db: Database) throws -> CurationEntry? {
        try Row.fetchOne(db, sql: """
            SELECT id, at_ms, kind, summary, request_json, source, undone_at_ms, touches, facts_json FROM curation_log WHERE id = ?
            """, arguments: [id]).map(curationEntry)
    }

    static func curationEntry(_ row: Row) -> CurationEntry {
        CurationEntry(id: row[0], at: date(milliseconds: row[1]), kind: CurationEntry.Kind(rawValue: row[2]) ?? .edit,
                      facts: (row[8] as String?).flatMap(CurationFacts.init(json:)), storedSummary: row[3], request: row[4], source: row[5],
                      undoneAt: (row[6] as Int64?).map { date(milliseconds: $0) },
                      touches: CurationEntry.touches(fromText: row[7]))
    }

    /// Logs an entry: its facts, not its text (`CurationFacts`); `summary` stays empty.
    static func log(_ kind: CurationEntry.Kind, facts: CurationFacts, request: String, undo: CurationUndo, touches: Set<String>,
                    source: String, at now: Date, in db: Database) throws -> CurationEntry {
        let undoText = String(decoding: try JSONEncoder().encode(undo), as: UTF8.self)
        try db.execute(sql: """
            INSERT INTO curation_log (at_ms, kind, summary, facts_json, request_json, undo_json, touches, source)
            VALUES (?, ?, '', ?, ?, ?, ?, ?)
            """, arguments: [milliseconds(now), kind.rawValue, facts.json, request, undoText, CurationEntry.touchesText(touches), source])
        return CurationEntry(id: db.lastInsertedRowID, at: date(milliseconds: milliseconds(now)), kind: kind, facts: facts,
                             request: request, source: source, undoneAt: nil, touches: touches)
    }

    /// Reverses one entry as a whole: refused when it was undone already, or when a later
    /// entry still in force touched what it touched (that one is to be undone first).
    public func undoCuration(id: Int64, at now: Date = Date()) throws(StoreError) -> CurationEntry {
        try write { db in
            guard let entry = try Store.curationEntry(id: id, in: db) else {
                throw StoreError.refused(.missing, "no curation entry \(id)")
            }
            if entry.undoneAt != nil { throw StoreError.refused(.alreadyUndone, "entry \(id) was undone already") }
            let later = try Row.fetchAll(db, sql: """
                SELECT id, at_ms, kind, summary, request_json, source, undone_at_ms, touches, facts_json FROM curation_log
                WHERE id > ? AND undone_at_ms IS NULL
                """, arguments: [id]).map(Store.curationEntry)
            let blockers = CurationEntry.blockers(of: entry, among: later)
            if !blockers.isEmpty {
                throw StoreError.refused(.undoBlocked,
                    "later changes depend on entry \(id): undo \(blockers.map { "\($0.id)" }.joined(separator: ", ")) first")
            }
            guard let text = try String.fetchOne(db, sql: "SELECT undo_json FROM curation_log WHERE id = ?", arguments: [id]) else {
                throw StoreError.sqlite("curation entry \(id) has no undo")
            }
            let undo = try JSONDecoder().decode(CurationUndo.self, from: Data(text.utf8))
            try undo.apply(in: db)
            try db.execute(sql: "UPDATE curation_log SET undone_at_ms = ? WHERE id = ?", arguments: [Store.milliseconds(now), id])
            var undone = entry
            undone.undoneAt = Store.date(milliseconds: Store.milliseconds(now))
            return undone
        }
    }

    static func playWithTrack(id: Int64, in db: Database) throws -> PlayWithTrack? {
        try Row.fetchOne(db, sql: """
            SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE p.id = ?
            """, arguments: [id]).map(Store.playWithTrack)
    }

    /// One play with its track.
    public func play(id: Int64) throws(StoreError) -> PlayWithTrack? {
        try read { db in try Store.playWithTrack(id: id, in: db) }
    }
}
