import Foundation
import PacenoteCore
import PacenoteStore

/// Plans (issue 55): saving, changing, copying and deleting templates, and a workout
/// following one — its start and the runner's presses. Each plan is validated here, once,
/// whichever door it came through (the form, the API's JSON, a `.zwo` or FIT file, a command).
extension Operations {
    /// Saves a new plan; returns its id.
    @discardableResult
    public func savePlan(_ plan: WorkoutPlan, now: Date = Date()) throws -> Int64 {
        let plan = try Self.checked(plan)
        let id = try store.insertPlan(plan, now: now)
        announce(.plans)
        return id
    }

    /// Replaces a saved plan (workouts that ran it keep the plan as it was).
    public func updatePlan(id: Int64, _ plan: WorkoutPlan, now: Date = Date()) throws {
        let plan = try Self.checked(plan)
        guard try store.updatePlan(id: id, plan, now: now) else {
            throw OperationError.notFound("no plan \(id)")
        }
        announce(.plans)
    }

    public func deletePlan(id: Int64) throws {
        guard try store.deletePlan(id: id) else { throw OperationError.notFound("no plan \(id)") }
        announce(.plans)
    }

    /// Saves a copy of a plan under a free name (`NAME (copy)`); returns the copy's id.
    @discardableResult
    public func duplicatePlan(id: Int64, now: Date = Date()) throws -> Int64 {
        guard var plan = try store.plan(id: id)?.plan else { throw OperationError.notFound("no plan \(id)") }
        plan.name = try store.freePlanName(copying: plan.name)
        return try savePlan(plan, now: now)
    }

    /// The workout `workoutID` (in progress) follows `plan` from `at`: the saved plan `planID`,
    /// or one not saved (nil).
    public func followPlan(workoutID: Int64, planID: Int64?, _ plan: WorkoutPlan, at: Date) throws {
        let plan = try Self.checked(plan)
        try store.setWorkoutPlan(workoutID: workoutID, planID: planID, plan, at: at)
        announce(.workout(id: workoutID))
    }

    /// A press of the runner's on a planned workout in progress: next segment, pause, resume.
    /// Returns where the plan is after it.
    @discardableResult
    public func markPlan(workoutID: Int64, _ kind: PlanProgress.Mark.Kind, at: Date) throws -> PlanProgress.State {
        guard let workout = try store.workout(id: workoutID) else { throw OperationError.notFound("no workout \(workoutID)") }
        guard workout.endedAt == nil else { throw OperationError(.conflict, code: "not_in_progress", "workout \(workoutID) has ended") }
        guard let plan = workout.plan, let start = workout.planStartedAt else {
            throw OperationError(.conflict, code: "no_plan", "workout \(workoutID) follows no plan")
        }
        let timeline = plan.timeline()
        let marks = try store.planMarks(workoutID: workoutID)
        let before = PlanProgress.state(of: timeline, start: start, marks: marks, now: at)
        guard !before.finished else { throw OperationError(.conflict, code: "plan_done", "the plan is done: every segment has run") }
        switch kind {
        case .pause where before.paused: throw OperationError(.conflict, code: "paused", "the plan is paused already")
        case .resume where !before.paused: throw OperationError(.conflict, code: "not_paused", "the plan is not paused")
        default: break
        }
        let mark = PlanProgress.Mark(kind, at: at)
        try store.addPlanMark(workoutID: workoutID, mark)
        announce(.workout(id: workoutID))
        return PlanProgress.state(of: timeline, start: start, marks: marks + [mark], now: at)
    }

    /// The plan, validated, in the words the editor and the API show.
    static func checked(_ plan: WorkoutPlan) throws -> WorkoutPlan {
        var plan = plan
        plan.name = plan.name.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            try plan.validate()
        } catch {
            throw OperationError.invalid("invalid_plan", error.description)
        }
        return plan
    }
}
