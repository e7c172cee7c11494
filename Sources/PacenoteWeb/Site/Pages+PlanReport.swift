import Foundation
import PacenoteCore

/// A planned workout's page (issue 55, point 4): the plan's targets as a band behind the
/// heart-rate curve, and a table of each segment's target beside what happened.
extension API {
    /// The bands `Chart.heartRate` draws behind the curve: each heart-rate target as it ran.
    func planBands(_ report: PlanReport.Report?, bounds: [Double], ceiling: Double) -> [Chart.PlanBandSpan] {
        (report?.segments ?? []).compactMap { s in
            Chart.planBand(s.target, zoneBounds: bounds, ceiling: ceiling).map { band in
                Chart.PlanBandSpan(start: s.start, end: s.end, band: band, tooltip: "Segment \(s.index + 1): \(s.target.text)")
            }
        }
    }

    func planReportSection(_ report: PlanReport.Report?, plan: WorkoutPlan?, _ f: SiteFormat) -> Node {
        guard let report, let plan else { return .fragment([]) }
        let timeline = plan.timeline()
        return .el("section", ["class": "card", "aria-labelledby": "plan-h"]) {
            Node.el("h2", ["id": "plan-h"]) { "Plan: \(plan.name)" }
            Node.el("p", ["class": "totals"]) {
                if let c = report.compliance {
                    "Compliance \(APIJSON.percent(c)) %: \(SiteFormat.span(report.inTargetSeconds)) on target of \(SiteFormat.span(report.measuredSeconds)) measured"
                } else {
                    "No segment with a target was measured."
                }
                " · the band behind the heart-rate curve is each segment's target."
            }
            Node.el("div", ["class": "table-scroll"]) {
                Node.el("table", ["class": "songs plan-report"]) {
                    Node.el("thead") {
                        Node.el("tr") {
                            for h in ["#", "Target", "Planned", "Ran", "On target", "Avg HR", "Max HR", "Cadence", "Compliance"] {
                                Node.el("th", ["scope": "col"]) { h }
                            }
                        }
                    }
                    Node.el("tbody") {
                        for s in report.segments {
                            let planned = s.index < timeline.count ? timeline[s.index] : nil
                            Node.el("tr") {
                                Node.el("td") { String(s.index + 1) }
                                Node.el("td") {
                                    s.target.text
                                    if let label = planned?.segment.label { Node.el("span", ["class": "muted"]) { " · \(label)" } }
                                }
                                Node.el("td") { planned?.seconds.map(WorkoutPlan.clock) ?? "open" }
                                Node.el("td", ["title": s.endedBy == .button ? "Ended with next" : nil]) {
                                    WorkoutPlan.clock(Int(s.seconds.rounded())) + (s.endedBy == .button ? " ⏭" : "")
                                }
                                Node.el("td") { s.compliance == nil ? "–" : SiteFormat.span(s.inTargetSeconds) }
                                Node.el("td") { s.averageHeartRate.map { String(Int($0.rounded())) } ?? "–" }
                                Node.el("td") { s.maxHeartRate.map(String.init) ?? "–" }
                                Node.el("td") { s.averageCadence.map { String(Int($0.rounded())) } ?? "–" }
                                Node.el("td", ["data-compliance": s.compliance.map { APIJSON.percent($0) }]) {
                                    s.compliance.map { "\(APIJSON.percent($0)) %" } ?? "–"
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
