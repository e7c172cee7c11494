import Foundation
import GRDB
import PacenoteCore

/// A saved plan (issue 55): a template to start workouts from.
public struct StoredPlan: Equatable, Sendable {
    public var id: Int64
    public var plan: WorkoutPlan
    public var createdAt: Date
    public var updatedAt: Date
    /// The workouts that ran it, and when the latest began.
    public var runs: Int
    public var lastRun: Date?
}

/// Plans (v31): templates as the API's JSON, their names unique without regard to case,
/// and the presses of a planned workout (`PlanProgress.Mark`).
extension Store {
    /// The plan as stored: `WorkoutPlan.json` with its keys sorted (a plan saved twice is the
    /// same text).
    static func planJSON(_ plan: WorkoutPlan) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: plan.json, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A stored plan read back; nil if the text is not one (never written by us).
    static func plan(fromJSON text: String) -> WorkoutPlan? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { return nil }
        return try? WorkoutPlan(json: object)
    }

    private static let planColumns = """
        p.id, p.plan_json, p.created_at_ms, p.updated_at_ms,
        (SELECT count(*) FROM workouts w WHERE w.plan_id = p.id) AS runs,
        (SELECT max(started_at_ms) FROM workouts w WHERE w.plan_id = p.id) AS last_run_ms
        """

    private static func storedPlan(from row: Row) -> StoredPlan? {
        guard let plan = plan(fromJSON: row["plan_json"]) else { return nil }
        return StoredPlan(id: row["id"], plan: plan, createdAt: date(milliseconds: row["created_at_ms"]),
                          updatedAt: date(milliseconds: row["updated_at_ms"]), runs: row["runs"],
                          lastRun: (row["last_run_ms"] as Int64?).map(date(milliseconds:)))
    }

    /// Every saved plan, by name.
    public func plans() throws(StoreError) -> [StoredPlan] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT \(Store.planColumns) FROM plans p ORDER BY p.name COLLATE NOCASE, p.id")
                .compactMap(Store.storedPlan(from:))
        }
    }

    public func plan(id: Int64) throws(StoreError) -> StoredPlan? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Store.planColumns) FROM plans p WHERE p.id = ?", arguments: [id])
                .flatMap(Store.storedPlan(from:))
        }
    }

    /// The plan of that name, whatever its case.
    public func plan(named name: String) throws(StoreError) -> StoredPlan? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT \(Store.planColumns) FROM plans p WHERE p.name = ? COLLATE NOCASE", arguments: [name])
                .flatMap(Store.storedPlan(from:))
        }
    }

    /// Saves a new plan (validated by the caller); refused when another has its name.
    public func insertPlan(_ plan: WorkoutPlan, now: Date) throws(StoreError) -> Int64 {
        try write { db in
            try Store.refuseTakenName(plan.name, except: nil, in: db)
            let ms = Store.milliseconds(now)
            try db.execute(sql: """
                INSERT INTO plans (name, plan_json, seconds, open_ended, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [plan.name, Store.planJSON(plan), plan.fixedSeconds, plan.isOpenEnded, ms, ms])
            return db.lastInsertedRowID
        }
    }

    /// Replaces a saved plan; false when there is none with this id. Workouts that ran it keep
    /// the plan as it was.
    public func updatePlan(id: Int64, _ plan: WorkoutPlan, now: Date) throws(StoreError) -> Bool {
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plans WHERE id = ?)", arguments: [id]) == true else { return false }
            try Store.refuseTakenName(plan.name, except: id, in: db)
            try db.execute(sql: """
                UPDATE plans SET name = ?, plan_json = ?, seconds = ?, open_ended = ?, updated_at_ms = ? WHERE id = ?
                """, arguments: [plan.name, Store.planJSON(plan), plan.fixedSeconds, plan.isOpenEnded, Store.milliseconds(now), id])
            return true
        }
    }

    private static func refuseTakenName(_ name: String, except id: Int64?, in db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plans WHERE name = ? COLLATE NOCASE AND id IS NOT ?)",
                             arguments: [name, id]) == true {
            throw StoreError.refused(.planNameTaken, "a plan named '\(name)' exists already")
        }
    }

    /// Deletes a saved plan; the workouts that ran it keep their copy of it.
    public func deletePlan(id: Int64) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM plans WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    /// A name not taken yet: `NAME (copy)`, `NAME (copy 2)`, … cut to fit the length a name may have.
    public func freePlanName(copying name: String) throws(StoreError) -> String {
        try read { db in
            for n in 1...1000 {
                let suffix = n == 1 ? " (copy)" : " (copy \(n))"
                let candidate = String(name.prefix(WorkoutPlan.maxNameLength - suffix.count)) + suffix
                if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM plans WHERE name = ? COLLATE NOCASE)", arguments: [candidate]) != true {
                    return candidate
                }
            }
            return String(name.prefix(WorkoutPlan.maxNameLength - 20)) + " (copy \(UUID().uuidString.prefix(8)))"
        }
    }

    // MARK: A planned workout

    /// A workout follows `plan` (saved as `planID`, or nil for one not saved) from `at`; its
    /// presses so far are dropped (a plan started again begins again).
    public func setWorkoutPlan(workoutID: Int64, planID: Int64?, _ plan: WorkoutPlan, at: Date) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE workouts SET plan_id = ?, plan_json = ?, plan_started_at_ms = ? WHERE id = ?",
                           arguments: [planID, Store.planJSON(plan), Store.milliseconds(at), workoutID])
            guard db.changesCount > 0 else { throw StoreError.refused(.missing, "no workout \(workoutID)") }
            try db.execute(sql: "DELETE FROM workout_plan_marks WHERE workout_id = ?", arguments: [workoutID])
        }
    }


    /// Records a press of the runner's on a workout in progress.
    public func addPlanMark(workoutID: Int64, _ mark: PlanProgress.Mark) throws(StoreError) {
        try write { db in
            let ms = Store.milliseconds(mark.at)
            try db.execute(sql: """
                INSERT INTO workout_plan_marks (workout_id, at_ms, seq, kind)
                VALUES (?1, ?2, (SELECT count(*) FROM workout_plan_marks WHERE workout_id = ?1 AND at_ms = ?2), ?3)
                """, arguments: [workoutID, ms, mark.kind.rawValue])
        }
    }

    public func planMarks(workoutID: Int64) throws(StoreError) -> [PlanProgress.Mark] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT at_ms, kind FROM workout_plan_marks WHERE workout_id = ? ORDER BY at_ms, seq",
                             arguments: [workoutID]).compactMap { row in
                PlanProgress.Mark.Kind(rawValue: row["kind"]).map { PlanProgress.Mark($0, at: Store.date(milliseconds: row["at_ms"])) }
            }
        }
    }

    /// The workouts a template ran, oldest first (for its compliance across the weeks).
    public func workouts(ofPlan id: Int64) throws(StoreError) -> [Workout] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM workouts WHERE plan_id = ? ORDER BY started_at_ms", arguments: [id])
                .map(Store.workout(from:))
        }
    }
}
