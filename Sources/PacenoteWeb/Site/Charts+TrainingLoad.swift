import Foundation
import PacenoteCore

extension Chart {
    /// A line over days: its values (nil: no point that day) and the class that colours it.
    struct DayLine {
        var name: String
        var className: String
        var values: [Double?]
    }

    /// Lines over consecutive days (fitness, fatigue, form; resting HRV), with bars under them
    /// (daily load) and the first day of each month labelled. `days`: day numbers, in order,
    /// one per value of each line and bar.
    static func dayLines(id: String, days: [Int], lines: [DayLine], bars: [Double] = [], title: String, desc: String,
                         unit: String) -> Node {
        let width = 720.0, height = 220.0, left = 34.0, top = 10.0, bottom = 22.0
        let values = lines.flatMap { $0.values.compactMap { $0 } } + bars
        var low = min(values.min() ?? 0, 0), high = max(values.max() ?? 1, 1)
        let step = niceStep((high - low) / 4)
        low = (low / step).rounded(.down) * step
        high = (high / step).rounded(.up) * step
        let slot = (width - left) / Double(max(days.count, 1))
        func x(_ i: Int) -> Double { left + slot * (Double(i) + 0.5) }
        func y(_ v: Double) -> Double { top + (height - bottom - top) * (1 - (v - low) / (high - low)) }
        var marks: [Node] = []
        for tick in stride(from: low, through: high + step / 2, by: step) {
            marks.append(shape("line", [("class", tick == 0 ? "axis zero" : "axis"), ("x1", number(left)), ("x2", number(width)),
                                        ("y1", number(y(tick))), ("y2", number(y(tick)))]))
            marks.append(shape("text", [("class", "label tick"), ("x", "0"), ("y", number(y(tick) + 4))]).with(text: number(tick)))
        }
        for (i, load) in bars.enumerated() where load > 0 {
            marks.append(shape("rect", [("class", "bar load"), ("x", number(x(i) - max(slot * 0.4, 0.5))), ("y", number(y(load))),
                                        ("width", number(max(slot * 0.8, 1))), ("height", number(max(y(0) - y(load), 1)))]))
        }
        // Month labels, where there is room for them (a label is ~30 px wide).
        var lastLabel = -Double.infinity
        for (i, day) in days.enumerated() {
            let text = API.dayText(day)
            guard text.hasSuffix("-01") || i == 0, x(i) - lastLabel >= 34, x(i) <= width - 16 else { continue }
            lastLabel = x(i)
            marks.append(shape("text", [("class", "label time"), ("x", number(x(i))), ("y", number(height - 6)), ("text-anchor", "middle")])
                .with(text: monthLabel(text)))
        }
        for line in lines {
            // A break where a day has no value: a polyline per run of days with one.
            var run: [String] = []
            func flush() {
                if run.count > 1 { marks.append(shape("polyline", [("class", "line \(line.className)"), ("points", run.joined(separator: " "))])) }
                run = []
            }
            for (i, v) in line.values.enumerated() {
                guard let v else { flush(); continue }
                run.append("\(number(x(i))),\(number(y(v)))")
                if lines.count == 1 {
                    marks.append(shape("circle", [("class", "dot \(line.className)"), ("cx", number(x(i))), ("cy", number(y(v))), ("r", "3")],
                                       tooltip: "\(API.dayText(days[i])): \(number(v)) \(unit)"))
                }
            }
            flush()
        }
        return svg(id: id, width: width, height: height, title: title, desc: desc, className: "daylines", marks)
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let power = pow(10, (log10(raw)).rounded(.down))
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= raw } ?? 10 * power
    }

    /// "Jan" from `YYYY-MM-DD`; January also says its year ("Jan 2026").
    static func monthLabel(_ day: String) -> String {
        let names = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let month = Int(day.dropFirst(5).prefix(2)) ?? 1
        return names[month - 1] + (month == 1 ? " " + day.prefix(4) : "")
    }
}
