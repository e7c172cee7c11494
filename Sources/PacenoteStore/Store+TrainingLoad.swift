import Foundation
import GRDB
import PacenoteCore

/// A workout's stored load: its start and TRIMP (`TRIMP`), for the fitness/fatigue model.
public struct WorkoutLoad: Equatable, Sendable {
    public var workoutID: Int64
    public var startedAt: Date
    public var trimp: Double

    public init(workoutID: Int64, startedAt: Date, trimp: Double) {
        self.workoutID = workoutID
        self.startedAt = startedAt
        self.trimp = trimp
    }
}

extension Store {
    // MARK: Training load

    /// Stores a workout's TRIMP, by zone too, and the `[athlete]` figures it was computed with.
    public func setWorkoutLoad(id: Int64, _ load: TRIMP, basis: String) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE workouts SET trimp = ?, trimp_zones = ?, trimp_basis = ? WHERE id = ?",
                           arguments: [load.total, Self.zonesJSON(load.byZone), basis, id])
        }
    }

    /// Ended workouts whose load is missing or was computed with other `[athlete]` figures.
    public func workoutsNeedingLoad(basis: String, limit: Int = 500) throws(StoreError) -> [Workout] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM workouts WHERE ended_at_ms IS NOT NULL AND (trimp_basis IS NULL OR trimp_basis <> ?)
                ORDER BY started_at_ms LIMIT ?
                """, arguments: [basis, limit]).map(Store.workout(from:))
        }
    }

    /// The stored loads of the workouts that began before `to`, oldest first: the model needs
    /// every one since the first, whatever range is shown.
    public func workoutLoads(before to: Date) throws(StoreError) -> [WorkoutLoad] {
        try read { db in
            // One row per workout through SQLite's C API: five years of daily workouts.
            let statement = try RawStatement(db, """
                SELECT id, started_at_ms, trimp FROM workouts
                WHERE trimp IS NOT NULL AND started_at_ms < ?1 ORDER BY started_at_ms
                """)
            statement.bind(1, Store.milliseconds(to))
            var loads: [WorkoutLoad] = []
            while try statement.step() {
                loads.append(WorkoutLoad(workoutID: statement.int64(0), startedAt: Store.date(milliseconds: statement.int64(1)),
                                         trimp: statement.double(2)))
            }
            return loads
        }
    }

    /// A workout's stored load, when it has one.
    public func workoutLoad(id: Int64) throws(StoreError) -> TRIMP? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT trimp, trimp_zones FROM workouts WHERE id = ?", arguments: [id]),
                  let total = row["trimp"] as Double? else { return nil }
            return TRIMP(total: total, byZone: Self.zones(row["trimp_zones"]))
        }
    }

    /// The load of the workouts that began in [from, to), by zone (Z0…Z5).
    public func loadByZone(from: Date, to: Date) throws(StoreError) -> [Double] {
        try read { db in
            var sum = [Double](repeating: 0, count: 6)
            for json in try String?.fetchAll(db, sql: """
                SELECT trimp_zones FROM workouts WHERE started_at_ms >= ? AND started_at_ms < ? AND trimp IS NOT NULL
                """, arguments: [Store.milliseconds(from), Store.milliseconds(to)]) {
                for (i, v) in Self.zones(json).enumerated() { sum[i] += v }
            }
            return sum
        }
    }

    static func zonesJSON(_ zones: [Double]) -> String {
        "[" + zones.map { String(format: "%.3f", $0) }.joined(separator: ",") + "]"
    }

    static func zones(_ json: String?) -> [Double] {
        let values = (try? JSONDecoder().decode([Double].self, from: Data((json ?? "[]").utf8))) ?? []
        return values.count == 6 ? values : [Double](repeating: 0, count: 6)
    }

    // MARK: RR intervals

    /// The RR intervals (ms) stored between two instants, in time order, from the one source
    /// that sent the most of them: a strap and a phone relaying it send the same beats, and
    /// counting them twice would make every other difference zero.
    public func rrIntervals(from: Date, to: Date) throws(StoreError) -> [Double] {
        try read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT source, rr_ms FROM hr_samples WHERE at_ms BETWEEN ? AND ? AND rr_ms IS NOT NULL ORDER BY at_ms
                """, arguments: [Store.milliseconds(from), Store.milliseconds(to)])
            var bySource: [String: [Double]] = [:]
            for row in rows { bySource[row["source"], default: []].append(contentsOf: Self.rrValues(row["rr_ms"])) }
            return bySource.max { a, b in a.value.count < b.value.count || (a.value.count == b.value.count && a.key > b.key) }?.value ?? []
        }
    }

    /// The numbers of `rr_ms` as `insertSamples` writes it (`[812.0,790.5]`), split by hand
    /// rather than by a JSON decoder per reading: a three-hour workout has 10,800 readings.
    static func rrValues(_ text: String) -> [Double] {
        text.utf8.split { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") || $0 == UInt8(ascii: " ") }
            .compactMap { String($0).flatMap { Double($0) } }
    }
}
