import Foundation
import PacenoteCore
import PacenoteStore

/// The plan against what happened (issue 55, point 4): each segment's target beside the
/// time in it, heart rate, cadence and compliance (`PlanReport`), in
/// `/api/v1/workouts/{id}` and on the workout page; and a template's compliance across the
/// weeks it ran, in `/api/v1/plans/{id}` and on `/plans`.
extension API {
    /// The report of a workout that followed a plan; nil for one that did not.
    func planReport(_ r: WorkoutReading) throws -> PlanReport.Report? {
        let w = r.workout
        guard let plan = w.plan, let start = w.planStartedAt else { return nil }
        let marks = try context.store.planMarks(workoutID: w.id)
        let zones = try context.store.zoneSettings().model(settingsID: w.zoneSettingsID, at: w.startedAt)
        let songs = r.plays.map { PlanReport.PlayedSong(start: $0.play.startedAt, end: $0.play.endedAt, bpm: $0.track.bpm?.value) }
        return PlanReport.make(timeline: plan.timeline(), start: start, marks: marks, end: r.end, heartRate: r.during,
                               motion: r.motion, songs: songs, zones: zones)
    }

    /// The compliance of each finished run of a plan, oldest first, each kept until its
    /// workout, the samples or a tempo changes (a plan's page would read every sample of
    /// every run otherwise).
    func planRuns(_ planID: Int64) throws -> [(workout: Workout, compliance: Double?)] {
        try context.store.workouts(ofPlan: planID).filter { $0.endedAt != nil }.sorted { $0.startedAt < $1.startedAt }.map { w in
            let key = "\(w.id):\(Chart.milliseconds(w.endedAt ?? w.startedAt))"
            let compliance = try planCompliance.kept(key) { try planReport(reading(w.id))?.compliance }
            return (w, compliance)
        }
    }

    /// Weeks as the site counts them: in its time zone, from its first day (`[site] week_starts`).
    func planTrend(_ runs: [(workout: Workout, compliance: Double?)]) -> PlanReport.Trend? {
        var calendar = format.calendar
        calendar.firstWeekday = context.weekStart.firstWeekday
        return PlanReport.trend(runs.compactMap { run in run.compliance.map { (run.workout.startedAt, $0) } }, calendar: calendar)
    }

    /// "compliance 71 % → 88 % since September" (the month's name, with its year when not this year's).
    func trendText(_ trend: PlanReport.Trend) -> String {
        let c = format.calendar
        let month = c.component(.month, from: trend.since), year = c.component(.year, from: trend.since)
        var name = SiteFormat.months[month - 1]
        if year != c.component(.year, from: context.clock.now()) { name += " \(year)" }
        return "compliance \(APIJSON.percent(trend.first)) % → \(APIJSON.percent(trend.latest)) % since \(name)"
    }
}

extension APIJSON {
    /// A share (0…1) as a percentage with one decimal.
    static func percent(_ share: Double) -> String { Chart.number(share * 100) }

    static func percentValue(_ share: Double?) -> JSONValue { .optional(share.map { ($0 * 1000).rounded() / 10 }) }

    static func planReport(_ report: PlanReport.Report, timeline: [WorkoutPlan.Planned]) -> JSONValue {
        .object([
            ("compliance", percentValue(report.compliance)),
            ("in_target_s", .double(report.inTargetSeconds.rounded())),
            ("measured_s", .double(report.measuredSeconds.rounded())),
            ("segments", .array(report.segments.map { s in
                let planned = s.index < timeline.count ? timeline[s.index] : nil
                return .object([
                    ("index", .int(Int64(s.index))),
                    ("target", JSONValue(foundation: WorkoutPlan.json(s.target))),
                    ("target_text", .string(s.target.text)),
                    ("label", .optional(planned?.segment.label)),
                    ("planned_s", .optional(planned?.seconds)),
                    ("start", timestamp(s.start)),
                    ("end", timestamp(s.end)),
                    ("ended_by", .optional(s.endedBy?.rawValue)),
                    ("seconds", .double(s.seconds.rounded())),
                    ("measured_s", .double(s.measuredSeconds.rounded())),
                    ("in_target_s", .double(s.inTargetSeconds.rounded())),
                    ("compliance", percentValue(s.compliance)),
                    ("hr_avg", .optional(s.averageHeartRate.map { ($0 * 10).rounded() / 10 })),
                    ("hr_max", .optional(s.maxHeartRate)),
                    ("cadence_avg", .optional(s.averageCadence.map { ($0 * 10).rounded() / 10 })),
                ])
            })),
        ])
    }

    static func planHistory(_ runs: [(workout: Workout, compliance: Double?)], trend: PlanReport.Trend?) -> [(String, JSONValue)] {
        [
            ("history", .array(runs.map { run in
                .object([("workout_id", .int(run.workout.id)), ("started_at", timestamp(run.workout.startedAt)),
                         ("compliance", percentValue(run.compliance))])
            })),
            ("trend", trend.map { t in
                .object([
                    ("first", percentValue(t.first)), ("latest", percentValue(t.latest)), ("since", timestamp(t.since)),
                    ("weeks", .array(t.weeks.map { week in
                        .object([("week_start", timestamp(week.weekStart)), ("compliance", percentValue(week.compliance)),
                                 ("runs", .int(Int64(week.runs)))])
                    })),
                ])
            } ?? .null),
        ]
    }
}
