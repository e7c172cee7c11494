import Foundation

/// Finds workouts in a stream of heart-rate readings: one starts once readings have kept
/// coming for `startAfter` seconds (gaps shorter than `endAfter` are bridged) and ends when
/// none has come for `endAfter` seconds, at its last reading. A workout started by hand
/// ends only by hand.
public struct WorkoutDetector: Equatable, Sendable {
    public enum Event: Equatable, Sendable {
        case started(at: Date)
        case ended(at: Date)
    }

    public var startAfter: Double
    public var endAfter: Double
    /// The first reading of the current unbroken run.
    public private(set) var runStart: Date?
    public private(set) var lastReading: Date?
    /// When the workout in progress began, if one is.
    public private(set) var workoutStart: Date?
    public private(set) var isManual = false
    /// After a workout is stopped by hand, readings that keep coming (the strap is still
    /// on) do not start another one until they pause for `endAfter`.
    public private(set) var suppressed = false

    public init(startAfter: Double = 60, endAfter: Double = 300) {
        self.startAfter = startAfter
        self.endAfter = endAfter
    }

    /// A reading at `at` (readings come in time order; older ones are ignored here).
    public mutating func add(_ at: Date) -> [Event] {
        var events: [Event] = []
        if let last = lastReading {
            guard at >= last else { return [] }
            if at.timeIntervalSince(last) > endAfter {
                events += end(at: last)
                runStart = at
                suppressed = false
            }
        }
        if suppressed {
            lastReading = at
            return events
        }
        if runStart == nil { runStart = at }
        lastReading = at
        if workoutStart == nil, let start = runStart, at.timeIntervalSince(start) >= startAfter {
            workoutStart = start
            events.append(.started(at: start))
        }
        return events
    }

    /// Time passes without readings: ends the workout once `endAfter` has gone by.
    public mutating func tick(now: Date) -> [Event] {
        guard let last = lastReading, now.timeIntervalSince(last) > endAfter else { return [] }
        let events = end(at: last)
        runStart = nil
        return events
    }

    /// When the workout in progress ends automatically, if no reading comes before then.
    public var endsAt: Date? {
        guard workoutStart != nil, !isManual, let last = lastReading else { return nil }
        return last.addingTimeInterval(endAfter)
    }

    public mutating func startManually(at: Date) -> [Event] {
        suppressed = false
        guard workoutStart == nil else {
            isManual = true
            return []
        }
        workoutStart = at
        isManual = true
        return [.started(at: at)]
    }

    public mutating func stopManually(at: Date) -> [Event] {
        guard workoutStart != nil else { return [] }
        isManual = false
        workoutStart = nil
        runStart = nil
        suppressed = true
        // The pause that lifts the suppression is counted from the stop.
        lastReading = max(lastReading ?? at, at)
        return [.ended(at: at)]
    }

    /// Resumes a workout that was in progress when Pacenote stopped.
    public mutating func resume(workoutStartedAt start: Date, lastReading: Date?, manual: Bool) {
        workoutStart = start
        runStart = start
        self.lastReading = lastReading ?? start
        isManual = manual
    }

    private mutating func end(at last: Date) -> [Event] {
        guard let start = workoutStart, !isManual else { return [] }
        workoutStart = nil
        return [.ended(at: max(last, start))]
    }

    /// The workouts in readings that arrived after the fact (a watch synced later):
    /// (start, end) pairs, by the same rule.
    public static func workouts(in readings: [Date], startAfter: Double = 60, endAfter: Double = 300) -> [(Date, Date)] {
        var detector = WorkoutDetector(startAfter: startAfter, endAfter: endAfter)
        var found: [(Date, Date)] = []
        var start: Date?
        for at in readings.sorted() {
            for event in detector.add(at) {
                switch event {
                case .started(let s): start = s
                case .ended(let e): if let s = start { found.append((s, e)); start = nil }
                }
            }
        }
        if let s = start, let last = detector.lastReading { found.append((s, last)) }
        return found
    }
}

/// How much a song lifted the heart rate: its average during the play minus the average
/// over the `before` seconds before it began.
public enum HeartRateLift {
    public static func lift(samples: [HeartRateSample], start: Date, end: Date, before: Double = 30) -> Double? {
        let during = samples.filter { $0.at >= start && $0.at <= end }
        let prior = samples.filter { $0.at < start && $0.at >= start.addingTimeInterval(-before) }
        guard !during.isEmpty, !prior.isEmpty else { return nil }
        return average(during) - average(prior)
    }

    public static func average(_ samples: [HeartRateSample]) -> Double {
        samples.isEmpty ? 0 : Double(samples.reduce(0) { $0 + $1.bpm }) / Double(samples.count)
    }
}
