import Foundation

/// The current heart rate: a rolling median over the last `window` seconds, which a single
/// wild reading cannot move; a reading far from the current value is held back until the
/// next one confirms it (a real change) or not (a glitch, dropped).
public struct HeartRateSmoother: Sendable {
    public var window: Double
    /// How far (bpm) a reading may be from the current value before it needs confirming.
    public var jump: Int
    private var recent: [HeartRateSample] = []
    private var pending: HeartRateSample?

    public init(window: Double = 5, jump: Int = 30) {
        self.window = window
        self.jump = jump
    }

    /// The smoothed value and the time of the newest reading behind it.
    public private(set) var current: (bpm: Double, at: Date)?

    /// Adds a reading (in time order); returns the new smoothed value.
    @discardableResult
    public mutating func add(_ sample: HeartRateSample) -> Double? {
        if let last = recent.last, sample.at < last.at { return current?.bpm }  // late: not live
        if let value = current?.bpm, abs(Double(sample.bpm) - value) > Double(jump) {
            if let held = pending, abs(held.bpm - sample.bpm) <= jump / 2 {
                // Confirmed: the heart rate really moved. Start the window afresh.
                recent = [held, sample]
                pending = nil
            } else {
                pending = sample
                return current?.bpm
            }
        } else {
            pending = nil
            recent.append(sample)
        }
        recent.removeAll { sample.at.timeIntervalSince($0.at) > window }
        let sorted = recent.map(\.bpm).sorted()
        let median = sorted.count % 2 == 1
            ? Double(sorted[sorted.count / 2])
            : Double(sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        current = (median, sample.at)
        return median
    }
}
