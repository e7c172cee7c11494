import Foundation
import GRDB
import PacenoteCore

/// A workout file's content, stored whole or not at all (`Store.importRecording`).
public struct WorkoutRecording: Sendable {
    public var source: String
    public var heartRate: [HeartRateSample]
    /// Cleaned (`MotionCleaning`), and without positions unless they are to be kept.
    public var motion: [MotionSample]
    public var laps: [WorkoutLap]
    public var calories: Double?
    public var name: String?
    public var sport: String?
    public var zoneSettingsID: Int64?

    public init(source: String, heartRate: [HeartRateSample], motion: [MotionSample], laps: [WorkoutLap] = [],
                calories: Double? = nil, name: String? = nil, sport: String? = nil, zoneSettingsID: Int64? = nil) {
        self.source = source
        self.heartRate = heartRate
        self.motion = motion
        self.laps = laps
        self.calories = calories
        self.name = name
        self.sport = sport
        self.zoneSettingsID = zoneSettingsID
    }

    /// From the first sample of either kind to the last.
    public var span: (first: Date, last: Date)? {
        let firsts = [heartRate.first?.at, motion.first?.at].compactMap { $0 }
        let lasts = [heartRate.last?.at, motion.last?.at].compactMap { $0 }
        guard let first = firsts.min(), let last = lasts.max() else { return nil }
        return (first, last)
    }
}

/// What `Store.importRecording` stored.
public struct RecordingStored: Equatable, Sendable {
    /// The workout made for it; nil when one already covered that time (imported before).
    public var newWorkoutID: Int64?
    /// The workout its laps and calories went to (the new one, or the first it overlaps).
    public var workoutID: Int64?
    public var heartRate: Int
    public var motion: Int
    public var laps: Int

    public init(newWorkoutID: Int64?, workoutID: Int64?, heartRate: Int, motion: Int, laps: Int) {
        self.newWorkoutID = newWorkoutID
        self.workoutID = workoutID
        self.heartRate = heartRate
        self.motion = motion
        self.laps = laps
    }

    /// Nothing: a file with no sample.
    public static let nothing = RecordingStored(newWorkoutID: nil, workoutID: nil, heartRate: 0, motion: 0, laps: 0)
}

extension Store {
    /// Stores motion samples from one source in one transaction; the same time from the same
    /// source is stored once. Returns how many were new.
    @discardableResult
    public func insertMotionSamples(_ samples: [MotionSample], source: String) throws(StoreError) -> Int {
        try write { db in try Store.insertMotion(samples, source: source, in: db) }
    }

    static func insertMotion(_ samples: [MotionSample], source: String, in db: Database) throws -> Int {
        // Through SQLite's C API, as heart rate (`insertSamples`): a three-hour file is 10,800 rows.
        let insert = try RawStatement(db, """
            INSERT INTO motion_samples (source, at_ms, speed, distance, altitude, cadence, power, lat, lon)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT (source, at_ms) DO NOTHING
            """)
        var inserted = 0, first = Int64.max, last = Int64.min
        try source.withCString { source in
            insert.bindStatic(1, source)
            defer { insert.clearBindings() }
            for s in samples where !s.isEmpty {
                let at = Store.milliseconds(s.at)
                insert.bind(2, at)
                for (column, value) in [s.speed, s.distance, s.altitude, s.cadence, s.power, s.latitude, s.longitude].enumerated() {
                    insert.bind(Int32(column + 3), value)
                }
                _ = try insert.step()
                if db.changesCount > 0 {
                    inserted += 1
                    first = min(first, at)
                    last = max(last, at)
                }
            }
        }
        // Motion for the time of an ended workout (uploaded late): its plays are measured again.
        if inserted > 0 { try markPacesStale(fromMs: first, toMs: last, in: db) }
        return inserted
    }

    /// A workout file in one transaction: its heart rate and motion samples, and — unless a
    /// workout already covers its time — a new workout (kind `import`); its laps and calories
    /// go to that workout, or to the first one it overlaps when that has none yet. On any
    /// failure (a value a table's check refuses) nothing of the file is kept.
    public func importRecording(_ r: WorkoutRecording) throws(StoreError) -> RecordingStored {
        try write { db in
            let heartRate = try Store.insertSamples(r.heartRate, source: r.source, in: db)
            let motion = try Store.insertMotion(r.motion, source: r.source, in: db)
            guard let (first, last) = r.span else {
                return .nothing
            }
            var newID: Int64?
            var workoutID = try Int64.fetchOne(db, sql: """
                SELECT id FROM workouts WHERE started_at_ms <= ? AND COALESCE(ended_at_ms, 9223372036854775807) >= ?
                ORDER BY started_at_ms LIMIT 1
                """, arguments: [Store.milliseconds(last), Store.milliseconds(first)])
            if workoutID == nil {
                try db.execute(sql: """
                    INSERT INTO workouts (started_at_ms, ended_at_ms, kind, name, sport, zone_settings_id)
                    VALUES (?, ?, 'import', ?, ?, ?)
                    """, arguments: [Store.milliseconds(first), Store.milliseconds(last), r.name, r.sport, r.zoneSettingsID])
                newID = db.lastInsertedRowID
                workoutID = newID
            }
            guard let workoutID else { preconditionFailure("a workout was found or made") }
            // A workout detected from the strap has no sport: the file says what it was.
            try db.execute(sql: "UPDATE workouts SET calories = COALESCE(calories, ?), sport = COALESCE(sport, ?) WHERE id = ?",
                           arguments: [r.calories, r.sport, workoutID])
            var laps = 0
            if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM workout_laps WHERE workout_id = ?", arguments: [workoutID]) == 0 {
                for lap in r.laps {
                    try db.execute(sql: """
                        INSERT INTO workout_laps (workout_id, start_ms, end_ms, calories) VALUES (?, ?, ?, ?)
                        ON CONFLICT (workout_id, start_ms) DO NOTHING
                        """, arguments: [workoutID, Store.milliseconds(lap.start), Store.milliseconds(lap.end), lap.calories])
                    laps += db.changesCount
                }
            }
            return RecordingStored(newWorkoutID: newID, workoutID: workoutID, heartRate: heartRate, motion: motion, laps: laps)
        }
    }

    /// The sources with motion between two instants (inclusive), the one with most samples first.
    public func motionSources(from: Date, to: Date) throws(StoreError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: """
                SELECT source FROM motion_samples WHERE at_ms BETWEEN ? AND ?
                GROUP BY source ORDER BY COUNT(*) DESC, source
                """, arguments: [Store.milliseconds(from), Store.milliseconds(to)])
        }
    }

    /// Motion between two instants (inclusive), oldest first, from one source: `source`, or
    /// the one with most samples there. One source, because two devices' distances count
    /// from different starts and would not make one series.
    public func motionSamples(from: Date, to: Date, source: String? = nil) throws(StoreError) -> [MotionSample] {
        var chosen = source
        if chosen == nil { chosen = try motionSources(from: from, to: to).first }
        guard let chosen else { return [] }
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT at_ms, speed, distance, altitude, cadence, power, lat, lon FROM motion_samples
                WHERE source = ? AND at_ms BETWEEN ? AND ? ORDER BY at_ms
                """, arguments: [chosen, Store.milliseconds(from), Store.milliseconds(to)]).map { row in
                MotionSample(at: Store.date(milliseconds: row[0]), speed: row[1], distance: row[2], altitude: row[3],
                             cadence: row[4], power: row[5], latitude: row[6], longitude: row[7])
            }
        }
    }

    /// A workout's motion: from its start to its end (or its latest sample, in progress).
    public func motionSamples(workout w: Workout) throws(StoreError) -> [MotionSample] {
        try motionSamples(from: w.startedAt, to: w.endedAt ?? .distantFuture)
    }

    /// A workout's laps, in order.
    public func laps(workout id: Int64) throws(StoreError) -> [WorkoutLap] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT start_ms, end_ms, calories FROM workout_laps WHERE workout_id = ? ORDER BY start_ms",
                             arguments: [id]).map { row in
                WorkoutLap(start: Store.date(milliseconds: row[0]), end: Store.date(milliseconds: row[1]), calories: row[2])
            }
        }
    }
}
