import Foundation

/// The runner's cadence as it comes in live (a footpod, a watch or phone pushing `cadence`):
/// steps of both feet a minute, smoothed.
public struct LiveCadence: Equatable, Sendable {
    public var stepsPerMinute: Double
    public var at: Date
    public var source: String

    public init(stepsPerMinute: Double, at: Date, source: String) {
        self.stepsPerMinute = stepsPerMinute
        self.at = at
        self.source = source
    }
}

/// Smooths live cadence: the median of the readings of the last `window` seconds (10), so a
/// stumble, a stop at a crossing or a sensor's glitch does not move the music, while a real
/// change of stride shows within the window. Readings outside 40–260 a minute are not steps.
/// A cadence older than `freshFor` (15 s) is no cadence: the runner stopped, or the sensor did.
public struct CadenceSmoother: Sendable {
    public static let window: TimeInterval = 10
    public static let freshFor: TimeInterval = 15
    public static let plausible: ClosedRange<Double> = 40...260

    private var readings: [(at: Date, spm: Double, source: String)] = []

    public init() {}

    public mutating func add(_ stepsPerMinute: Double, at: Date, source: String) {
        guard stepsPerMinute.isFinite, Self.plausible.contains(stepsPerMinute) else { return }
        if let last = readings.last, at < last.at.addingTimeInterval(-Self.window) { return }
        readings.append((at, stepsPerMinute, source))
        readings.sort { $0.at < $1.at }
        let newest = readings.last!.at
        readings.removeAll { $0.at < newest.addingTimeInterval(-Self.window) }
    }

    public func current(now: Date) -> LiveCadence? {
        guard let newest = readings.last, now.timeIntervalSince(newest.at) <= Self.freshFor else { return nil }
        let values = readings.map(\.spm).sorted()
        let middle = values.count / 2
        let median = values.count % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2
        return LiveCadence(stepsPerMinute: median, at: newest.at, source: newest.source)
    }
}

/// What cadence mode follows (Beatrun's controls): a target set with −5 / +5, else the live
/// cadence, else the configured default; and when the suggestions should be found again.
public struct CadenceState: Equatable, Sendable {
    /// Cadence mode on: suggestions asked without a zone follow the cadence.
    public var on: Bool
    /// The target set by hand (−5 / +5, or a number); nil: the live cadence leads.
    public var target: Double?
    public var live: LiveCadence?
    /// The configured cadence, when there is neither.
    public var fallback: Double
    /// The cadence the music was last told to follow (`PacenoteEvent.cadence`): it moves in
    /// steps of `rediscoverSteps` or more, not with every reading.
    public var announced: Double?

    public init(on: Bool = false, target: Double? = nil, live: LiveCadence? = nil, fallback: Double = 170) {
        self.on = on
        self.target = target
        self.live = live
        self.fallback = fallback
    }

    /// A live cadence that moved by this many steps a minute from the one the suggestions
    /// were made for makes them be found again.
    public static let rediscoverSteps = 4.0
    public static let step = 5.0
    public static let range: ClosedRange<Double> = 60...240

    /// The cadence followed, and where it comes from: `target`, `live` or `default`.
    public var following: (stepsPerMinute: Double, source: String) {
        if let target { return (target, "target") }
        if let live { return (live.stepsPerMinute, "live") }
        return (fallback, "default")
    }

    /// −5 / +5: from the cadence followed now, kept within `range`, to the nearest whole step.
    public func stepped(by delta: Double) -> Double {
        min(max((following.stepsPerMinute + delta).rounded(), Self.range.lowerBound), Self.range.upperBound)
    }
}
