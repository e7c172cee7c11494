import Foundation

/// A workout you plan (issue 55): an ordered list of steps, each a segment with a duration and
/// a target, or a repeat of steps (`6 × [2 min Z5, 3 min Z2]`). A segment's target is a zone,
/// a ramp between zones (Z2 → Z4 over 20 min), a heart-rate range, a cadence, a music tempo,
/// or nothing; it lasts a time or until the runner says next (open-ended).
///
/// Pure: made from the editor's form, the API's JSON, the text notation, a Zwift `.zwo` or a
/// FIT workout file (`WorkoutPlan+Formats`), checked by `validate()`, and laid out in time by
/// `timeline()` for the recommender, the live dashboard and the plan-against-actual report.
public struct WorkoutPlan: Equatable, Sendable {
    public var name: String
    /// `running`, `cycling`, … as FIT names sports (`FITActivity.name`); nil for any.
    public var sport: String?
    public var steps: [Step]

    public init(name: String, sport: String? = nil, steps: [Step]) {
        self.name = name
        self.sport = sport
        self.steps = steps
    }

    public indirect enum Step: Equatable, Sendable {
        case segment(Segment)
        /// The steps `count` times over (2…99).
        case repeated(count: Int, steps: [Step])
    }

    public struct Segment: Equatable, Sendable {
        /// Seconds; nil: open-ended, until the runner presses next.
        public var seconds: Int?
        public var target: Target
        /// What the editor or the source file calls it ("warm-up", "sprint"), if anything.
        public var label: String?

        public init(seconds: Int?, target: Target, label: String? = nil) {
            self.seconds = seconds
            self.target = target
            self.label = label
        }
    }

    public enum Target: Equatable, Sendable {
        /// Ride it as you feel: the music follows the live zone, as without a plan.
        case free
        /// A heart-rate zone, 1–5 (`Zone`).
        case zone(Int)
        /// From one zone to another over the segment, evenly.
        case ramp(from: Int, to: Int)
        /// Beats per minute of the heart, low to high.
        case heartRate(ClosedRange<Int>)
        /// Steps (or pedal strokes) per minute, low to high: cadence mode's tempo rules.
        case cadence(ClosedRange<Int>)
        /// The music's own tempo, beats per minute.
        case tempo(ClosedRange<Int>)
    }

    // MARK: Limits

    /// A plan longer than this is a typing mistake, not a workout (an ultra is a day).
    public static let maxSeconds = 24 * 3600
    public static let maxRepeat = 99
    /// Repeats inside repeats, at most this deep (`3 × [4 × [30 s Z5, 30 s Z1], 5 min Z1]`).
    public static let maxDepth = 3
    /// Segments once the repeats are laid out.
    public static let maxSegments = 1000
    public static let maxNameLength = 100
    public static let heartRateRange = HeartRateSample.validRange
    public static let cadenceRange = 20...250
    public static let tempoRange = 40...250

    /// Why a plan cannot be run, in the words the editor and the API show.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// Where: `steps[2].steps[0]`, or "" for the plan as a whole.
        public var path: String
        public var message: String
        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
        public init(_ path: String, _ message: String) {
            self.path = path
            self.message = message
        }
    }

    /// Checks the plan can be followed: a name, at least one segment, every segment longer
    /// than nothing, zones that exist (1–5), ranges low to high within what a body does,
    /// repeats of 2–99 at most three deep, and at most a day in all.
    public func validate() throws(Problem) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw Problem("name", "a plan needs a name") }
        guard trimmed.count <= Self.maxNameLength else { throw Problem("name", "at most \(Self.maxNameLength) characters") }
        guard !steps.isEmpty else { throw Problem("steps", "a plan needs at least one segment") }
        var segments = 0
        try Self.check(steps, path: "steps", depth: 1, segments: &segments)
        let total = fixedSeconds
        guard total <= Self.maxSeconds else {
            throw Problem("", "the plan lasts \(Self.clock(total)), over the \(Self.maxSeconds / 3600) hours a plan may last")
        }
    }

    private static func check(_ steps: [Step], path: String, depth: Int, segments: inout Int) throws(Problem) {
        for (i, step) in steps.enumerated() {
            let here = "\(path)[\(i)]"
            switch step {
            case .segment(let s):
                segments += 1
                guard segments <= maxSegments else { throw Problem(here, "more than \(maxSegments) segments once repeated") }
                if let seconds = s.seconds {
                    guard seconds > 0 else { throw Problem(here, "a segment lasts at least one second (or is open-ended)") }
                    guard seconds <= maxSeconds else { throw Problem(here, "\(clock(seconds)) is over the \(maxSeconds / 3600) hours a plan may last") }
                }
                try check(s.target, path: here)
            case .repeated(let count, let inner):
                guard (2...maxRepeat).contains(count) else { throw Problem(here, "a repeat is 2 to \(maxRepeat) times, not \(count)") }
                guard !inner.isEmpty else { throw Problem(here, "a repeat needs at least one segment") }
                guard depth <= maxDepth else { throw Problem(here, "repeats nest at most \(maxDepth) deep") }
                var once = 0
                try check(inner, path: here + ".steps", depth: depth + 1, segments: &once)
                guard segments + once * count <= maxSegments else { throw Problem(here, "more than \(maxSegments) segments once repeated") }
                segments += once * count
                if inner.contains(where: \.isOpenEnded) {
                    throw Problem(here, "an open-ended segment cannot be repeated (it would never end by itself)")
                }
            }
        }
    }

    private static func check(_ target: Target, path: String) throws(Problem) {
        func zone(_ z: Int) throws(Problem) {
            guard (1...5).contains(z) else { throw Problem(path, "zone \(z) does not exist: zones are 1 to 5") }
        }
        func range(_ r: ClosedRange<Int>, _ bounds: ClosedRange<Int>, _ what: String) throws(Problem) {
            guard bounds.contains(r.lowerBound), bounds.contains(r.upperBound) else {
                throw Problem(path, "\(what) \(r.lowerBound)–\(r.upperBound) is outside \(bounds.lowerBound)–\(bounds.upperBound)")
            }
        }
        switch target {
        case .free: break
        case .zone(let z): try zone(z)
        case .ramp(let a, let b):
            try zone(a)
            try zone(b)
            guard a != b else { throw Problem(path, "a ramp goes from one zone to another (Z\(a) to Z\(b) is a steady zone)") }
        case .heartRate(let r): try range(r, heartRateRange, "heart rate")
        case .cadence(let r): try range(r, cadenceRange, "cadence")
        case .tempo(let r): try range(r, tempoRange, "tempo")
        }
    }

    /// The plan's length without its open-ended segments.
    public var fixedSeconds: Int {
        func sum(_ steps: [Step]) -> Int {
            steps.reduce(0) { total, step in
                switch step {
                case .segment(let s): total + (s.seconds ?? 0)
                case .repeated(let count, let inner): total + count * sum(inner)
                }
            }
        }
        return sum(steps)
    }

    public var isOpenEnded: Bool { steps.contains(where: \.isOpenEnded) }

    // MARK: Time

    /// A segment as it comes in the workout: the repeats laid out.
    public struct Planned: Equatable, Sendable {
        /// 0, 1, 2, … in the order they come.
        public var index: Int
        public var segment: Segment
        /// Where it comes from: `[1, 0]` is the first step of the second step's repeat.
        public var path: [Int]
        /// 1-based round of each repeat it is in (`[3]`: the third of six), outermost first.
        public var rounds: [Int]
        /// From the plan's start, in seconds, counting only the fixed segments before it; an
        /// open-ended segment before it shifts it by however long that one took.
        public var offset: Int

        public var seconds: Int? { segment.seconds }
        public var target: Target { segment.target }
    }

    /// The segments in order, repeats laid out. Call on a validated plan.
    public func timeline() -> [Planned] {
        var out: [Planned] = []
        var offset = 0
        func lay(_ steps: [Step], path: [Int], rounds: [Int]) {
            for (i, step) in steps.enumerated() {
                switch step {
                case .segment(let s):
                    out.append(Planned(index: out.count, segment: s, path: path + [i], rounds: rounds, offset: offset))
                    offset += s.seconds ?? 0
                case .repeated(let count, let inner):
                    for round in 1...max(count, 1) { lay(inner, path: path + [i], rounds: rounds + [round]) }
                }
            }
        }
        lay(steps, path: [], rounds: [])
        return out
    }
}

extension WorkoutPlan.Step {
    public var isOpenEnded: Bool {
        switch self {
        case .segment(let s): s.seconds == nil
        case .repeated(_, let inner): inner.contains(where: \.isOpenEnded)
        }
    }
}

extension WorkoutPlan.Target {
    /// The zone the target means `fraction` (0…1) of the way through its segment, as a
    /// number (a ramp from Z2 to Z4 is 3.0 half-way); nil for targets that are no zone.
    public func zone(at fraction: Double) -> Double? {
        switch self {
        case .zone(let z): Double(z)
        case .ramp(let a, let b): Double(a) + (Double(b) - Double(a)) * min(max(fraction, 0), 1)
        default: nil
        }
    }

    /// How the editor, the dashboard and the notation (`WorkoutPlan.text`) write it: "Z4",
    /// "Z2 → Z4", "140-155 bpm", "170-180 spm", "tempo 128-132", "free".
    public var text: String {
        switch self {
        case .free: "free"
        case .zone(let z): "Z\(z)"
        case .ramp(let a, let b): "Z\(a) → Z\(b)"
        case .heartRate(let r): "\(r.lowerBound)-\(r.upperBound) bpm"
        case .cadence(let r): "\(r.lowerBound)-\(r.upperBound) spm"
        case .tempo(let r): "tempo \(r.lowerBound)-\(r.upperBound)"
        }
    }
}

extension WorkoutPlan {
    /// `1:05:00`, `12:30`, `45 s`.
    public static func clock(_ seconds: Int) -> String {
        if seconds < 60 { return "\(seconds) s" }
        let h = seconds / 3600, m = seconds % 3600 / 60, s = seconds % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }
}
