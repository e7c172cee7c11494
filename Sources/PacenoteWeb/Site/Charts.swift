import Foundation
import PacenoteCore

/// Charts as SVG, built from `Node`s on the server: each has a `<title>` and a `<desc>`
/// for screen readers, a `<title>` per mark for a tooltip, and its colours from the site's
/// CSS classes (light and dark). Values are escaped like any other text.
enum Chart {
    struct Bar {
        var label: String
        var value: Double
        var tooltip: String
        var className: String? = nil
    }

    static func number(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The frame every chart shares. `data` are attributes for `Public/live.js`, which
    /// redraws the workout page's charts as readings arrive.
    ///
    /// A chart scales with its card, but never below the width at which its labels are
    /// 10 px (site.css gives each kind of chart that `min-width`): on a narrower screen its
    /// box scrolls sideways instead (issue 52: labels shrank to 4 px on a phone).
    static func svg(id: String, width: Double, height: Double, title: String, desc: String, className: String,
                    data: [(String, String)] = [], _ content: [Node]) -> Node {
        .el("div", ["class": "chart-scroll"]) { svgElement(id: id, width: width, height: height, title: title, desc: desc,
                                                           className: className, data: data, content) }
    }

    private static func svgElement(id: String, width: Double, height: Double, title: String, desc: String, className: String,
                                   data: [(String, String)], _ content: [Node]) -> Node {
        .el("svg", attributes: [
            Attribute(name: "class", value: "chart \(className)"),
            Attribute(name: "viewBox", value: "0 0 \(number(width)) \(number(height))"),
            Attribute(name: "role", value: "img"),
            Attribute(name: "aria-labelledby", value: "\(id)-title \(id)-desc"),
            Attribute(name: "xmlns", value: "http://www.w3.org/2000/svg"),
        ] + data.map { Attribute(name: "data-" + $0.0, value: $0.1) }, children: [
            .el("title", ["id": "\(id)-title"]) { title },
            .el("desc", ["id": "\(id)-desc"]) { desc },
        ] + content)
    }

    static func shape(_ name: String, _ attributes: [(String, String)], tooltip: String? = nil) -> Node {
        .el(name, attributes: attributes.map { Attribute(name: $0.0, value: $0.1) },
            children: tooltip.map { text in [Node.el("title") { text }] } ?? [])
    }

    /// Vertical bars with labels under them (days of a week, months, hours).
    static func bars(id: String, _ bars: [Bar], title: String, desc: String, width: Double = 640, height: Double = 180) -> Node {
        let bottom = 20.0
        let maxValue = max(bars.map(\.value).max() ?? 0, 1)
        let slot = width / Double(max(bars.count, 1))
        var marks: [Node] = []
        for (i, bar) in bars.enumerated() {
            let h = (height - bottom - 4) * bar.value / maxValue
            let x = Double(i) * slot + slot * 0.12
            marks.append(shape("rect", [("class", bar.className ?? "bar"), ("x", number(x)), ("y", number(height - bottom - h)),
                                        ("width", number(slot * 0.76)), ("height", number(max(h, bar.value > 0 ? 1 : 0)))],
                               tooltip: bar.tooltip))
            if !bar.label.isEmpty {
                marks.append(shape("text", [("class", "label"), ("x", number(Double(i) * slot + slot / 2)), ("y", number(height - 5)),
                                            ("text-anchor", "middle")], tooltip: nil).with(text: bar.label))
            }
        }
        return svg(id: id, width: width, height: height, title: title, desc: desc, className: width > 400 ? "bars wide" : "bars", marks)
    }

    /// Horizontal bars, one per row, with the value written after each (time in zone).
    static func rows(id: String, _ bars: [Bar], title: String, desc: String, valueText: (Double) -> String) -> Node {
        // Narrow enough to fit a phone's card with 10 px labels (site.css: 13 px, min-width 310 px).
        let width = 400.0, rowHeight = 26.0, labelWidth = 40.0, valueWidth = 84.0
        let height = rowHeight * Double(bars.count) + 4
        let maxValue = max(bars.map(\.value).max() ?? 0, 1)
        var marks: [Node] = []
        for (i, bar) in bars.enumerated() {
            let y = Double(i) * rowHeight + 2
            let w = (width - labelWidth - valueWidth) * bar.value / maxValue
            marks.append(shape("text", [("class", "label"), ("x", "0"), ("y", number(y + 17))]).with(text: bar.label))
            marks.append(shape("rect", [("class", bar.className ?? "bar"), ("x", number(labelWidth)), ("y", number(y + 3)),
                                        ("width", number(max(w, bar.value > 0 ? 1 : 0))), ("height", number(rowHeight - 8)),
                                        ("rx", "3")], tooltip: bar.tooltip))
            marks.append(shape("text", [("class", "value"), ("x", number(labelWidth + w + 6)), ("y", number(y + 17))])
                .with(text: valueText(bar.value)))
        }
        // The bars' left edge and full length.
        return svg(id: id, width: width, height: height, title: title, desc: desc, className: "rows",
                   data: [("plot", "\(number(labelWidth)) \(number(width - labelWidth - valueWidth))")], marks)
    }

    /// A year as a calendar heatmap: a column per week (from `weekStart`, `[site]
    /// week_starts`), a cell per day.
    static func heatmap(id: String, year: Int, plays: [String: Int], title: String, weekStart: WeekStart = .monday) -> Node {
        let cell = 11.0, gap = 2.0, top = 16.0, left = 26.0
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        guard let start = utc.date(from: DateComponents(year: year, month: 1, day: 1)),
              let end = utc.date(from: DateComponents(year: year + 1, month: 1, day: 1)) else { return .empty }
        let maxPlays = max(plays.values.max() ?? 0, 1)
        // The row of January 1st: 0 when the year begins on the first day of a week.
        let firstWeekday = weekStart.position(ofDay: CivilDate.days(year: year, month: 1, day: 1))
        var marks: [Node] = []
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        // Monday, Wednesday and Friday are labelled, in whichever rows the week puts them.
        for (weekday, name) in [(1, "Mon"), (3, "Wed"), (5, "Fri")] {
            let row = weekStart.position(ofWeekday: weekday)
            marks.append(shape("text", [("class", "label"), ("x", "0"), ("y", number(top + Double(row) * (cell + gap) + 9))])
                .with(text: name))
        }
        var day = start
        var index = 0
        var total = 0
        var activeDays = 0
        while day < end {
            let slot = index + firstWeekday
            let week = slot / 7, weekday = slot % 7
            let parts = utc.dateComponents([.month, .day], from: day)
            let key = String(format: "%04d-%02d-%02d", year, parts.month!, parts.day!)
            let count = plays[key] ?? 0
            total += count
            if count > 0 { activeDays += 1 }
            let level = count == 0 ? 0 : 1 + min(3, Int(4 * Double(count - 1) / Double(maxPlays)))
            if parts.day == 1 {
                // Baseline 12: a 12 px name stays inside the picture and clear of the cells (16).
                marks.append(shape("text", [("class", "label"), ("x", number(left + Double(week) * (cell + gap))), ("y", "12")])
                    .with(text: monthNames[parts.month! - 1]))
            }
            marks.append(shape("rect", [("class", "heat l\(level)"), ("x", number(left + Double(week) * (cell + gap))),
                                        ("y", number(top + Double(weekday) * (cell + gap))), ("width", number(cell)),
                                        ("height", number(cell)), ("rx", "2")],
                               tooltip: "\(key): \(count) play\(count == 1 ? "" : "s")"))
            day = day.addingTimeInterval(86400)
            index += 1
        }
        let width = left + 54 * (cell + gap)
        return svg(id: id, width: width, height: top + 7 * (cell + gap), title: title,
                   desc: "\(SiteFormat.plural(total, "counted play")) on \(SiteFormat.plural(activeDays, "day")) of \(year); darker days had more plays.",
                   className: "heatmap", marks)
    }

    /// Plays by hour of the day, as a clock face of 24 wedges (midnight at the top).
    static func clock(id: String, hours: [Double], title: String) -> Node {
        let size = 240.0, c = size / 2, inner = 30.0, outer = size / 2 - 18
        let maxValue = max(hours.max() ?? 0, 1)
        var marks: [Node] = [shape("circle", [("class", "face"), ("cx", number(c)), ("cy", number(c)), ("r", number(outer))])]
        func point(_ hour: Double, _ r: Double) -> (Double, Double) {
            let a = hour / 24 * 2 * Double.pi - Double.pi / 2
            return (c + r * cos(a), c + r * sin(a))
        }
        for (h, value) in hours.enumerated() {
            let r = inner + (outer - inner) * value / maxValue
            let (x1, y1) = point(Double(h) + 0.06, inner), (x2, y2) = point(Double(h) + 0.06, r)
            let (x3, y3) = point(Double(h) + 0.94, r), (x4, y4) = point(Double(h) + 0.94, inner)
            let d = "M\(number(x1)) \(number(y1)) L\(number(x2)) \(number(y2)) A\(number(r)) \(number(r)) 0 0 1 \(number(x3)) \(number(y3)) "
                + "L\(number(x4)) \(number(y4)) A\(number(inner)) \(number(inner)) 0 0 0 \(number(x1)) \(number(y1)) Z"
            marks.append(shape("path", [("class", "bar"), ("d", d)],
                               tooltip: String(format: "%02d:00–%02d:59: ", h, h) + "\(Int(value)) play\(value == 1 ? "" : "s")"))
        }
        for (label, hour) in [("0", 0.0), ("6", 6.0), ("12", 12.0), ("18", 18.0)] {
            let (x, y) = point(hour, outer + 10)
            marks.append(shape("text", [("class", "label"), ("x", number(x)), ("y", number(y + 4)), ("text-anchor", "middle")])
                .with(text: label))
        }
        let busiest = hours.indices.max { hours[$0] < hours[$1] } ?? 0
        return svg(id: id, width: size, height: size, title: title,
                   desc: "Counted plays per hour of the day; the busiest hour is \(busiest):00.", className: "clock", marks)
    }

    /// A heart-rate curve over the zones' bands, with a marker where each song began.
    /// `latest`: the newest reading behind `samples` (they may be averages of several).
    static func heartRate(id: String, samples: [(at: Date, bpm: Double)], from start: Date, to end: Date,
                          zoneBounds: [Double], songs: [(at: Date, title: String)], title: String, latest: Date? = nil,
                          timeZone: TimeZone = TimeZone(identifier: "UTC")!, plan: [PlanBandSpan] = []) -> Node {
        // `top` keeps the highest bpm label inside the picture and holds the songs' numbers;
        // `bottom` holds the clock times.
        let width = 720.0, height = 264.0, left = 34.0, top = 16.0, bottom = 22.0
        let span = max(end.timeIntervalSince(start), 1)
        let values = samples.map(\.bpm)
        let low = floor(min(values.min() ?? 60, (zoneBounds.first ?? 100) - 10) / 10) * 10
        let high = ceil(max(values.max() ?? 180, (zoneBounds.last ?? 170) + 10) / 10) * 10
        func x(_ d: Date) -> Double { left + (width - left) * d.timeIntervalSince(start) / span }
        func y(_ bpm: Double) -> Double { top + (height - bottom - top) * (1 - (bpm - low) / (high - low)) }
        var marks: [Node] = []
        // Bands: Z0 below the first bound, then each zone up to the next bound.
        let edges = [low] + zoneBounds.filter { $0 > low && $0 < high } + [high]
        let firstZone = zoneBounds.filter { $0 <= low }.count
        for i in 0..<(edges.count - 1) {
            let zone = min(5, firstZone + i)
            marks.append(shape("rect", [("class", "band z\(zone)"), ("x", number(left)), ("y", number(y(edges[i + 1]))),
                                        ("width", number(width - left)), ("height", number(y(edges[i]) - y(edges[i + 1])))],
                               tooltip: "Zone \(zone): \(Int(edges[i]))–\(Int(edges[i + 1])) bpm"))
            marks.append(shape("text", [("class", "label band-label"), ("x", number(left + 4)), ("y", number(y(edges[i + 1]) + 12))])
                .with(text: "Z\(zone)"))
        }
        // A planned workout's targets, segment by segment, behind the curve (a ramp's band slopes).
        for span in plan {
            let (x0, x1) = (x(max(span.start, start)), x(min(span.end, end)))
            guard x1 > x0 else { continue }
            func clamp(_ v: Double) -> Double { y(min(max(v, low), high)) }
            let points = [(x0, clamp(span.band.start.upperBound)), (x1, clamp(span.band.end.upperBound)),
                          (x1, clamp(span.band.end.lowerBound)), (x0, clamp(span.band.start.lowerBound))]
            marks.append(shape("polygon", [("class", "plan-band"), ("points", points.map { "\(number($0.0)),\(number($0.1))" }.joined(separator: " "))],
                               tooltip: span.tooltip))
        }
        for tick in stride(from: low, through: high, by: 20) {
            marks.append(shape("text", [("class", "label tick"), ("x", "0"), ("y", number(y(tick) + 4))]).with(text: number(tick)))
        }
        marks += songMarkers(songs, from: start, to: end, x: x, top: top, bottom: height - bottom)
        // Clock times under the plot, on round minutes (live.js draws them again as the span grows).
        marks += timeAxis(from: start, span: span, x: x, right: width - 18, baseline: height - 6, timeZone: timeZone)
        if !samples.isEmpty {
            let points = samples.map { "\(number(x($0.at))),\(number(y($0.bpm)))" }.joined(separator: " ")
            marks.append(shape("polyline", [("class", "hr"), ("points", points)]))
        }
        let avg = values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
        let minutes = Int(span / 60)
        return svg(id: id, width: width, height: height, title: title,
                   desc: values.isEmpty ? "No heart-rate samples were recorded."
                       : "Heart rate over \(SiteFormat.plural(minutes, "minute")), from \(Int(values.min()!)) to \(Int(values.max()!)) bpm, "
                       + "\(Int(avg.rounded())) on average; \(SiteFormat.plural(songs.count, "song")) began during it.",
                   className: "hrchart",
                   // Enough for live.js to place new readings as this function would: the time
                   // and bpm spans (ms since 1970), the zones' lower bounds, the plot's left,
                   // top, right and bottom, and the newest reading drawn.
                   data: [("from", String(milliseconds(start))), ("to", String(milliseconds(end))),
                          ("low", number(low)), ("high", number(high)), ("bounds", zoneBounds.map(number).joined(separator: " ")),
                          ("plot", "\(number(left)) \(number(top)) \(number(width)) \(number(height - bottom))")]
                       + (latest.map { [("latest", String(milliseconds($0)))] } ?? []),
                   marks)
    }

    /// A dashed line where each song began, numbered as the songs table numbers them.
    static func songMarkers(_ songs: [(at: Date, title: String)], from start: Date, to end: Date, x: (Date) -> Double,
                            top: Double, bottom: Double) -> [Node] {
        var marks: [Node] = []
        for (i, song) in songs.enumerated() where song.at >= start && song.at <= end {
            let at = String(milliseconds(song.at))
            marks.append(shape("line", [("class", "song"), ("x1", number(x(song.at))), ("x2", number(x(song.at))),
                                        ("y1", number(top - 14)), ("y2", number(bottom)), ("data-at", at)],
                               tooltip: "\(i + 1). \(song.title)"))
            marks.append(shape("text", [("class", "label song-label"), ("x", number(x(song.at) + 2)), ("y", number(top - 4)),
                                        ("data-at", at)])
                .with(text: String(i + 1)))
        }
        return marks
    }

    /// Clock times on round minutes (`timeTicks`) along a time axis.
    static func timeAxis(from start: Date, span: Double, x: (Date) -> Double, right: Double, baseline: Double,
                         timeZone: TimeZone) -> [Node] {
        var clock = Calendar(identifier: .gregorian)
        clock.timeZone = timeZone
        return timeTicks(from: start, to: start.addingTimeInterval(span)).filter { x($0) <= right }.map { tick in
            let c = clock.dateComponents([.hour, .minute], from: tick)
            return shape("text", [("class", "label time"), ("x", number(x(tick))), ("y", number(baseline)),
                                  ("text-anchor", "middle"), ("data-at", String(milliseconds(tick)))])
                .with(text: String(format: "%02d:%02d", c.hour ?? 0, c.minute ?? 0))
        }
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Round times for a time axis from `start` to `end`: at most six, a whole number of
    /// minutes apart (1, 2, 5, 10, 15, 30 … 24 h) on multiples of that step since 1970, so
    /// that live.js, which has no time-zone offsets, places the same ones; the start alone
    /// when no round time falls in the span.
    static func timeTicks(from start: Date, to end: Date) -> [Date] {
        let span = max(end.timeIntervalSince(start), 1)
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map { $0 * 60 }
        let step = steps.first { span / $0 <= 6 } ?? steps.last!
        var at = (start.timeIntervalSince1970 / step).rounded(.up) * step
        var ticks: [Date] = []
        while at <= end.timeIntervalSince1970, ticks.count < 12 {
            ticks.append(Date(timeIntervalSince1970: at))
            at += step
        }
        // Less than a minute with no round one in it: its start, so the axis still says when.
        return ticks.isEmpty ? [start] : ticks
    }
}

extension Node {
    /// The same element with `text` as its last child (labels).
    func with(text: String) -> Node {
        guard case .element(let name, let attributes, let children) = kind else { return self }
        return Node(kind: .element(name: name, attributes: attributes, children: children + [.text(text)]))
    }
}
