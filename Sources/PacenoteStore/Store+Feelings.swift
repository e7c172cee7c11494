import Foundation
import GRDB
import PacenoteCore

/// A track's like or dislike (`track_feelings`). Written only through
/// `Operations.setFeeling(s)`.
public struct TrackFeeling: Equatable, Sendable {
    public var track: Track
    public var feeling: Feeling
    public var source: String
    public var updatedAt: Date
}

extension Store {
    /// Sets the feelings of several tracks in one transaction (`.none` removes a row).
    /// Returns the ids that do not name a track; nothing is written when any is missing.
    public func setFeelings(_ changes: [(trackID: Int64, feeling: Feeling)], source: String,
                            at now: Date = Date()) throws(StoreError) -> [Int64] {
        try write { db in
            var missing: [Int64] = []
            for change in changes {
                let exists = try Int64.fetchOne(db, sql: "SELECT id FROM tracks WHERE id = ?", arguments: [change.trackID]) != nil
                if !exists { missing.append(change.trackID) }
            }
            guard missing.isEmpty else { return missing }
            for change in changes {
                if change.feeling == .none {
                    try db.execute(sql: "DELETE FROM track_feelings WHERE track_id = ?", arguments: [change.trackID])
                } else {
                    try db.execute(sql: """
                        INSERT INTO track_feelings (track_id, feeling, source, updated_at_ms) VALUES (?, ?, ?, ?)
                        ON CONFLICT (track_id) DO UPDATE SET feeling = excluded.feeling, source = excluded.source,
                          updated_at_ms = excluded.updated_at_ms
                        """, arguments: [change.trackID, change.feeling.rawValue, source, Store.milliseconds(now)])
                }
            }
            return []
        }
    }

    /// A track's feeling (`.none` when it has none).
    public func feeling(trackID: Int64) throws(StoreError) -> Feeling {
        try read { db in
            try String.fetchOne(db, sql: "SELECT feeling FROM track_feelings WHERE track_id = ?", arguments: [trackID])
                .flatMap(Feeling.init(rawValue:)) ?? Feeling.none
        }
    }

    /// Every track's feeling, by track id (tracks without one are absent).
    public func feelings() throws(StoreError) -> [Int64: Feeling] {
        try read { db in
            var out: [Int64: Feeling] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT track_id, feeling FROM track_feelings") {
                if let feeling = Feeling(rawValue: row[1]) { out[row[0]] = feeling }
            }
            return out
        }
    }

    /// The tracks with a feeling, newest first; only one kind when `feeling` is given.
    public func feelingTracks(_ feeling: Feeling? = nil, limit: Int = .max, offset: Int = 0) throws(StoreError) -> [TrackFeeling] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")), f.feeling, f.source, f.updated_at_ms
                FROM track_feelings f JOIN tracks t ON t.id = f.track_id
                WHERE ? IS NULL OR f.feeling = ?
                ORDER BY f.updated_at_ms DESC, f.track_id DESC LIMIT ? OFFSET ?
                """, arguments: [feeling?.rawValue, feeling?.rawValue, Int64(min(limit, Int(Int64.max))), offset]).map { row in
                let n = Store.trackColumnCount
                return TrackFeeling(track: Store.track(from: row), feeling: Feeling(rawValue: row[n]) ?? .none,
                                    source: row[n + 1], updatedAt: Store.date(milliseconds: row[n + 2]))
            }
        }
    }

    /// The track with this MusicBrainz recording id (the lowest id when several share it).
    public func trackID(recordingMBID: String) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT min(id) FROM tracks WHERE mb_recording_id = ? COLLATE NOCASE",
                               arguments: [recordingMBID])
        }
    }

    /// The track whose title and artist match (case-insensitively): the lowest id.
    public func trackID(artist: String, title: String) throws(StoreError) -> Int64? {
        try read { db in
            try Int64.fetchOne(db, sql: """
                SELECT min(id) FROM tracks WHERE title = ? COLLATE NOCASE AND COALESCE(artist, album_artist) = ? COLLATE NOCASE
                """, arguments: [title, artist])
        }
    }
}

extension Store {
    /// The liked songs MPD has (in a library, not streams), newest like first: the
    /// `[likes] playlist`.
    public func likedLibraryURIs() throws(StoreError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT t.uri FROM track_feelings f JOIN tracks t ON t.id = f.track_id
                WHERE f.feeling = 'like' AND t.in_library = 1 AND t.uri IS NOT NULL AND t.uri NOT LIKE '%://%'
                ORDER BY f.updated_at_ms DESC, f.track_id DESC
                """)
        }
    }

    /// The feelings of these tracks (`.none` for those without) with their URIs, for MPD's
    /// stickers; every track with a feeling when `ids` is nil. Streams and unknown ids are left out.
    public func feelingURIs(_ ids: [Int64]?) throws(StoreError) -> [(uri: String, feeling: Feeling)] {
        try read { db in
            let rows: [Row]
            if let ids {
                guard !ids.isEmpty else { return [] }
                rows = try Row.fetchAll(db, sql: """
                    SELECT t.uri, f.feeling FROM tracks t LEFT JOIN track_feelings f ON f.track_id = t.id
                    WHERE t.id IN (\(ids.map { _ in "?" }.joined(separator: ","))) AND t.in_library = 1 AND t.uri IS NOT NULL
                    """, arguments: StatementArguments(ids))
            } else {
                rows = try Row.fetchAll(db, sql: """
                    SELECT t.uri, f.feeling FROM track_feelings f JOIN tracks t ON t.id = f.track_id
                    WHERE t.in_library = 1 AND t.uri IS NOT NULL
                    """)
            }
            return rows.compactMap { row in
                let uri: String = row[0]
                guard !uri.contains("://") else { return nil }
                return (uri, (row[1] as String?).flatMap(Feeling.init(rawValue:)) ?? Feeling.none)
            }
        }
    }

    /// Changes when any feeling, or which liked songs are in the library, changes.
    public func feelingsVersion() throws(StoreError) -> String {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*), max(f.updated_at_ms), total(f.track_id), total(t.in_library)
                FROM track_feelings f JOIN tracks t ON t.id = f.track_id
                """)!
            return "\(row[0] as Int64? ?? 0)/\(row[1] as Int64? ?? 0)/\(row[2] as Double? ?? 0)/\(row[3] as Double? ?? 0)"
        }
    }
}
