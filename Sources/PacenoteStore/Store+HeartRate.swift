import Foundation
import GRDB
import PacenoteCore

/// A stored workout with its figures.
public struct Workout: Equatable, Sendable {
    public var id: Int64
    public var startedAt: Date
    /// `nil` while in progress.
    public var endedAt: Date?
    public var kind: String
    public var name: String?
    /// The sport a workout file gave (FIT: `running`, `cycling`, …; TCX: `Running`, `Biking`).
    public var sport: String? = nil
    public var zoneSettingsID: Int64?
    public var heartRateAverage: Double?
    public var heartRateMax: Int?
    /// Seconds in Z0…Z5.
    public var secondsInZone: [Double]
    /// The energy the device counted (a workout file's), kcal.
    public var calories: Double? = nil
    /// The plan it ran (issue 55): the template (nil once deleted, or none) and the plan as
    /// it was when the workout started.
    public var planID: Int64? = nil
    public var plan: WorkoutPlan? = nil
    public var planStartedAt: Date? = nil
}

extension Store {
    // MARK: Samples

    /// Stores samples from one source in one transaction; the same time from the same
    /// source is stored once. Returns how many were new.
    @discardableResult
    public func insertSamples(_ samples: [HeartRateSample], source: String) throws(StoreError) -> Int {
        // Bound through SQLite's C API (`RawStatement`): GRDB's `StatementArguments` boxed the
        // four values of every sample, more than half of the insert's time (perf, batches of
        // 10,000 samples).
        try write { db in try Store.insertSamples(samples, source: source, in: db) }
    }

    static func insertSamples(_ samples: [HeartRateSample], source: String, in db: Database) throws -> Int {
        let insert = try RawStatement(db, """
            INSERT INTO hr_samples (source, at_ms, bpm, rr_ms) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (source, at_ms) DO NOTHING
            """)
        var inserted = 0
        try source.withCString { source in
            insert.bindStatic(1, source)
            defer { insert.clearBindings() }
            for s in samples {
                insert.bind(2, Store.milliseconds(s.at))
                insert.bind(3, Int64(s.bpm))
                insert.bind(4, s.rr.isEmpty ? nil : "[" + s.rr.map { String(format: "%.1f", $0) }.joined(separator: ",") + "]")
                _ = try insert.step()
                inserted += db.changesCount
            }
        }
        return inserted
    }

    /// Samples from every source between two instants (inclusive), oldest first.
    public func samples(from: Date, to: Date) throws(StoreError) -> [HeartRateSample] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT at_ms, bpm FROM hr_samples WHERE at_ms BETWEEN ? AND ? ORDER BY at_ms
                """, arguments: [Store.milliseconds(from), Store.milliseconds(to)]).map {
                HeartRateSample(at: Store.date(milliseconds: $0[0]), bpm: $0[1])
            }
        }
    }

    public func latestSampleTime() throws(StoreError) -> Date? {
        try read { db in try Int64.fetchOne(db, sql: "SELECT MAX(at_ms) FROM hr_samples").map(Store.date(milliseconds:)) }
    }

    // MARK: Zone settings

    /// Every zone setting, oldest first.
    public func zoneSettings() throws(StoreError) -> [ZoneSettings] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM zone_settings ORDER BY effective_from_ms").compactMap { row in
                let model: ZoneModel
                switch row["model"] as String {
                case "percent_max": model = .percentMax(maxHR: row["max_hr"] ?? 190)
                case "hrr": model = .heartRateReserve(maxHR: row["max_hr"] ?? 190, restingHR: row["resting_hr"] ?? 60)
                case "lthr_run": model = .lactateThreshold(lthr: row["lthr"] ?? 170, sport: .run)
                case "lthr_bike": model = .lactateThreshold(lthr: row["lthr"] ?? 170, sport: .bike)
                case "custom":
                    let bounds = (try? JSONDecoder().decode([Int].self, from: Data(((row["bounds_json"] as String?) ?? "[]").utf8))) ?? []
                    model = .custom(lowerBounds: bounds)
                default: return nil
                }
                return ZoneSettings(id: row["id"], model: model, effectiveFrom: Store.date(milliseconds: row["effective_from_ms"]))
            }
        }
    }

    /// Records `model` as the zone settings from `from` on, unless it is already the
    /// latest. Earlier settings stay, so past workouts keep their zones.
    @discardableResult
    public func recordZoneSettings(_ model: ZoneModel, from: Date) throws(StoreError) -> ZoneSettings {
        if let latest = try zoneSettings().last, latest.model == model { return latest }
        return try write { db in
            var maxHR: Int?, resting: Int?, lthr: Int?, bounds: String?
            switch model {
            case .percentMax(let m): maxHR = m
            case .heartRateReserve(let m, let r): maxHR = m; resting = r
            case .lactateThreshold(let l, _): lthr = l
            case .custom(let b): bounds = "[" + b.map(String.init).joined(separator: ",") + "]"
            }
            try db.execute(sql: """
                INSERT INTO zone_settings (effective_from_ms, model, max_hr, resting_hr, lthr, bounds_json, created_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [Store.milliseconds(from), model.name, maxHR, resting, lthr, bounds, Store.milliseconds(Date())])
            return ZoneSettings(id: db.lastInsertedRowID, model: model, effectiveFrom: from)
        }
    }

    // MARK: Workouts

    public func startWorkout(at: Date, kind: String, name: String? = nil, sport: String? = nil,
                             zoneSettingsID: Int64?) throws(StoreError) -> Int64 {
        try write { db in
            try db.execute(sql: """
                INSERT INTO workouts (started_at_ms, kind, name, sport, zone_settings_id) VALUES (?, ?, ?, ?, ?)
                """, arguments: [Store.milliseconds(at), kind, name, sport, zoneSettingsID])
            return db.lastInsertedRowID
        }
    }

    /// Stores a workout's figures (and its end, when it has ended) and links the plays that
    /// overlap it.
    public func updateWorkout(id: Int64, endedAt: Date?, average: Double?, max: Int?, secondsInZone: [Zone: Double]) throws(StoreError) {
        try write { db in
            let z = (0...5).map { secondsInZone[Zone(rawValue: $0)!] ?? 0 }
            try db.execute(sql: """
                UPDATE workouts SET ended_at_ms = ?, hr_avg = ?, hr_max = ?,
                  z0_s = ?, z1_s = ?, z2_s = ?, z3_s = ?, z4_s = ?, z5_s = ? WHERE id = ?
                """, arguments: [endedAt.map(Store.milliseconds), average, max, z[0], z[1], z[2], z[3], z[4], z[5], id])
            try Store.linkPlays(toWorkout: id, in: db)
        }
    }

    static func linkPlays(toWorkout id: Int64, in db: Database) throws {
        try db.execute(sql: """
            UPDATE plays SET workout_id = ?1
            WHERE started_at_ms < COALESCE((SELECT ended_at_ms FROM workouts WHERE id = ?1), 9223372036854775807)
              AND ended_at_ms > (SELECT started_at_ms FROM workouts WHERE id = ?1)
            """, arguments: [id])
    }

    public func workouts(limit: Int = 100, before: Date? = nil) throws(StoreError) -> [Workout] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM workouts WHERE (?1 IS NULL OR started_at_ms < ?1) ORDER BY started_at_ms DESC LIMIT ?2
                """, arguments: [before.map(Store.milliseconds), limit]).map(Store.workout(from:))
        }
    }

    public func workout(id: Int64) throws(StoreError) -> Workout? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM workouts WHERE id = ?", arguments: [id]).map(Store.workout(from:)) }
    }

    /// The workout that was in progress when Pacenote stopped, if any.
    public func openWorkout() throws(StoreError) -> Workout? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM workouts WHERE ended_at_ms IS NULL ORDER BY started_at_ms DESC LIMIT 1")
                .map(Store.workout(from:))
        }
    }

    /// Workouts that touch [from, to], oldest first.
    public func workouts(overlapping from: Date, _ to: Date) throws(StoreError) -> [Workout] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM workouts WHERE started_at_ms <= ? AND COALESCE(ended_at_ms, 9223372036854775807) >= ?
                ORDER BY started_at_ms
                """, arguments: [Store.milliseconds(to), Store.milliseconds(from)]).map(Store.workout(from:))
        }
    }

    /// Changes a workout's start or kind (a back-filled one grows; one taken over by hand
    /// becomes manual).
    public func amendWorkout(id: Int64, startedAt: Date? = nil, kind: String? = nil) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                UPDATE workouts SET started_at_ms = COALESCE(?, started_at_ms), kind = COALESCE(?, kind) WHERE id = ?
                """, arguments: [startedAt.map(Store.milliseconds), kind, id])
        }
    }

    /// Whether a workout already covers any of [from, to].
    public func workoutOverlaps(from: Date, to: Date) throws(StoreError) -> Bool {
        try read { db in
            try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM workouts WHERE started_at_ms <= ? AND COALESCE(ended_at_ms, 9223372036854775807) >= ?)
                """, arguments: [Store.milliseconds(to), Store.milliseconds(from)]) ?? false
        }
    }

    static func workout(from row: Row) -> Workout {
        Workout(
            id: row["id"], startedAt: Store.date(milliseconds: row["started_at_ms"]),
            endedAt: (row["ended_at_ms"] as Int64?).map(Store.date(milliseconds:)), kind: row["kind"], name: row["name"],
            sport: row["sport"], zoneSettingsID: row["zone_settings_id"], heartRateAverage: row["hr_avg"], heartRateMax: row["hr_max"],
            secondsInZone: ["z0_s", "z1_s", "z2_s", "z3_s", "z4_s", "z5_s"].map { row[$0] }, calories: row["calories"],
            planID: row["plan_id"], plan: (row["plan_json"] as String?).flatMap(Store.plan(fromJSON:)),
            planStartedAt: (row["plan_started_at_ms"] as Int64?).map(Store.date(milliseconds:)))
    }

    // MARK: Plays and heart rate

    /// How long before the first sample a play that overlaps it may have begun: with only
    /// "ended after the first sample" to go by, SQLite read every play of the history for
    /// each batch of samples (5M plays: 36,000 samples/s; `scripts/bench/scale`). A day:
    /// no song or stream is played for longer in one go.
    static let longestPlayMs: Int64 = 86_400_000

    /// Gives every play overlapping [from, to] its heart rate: average and maximum of the
    /// samples during it, the zone of the average (by `zone`, which knows the settings in
    /// force then), and the workout it falls in. Late samples back-fill the same way.
    /// Returns the plays whose heart rate, zone or workout changed (a play tagged again with
    /// the same figures, as readings of a workout in progress arrive, is not among them).
    @discardableResult
    public func tagPlays(from: Date, to: Date, zone: (Date, Double) -> Zone) throws(StoreError) -> [Int64] {
        try write { db in
            // No sample where such a play could have one (it began between a day before
            // `from` and `to`, so it ended by a day after `to`): nothing to tag, and the plays
            // of that day are not read. Every stored play asks (a listening history of 5M plays
            // is ~860 a day: a page read each, ~2 ms, while the charts are read beside it).
            let (first, last) = (Store.milliseconds(from) - Store.longestPlayMs, Store.milliseconds(to) + Store.longestPlayMs)
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM hr_samples WHERE at_ms BETWEEN ? AND ?)"),
                                    arguments: [first, last]) == true else { return [] }
            let rows = try Row.fetchAll(db, sql: """
                SELECT p.id, p.started_at_ms, AVG(s.bpm) AS avg, MAX(s.bpm) AS max,
                       p.hr_avg AS was_avg, p.hr_max AS was_max, p.zone AS was_zone, p.workout_id AS was_workout
                FROM plays p JOIN hr_samples s ON s.at_ms BETWEEN p.started_at_ms AND p.ended_at_ms
                WHERE p.started_at_ms BETWEEN ? AND ? AND p.ended_at_ms >= ?
                GROUP BY +p.id  -- (the unary +: grouping by the id made SQLite scan plays in id order)
                """, arguments: [Store.milliseconds(from) - Store.longestPlayMs, Store.milliseconds(to), Store.milliseconds(from)])
            let update = try db.cachedStatement(sql: """
                UPDATE plays SET hr_avg = ?, hr_max = ?, zone = ?,
                  workout_id = (SELECT w.id FROM workouts w
                                WHERE w.started_at_ms < plays.ended_at_ms
                                  AND COALESCE(w.ended_at_ms, 9223372036854775807) > plays.started_at_ms
                                ORDER BY w.started_at_ms DESC LIMIT 1)
                WHERE id = ?
                RETURNING workout_id
                """)
            var changed: [Int64] = []
            for row in rows {
                let average: Double = row["avg"]
                let rounded = (average * 10).rounded() / 10, maximum: Int = row["max"], id: Int64 = row["id"]
                let z = zone(Store.date(milliseconds: row["started_at_ms"]), average)
                let workout = try Int64?.fetchOne(update, arguments: [rounded, maximum, z.rawValue, id]) ?? nil
                if row["was_avg"] as Double? != rounded || row["was_max"] as Int? != maximum || row["was_zone"] as Int? != z.rawValue
                    || row["was_workout"] as Int64? != workout {
                    changed.append(id)
                }
            }
            // Counted for whoever watches from another process (`smartPlaylistsStamp`): a
            // zone changes no count, id or total it could read cheaply.
            if !changed.isEmpty {
                try db.execute(sql: """
                    INSERT INTO meta (key, value) VALUES ('plays_tagged', '1')
                    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                    """)
            }
            return changed
        }
    }

    /// The plays that overlap [from, to], oldest first, with their tracks.
    public func plays(overlapping from: Date, _ to: Date) throws(StoreError) -> [PlayWithTrack] {
        try plays(limit: 10_000, from: from.addingTimeInterval(-3 * 3600), to: to)
            .filter { $0.play.endedAt >= from }
            .reversed()
    }
}
