import Foundation

/// Where a planned workout is (issue 55, point 2): its plan's segments laid out in time from
/// the workout's start, moved by the runner's presses — `next` ends the segment at once (an
/// open-ended one ends no other way), `pause` stops the plan's clock and `resume` starts it
/// again. Everything else is time: a segment with a length ends when its running time
/// reaches it, whether heart rate comes or not (when the sensors stop, the plan goes on).
///
/// Pure: the live dashboard, the recommender's look-ahead and the plan-against-actual
/// report all read the same spans.
public enum PlanProgress {
    public struct Mark: Equatable, Sendable {
        public enum Kind: String, Sendable, CaseIterable { case next, pause, resume }
        public var kind: Kind
        public var at: Date

        public init(_ kind: Kind, at: Date) {
            self.kind = kind
            self.at = at
        }
    }

    /// One segment as it ran (or runs).
    public struct Span: Equatable, Sendable {
        public enum Ending: String, Sendable { case time, button }
        /// The segment's index in `WorkoutPlan.timeline()`.
        public var index: Int
        public var start: Date
        /// Nil while it runs.
        public var end: Date?
        public var endedBy: Ending?
        /// Seconds of it the plan was paused.
        public var pausedSeconds: Double
    }

    public struct State: Equatable, Sendable {
        /// Every segment begun so far, the current one last (its `end` nil) unless finished.
        public var spans: [Span]
        /// The segment running now; nil once the plan is done.
        public var current: Int?
        /// Running seconds into the current segment (pauses left out).
        public var elapsed: Double
        /// Seconds left in it; nil when it is open-ended (or the plan is done).
        public var remaining: Double?
        public var paused: Bool
        /// Running seconds since the start (pauses left out), for the plan as a whole.
        public var planElapsed: Double

        public var finished: Bool { current == nil }
    }

    /// The state at `now` of a plan (its `timeline()`) started at `start`, given the presses
    /// so far (later ones are left out; a `resume` while running and a `pause` while paused
    /// change nothing).
    public static func state(of timeline: [WorkoutPlan.Planned], start: Date, marks: [Mark], now: Date) -> State {
        var spans: [Span] = []
        var index = 0
        var wall = start
        var segmentRun = 0.0, planRun = 0.0
        var paused = false
        if !timeline.isEmpty { spans.append(Span(index: 0, start: start, end: nil, endedBy: nil, pausedSeconds: 0)) }

        func close(at end: Date, by ending: Span.Ending) {
            spans[spans.count - 1].end = end
            spans[spans.count - 1].endedBy = ending
            index += 1
            segmentRun = 0
            if index < timeline.count { spans.append(Span(index: index, start: end, end: nil, endedBy: nil, pausedSeconds: 0)) }
        }
        // Runs the clock to `t`, ending the segments whose time is up on the way.
        func run(to t: Date) {
            guard t > wall else { return }
            if paused {
                if index < timeline.count { spans[spans.count - 1].pausedSeconds += t.timeIntervalSince(wall) }
                wall = t
                return
            }
            while index < timeline.count, let seconds = timeline[index].seconds {
                let left = Double(seconds) - segmentRun
                let available = t.timeIntervalSince(wall)
                guard left <= available else { break }
                wall = wall.addingTimeInterval(left)
                planRun += left
                close(at: wall, by: .time)
            }
            if index < timeline.count {
                segmentRun += t.timeIntervalSince(wall)
                planRun += t.timeIntervalSince(wall)
            }
            wall = t
        }

        for mark in marks.sorted(by: { $0.at < $1.at }) where mark.at <= now && mark.at >= start {
            run(to: mark.at)
            guard index < timeline.count else { break }
            switch mark.kind {
            case .next: close(at: mark.at, by: .button)
            case .pause: paused = true
            case .resume: paused = false
            }
        }
        run(to: now)
        let current = index < timeline.count ? index : nil
        let remaining = current.flatMap { timeline[$0].seconds }.map { Double($0) - segmentRun }
        return State(spans: spans, current: current, elapsed: current == nil ? 0 : segmentRun,
                     remaining: remaining, paused: current != nil && paused, planElapsed: planRun)
    }
}

extension PlanProgress {
    /// Where the next song will mostly play (issue 55, point 3): it starts `startsIn` seconds
    /// from now (what is left of the song playing) and lasts `seconds`; the plan is where
    /// `state` says. Returns the segment holding most of it and how far through that segment
    /// its middle comes (for a ramp's zone); nil once the plan is done. A paused plan, or an
    /// open-ended segment, holds the next song whatever its length: its end is not known.
    public static func nextSong(in timeline: [WorkoutPlan.Planned], state: State, startsIn: Double,
                                seconds: Double) -> (segment: Int, fraction: Double)? {
        guard let current = state.current else { return nil }
        guard !state.paused, let left = state.remaining else {
            let length = timeline[current].seconds.map(Double.init)
            return (current, length.map { min(1, (state.elapsed + startsIn + seconds / 2) / max($0, 1)) } ?? 0)
        }
        let from = max(0, startsIn), to = from + max(seconds, 1)
        var best: (segment: Int, overlap: Double, fraction: Double)?
        var start = -state.elapsed
        var end = left
        var i = current
        while i < timeline.count, start < to {
            let length = end - start
            let overlap = min(end, to) - max(start, from)
            if overlap > 0, overlap > (best?.overlap ?? 0) + 1e-9 {
                let middle = (max(start, from) + min(end, to)) / 2
                best = (i, overlap, length > 0 ? (middle - start) / length : 0)
            }
            i += 1
            guard i < timeline.count else { break }
            start = end
            // An open-ended segment ahead lasts as long as it is run: it takes the rest.
            end = timeline[i].seconds.map { start + Double($0) } ?? .infinity
        }
        // Past the plan's last timed segment: the music follows its last segment.
        return best.map { ($0.segment, $0.fraction) } ?? (timeline.count - 1, 1)
    }
}

extension PlanProgress {
    /// Seconds from now to the end of segment `index`: what is left of the current one and the
    /// lengths of those up to it; nil when one of them is open-ended or the plan is paused.
    public static func secondsToEnd(of index: Int, in timeline: [WorkoutPlan.Planned], state: PlanProgress.State) -> Double? {
        guard !state.paused, let current = state.current, index >= current, var total = state.remaining else { return nil }
        for planned in timeline[(current + 1)..<(index + 1)] {
            guard let seconds = planned.seconds else { return nil }
            total += Double(seconds)
        }
        return total
    }
}
