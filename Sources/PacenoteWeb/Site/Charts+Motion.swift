import Foundation
import PacenoteCore

extension Chart {
    /// A workout's pace (runs, walks: faster is higher, as Strava draws it) or speed (rides)
    /// over its time, its elevation as an area behind, and a marker where each song began,
    /// on the heart-rate chart's time axis so the two read together.
    ///
    /// A stretch slower than a walk (`stoppedSpeed`) has no pace: the line breaks there
    /// rather than plunging to an hour per kilometre. The slow end of the pace axis is
    /// 1.6 × the median pace, so one stop does not flatten the run.
    static func motion(id: String, points: [WorkoutMeasures.SeriesPoint], from start: Date, to end: Date,
                       format: MeasureFormat, showsPace: Bool, songs: [(at: Date, title: String)], title: String,
                       timeZone: TimeZone, stoppedSpeed: Double = WorkoutMeasures.Options().stoppedSpeed) -> Node {
        // The heart-rate chart's width and margins: a song's marker falls at the same x on both.
        let width = 720.0, height = 220.0, left = 34.0, right = 0.0, top = 16.0, bottom = 22.0
        let span = max(end.timeIntervalSince(start), 1)
        func x(_ d: Date) -> Double { left + (width - left - right) * d.timeIntervalSince(start) / span }
        let plotHeight = height - bottom - top
        var marks: [Node] = []

        // Elevation, behind: an area from the plot's bottom, on its own scale (at least 20 m).
        let heights = points.compactMap { p in p.altitude.map { (p.at, $0) } }
        var elevationText = ""
        if let lowest = heights.map({ $0.1 }).min(), let highest = heights.map({ $0.1 }).max() {
            let pad = max(0, 20 - (highest - lowest)) / 2
            let low = lowest - pad - 2, high = highest + pad + 2
            func y(_ metres: Double) -> Double { top + plotHeight * (1 - (metres - low) / (high - low)) }
            let base = number(height - bottom)
            let path = "M\(number(x(heights[0].0))) \(base) " + heights.map { "L\(number(x($0.0))) \(number(y($0.1)))" }.joined(separator: " ")
                + " L\(number(x(heights[heights.count - 1].0))) \(base) Z"
            marks.append(shape("path", [("class", "elevation"), ("d", path)],
                               tooltip: "Elevation \(format.elevation(lowest))–\(format.elevation(highest))"))
            // Inside the plot at its right edge, above the lowest and highest points' levels.
            for metres in [lowest, highest] {
                marks.append(shape("text", [("class", "label tick elevation-label"), ("x", number(width - 4)),
                                            ("y", number(y(metres) - 4)), ("text-anchor", "end")]).with(text: format.elevation(metres)))
            }
            elevationText = " Elevation from \(format.elevation(lowest)) to \(format.elevation(highest))."
        }

        // Pace or speed, in front.
        let values: [(at: Date, value: Double)?] = points.map { p in
            guard let speed = p.speed else { return nil }
            if showsPace { return speed >= stoppedSpeed ? (p.at, format.units.splitMetres / speed) : nil }
            return (p.at, format.speedValue(speed))
        }
        let known = values.compactMap { $0?.value }.sorted()
        var lineText = showsPace ? "No pace was recorded." : "No speed was recorded."
        if let fastest = showsPace ? known.first : known.last {
            let median = known[known.count / 2]
            // Pace: fast at the top, the slow end clamped; speed: from zero up.
            let (topValue, bottomValue) = showsPace
                ? (floor(fastest / 30) * 30, max(ceil(min(known.last!, median * 1.6) / 30) * 30, floor(fastest / 30) * 30 + 60))
                : (max(ceil(fastest / 5) * 5, 5), 0)
            func y(_ v: Double) -> Double {
                top + plotHeight * min(1, max(0, (v - topValue) / (bottomValue - topValue)))
            }
            var run: [String] = []
            func flush() {
                if run.count > 1 { marks.append(shape("polyline", [("class", "pace"), ("points", run.joined(separator: " "))])) }
                run = []
            }
            for v in values {
                guard let v else { flush(); continue }
                run.append("\(number(x(v.at))),\(number(y(v.value)))")
            }
            flush()
            for i in 0...3 {
                let v = topValue + (bottomValue - topValue) * Double(i) / 3
                marks.append(shape("text", [("class", "label tick"), ("x", "0"), ("y", number(y(v) + 4))])
                    .with(text: showsPace ? SiteFormat.clock(v) : number(v)))
            }
            let slowest = showsPace ? known.last! : known.first!
            lineText = showsPace
                ? "Pace from \(format.pace(fastest)) at best to \(format.pace(min(slowest, bottomValue))) or slower."
                : "Speed up to \(number(fastest)) \(format.speedUnit), \(number(median)) \(format.speedUnit) at the median."
        }
        marks += songMarkers(songs, from: start, to: end, x: x, top: top, bottom: height - bottom)
        marks += timeAxis(from: start, span: span, x: x, right: width - 18, baseline: height - 6, timeZone: timeZone)
        return svg(id: id, width: width, height: height, title: title,
                   desc: "\(lineText)\(elevationText) \(SiteFormat.plural(songs.filter { $0.at >= start && $0.at <= end }.count, "song")) began during it.",
                   className: "motionchart", marks)
    }
}
