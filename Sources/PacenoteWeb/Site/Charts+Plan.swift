import Foundation
import PacenoteCore

/// A plan drawn (issue 55): its intensity over time on `/plans` and on the dashboard while it
/// runs, and its targets as a band behind a workout's heart-rate curve.
extension Chart {
    /// A segment of a planned workout as it ran, with the heart rate its target asked for.
    struct PlanBandSpan {
        var start: Date
        var end: Date
        var band: (start: ClosedRange<Double>, end: ClosedRange<Double>)
        var tooltip: String
    }

    /// How high a target stands, as a zone (1…5, fractional between): a zone is itself, a
    /// heart-rate range the zone of its middle (by the zone bounds, when known), a cadence or
    /// a tempo the zone whose music tempo window it is nearest (`TempoTable`), free ground
    /// level. A ramp has two heights, its start and its end.
    static func planLevels(_ target: WorkoutPlan.Target, zoneBounds: [Double]?, tempo: TempoTable = .defaults) -> (Double, Double) {
        func tempoLevel(_ r: ClosedRange<Int>) -> Double {
            let middle = Double(r.lowerBound + r.upperBound) / 2
            let nearest = Zone.allCases.filter { $0 != .z0 }.min {
                let a = tempo.window(for: $0), b = tempo.window(for: $1)
                return abs((a.lowerBound + a.upperBound) / 2 - middle) < abs((b.lowerBound + b.upperBound) / 2 - middle)
            }
            return Double(nearest?.rawValue ?? 3)
        }
        switch target {
        case .free: return (0.6, 0.6)
        case .zone(let z): return (Double(z), Double(z))
        case .ramp(let a, let b): return (Double(a), Double(b))
        case .heartRate(let r):
            let middle = Double(r.lowerBound + r.upperBound) / 2
            guard let bounds = zoneBounds, bounds.count == 5 else { return (3, 3) }
            let zone = bounds.filter { middle >= $0 }.count
            return (Double(max(zone, 1)), Double(max(zone, 1)))
        case .cadence(let r), .tempo(let r):
            let level = tempoLevel(r)
            return (level, level)
        }
    }

    /// Seconds an open-ended segment is drawn as: its length is not known before it ends.
    static func openSegmentWidth(fixed: Int) -> Double { max(300, Double(fixed) / 10) }

    /// The plan's intensity over time: a block per segment as high as its target (a ramp
    /// slopes), coloured by zone, an open-ended one hatched at a nominal width. `now`: the
    /// running segment and the seconds into it, marked with a line (the live dashboard).
    static func planIntensity(id: String, plan: WorkoutPlan, title: String, zoneBounds: [Double]?,
                              now: (index: Int, elapsed: Double)? = nil, width: Double = 640, height: Double = 130) -> Node {
        let timeline = plan.timeline()
        let left = 24.0, top = 8.0, bottom = 20.0
        let open = openSegmentWidth(fixed: plan.fixedSeconds)
        let lengths = timeline.map { $0.seconds.map(Double.init) ?? open }
        let total = max(lengths.reduce(0, +), 1)
        func x(_ t: Double) -> Double { left + (width - left) * t / total }
        func y(_ level: Double) -> Double { top + (height - bottom - top) * (1 - level / 5) }
        var marks: [Node] = []
        for zone in 1...5 {
            marks.append(shape("text", [("class", "label tick"), ("x", "0"), ("y", number(y(Double(zone)) + 4))]).with(text: "Z\(zone)"))
        }
        var t = 0.0
        for (planned, length) in zip(timeline, lengths) {
            let (from, to) = planLevels(planned.target, zoneBounds: zoneBounds)
            let x0 = x(t), x1 = x(t + length), base = y(0)
            let zone = Int(((from + to) / 2).rounded())
            let classes = "plan-seg z\(min(max(zone, 0), 5))" + (planned.seconds == nil ? " open" : "") + (planned.target == .free ? " free" : "")
            let tip = "\(planned.index + 1): \(planned.seconds.map(WorkoutPlan.clock) ?? "open") \(planned.target.text)"
                + (planned.segment.label.map { " (\($0))" } ?? "")
            let points = [(x0, base), (x0, y(from)), (x1, y(to)), (x1, base)].map { "\(number($0.0)),\(number($0.1))" }
            marks.append(shape("polygon", [("class", classes), ("points", points.joined(separator: " "))], tooltip: tip))
            t += length
        }
        if let now, now.index < lengths.count {
            let at = lengths.prefix(now.index).reduce(0, +) + min(now.elapsed, lengths[now.index])
            marks.append(shape("line", [("class", "plan-now"), ("x1", number(x(at))), ("x2", number(x(at))),
                                        ("y1", number(top)), ("y2", number(y(0)))]))
        }
        // The plan's clock under it: its start, its middle and its end (an open segment adds "+").
        var ticks = [(0.0, "start", "0:00"), (total, "end", WorkoutPlan.clock(plan.fixedSeconds) + (plan.isOpenEnded ? "+" : ""))]
        if !plan.isOpenEnded { ticks.insert((total / 2, "middle", WorkoutPlan.clock(Int(total / 2))), at: 1) }
        for (at, anchor, text) in ticks {
            marks.append(shape("text", [("class", "label tick"), ("x", number(x(at))), ("y", number(height - 4)), ("text-anchor", anchor)])
                .with(text: text))
        }
        let levels = timeline.map { planLevels($0.target, zoneBounds: zoneBounds) }
        let lowest = levels.map { min($0.0, $0.1) }.min() ?? 0, highest = levels.map { max($0.0, $0.1) }.max() ?? 0
        let desc = "\(SiteFormat.plural(timeline.count, "segment")) over \(WorkoutPlan.clock(plan.fixedSeconds))"
            + (plan.isOpenEnded ? " plus open-ended ones" : "")
            + ", intensity from Z\(Int(lowest.rounded())) to Z\(Int(highest.rounded())): \(plan.text)."
        // A narrow one (the dashboard's card) keeps its labels 10 px on a phone without scrolling.
        return svg(id: id, width: width, height: height, title: title, desc: desc, className: width <= 360 ? "planchart narrow" : "planchart", marks)
    }

    /// The bpm a segment's target asks for, low and high, at its start and its end (a ramp
    /// moves): a zone is its band between the zone bounds (Z5 up to `ceiling`), a heart-rate
    /// range itself. Nil for targets that are no heart rate (cadence, tempo, free).
    static func planBand(_ target: WorkoutPlan.Target, zoneBounds: [Double], ceiling: Double) -> (start: ClosedRange<Double>, end: ClosedRange<Double>)? {
        func band(_ z: Int) -> ClosedRange<Double>? {
            guard zoneBounds.count == 5, (1...5).contains(z) else { return nil }
            let low = zoneBounds[z - 1], high = z < 5 ? zoneBounds[z] : max(ceiling, low + 1)
            return low...max(high, low)
        }
        switch target {
        case .zone(let z): return band(z).map { ($0, $0) }
        case .ramp(let a, let b):
            guard let s = band(a), let e = band(b) else { return nil }
            return (s, e)
        case .heartRate(let r):
            let range = Double(r.lowerBound)...Double(r.upperBound)
            return (range, range)
        case .free, .cadence, .tempo: return nil
        }
    }
}
