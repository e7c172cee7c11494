import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// `/plans` (issue 55, point 1): the saved plans, each with its intensity over time, the
/// notation it is written in and how it went the times it ran; buttons to start, edit, copy,
/// export and delete one; a form to write a plan in the notation and one to import a plan
/// file. Every form is a plain POST: the page works without JavaScript.
extension API {
    /// The editor's form as sent, with what is wrong: a refused plan comes back to be fixed,
    /// not typed again.
    struct PlanDraft {
        var id: Int64?
        var name = ""
        var sport = ""
        var text = ""
        var error: String?
        /// `name` or `text`: where the problem is shown; nil: under the form.
        var errorKey: String?
        /// Why a file could not be imported, shown by the import form.
        var importError: String?
    }

    /// Sports a plan may be for, as FIT names them ("" is any).
    static let planSports = ["", "running", "cycling", "walking", "hiking", "rowing", "swimming", "training"]

    static let planNotationHelp = "Segments separated by commas: a length (45 s, 10 min, 1:30, 1 h, or open until you press next) "
        + "and a target: a zone (Z1–Z5), a ramp (Z2 → Z4), a heart rate (140-155 bpm), a cadence (170-180 spm), "
        + "a music tempo (tempo 128-132) or free. Repeat with 6 x [2 min Z5, 3 min Z2]; name a segment in quotes."

    func plansPage(_ request: HTTPRequest, mayWrite: Bool, notice: String? = nil, draft: PlanDraft? = nil,
                   status: Int = 200) throws -> HTTPResponse {
        let plans = try context.store.plans()
        let now = context.clock.now()
        let bounds = try context.store.zoneSettings().model(at: now).lowerBounds
        let editing = request.query["edit"].flatMap { Int64($0) }.flatMap { id in plans.first { $0.id == id } }
        let draft = draft ?? editing.map { PlanDraft(id: $0.id, name: $0.plan.name, sport: $0.plan.sport ?? "", text: $0.plan.text) } ?? PlanDraft()
        let running = try context.store.openWorkout()
        let history = try plans.map { $0.runs > 0 ? try planRuns($0.id) : [] }
        let f = format
        return html(title: "Plans", request: request, nav: "workouts", status: status) {
            Node.el("h1") { "Plans" }
            Node.el("p", ["class": "muted"]) {
                "Workouts you plan: intervals, ramps and steady blocks. Started, a plan leads the music: each next song is chosen "
                "for the segment it will mostly play in. "
                Node.el("a", ["href": url("/workouts")]) { "Past workouts" }
                "."
            }
            if let notice { Node.el("p", ["role": "status", "class": "card"]) { notice } }
            if let running, running.plan != nil {
                Node.el("p", ["class": "card"]) {
                    "A planned workout is in progress: "
                    Node.el("a", ["href": url("/")]) { "follow it on the dashboard" }
                    "."
                }
            }
            if plans.isEmpty {
                Node.el("section", ["class": "card"]) {
                    Node.el("p", ["class": "muted"]) {
                        "No plans yet. Write one below, for example "
                        Node.el("code") { "10 min Z2, 6 x [2 min Z5, 3 min Z2], 10 min Z1" }
                        ", or import a Zwift .zwo or a FIT workout file."
                    }
                }
            }
            // Starting another would replace the running plan (and its presses): not from here.
            let planRuns = running?.plan != nil
            for (stored, runs) in zip(plans, history) {
                planCard(stored, bounds: bounds, runs: runs, mayWrite: mayWrite, mayStart: !planRuns, f)
            }
            if mayWrite {
                planEditor(draft)
                planImportForm(error: draft.importError)
            } else {
                Node.el("p", ["class": "muted small"]) {
                    Node.el("a", ["href": url("/login?next=" + URLText.component("/plans"))]) { "Log in" }
                    " to write, start or import plans."
                }
            }
        }
    }

    private func planCard(_ stored: StoredPlan, bounds: [Double], runs: [(workout: Workout, compliance: Double?)],
                          mayWrite: Bool, mayStart: Bool, _ f: SiteFormat) -> Node {
        let plan = stored.plan
        let segments = plan.timeline().count
        return .el("section", ["class": "card plan", "id": "plan-\(stored.id)", "aria-labelledby": "plan-\(stored.id)-h"]) {
            Node.el("h2", ["id": "plan-\(stored.id)-h"]) {
                plan.name
                if let sport = plan.sport { Node.el("span", ["class": "badge"]) { sport } }
            }
            Node.el("p", ["class": "totals"]) {
                WorkoutPlan.clock(plan.fixedSeconds) + (plan.isOpenEnded ? " and open-ended" : "")
                " · \(SiteFormat.plural(segments, "segment"))"
                if stored.runs > 0 {
                    " · run \(SiteFormat.plural(stored.runs, "time"))"
                    if let last = stored.lastRun { ", last \(f.day(localTime.day(of: last)))" }
                } else {
                    " · not run yet"
                }
            }
            Chart.planIntensity(id: "plan-\(stored.id)-chart", plan: plan, title: "Intensity of \(plan.name) over time", zoneBounds: bounds)
            Node.el("p", ["class": "small notation"]) { Node.el("code") { plan.text } }
            if let last = runs.last {
                // How it went: the trend across weeks, and the latest run.
                Node.el("p", ["class": "small", "data-plan-trend": ""]) {
                    if let trend = planTrend(runs) { "Your \(plan.name): \(trendText(trend)). " }
                    "Latest: "
                    Node.el("a", ["href": url("/workouts/\(last.workout.id)")]) { f.day(localTime.day(of: last.workout.startedAt)) }
                    last.compliance.map { ", \(APIJSON.percent($0)) % on target" } ?? ""
                    "."
                }
            }
            if mayWrite {
                Node.el("form", ["method": "post", "action": url("/plans"), "class": "inline plan-actions"]) {
                    Node.el("input", ["type": "hidden", "name": "id", "value": String(stored.id)])
                    if mayStart { Node.el("button", ["type": "submit", "name": "action", "value": "start"]) { "Start" } }
                    Node.el("button", ["type": "submit", "name": "action", "value": "duplicate", "class": "secondary"]) { "Duplicate" }
                    Node.el("button", ["type": "submit", "name": "action", "value": "delete", "class": "danger"]) { "Delete" }
                }
                Node.el("p", ["class": "small"]) {
                    Node.el("a", ["href": url("/plans/\(stored.id)/playlist")]) { "Pre-run playlist" }
                    " · "
                    Node.el("a", ["href": url("/plans?edit=\(stored.id)#editor")]) { "Edit" }
                    " · "
                    Node.el("a", ["href": url("/api/v1/plans/\(stored.id)/export"), "download": ""]) { "Export" }
                }
            }
        }
    }

    private func planEditor(_ draft: PlanDraft) -> Node {
        .el("section", ["class": "card"]) {
            Node.el("h2", ["id": "editor"]) { draft.id == nil ? "New plan" : "Edit \(draft.name)" }
            Node.el("form", ["method": "post", "action": url("/plans") + "#editor", "class": "stacked plan-editor"]) {
                Node.el("input", ["type": "hidden", "name": "action", "value": "save"])
                if let id = draft.id { Node.el("input", ["type": "hidden", "name": "id", "value": String(id)]) }
                Self.textField("plan-name", name: "name", label: "Name", value: draft.name,
                               error: draft.errorKey == "name" ? draft.error : nil, maxLength: WorkoutPlan.maxNameLength)
                Node.el("span", ["class": "field"]) {
                    Node.el("label", ["for": "plan-sport"]) { "Sport" }
                    Node.el("select", ["id": "plan-sport", "name": "sport"]) {
                        for sport in Self.planSports {
                            Node.el("option", ["value": sport, "selected": sport == draft.sport ? "" : nil]) { sport.isEmpty ? "any" : sport }
                        }
                    }
                }
                Node.el("span", ["class": draft.errorKey == "text" ? "field invalid" : "field"]) {
                    Node.el("label", ["for": "plan-text"]) { "Segments" }
                    Node.el("textarea", ["id": "plan-text", "name": "text", "rows": "3", "required": "", "maxlength": "4000",
                                         "aria-describedby": draft.errorKey == "text" ? "plan-text-error plan-text-help" : "plan-text-help",
                                         "aria-invalid": draft.errorKey == "text" ? "true" : nil]) { draft.text }
                    if draft.errorKey == "text", let error = draft.error {
                        Node.el("span", ["id": "plan-text-error", "class": "field-error", "role": "alert"]) { error }
                    }
                }
                Node.el("p", ["id": "plan-text-help", "class": "muted small"]) { Self.planNotationHelp }
                Node.el("span") {
                    Node.el("button", ["type": "submit"]) { draft.id == nil ? "Save plan" : "Save changes" }
                    if draft.id != nil {
                        " "
                        Node.el("a", ["href": url("/plans")]) { "Cancel" }
                    }
                }
            }
            if let error = draft.error, draft.errorKey == nil {
                Node.el("p", ["class": "error field-error", "role": "alert"]) { error }
            }
        }
    }

    private func planImportForm(error: String?) -> Node {
        .el("section", ["class": "card"]) {
            Node.el("h2", ["id": "import"]) { "Import a plan" }
            Node.el("form", ["method": "post", "action": url("/plans") + "#import", "enctype": "multipart/form-data", "class": "search"]) {
                Node.el("input", ["type": "hidden", "name": "action", "value": "import"])
                Node.el("span", ["class": "field"]) {
                    Node.el("label", ["for": "plan-file"]) { "File" }
                    Node.el("input", ["id": "plan-file", "type": "file", "name": "file", "required": "", "accept": ".json,.zwo,.fit"])
                }
                Node.el("button", ["type": "submit"]) { "Import" }
            }
            if let error { Node.el("p", ["class": "error field-error", "role": "alert"]) { error } }
            Node.el("p", ["class": "muted small"]) { "A plan exported from Pacenote, a Zwift workout (.zwo) or a FIT workout file from a watch's app." }
        }
    }

    /// The forms of `/plans`: save (new or edited), start, duplicate, delete, import. A
    /// refused plan comes back in the form with the reason; a started one goes to the
    /// dashboard, where it runs.
    func plansForm(_ request: HTTPRequest) throws -> HTTPResponse {
        if let type = request.header("content-type"), type.lowercased().hasPrefix("multipart/form-data") {
            return try importPlanForm(request, contentType: type)
        }
        let field = { (name: String) in Self.formField(name, in: request.body) }
        let id = field("id").flatMap { Int64($0) }
        let now = context.clock.now()
        switch field("action") ?? "" {
        case "save":
            var draft = PlanDraft(id: id, name: field("name") ?? "", sport: field("sport") ?? "", text: field("text") ?? "")
            do {
                let plan = try WorkoutPlan(name: draft.name.trimmingCharacters(in: .whitespacesAndNewlines),
                                           sport: draft.sport.isEmpty ? nil : draft.sport, text: draft.text)
                if let id {
                    try context.operations.updatePlan(id: id, plan, now: now)
                    return try plansPage(request, mayWrite: true, notice: "Saved \(plan.name).")
                }
                _ = try context.operations.savePlan(plan, now: now)
                return try plansPage(request, mayWrite: true, notice: "Saved \(plan.name): \(WorkoutPlan.clock(plan.fixedSeconds)).")
            } catch let problem as WorkoutPlan.Problem {
                draft.errorKey = problem.path == "name" ? "name" : "text"
                draft.error = problem.path == "name" ? problem.message : Self.sitewise(problem.description)
                return try plansPage(request, mayWrite: true, draft: draft, status: 400)
            } catch {
                let error = APIError(error)
                draft.errorKey = error.code == "plan_exists" ? "name" : nil
                draft.error = error.status >= 500 ? "The plan could not be saved this time. Try again in a moment." : Self.sitewise(error.message)
                return try plansPage(request, mayWrite: true, draft: draft, status: error.status)
            }
        case "start":
            guard let id else { throw APIError.badRequest("say which plan", code: "invalid_plan") }
            _ = try startPlan(id)
            return HTTPResponse(status: 303, headers: [("Location", url("/") + "#plan-live"), ("Cache-Control", "no-store")])
        case "duplicate":
            guard let id else { throw APIError.badRequest("say which plan", code: "invalid_plan") }
            let copy = try context.operations.duplicatePlan(id: id, now: now)
            let name = try context.store.plan(id: copy)?.plan.name ?? "the copy"
            return try plansPage(request, mayWrite: true, notice: "Copied as \(name).")
        case "delete":
            guard let id, let stored = try context.store.plan(id: id) else { throw APIError.notFound("There is no such plan.") }
            try context.operations.deletePlan(id: id)
            return try plansPage(request, mayWrite: true, notice: "Deleted \(stored.plan.name). Workouts that ran it keep it.")
        case let action:
            // The dashboard's buttons for the planned workout in progress: next, pause, resume, end.
            guard let workout = field("workout").flatMap({ Int64($0) }) else {
                throw APIError.badRequest("unknown action", code: "invalid_action")
            }
            guard let stored = try context.store.workout(id: workout), let plan = stored.plan, let start = stored.planStartedAt else {
                throw APIError(kind: .notFound, code: "no_plan", message: "Workout \(workout) follows no plan.")
            }
            let back = HTTPResponse(status: 303, headers: [("Location", url("/") + "#plan-live"), ("Cache-Control", "no-store")])
            if let kind = PlanProgress.Mark.Kind(rawValue: action) {
                // A card left open shows a segment that may have ended by time since: its Next
                // is for that segment, not the one after it; a press made twice changes nothing.
                if kind == .next, let shown = field("segment").flatMap({ Int($0) }),
                   PlanProgress.state(of: plan.timeline(), start: start, marks: try context.store.planMarks(workoutID: workout), now: now).current != shown {
                    return back
                }
                do { try context.operations.markPlan(workoutID: workout, kind, at: now) } catch {
                    let e = APIError(error)
                    guard e.status == 409 else { throw error }
                }
                return back
            }
            guard action == "end" else { throw APIError.badRequest("unknown action", code: "invalid_action") }
            _ = try stopWorkout(workout)
            return HTTPResponse(status: 303, headers: [("Location", url("/workouts/\(workout)")), ("Cache-Control", "no-store")])
        }
    }

    /// The import form: one file, read as `POST /api/v1/plans/import` reads it.
    private func importPlanForm(_ request: HTTPRequest, contentType: String) throws -> HTTPResponse {
        guard let parts = Multipart.parts(request.body, contentType: contentType),
              let file = parts.first(where: { $0.name == "file" }), !file.body.isEmpty else {
            return try plansPage(request, mayWrite: true, draft: PlanDraft(importError: "Choose a plan file to import."), status: 400)
        }
        do {
            let plan = try WorkoutPlan(file: file.body, fallbackName: "Imported plan")
            let id = try context.operations.savePlan(plan, now: context.clock.now())
            return try plansPage(request, mayWrite: true, notice: "Imported \(try context.store.plan(id: id)?.plan.name ?? plan.name).")
        } catch let problem as WorkoutPlan.Problem {
            return try plansPage(request, mayWrite: true, draft: PlanDraft(importError: "That file is not a plan: \(problem.description)."), status: 400)
        } catch {
            let error = APIError(error)
            return try plansPage(request, mayWrite: true, draft: PlanDraft(importError: Self.sitewise(error.message)), status: error.status)
        }
    }
}
