import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Plans over the API (issue 55): `/api/v1/plans` lists and saves them, one plan is read,
/// replaced, deleted, copied and exported; a plan file (Pacenote's JSON, Zwift's `.zwo`, a
/// FIT workout) is imported; a plan is started, and a planned workout's presses (next,
/// pause, resume) and progress are `/api/v1/workouts/{id}/plan`.
extension API {
    func plansJSON() throws -> JSONValue {
        .object([("plans", .array(try context.store.plans().map(APIJSON.planSummary)))])
    }

    /// The plan, its segments laid out, and how it went each time it ran (its compliance,
    /// and by week).
    func planJSON(_ id: Int64) throws -> JSONValue {
        guard case .object(var fields) = APIJSON.plan(try storedPlan(id)) else { return .null }
        let runs = try planRuns(id)
        fields += APIJSON.planHistory(runs, trend: planTrend(runs))
        return .object(fields)
    }

    /// POST: a plan as JSON (`WorkoutPlan.json`), or `{"name", "sport"?, "text"}` in the notation.
    func createPlan(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try context.operations.savePlan(try Self.plan(from: request), now: context.clock.now())
        return .json(APIJSON.plan(try storedPlan(id)), status: 201)
    }

    func updatePlan(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        _ = try storedPlan(id)
        try context.operations.updatePlan(id: id, try Self.plan(from: request), now: context.clock.now())
        return APIJSON.plan(try storedPlan(id))
    }

    func deletePlan(_ id: Int64) throws -> JSONValue {
        try context.operations.deletePlan(id: id)
        return .object([("id", .int(id)), ("deleted", .bool(true))])
    }

    func duplicatePlan(_ id: Int64) throws -> HTTPResponse {
        let copy = try context.operations.duplicatePlan(id: id, now: context.clock.now())
        return .json(APIJSON.plan(try storedPlan(copy)), status: 201)
    }

    /// The plan as a file to keep or give (the JSON `POST /api/v1/plans/import` takes back).
    func exportPlan(_ id: Int64) throws -> HTTPResponse {
        let stored = try storedPlan(id)
        let data = try JSONSerialization.data(withJSONObject: stored.plan.json, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Disposition", "attachment; filename=\"\(Self.fileName(stored.plan.name)).plan.json\""),
            ("Cache-Control", "private, no-store"),
        ], body: Array(data))
    }

    /// POST a plan file as the body: Pacenote's JSON (an export), Zwift's `.zwo` or a FIT
    /// workout file, told apart by their first bytes. `?name=` names a plan whose file has none.
    func importPlan(_ request: HTTPRequest) throws -> HTTPResponse {
        let bytes = request.body
        let fallback = request.query["name"].flatMap { $0.isEmpty ? nil : $0 } ?? "Imported plan"
        let plan: WorkoutPlan
        do {
            plan = try WorkoutPlan(file: bytes, fallbackName: fallback)
        } catch {
            throw APIError.badRequest(error.description, code: "invalid_plan")
        }
        let id = try context.operations.savePlan(plan, now: context.clock.now())
        return .json(APIJSON.plan(try storedPlan(id)), status: 201)
    }

    /// Starts a workout following the plan (or gives the plan to the workout in progress).
    func startPlan(_ id: Int64) throws -> HTTPResponse {
        let stored = try storedPlan(id)
        let now = context.clock.now()
        let workoutID = try backend.startWorkout(name: stored.plan.name, now: now)
        try context.operations.followPlan(workoutID: workoutID, planID: id, stored.plan, at: now)
        return .json(try workoutPlanJSON(workoutID), status: 201)
    }

    /// Where a planned workout is: its plan, the current segment, its target and time left,
    /// what comes next.
    func workoutPlanJSON(_ workoutID: Int64) throws -> JSONValue {
        guard let workout = try context.store.workout(id: workoutID) else { throw APIError.notFound("no workout \(workoutID)") }
        guard let plan = workout.plan, let start = workout.planStartedAt else {
            throw APIError(kind: .notFound, code: "no_plan", message: "workout \(workoutID) follows no plan")
        }
        let marks = try context.store.planMarks(workoutID: workoutID)
        let state = PlanProgress.state(of: plan.timeline(), start: start, marks: marks, now: workout.endedAt ?? context.clock.now())
        return APIJSON.planProgress(workout: workout, plan: plan, state: state)
    }

    /// POST `{"action": "next" | "pause" | "resume"}`.
    func markWorkoutPlan(_ workoutID: Int64, _ request: HTTPRequest) throws -> JSONValue {
        let body = try Self.jsonObject(request)
        guard let action = body["action"] as? String, let kind = PlanProgress.Mark.Kind(rawValue: action) else {
            throw APIError.badRequest("'action' must be \"next\", \"pause\" or \"resume\"", code: "invalid_action")
        }
        try context.operations.markPlan(workoutID: workoutID, kind, at: context.clock.now())
        return try workoutPlanJSON(workoutID)
    }

    private func storedPlan(_ id: Int64) throws -> StoredPlan {
        guard let stored = try context.store.plan(id: id) else { throw APIError.notFound("no plan \(id)") }
        return stored
    }

    /// A plan from a request's JSON body: the plan's own JSON, or its notation in `text`.
    static func plan(from request: HTTPRequest) throws -> WorkoutPlan {
        let body = try jsonObject(request)
        do {
            if let text = body["text"] {
                guard let text = text as? String else { throw APIError.badRequest("'text' must be a string", code: "invalid_plan") }
                guard let name = body["name"] as? String else { throw APIError.badRequest("'name' must be a string", code: "invalid_plan") }
                return try WorkoutPlan(name: name, sport: body["sport"] as? String, text: text)
            }
            return try WorkoutPlan(json: body)
        } catch let problem as WorkoutPlan.Problem {
            throw APIError.badRequest(problem.description, code: "invalid_plan")
        }
    }

    /// A name safe in a download's file name.
    static func fileName(_ name: String) -> String {
        let kept = name.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" ? Character($0) : "-" }
        let joined = String(kept).split(separator: "-", omittingEmptySubsequences: true).joined(separator: "-")
        return joined.isEmpty ? "plan" : String(joined.prefix(60))
    }
}

extension APIJSON {
    static func planSummary(_ stored: StoredPlan) -> JSONValue {
        let plan = stored.plan
        return .object([
            ("id", .int(stored.id)),
            ("name", .string(plan.name)),
            ("sport", .optional(plan.sport)),
            ("seconds", .int(Int64(plan.fixedSeconds))),
            ("open_ended", .bool(plan.isOpenEnded)),
            ("segments", .int(Int64(plan.timeline().count))),
            ("text", .string(plan.text)),
            ("created_at", timestamp(stored.createdAt)),
            ("updated_at", timestamp(stored.updatedAt)),
            ("runs", .int(Int64(stored.runs))),
            ("last_run", timestamp(stored.lastRun)),
        ])
    }

    /// The summary, the plan as its JSON (what PUT and import take) and its segments laid out.
    static func plan(_ stored: StoredPlan) -> JSONValue {
        guard case .object(var fields) = planSummary(stored) else { return .null }
        fields.append(("plan", JSONValue(foundation: stored.plan.json)))
        fields.append(("timeline", .array(stored.plan.timeline().map(planned))))
        return .object(fields)
    }

    static func planned(_ p: WorkoutPlan.Planned) -> JSONValue {
        .object([
            ("index", .int(Int64(p.index))),
            ("offset_s", .int(Int64(p.offset))),
            ("seconds", .optional(p.seconds)),
            ("target", JSONValue(foundation: WorkoutPlan.json(p.target))),
            ("target_text", .string(p.target.text)),
            ("label", .optional(p.segment.label)),
            ("rounds", .array(p.rounds.map { .int(Int64($0)) })),
        ])
    }

    static func planProgress(workout: Workout, plan: WorkoutPlan, state: PlanProgress.State) -> JSONValue {
        let timeline = plan.timeline()
        func segment(_ i: Int?) -> JSONValue { i.flatMap { $0 < timeline.count ? planned(timeline[$0]) : nil } ?? .null }
        return .object([
            ("workout_id", .int(workout.id)),
            ("plan_id", .optional(workout.planID)),
            ("name", .string(plan.name)),
            ("started_at", timestamp(workout.planStartedAt)),
            ("in_progress", .bool(workout.endedAt == nil)),
            ("finished", .bool(state.finished)),
            ("paused", .bool(state.paused)),
            ("elapsed_s", .double(state.planElapsed.rounded())),
            ("current", segment(state.current)),
            ("segment_elapsed_s", .double(state.elapsed.rounded())),
            ("segment_remaining_s", .optional(state.remaining.map { $0.rounded() })),
            ("next", segment(state.current.map { $0 + 1 })),
            ("segments", .array(state.spans.map { span in
                .object([
                    ("index", .int(Int64(span.index))),
                    ("start", timestamp(span.start)),
                    ("end", timestamp(span.end)),
                    ("ended_by", .optional(span.endedBy?.rawValue)),
                    ("paused_s", .double(span.pausedSeconds.rounded())),
                ])
            })),
        ])
    }
}

extension JSONValue {
    /// What JSONSerialization reads or writes (`[String: Any]`, `[Any]`, numbers, strings),
    /// keys sorted: for the plan's own JSON, whose shape `WorkoutPlan.json` owns.
    init(foundation value: Any) {
        switch value {
        case let object as [String: Any]:
            self = .object(object.keys.sorted().map { ($0, JSONValue(foundation: object[$0]!)) })
        case let array as [Any]: self = .array(array.map(JSONValue.init(foundation:)))
        case let string as String: self = .string(string)
        // Swift's own values first (a plan's JSON as built), then JSONSerialization's numbers.
        case let bool as Bool where type(of: value) == Bool.self: self = .bool(bool)
        case let int as Int where type(of: value) == Int.self: self = .int(Int64(int))
        case let number as NSNumber:
            if isJSONBool(number) {
                self = .bool(number.boolValue)
            } else if let i = Int64(exactly: number.doubleValue) {
                self = .int(i)
            } else {
                self = .double(number.doubleValue)
            }
        default: self = .null
        }
    }
}
