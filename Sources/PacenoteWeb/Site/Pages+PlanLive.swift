import Foundation
import PacenoteCore
import PacenoteStore

/// The dashboard's card for a planned workout in progress (issue 55, point 2): the segment,
/// its target against the live heart rate, the time left in it and what comes next, the
/// plan's intensity with a line at now, and the runner's buttons (next segment, pause or
/// resume, end). With no plan running, a logged-in owner can start one from here.
///
/// The buttons are plain forms (`POST /plans`), so the card works without JavaScript;
/// `live.js` counts the time left down each second and takes the card again from the
/// dashboard as the server makes it when a segment ends, every 15 s, or when a
/// `workout_changed` event says the runner pressed a button somewhere else (a watch,
/// `pacenote workout next`).
extension API {
    /// What the card shows, part of the dashboard's cache key: it changes each second a plan runs.
    struct PlanLive: Equatable, Sendable {
        var workoutID: Int64
        var plan: WorkoutPlan
        var state: PlanProgress.State
        var zoneBounds: [Double]
        /// Whether heart rate has stopped coming (nothing fresh for `sensorsSilentAfter`).
        var sensorsSilent: Bool
    }

    /// The plans the owner can start from the dashboard (none while a planned workout runs).
    struct StartablePlan: Equatable, Sendable {
        var id: Int64
        var name: String
    }

    /// No reading for this long and the card says the music follows the plan by time (the
    /// issue's 20 s: a strap that drops out for a few beats is not "stopped").
    static let sensorsSilentAfter: TimeInterval = 20

    /// The planned workout in progress, or the plans that could be started.
    /// A failure to read them costs the card, not the dashboard.
    func planLive(now: Date, heartRate: LiveHeartRate?, mayWrite: Bool) -> (live: PlanLive?, startable: [StartablePlan]) {
        do {
            if let workout = try context.store.openWorkout(), let plan = workout.plan, let start = workout.planStartedAt {
                let marks = try context.store.planMarks(workoutID: workout.id)
                var state = PlanProgress.state(of: plan.timeline(), start: start, marks: marks, now: now)
                // Whole seconds, as the card shows them: the dashboard's cache key changes once a second.
                state.elapsed.round()
                state.planElapsed.round()
                state.remaining?.round()
                for i in state.spans.indices { state.spans[i].pausedSeconds.round() }
                let bounds = try context.store.zoneSettings().model(settingsID: workout.zoneSettingsID, at: workout.startedAt).lowerBounds
                // The live value goes stale sooner (`fresh_for_s`): silence is judged on the readings.
                let silent = try heartRate == nil && context.store.samples(from: now.addingTimeInterval(-Self.sensorsSilentAfter), to: now).isEmpty
                return (PlanLive(workoutID: workout.id, plan: plan, state: state, zoneBounds: bounds, sensorsSilent: silent), [])
            }
            return (nil, mayWrite ? try context.store.plans().map { StartablePlan(id: $0.id, name: $0.plan.name) } : [])
        } catch {
            return (nil, [])
        }
    }

    func planLiveCard(_ live: PlanLive?, startable: [StartablePlan], heartRate: LiveHeartRate?, mayWrite: Bool) -> Node {
        guard let live else { return planStartCard(startable, mayWrite: mayWrite) }
        let timeline = live.plan.timeline()
        let state = live.state
        let current = state.current.map { timeline[$0] }
        let next = state.current.flatMap { $0 + 1 < timeline.count ? timeline[$0 + 1] : nil }
        return .el("section", ["class": "card plan-live", "id": "plan-live", "aria-labelledby": "plan-live-h",
                               "data-plan-live": String(live.workoutID), "data-remaining": state.remaining.map { Chart.number($0) },
                               "data-paused": state.paused ? "1" : nil]) {
            Node.el("h2", ["id": "plan-live-h"]) { "Plan: \(live.plan.name)" }
            if let current {
                Node.el("p", ["class": "plan-segment"]) {
                    Node.el("span", ["data-plan-segment": ""]) { "Segment \(current.index + 1) of \(timeline.count)" }
                    if let label = current.segment.label { " · \(label)" }
                    if state.paused { Node.el("span", ["class": "badge", "data-plan-paused": ""]) { "paused" } }
                }
                Node.el("p", ["class": "plan-target"]) {
                    Node.el("span", ["class": "zone \(Self.targetZoneClass(current.target))", "data-plan-target": ""]) {
                        Self.targetText(current.target, bounds: live.zoneBounds)
                    }
                    " · now "
                    Node.el("span", ["data-plan-now": ""]) { heartRate.map { "\(Int($0.bpm.rounded())) bpm (Z\($0.zone.rawValue))" } ?? "–" }
                    " "
                    Node.el("span", ["class": "badge", "data-plan-verdict": ""]) {
                        Self.verdict(current, elapsed: state.elapsed, heartRate: live.sensorsSilent ? nil : heartRate, bounds: live.zoneBounds) ?? ""
                    }
                }
                Node.el("p", ["class": "bpm plan-left"]) {
                    Node.el("span", ["data-plan-left": ""]) { state.remaining.map { SiteFormat.clock($0) } ?? "open" }
                    Node.el("small") { state.remaining == nil ? " until you press next" : " left" }
                }
                Node.el("p", ["class": "muted small"]) {
                    "Next: "
                    Node.el("span", ["data-plan-next": ""]) {
                        next.map { "\($0.seconds.map(WorkoutPlan.clock) ?? "open") \($0.target.text)" } ?? "the end of the plan"
                    }
                }
            } else {
                Node.el("p", ["data-plan-segment": ""]) { "Plan done: every segment is behind you. End the workout when you stop." }
            }
            Node.el("p", ["class": "muted small", "role": "status", "data-plan-sensors": "", "hidden": live.sensorsSilent ? nil : ""]) {
                "No heart rate is coming in: the music follows the plan by time."
            }
            Chart.planIntensity(id: "plan-live-chart", plan: live.plan, title: "Intensity of \(live.plan.name), now marked",
                                zoneBounds: live.zoneBounds, now: state.current.map { ($0, state.elapsed) }, width: 360, height: 110)
            if mayWrite {
                Node.el("form", ["method": "post", "action": url("/plans"), "class": "inline plan-actions"]) {
                    Node.el("input", ["type": "hidden", "name": "workout", "value": String(live.workoutID)])
                    // Next ends the segment shown, not one that began since (a card left open).
                    if let index = state.current { Node.el("input", ["type": "hidden", "name": "segment", "value": String(index)]) }
                    if current != nil {
                        Node.el("button", ["type": "submit", "name": "action", "value": "next"]) { "Next segment" }
                        Node.el("button", ["type": "submit", "name": "action", "value": state.paused ? "resume" : "pause", "class": "secondary"]) {
                            state.paused ? "Resume" : "Pause"
                        }
                    }
                    Node.el("button", ["type": "submit", "name": "action", "value": "end", "class": "danger"]) { "End workout" }
                }
            }
        }
    }

    private func planStartCard(_ startable: [StartablePlan], mayWrite: Bool) -> Node {
        guard mayWrite, !startable.isEmpty else { return .fragment([]) }
        return .el("section", ["class": "card plan-start", "aria-labelledby": "plan-start-h"]) {
            Node.el("h2", ["id": "plan-start-h"]) { "Start a planned workout" }
            Node.el("form", ["method": "post", "action": url("/plans"), "class": "search"]) {
                Node.el("input", ["type": "hidden", "name": "action", "value": "start"])
                Node.el("label", ["for": "plan-start"]) { "Plan" }
                Node.el("select", ["id": "plan-start", "name": "id"]) {
                    for plan in startable { Node.el("option", ["value": String(plan.id)]) { plan.name } }
                }
                Node.el("button", ["type": "submit"]) { "Start" }
                Node.el("a", ["href": url("/plans")]) { "Plans" }
            }
        }
    }

    /// "Z4 · 152–162 bpm", "Z2 → Z4", "140-155 bpm", "170-180 spm".
    static func targetText(_ target: WorkoutPlan.Target, bounds: [Double]) -> String {
        guard case .zone(let z) = target, bounds.count == 5 else { return target.text }
        let low = Int(bounds[z - 1].rounded())
        return z < 5 ? "Z\(z) · \(low)–\(Int(bounds[z].rounded()) - 1) bpm" : "Z5 · from \(low) bpm"
    }

    static func targetZoneClass(_ target: WorkoutPlan.Target) -> String {
        switch target {
        case .zone(let z): "z\(z)"
        case .ramp(_, let b): "z\(b)"
        default: "z0"
        }
    }

    /// "on target", "below", "above" for heart-rate targets with a live reading; nil otherwise.
    static func verdict(_ planned: WorkoutPlan.Planned, elapsed: Double, heartRate: LiveHeartRate?, bounds: [Double]) -> String? {
        guard let heartRate else { return nil }
        switch planned.target {
        case .heartRate(let r):
            let bpm = Int(heartRate.bpm.rounded())
            return r.contains(bpm) ? "on target" : bpm < r.lowerBound ? "below" : "above"
        case .zone, .ramp:
            let fraction = planned.seconds.map { elapsed / Double(max($0, 1)) } ?? 0
            guard let want = planned.target.zone(at: fraction) else { return nil }
            let zone = Double(heartRate.zone.rawValue)
            return abs(zone - want) <= 0.5 ? "on target" : zone < want ? "below" : "above"
        case .free, .cadence, .tempo:
            return nil
        }
    }
}
