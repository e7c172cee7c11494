import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    /// How far back the /workouts charts look: months, as training blocks are planned.
    static let trainingChartDays = 180

    /// The training-load card of /workouts: fitness, fatigue and form over the last months,
    /// the daily load under them.
    func trainingLoadSection() throws -> Node {
        let now = context.clock.now()
        let days = try trainingLoad(from: now.addingTimeInterval(-Double(Self.trainingChartDays - 1) * 86_400), to: now)
        let today = days.last
        return Node.el("section", ["class": "card", "aria-labelledby": "load-h", "data-training-load": ""]) {
            Node.el("h2", ["id": "load-h"]) { "Training load" }
            Node.el("p", ["class": "muted small legend"]) {
                "Each workout's load is Banister's TRIMP, from your heart-rate reserve ([athlete] resting_hr and max_hr)."
                Node.el("span", ["class": "key fitness"]) { "" }
                "fitness (42-day average)"
                Node.el("span", ["class": "key fatigue"]) { "" }
                "fatigue (7-day)"
                Node.el("span", ["class": "key form"]) { "" }
                "form (yesterday's fitness − fatigue); bars: daily load."
            }
            if let today {
                Node.el("p", ["class": "totals"]) {
                    "Today: fitness \(Chart.number(today.fitness)) · fatigue \(Chart.number(today.fatigue)) · form \(Chart.number(today.form))"
                }
            }
            Chart.dayLines(id: "load", days: days.map(\.day), lines: [
                Chart.DayLine(name: "fitness", className: "fitness", values: days.map(\.fitness)),
                Chart.DayLine(name: "fatigue", className: "fatigue", values: days.map(\.fatigue)),
                Chart.DayLine(name: "form", className: "form", values: days.map(\.form)),
            ], bars: days.map(\.load), title: "Fitness, fatigue and form over the last \(SiteFormat.plural(days.count, "day"))",
               desc: today.map { "Today fitness \(Chart.number($0.fitness)), fatigue \(Chart.number($0.fatigue)), form \(Chart.number($0.form)); "
                   + "\(SiteFormat.plural(days.filter { $0.load > 0 }.count, "day")) with training." } ?? "No training yet.",
               unit: "TRIMP")
        }
    }

    /// The resting-HRV card of /workouts: the trend of resting readings, the latest, and the
    /// button that starts one.
    func restingHRVSection(mayWrite: Bool) throws -> Node {
        let now = context.clock.now()
        let first = now.addingTimeInterval(-Double(Self.trainingChartDays - 1) * 86_400)
        let readings = try context.store.hrvReadings(from: first, to: now.addingTimeInterval(1))
        var walker = LocalTime.Walker(timeZone: localTime.timeZone)
        let firstDay = walker.slot(ms: Chart.milliseconds(first)).dayNumber
        let lastDay = walker.slot(ms: Chart.milliseconds(now)).dayNumber
        // A day's value: its last reading's RMSSD.
        var byDay: [Int: Double] = [:]
        for r in readings { if let rmssd = r.figures?.rmssd { byDay[walker.slot(ms: Chart.milliseconds(r.startedAt)).dayNumber] = rmssd } }
        let days = Array(firstDay...max(firstDay, lastDay))
        let measuring = readings.last { !$0.done }
        let latest = readings.last { $0.done }
        let f = format
        return Node.el("section", ["class": "card", "aria-labelledby": "hrv-h", "data-resting-hrv": ""]) {
            Node.el("h2", ["id": "hrv-h"]) { "Resting heart-rate variability" }
            Node.el("p", ["class": "muted small"]) {
                "RMSSD of two minutes still with the strap on, best taken each morning: higher than usual means recovered, "
                "lower means tired, ill or stressed. Beats outside 300–2000 ms and those more than 20 % from the one before "
                "(Malik's rule) are left out."
            }
            if let measuring {
                Node.el("p", ["class": "notice", "role": "status", "data-hrv-measuring": String(measuring.id)]) {
                    "Measuring until \(f.time(measuring.endsAt)): sit still with the strap on. Reload the page after."
                }
            }
            if let latest {
                Node.el("p", ["class": "totals", "data-hrv-latest": String(latest.id)]) {
                    if let h = latest.figures {
                        "Latest, \(f.day(localTime.day(of: latest.startedAt))) \(f.time(latest.startedAt)): RMSSD \(Chart.number(h.rmssd)) ms · "
                            + "SDNN \(Chart.number(h.sdnn)) ms · \(SiteFormat.plural(h.beats, "beat")), \(h.removed) left out"
                    } else {
                        "Latest, \(f.day(localTime.day(of: latest.startedAt))) \(f.time(latest.startedAt)): too few clean beats were received "
                            + "(is the strap on and sending RR intervals?)."
                    }
                }
            }
            if byDay.isEmpty {
                Node.el("p", ["class": "muted"]) { "No resting readings yet." }
            } else {
                Chart.dayLines(id: "hrv", days: days, lines: [Chart.DayLine(name: "RMSSD", className: "rmssd", values: days.map { byDay[$0] })],
                               title: "Resting RMSSD over the last \(SiteFormat.plural(days.count, "day"))",
                               desc: "\(SiteFormat.plural(byDay.count, "day")) with a reading, RMSSD from \(Chart.number(byDay.values.min()!)) "
                                   + "to \(Chart.number(byDay.values.max()!)) ms.", unit: "ms")
            }
            if mayWrite {
                Node.el("form", ["method": "post", "action": url("/workouts")]) {
                    Node.el("input", ["type": "hidden", "name": "action", "value": "measure-hrv"])
                    Node.el("button", ["type": "submit", "disabled": measuring == nil ? nil : ""]) { "Measure HRV" }
                    Node.el("span", ["class": "muted small"]) { " Two minutes from now, from the strap's readings (the command pacenote hrv does the same)." }
                }
            }
        }
    }

    /// POST /workouts: the "Measure HRV" button starts a two-minute resting reading; back to
    /// the page (303), which says it is measuring.
    func workoutsForm(_ request: HTTPRequest) throws -> HTTPResponse {
        guard Self.formField("action", in: request.body) == "measure-hrv" else {
            throw APIError.badRequest("unknown action", code: "invalid_action")
        }
        guard let backend = context.heartRate else { throw APIError.unavailable("heart rate is not enabled") }
        let now = context.clock.now()
        let reading = try backend.startRestingReading(from: now, seconds: HRVReading.standardSeconds, now: now)
        return HTTPResponse(status: 303, headers: [("Location", url("/workouts?hrv=\(reading.id)")), ("Cache-Control", "no-store")])
    }
}
