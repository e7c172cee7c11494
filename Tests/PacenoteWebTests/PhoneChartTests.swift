import Foundation
import PacenoteCore
import Testing
@testable import PacenoteWeb

/// The charts' pieces behind issue 52's phone rows: each chart in a box that may scroll, the
/// heart-rate chart's top label inside the picture and its time axis, and the submissions
/// page's commands as code.
@Suite struct PhoneChartTests {
    @Test func everyChartSitsInABoxThatMayScroll() {
        let bars = Chart.bars(id: "b", [.init(label: "Mon", value: 1, tooltip: "1")], title: "T", desc: "D", width: 260, height: 120).rendered()
        #expect(bars.hasPrefix("<div class=\"chart-scroll\"><svg class=\"chart bars\""), "\(bars.prefix(120))")
        let wide = Chart.bars(id: "m", [.init(label: "2026", value: 1, tooltip: "1")], title: "T", desc: "D").rendered()
        #expect(wide.contains("class=\"chart bars wide\""))
        let rows = Chart.rows(id: "z", [.init(label: "Z1", value: 60, tooltip: "1 min")], title: "T", desc: "D", valueText: SiteFormat.span).rendered()
        #expect(rows.contains("viewBox=\"0 0 400 30\"") && rows.contains("data-plot=\"40 276\""), "\(rows.prefix(400))")
    }

    @Test func theTimeAxisHasRoundTimesAtMostSixAndNoneOutsideTheSpan() {
        let start = Date(timeIntervalSince1970: 1_768_460_700)  // 07:05 UTC
        let ticks = Chart.timeTicks(from: start, to: start.addingTimeInterval(40 * 60))
        // 40 minutes: every 10 minutes, from 07:10.
        #expect(ticks.map { Int($0.timeIntervalSince1970) % 86_400 / 60 } == [430, 440, 450, 460], "\(ticks)")
        let long = Chart.timeTicks(from: start, to: start.addingTimeInterval(5 * 3600))
        #expect(long.count <= 6 && long.count >= 4 && long.allSatisfy { Int($0.timeIntervalSince1970) % 3600 == 0 }, "\(long)")
        let short = Chart.timeTicks(from: start, to: start.addingTimeInterval(90))
        #expect(short.count == 1 || short.count == 2)
        #expect(short.allSatisfy { $0 >= start && $0 <= start.addingTimeInterval(90) })
    }

    @Test func theHeartRateChartKeepsItsTopLabelInsideAndWritesClockTimes() {
        let start = Date(timeIntervalSince1970: 1_768_460_700)
        let samples = (0..<40).map { (at: start.addingTimeInterval(Double($0) * 60), bpm: 120.0 + Double($0)) }
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let chart = Chart.heartRate(id: "hr", samples: samples, from: start, to: start.addingTimeInterval(2400),
                                    zoneBounds: [100, 120, 140, 160, 180], songs: [(start.addingTimeInterval(60), "One")],
                                    title: "T", timeZone: berlin).rendered()
        // The highest tick (190) has its baseline at least a label's height below the top.
        let tick = chart.range(of: #"class="label tick" x="0" y="(\d+)">190<"#, options: .regularExpression)
        let y = tick.flatMap { Int(chart[$0].split(separator: "\"")[5]) }
        #expect((y ?? 0) >= 12, "\(chart.prefix(3000))")
        // Clock times in the display time zone (UTC+1): 08:10 … 08:40.
        for time in ["08:10", "08:20", "08:30", "08:40"] { #expect(chart.contains(">\(time)</text>"), "\(time)") }
        #expect(chart.contains("data-plot=\"34 16 720 242\""))
        #expect(chart.contains("1 song began during it"))
    }

    @Test func backticksBecomeCode() {
        let nodes = API.withCode("run `pacenote forward status` or `x`.")
        #expect(Node.fragment(nodes).rendered() == "run <code>pacenote forward status</code> or <code>x</code>.")
        #expect(Node.fragment(API.withCode("no code <here>")).rendered() == "no code &lt;here&gt;")
    }
}
