import Foundation

/// Plan against actual (issue 55, point 4): after a planned workout, each segment's target
/// beside what happened — seconds on target, compliance, average and highest heart rate,
/// average cadence — and, across weeks, how a plan's compliance moved ("your 6 × 2 min
/// session: 71 % → 88 % since September").
///
/// Pure, and made of rules simple enough to recompute by hand from the samples:
///
/// - **Segments** are `PlanProgress`'s spans at `end`: the same presses that moved the live
///   dashboard make the report. A span still running at `end` ends there.
/// - **Paused time** (from a `pause` to the next `resume`, or to `end`; a second `pause`
///   or a stray `resume` changes nothing, as in `PlanProgress`) is left out of every count:
///   `seconds`, `measuredSeconds`, `inTargetSeconds` and the averages' weights.
/// - **A reading counts** from its time until the next reading of its kind, never more than
///   `maxGap` seconds, the last until `end` (at most `maxGap`): the rule of time in zone
///   (`WorkoutFigures.counted`), so a dropped strap counts neither for nor against the plan.
///   That counted interval is clipped to the segment, paused time taken out; a reading just
///   before a segment's start counts in it for what of its interval falls inside.
/// - **On target**, by target:
///   - `.zone(z)` and `.ramp(a, b)`: heart-rate readings whose zone (`ZoneModel.zone(for:)`)
///     is within 0.5 of `target.zone(at: f)` — the zone itself for `.zone`, the nearest
///     zone of the ramp's line for a ramp. `f` is the running seconds into the segment at
///     the start of the reading's counted part, over the segment's planned length (its
///     run length when open-ended): the runner was shown the plan's ramp, and pressing
///     next early does not make it steeper after the fact.
///   - `.heartRate(range)`: heart-rate readings with the bpm in range.
///   - `.cadence(range)`: motion readings that have a cadence, the cadence in range (a zero
///     — stopped at a light — is a reading off target).
///   - `.tempo(range)`: the songs with a known tempo, each for the running seconds it
///     overlaps the segment; on target when `TempoTarget.window(range)` fits it, half and
///     double time counting (a 68 bpm song fits 130–140). Songs with no tempo judge nothing.
///   - `.free`: judges nothing: no compliance, nothing measured.
/// - **Compliance** is seconds on target over seconds measured (0…1), nil with nothing
///   measured; the report's is Σ on target / Σ measured over the segments that have one,
///   so long segments weigh more than short ones, as they do in the workout.
/// - **Averages** are time-weighted by the same counted seconds (a reading held 5 s counts
///   five times one held 1 s); the highest heart rate is the highest reading that counts in
///   the segment. Average cadence leaves zeros out, as `WorkoutMeasures` does.
public enum PlanReport {
    /// A song as it played in the workout, for tempo segments.
    public struct PlayedSong: Equatable, Sendable {
        public var start: Date
        public var end: Date
        /// Beats per minute; nil when the library does not know it.
        public var bpm: Double?

        public init(start: Date, end: Date, bpm: Double?) {
            self.start = start
            self.end = end
            self.bpm = bpm
        }
    }

    /// One segment as planned and as run.
    public struct Segment: Equatable, Sendable {
        /// Its index in `WorkoutPlan.timeline()`.
        public var index: Int
        public var target: WorkoutPlan.Target
        public var start: Date
        public var end: Date
        /// How it ended; nil when it was still running at the report's end.
        public var endedBy: PlanProgress.Span.Ending?
        /// Running seconds, paused time left out.
        public var seconds: Double
        /// Seconds covered by the readings (or songs) the target is judged on.
        public var measuredSeconds: Double
        public var inTargetSeconds: Double
        /// `inTargetSeconds / measuredSeconds`, 0…1; nil for `.free` or with nothing measured.
        public var compliance: Double?
        /// Beats per minute, time-weighted; nil without heart rate in the segment.
        public var averageHeartRate: Double?
        public var maxHeartRate: Int?
        /// Per minute, time-weighted, zeros left out; nil without cadence.
        public var averageCadence: Double?

        public init(index: Int, target: WorkoutPlan.Target, start: Date, end: Date, endedBy: PlanProgress.Span.Ending?,
                    seconds: Double, measuredSeconds: Double, inTargetSeconds: Double, compliance: Double?,
                    averageHeartRate: Double?, maxHeartRate: Int?, averageCadence: Double?) {
            self.index = index
            self.target = target
            self.start = start
            self.end = end
            self.endedBy = endedBy
            self.seconds = seconds
            self.measuredSeconds = measuredSeconds
            self.inTargetSeconds = inTargetSeconds
            self.compliance = compliance
            self.averageHeartRate = averageHeartRate
            self.maxHeartRate = maxHeartRate
            self.averageCadence = averageCadence
        }
    }

    public struct Report: Equatable, Sendable {
        public var segments: [Segment]
        /// Over the segments that have a target and data: Σ inTarget / Σ measured. nil if none.
        public var compliance: Double?
        /// The sums behind `compliance` (segments without compliance add nothing).
        public var inTargetSeconds: Double
        public var measuredSeconds: Double

        public init(segments: [Segment]) {
            self.segments = segments
            let judged = segments.filter { $0.compliance != nil }
            inTargetSeconds = judged.reduce(0) { $0 + $1.inTargetSeconds }
            measuredSeconds = judged.reduce(0) { $0 + $1.measuredSeconds }
            compliance = measuredSeconds > 0 ? inTargetSeconds / measuredSeconds : nil
        }
    }

    /// The report of a plan (its `timeline()`) started at `start` and ended (or looked at)
    /// at `end`, given the runner's presses, the readings and the songs, in any order.
    public static func make(timeline: [WorkoutPlan.Planned], start: Date, marks: [PlanProgress.Mark], end: Date,
                            heartRate: [HeartRateSample], motion: [MotionSample], songs: [PlayedSong],
                            zones: ZoneModel, maxGap: Double = 5) -> Report {
        let spans = PlanProgress.state(of: timeline, start: start, marks: marks, now: end).spans
        let clock = RunningClock(start: start, marks: marks, end: end)
        let pulse = Readings(heartRate.map { ($0.at, Double($0.bpm)) }, end: end, maxGap: maxGap)
        let steps = Readings(motion.compactMap { m in m.cadence.map { (m.at, $0) } }, end: end, maxGap: maxGap)
        let tunes = songs.compactMap { s in s.bpm.map { (start: s.start, end: s.end, bpm: $0) } }

        let segments = spans.map { span -> Segment in
            let planned = timeline[span.index]
            let target = planned.target
            let from = span.start, to = max(span.end ?? end, span.start)
            let seconds = clock.running(from, to)
            let beats = pulse.pieces(from, to, clock)
            let cadence = steps.pieces(from, to, clock)

            // Each judged stretch: its running seconds and whether it was on target.
            let judged: [(seconds: Double, on: Bool)]
            switch target {
            case .free:
                judged = []
            case .zone, .ramp:
                let length = planned.seconds.map(Double.init) ?? seconds
                judged = beats.map { p in
                    let fraction = length > 0 ? clock.running(from, p.start) / length : 0
                    let want = target.zone(at: fraction) ?? 0
                    return (p.seconds, abs(Double(zones.zone(for: p.value).rawValue) - want) <= 0.5)
                }
            case .heartRate(let range):
                judged = beats.map { ($0.seconds, Self.contains(range, $0.value)) }
            case .cadence(let range):
                judged = cadence.map { ($0.seconds, Self.contains(range, $0.value)) }
            case .tempo(let range):
                let window = TempoTarget.window(Double(range.lowerBound)...Double(range.upperBound))
                judged = tunes.compactMap { song in
                    let s = clock.running(max(song.start, from), min(song.end, to))
                    return s > 0 ? (s, window.fit(bpm: song.bpm) != nil) : nil
                }
            }
            let measured = judged.reduce(0) { $0 + $1.seconds }
            let onTarget = judged.reduce(0) { $0 + ($1.on ? $1.seconds : 0) }
            let moving = cadence.filter { $0.value > 0 }
            return Segment(index: span.index, target: target, start: from, end: to, endedBy: span.endedBy,
                           seconds: seconds, measuredSeconds: measured, inTargetSeconds: onTarget,
                           compliance: target == .free || measured <= 0 ? nil : onTarget / measured,
                           averageHeartRate: Self.average(beats), maxHeartRate: beats.map { Int($0.value) }.max(),
                           averageCadence: Self.average(moving))
        }
        return Report(segments: segments)
    }

    private static func contains(_ range: ClosedRange<Int>, _ value: Double) -> Bool {
        Double(range.lowerBound) <= value && value <= Double(range.upperBound)
    }

    private static func average(_ pieces: [Piece]) -> Double? {
        let seconds = pieces.reduce(0) { $0 + $1.seconds }
        return seconds > 0 ? pieces.reduce(0) { $0 + $1.value * $1.seconds } / seconds : nil
    }

    /// The part of one reading's counted interval inside a segment.
    struct Piece {
        var value: Double
        /// Where the counted part begins (the reading's time, or the segment's start).
        var start: Date
        /// Its running seconds.
        var seconds: Double
    }

    /// The plan's clock: wall time less paused time. The pauses are read from the marks the
    /// way `PlanProgress` reads them, so the report's seconds are its spans' running seconds.
    struct RunningClock {
        /// Paused intervals, in order, not overlapping.
        let pauses: [(from: Date, to: Date)]

        init(start: Date, marks: [PlanProgress.Mark], end: Date) {
            var pauses: [(from: Date, to: Date)] = []
            var since: Date?
            for mark in marks.sorted(by: { $0.at < $1.at }) where mark.at >= start && mark.at <= end {
                switch mark.kind {
                case .pause: since = since ?? mark.at
                case .resume:
                    if let s = since { pauses.append((s, mark.at)) }
                    since = nil
                case .next: break
                }
            }
            if let since { pauses.append((since, end)) }
            self.pauses = pauses
        }

        /// Running seconds from `a` to `b` (0 when `b` is not later).
        func running(_ a: Date, _ b: Date) -> Double {
            guard b > a else { return 0 }
            let paused = pauses.reduce(0.0) { sum, p in
                sum + max(0, min(b, p.to).timeIntervalSince(max(a, p.from)))
            }
            return max(0, b.timeIntervalSince(a) - paused)
        }
    }

    /// Readings of one kind in time order, each with the end of its counted interval.
    struct Readings {
        let at: [Date]
        let values: [Double]
        /// Never decreasing: each ends by the next reading's time, which is at or after the
        /// previous end — so a binary search finds the first that reaches into a segment.
        let ends: [Date]

        init(_ readings: [(Date, Double)], end: Date, maxGap: Double) {
            let sorted = readings.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
            at = sorted.map(\.0)
            values = sorted.map(\.1)
            ends = at.indices.map { i in
                let next = i + 1 < sorted.count ? sorted[i + 1].0 : end
                return sorted[i].0.addingTimeInterval(WorkoutFigures.counted(from: sorted[i].0, until: next, maxGap: maxGap))
            }
        }

        /// The parts of the readings' counted intervals inside `from…to` that ran (paused
        /// time out), the empty ones left out.
        func pieces(_ from: Date, _ to: Date, _ clock: RunningClock) -> [Piece] {
            var low = 0, high = ends.count
            while low < high {
                let mid = (low + high) / 2
                if ends[mid] <= from { low = mid + 1 } else { high = mid }
            }
            var out: [Piece] = []
            var i = low
            while i < at.count, at[i] < to {
                let a = max(at[i], from), b = min(ends[i], to)
                let seconds = clock.running(a, b)
                if seconds > 0 { out.append(Piece(value: values[i], start: a, seconds: seconds)) }
                i += 1
            }
            return out
        }
    }
}

// MARK: Across weeks

extension PlanReport {
    /// How one plan's compliance moved across weeks: "71 % → 88 % since September".
    public struct Trend: Equatable, Sendable {
        public struct Week: Equatable, Sendable {
            /// The week's first moment in the calendar given.
            public var weekStart: Date
            /// The mean of its runs' compliance, 0…1.
            public var compliance: Double
            public var runs: Int

            public init(weekStart: Date, compliance: Double, runs: Int) {
                self.weekStart = weekStart
                self.compliance = compliance
                self.runs = runs
            }
        }

        /// The earliest week's mean.
        public var first: Double
        /// The latest week's mean.
        public var latest: Double
        /// The earliest run.
        public var since: Date
        /// The weeks that had runs, oldest first.
        public var weeks: [Week]

        public init(first: Double, latest: Double, since: Date, weeks: [Week]) {
            self.first = first
            self.latest = latest
            self.since = since
            self.weeks = weeks
        }
    }

    /// The trend of a plan's runs (each its time and its report's compliance), by week of
    /// `calendar` (an ISO 8601 calendar in the runner's time zone gives ISO weeks from
    /// Monday). Weekly means rather than the runs themselves: two sessions in a good week
    /// should not outweigh one in a bad week, and the sentence speaks of weeks. Each run
    /// weighs the same in its week, however long it was: the question is how well the
    /// session goes, not how much of it there was. Nil until the runs span two weeks: one
    /// week is no trend.
    public static func trend(_ runs: [(at: Date, compliance: Double)], calendar: Calendar) -> Trend? {
        guard runs.count >= 2 else { return nil }
        var byWeek: [Date: (sum: Double, count: Int)] = [:]
        for run in runs {
            let week = calendar.dateInterval(of: .weekOfYear, for: run.at)?.start ?? run.at
            byWeek[week, default: (0, 0)].sum += run.compliance
            byWeek[week, default: (0, 0)].count += 1
        }
        let weeks = byWeek.keys.sorted().map { start in
            let w = byWeek[start]!
            return Trend.Week(weekStart: start, compliance: w.sum / Double(w.count), runs: w.count)
        }
        // One week is no trend: "71 % → 71 %" says nothing.
        guard weeks.count >= 2 else { return nil }
        return Trend(first: weeks.first!.compliance, latest: weeks.last!.compliance,
                     since: runs.map(\.at).min()!, weeks: weeks)
    }
}
