import Foundation
import GRDB
import PacenoteCore

/// What the recommender and `pacenote analyze` read: every track as a candidate, plays in
/// time order (from a play id on, so the daemon's model only reads what is new), and the
/// library files still without a BPM.
extension Store {
    /// A track merged into another (`merge`) is no candidate of its own: its plays, like and
    /// tempo are the kept one's.
    public func recommenderCandidates() throws(StoreError) -> [ListeningModel.Candidate] {
        try read { db in try Self.candidates(where: "", in: db) }
    }

    /// These tracks as `recommenderCandidates()` reads them (a track that is gone has none).
    public func recommenderCandidates(ids: [Int64]) throws(StoreError) -> [ListeningModel.Candidate] {
        guard !ids.isEmpty else { return [] }
        return try read { db in
            try stride(from: 0, to: ids.count, by: 500).flatMap { start in
                let chunk = Array(ids[start..<min(ids.count, start + 500)])
                return try Self.candidates(where: "WHERE id IN (\(Array(repeating: "?", count: chunk.count).joined(separator: ",")))",
                                           arguments: StatementArguments(chunk), in: db)
            }
        }
    }

    /// The tracks `condition` picks, as candidates, by id.
    private static func candidates(where condition: String, arguments: StatementArguments = [],
                                   in db: Database) throws -> [ListeningModel.Candidate] {
        var out: [ListeningModel.Candidate] = []
        let rows = try Row.fetchCursor(db, sql: """
            SELECT id, uri, title, COALESCE(artist, album_artist), bpm, in_library AND merged_into IS NULL, beat_confidence FROM tracks
            \(condition) ORDER BY id
            """, arguments: arguments)
        while let row = try rows.next() {
            out.append(.init(id: row[0], uri: row[1], title: row[2], artist: row[3], bpm: row[4], inLibrary: row[5],
                                 beatConfidence: row[6]))
        }
        return out
    }

    /// The lengths of the library's tracks, in whole seconds (rounded), by id: what a pre-run
    /// playlist fills a plan's time with (`PlanPlaylist`). Tracks without a length are left out.
    public func libraryDurations() throws(StoreError) -> [Int64: Int] {
        try read { db in
            var out: [Int64: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, CAST(round(duration_s) AS INTEGER) FROM tracks
                WHERE in_library AND merged_into IS NULL AND duration_s >= 0.5
                """)
            while let row = try rows.next() { out[row[0]] = row[1] }
            return out
        }
    }

    /// The texts of these tracks, as `recommenderCandidates` reads them: the model keeps
    /// none, a suggestion reads those of the few tracks it returns. A track that is gone
    /// has no entry.
    public func recommenderTexts(ids: [Int64]) throws(StoreError) -> [Int64: ListeningModel.Texts] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var out: [Int64: ListeningModel.Texts] = [:]
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, uri, title, COALESCE(artist, album_artist) FROM tracks WHERE id IN (\(marks))
                """, arguments: StatementArguments(ids))
            while let row = try rows.next() {
                out[row[0]] = .init(uri: row[1], title: row[2], artist: row[3])
            }
            return out
        }
    }

    /// A cheap summary that changes when any candidate changes (tags, BPM, library).
    public func recommenderTracksVersion() throws(StoreError) -> String {
        try read { db in
            let row = try Row.fetchOne(db, sql: """
                SELECT count(*), max(updated_at_ms), total(bpm), total(in_library), max(id), total(beat_confidence) FROM tracks
                """)!
            return "\(row[0] as Int64? ?? 0)/\(row[1] as Int64? ?? 0)/\(row[2] as Double? ?? 0)/\(row[3] as Double? ?? 0)/\(row[4] as Int64? ?? 0)"
                + "/\(row[5] as Double? ?? 0)"
        }
    }

    /// Every play, oldest first, handed to `body` as it is read (a million plays are never
    /// held in memory at once); returns the highest id read.
    public func forEachRecommenderEvent(_ body: (ListeningModel.Event) -> Void) throws(StoreError) -> Int64 {
        try read { db in
            var last: Int64 = 0
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, track_id, started_at_ms, ended_at_ms, counted, zone FROM plays ORDER BY started_at_ms, id
                """)
            while let row = try rows.next() {
                last = max(last, row[0])
                body(.init(trackID: row[1], startedAtMs: row[2], endedAtMs: row[3], counted: row[4],
                           zone: (row[5] as Int?).flatMap(Zone.init(rawValue:))))
            }
            return last
        }
    }

    /// Plays with an id above `afterID`, oldest first, and the highest id read.
    public func recommenderEvents(afterID: Int64) throws(StoreError) -> (events: [ListeningModel.Event], lastID: Int64) {
        try read { db in
            var out: [ListeningModel.Event] = []
            var last = afterID
            // A rowid range read, sorted here: `ORDER BY started_at_ms` lets SQLite walk the
            // whole started_at index to find the few new rows (40 ms at 1M plays).
            let rows = try Row.fetchCursor(db, sql: """
                SELECT id, track_id, started_at_ms, ended_at_ms, counted, zone FROM plays WHERE id > ? ORDER BY id
                """, arguments: [afterID])
            while let row = try rows.next() {
                let id: Int64 = row[0]
                last = max(last, id)
                out.append(.init(trackID: row[1], startedAtMs: row[2], endedAtMs: row[3], counted: row[4],
                                 zone: (row[5] as Int?).flatMap(Zone.init(rawValue:))))
            }
            // Stable: plays starting at the same millisecond stay in id order.
            let sorted = out.enumerated().sorted { ($0.element.startedAtMs, $0.offset) < ($1.element.startedAtMs, $1.offset) }
            return (sorted.map(\.element), last)
        }
    }

    /// Library files whose beat has not been measured, for `pacenote analyze` (streams excluded).
    public func tracksWithoutBeatConfidence() throws(StoreError) -> [(id: Int64, uri: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, uri FROM tracks
                WHERE in_library = 1 AND beat_confidence IS NULL AND uri IS NOT NULL AND uri NOT LIKE '%://%' ORDER BY id
                """).map { ($0[0], $0[1]) }
        }
    }

    /// Library files whose loudness has not been measured, for `pacenote analyze` (streams
    /// excluded).
    public func tracksWithoutLoudness() throws(StoreError) -> [(id: Int64, uri: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, uri FROM tracks
                WHERE in_library = 1 AND loudness_lufs IS NULL AND uri IS NOT NULL AND uri NOT LIKE '%://%' ORDER BY id
                """).map { ($0[0], $0[1]) }
        }
    }

    /// Library files without a BPM, for `pacenote analyze` (streams excluded).
    public func tracksWithoutBPM() throws(StoreError) -> [(id: Int64, uri: String)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, uri FROM tracks
                WHERE in_library = 1 AND bpm IS NULL AND uri IS NOT NULL AND uri NOT LIKE '%://%' ORDER BY id
                """).map { ($0[0], $0[1]) }
        }
    }
}
