import Foundation
import GRDB
import PacenoteCore

/// A song's effect on pace over the runs it played in, with the track (`PaceEffect.Song`).
public struct FasterSong: Equatable, Sendable {
    public var track: Track
    public var effect: PaceEffect.Song

    public init(track: Track, effect: PaceEffect.Song) {
        self.track = track
        self.effect = effect
    }
}

extension Store {
    // MARK: The songs that made you faster

    /// Replaces what is stored of a workout's plays' effects on pace (`PaceEffect.measure`)
    /// and marks the workout measured. A play measured under another workout before (the
    /// workouts were merged or cut again) moves to this one; a figure outside what the table
    /// takes (a sensor's nonsense the cleaning let through) is left out. Returns whether the
    /// stored effects changed.
    @discardableResult
    public func setPaceEffects(workoutID: Int64, _ effects: [PaceEffect.Measured], at now: Date) throws(StoreError) -> Bool {
        try write { db in
            let rows = "SELECT play_id, speed_before, speed_during, cadence_before, cadence_during FROM pace_effects WHERE workout_id = ? ORDER BY play_id"
            let before = try Row.fetchAll(db, sql: rows, arguments: [workoutID])
            try db.execute(sql: "DELETE FROM pace_effects WHERE workout_id = ?", arguments: [workoutID])
            let insert = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO pace_effects (play_id, workout_id, speed_before, speed_during, cadence_before, cadence_during)
                SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM plays WHERE id = ?1)
                  AND ?3 > 0 AND ?3 <= 42 AND ?4 >= 0 AND ?4 <= 42
                  AND (?5 IS NULL OR ?5 BETWEEN 0 AND 300) AND (?6 IS NULL OR ?6 BETWEEN 0 AND 300)
                """)
            for e in effects {
                try insert.execute(arguments: [e.playID, workoutID, e.speedBefore, e.speedDuring, e.cadenceBefore, e.cadenceDuring])
            }
            try db.execute(sql: "UPDATE workouts SET paces_measured_ms = ? WHERE id = ?",
                           arguments: [Store.milliseconds(now), workoutID])
            return try Row.fetchAll(db, sql: rows, arguments: [workoutID]) != before
        }
    }

    /// Ended workouts whose plays have not been measured since they or their samples changed:
    /// oldest first.
    public func workoutsNeedingPaceEffects(limit: Int = 200) throws(StoreError) -> [Workout] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM workouts WHERE ended_at_ms IS NOT NULL AND paces_measured_ms IS NULL
                ORDER BY started_at_ms LIMIT ?
                """, arguments: [limit]).map(Store.workout(from:))
        }
    }

    /// Whether an ended workout already measured overlaps [from, to]: what a play logged then
    /// would mark (`markPacesStale`), asked without taking the write lock.
    public func hasMeasuredWorkout(from: Date, to: Date) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db.cachedStatement(sql: """
                SELECT EXISTS (SELECT 1 FROM workouts
                               WHERE started_at_ms BETWEEN ?1 - 604800000 AND ?2 AND ended_at_ms >= ?1 AND paces_measured_ms IS NOT NULL)
                """), arguments: [Store.milliseconds(from), Store.milliseconds(to)]) ?? false
        }
    }

    /// Marks the ended workouts overlapping [from, to] to be measured again: a play or motion
    /// arrived for their time after they were measured. Returns how many.
    @discardableResult
    public func markPacesStale(from: Date, to: Date) throws(StoreError) -> Int {
        try write { db in try Self.markPacesStale(fromMs: Store.milliseconds(from), toMs: Store.milliseconds(to), in: db) }
    }

    /// Marks the ended workouts in [fromMs, toMs] that a play stored after `afterPlay` (an id)
    /// overlaps: the runs an import's plays fell in, and only those, are measured again.
    @discardableResult
    static func markPacesStale(afterPlay: Int64, fromMs: Int64, toMs: Int64, in db: Database) throws -> Int {
        try db.execute(sql: """
            UPDATE workouts SET paces_measured_ms = NULL
            WHERE started_at_ms BETWEEN ?2 - 604800000 AND ?3 AND ended_at_ms >= ?2 AND paces_measured_ms IS NOT NULL
              AND EXISTS (SELECT 1 FROM plays p
                          WHERE p.started_at_ms BETWEEN workouts.started_at_ms - \(Store.longestPlayMs) AND workouts.ended_at_ms
                            AND p.ended_at_ms > workouts.started_at_ms AND p.id > ?1)
            """, arguments: [afterPlay, fromMs, toMs])
        return db.changesCount
    }

    @discardableResult
    static func markPacesStale(fromMs: Int64, toMs: Int64, in db: Database) throws -> Int {
        try db.execute(sql: """
            UPDATE workouts SET paces_measured_ms = NULL
            WHERE started_at_ms BETWEEN ?1 - 604800000 AND ?2 AND ended_at_ms >= ?1 AND paces_measured_ms IS NOT NULL
            """, arguments: [fromMs, toMs])  // (no workout lasts a week: the index on the start bounds the search)
        return db.changesCount
    }

    /// The measured plays of runs, with their track as it is now (curation may have merged
    /// it) and their workout: those of plays on local days `from`…`to` (`YYYY-MM-DD`), or all.
    static func measuredPlays(from: String? = nil, to: String? = nil, trackID: Int64? = nil,
                       in db: Database) throws -> [(trackID: Int64, workoutID: Int64, effect: PaceEffect.Measured)] {
        var conditions: [String] = []
        if from != nil, to != nil { conditions.append("p.local_day BETWEEN ?1 AND ?2") }
        if trackID != nil { conditions.append("p.track_id = ?3") }
        // One song: its plays first (by `plays_identity`), then their figures. Every song: the
        // figures first, each play looked up by id — left to itself SQLite walked every play
        // of the range by `local_day` (500,000 plays: 330 ms, `scripts/bench/faster-songs`);
        // CROSS JOIN keeps the order written.
        let statement = try RawStatement(db, """
            SELECT p.track_id, e.workout_id, e.play_id, e.speed_before, e.speed_during, e.cadence_before, e.cadence_during
            FROM \(trackID == nil ? "pace_effects e CROSS JOIN plays p" : "plays p JOIN pace_effects e") ON p.id = e.play_id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            """)
        if let from, let to {
            statement.bind(1, from)
            statement.bind(2, to)
        }
        if let trackID { statement.bind(3, trackID) }
        var rows: [(trackID: Int64, workoutID: Int64, effect: PaceEffect.Measured)] = []
        while try statement.step() {
            rows.append((statement.int64(0), statement.int64(1), PaceEffect.Measured(
                playID: statement.int64(2), speedBefore: statement.double(3), speedDuring: statement.double(4),
                cadenceBefore: statement.optionalDouble(5), cadenceDuring: statement.optionalDouble(6))))
        }
        return rows
    }

    /// The songs with enough measured plays (`PaceEffect.Song.isShown`), fastest first: over
    /// every run, or over the plays on local days `from`…`to`.
    public func fasterSongs(from: String? = nil, to: String? = nil, limit: Int) throws(StoreError) -> [FasterSong] {
        try read { db in try Self.fasterSongs(from: from, to: to, limit: limit, in: db) }
    }

    static func fasterSongs(from: String?, to: String?, limit: Int, in db: Database) throws -> [FasterSong] {
        let songs = PaceEffect.songs(try measuredPlays(from: from, to: to, in: db)).filter(\.isShown).prefix(limit)
        let tracks = try tracks(ids: songs.map(\.trackID), in: db)
        return songs.compactMap { song in tracks[song.trackID].map { FasterSong(track: $0, effect: song) } }
    }

    /// One song's effect over every run (shown or not yet), nil when none of its plays was measured.
    public func paceEffect(trackID: Int64) throws(StoreError) -> PaceEffect.Song? {
        try read { db in PaceEffect.songs(try Self.measuredPlays(trackID: trackID, in: db)).first }
    }

    /// Every song's effect over every run, shown or not (the recommender weighs the shown ones).
    public func paceEffects() throws(StoreError) -> [PaceEffect.Song] {
        try read { db in PaceEffect.songs(try Self.measuredPlays(in: db)) }
    }
}
