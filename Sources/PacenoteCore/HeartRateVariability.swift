import Foundation

/// Heart-rate variability in the time domain: RMSSD and SDNN of a series of RR intervals
/// (the time between beats, in ms, as a chest strap sends them), after artefacts are taken out.
///
/// The cleaning is hrv-analysis's (PyPI `hrv-analysis`, module `hrvanalysis`, its README's
/// pipeline), step for step, so that the figures are the ones that package gives on the same
/// series (the reference test holds them within 0.1 ms):
///
/// 1. `remove_outliers(low_rri=300, high_rri=2000)`: an interval outside 300–2000 ms
///    (200–30 bpm) is no beat-to-beat interval but a missed or doubled detection.
/// 2. `interpolate_nan_values`: each removed interval is replaced by linear interpolation
///    between its accepted neighbours (leading ones take the first accepted value, trailing
///    ones the last).
/// 3. `remove_ectopic_beats(method="malik")`: Malik's rule (Malik et al. 1989; Task Force of
///    the ESC/NASPE 1996): an interval that differs from the one before it by more than 20 %
///    of that one is an ectopic (or mis-detected) beat and is removed. As in hrv-analysis, the
///    interval after a removed one is kept without being compared: it is measured from the
///    ectopic beat and would otherwise be removed with it.
/// 4. `interpolate_nan_values` again, then `get_time_domain_features`:
///    RMSSD = √(mean of squared successive differences); SDNN = sample standard deviation
///    (n − 1 in the denominator, numpy's `ddof=1`).
///
/// Where Pacenote differs: hrv-analysis prints how many it removed; here they are counted in
/// the result (`outliers`, `ectopic`), and a series with fewer than `minimumBeats` accepted
/// intervals, or where more than a fifth were removed, gives no figures (hrv-analysis would
/// compute them from interpolated values alone).
public struct HeartRateVariability: Equatable, Sendable {
    /// Root mean square of successive differences, ms: beat-to-beat (vagal) variability.
    public var rmssd: Double
    /// Standard deviation of the NN intervals, ms: overall variability.
    public var sdnn: Double
    /// Mean NN interval, ms.
    public var meanNN: Double
    /// Intervals received.
    public var beats: Int
    /// Intervals outside 300–2000 ms (step 1).
    public var outliers: Int
    /// Intervals removed by Malik's rule (step 3).
    public var ectopic: Int

    public static let plausible: ClosedRange<Double> = 300...2000
    /// Malik's rule: 20 % of the previous interval.
    public static let malikFraction = 0.2
    /// Fewer accepted intervals than this (about 30 s at rest) make no reading.
    public static let minimumBeats = 30
    /// More removed than this fraction: the strap was slipping, the figures would be made up.
    public static let maximumRemovedFraction = 0.2

    public var removed: Int { outliers + ectopic }

    /// The figures of `rr` (ms, in order), or nil when there are too few clean intervals.
    public init?(rr: [Double]) {
        let cleaned = Self.clean(rr)
        let removed = cleaned.outliers + cleaned.ectopic
        guard rr.count - removed >= Self.minimumBeats,
              Double(removed) <= Self.maximumRemovedFraction * Double(rr.count),
              let figures = Self.timeDomain(cleaned.nn) else { return nil }
        self.init(rmssd: figures.rmssd, sdnn: figures.sdnn, meanNN: figures.mean, beats: rr.count,
                  outliers: cleaned.outliers, ectopic: cleaned.ectopic)
    }

    public init(rmssd: Double, sdnn: Double, meanNN: Double, beats: Int, outliers: Int, ectopic: Int) {
        self.rmssd = rmssd
        self.sdnn = sdnn
        self.meanNN = meanNN
        self.beats = beats
        self.outliers = outliers
        self.ectopic = ectopic
    }

    /// Steps 1–4's series: the NN intervals with every removed one interpolated, and how many
    /// each step removed. Empty when no interval is plausible.
    public static func clean(_ rr: [Double]) -> (nn: [Double], outliers: Int, ectopic: Int) {
        var series: [Double?] = rr.map { plausible.contains($0) ? $0 : nil }
        let outliers = series.count { $0 == nil }
        guard var values = interpolated(series) else { return ([], outliers, 0) }
        var ectopic = 0
        var previousRemoved = false
        series = [values.first]
        for i in values.indices.dropLast() {
            if previousRemoved {
                series.append(values[i + 1])
                previousRemoved = false
            } else if abs(values[i] - values[i + 1]) <= malikFraction * values[i] {
                series.append(values[i + 1])
            } else {
                series.append(nil)
                ectopic += 1
                previousRemoved = true
            }
        }
        values = interpolated(series) ?? []
        return (values, outliers, ectopic)
    }

    /// `interpolate_nan_values`: gaps filled linearly between their neighbours, the ends with
    /// the nearest value. Nil when every value is missing.
    static func interpolated(_ series: [Double?]) -> [Double]? {
        guard let firstIndex = series.firstIndex(where: { $0 != nil }) else { return nil }
        var out = [Double](repeating: series[firstIndex]!, count: series.count)
        var last = (index: firstIndex, value: series[firstIndex]!)
        for i in (firstIndex + 1)..<max(series.count, firstIndex + 1) {
            guard let v = series[i] else { continue }
            let gap = Double(i - last.index)
            for j in (last.index + 1)..<i { out[j] = last.value + (v - last.value) * Double(j - last.index) / gap }
            out[i] = v
            last = (i, v)
        }
        for j in (last.index + 1)..<max(series.count, last.index + 1) { out[j] = last.value }
        return out
    }

    /// `get_time_domain_features`' RMSSD, SDNN (ddof = 1) and mean; nil under two intervals.
    public static func timeDomain(_ nn: [Double]) -> (rmssd: Double, sdnn: Double, mean: Double)? {
        guard nn.count >= 2 else { return nil }
        let n = Double(nn.count)
        let mean = nn.reduce(0, +) / n
        let variance = nn.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        var squares = 0.0
        for i in 1..<nn.count { squares += (nn[i] - nn[i - 1]) * (nn[i] - nn[i - 1]) }
        return ((squares / (n - 1)).squareRoot(), variance.squareRoot(), mean)
    }
}

/// A resting reading of heart-rate variability: two minutes still with the strap on.
public struct HRVReading: Equatable, Sendable {
    public var id: Int64
    public var startedAt: Date
    public var endsAt: Date
    /// Nil while it is being measured, or when the strap sent too few clean intervals.
    public var figures: HeartRateVariability?
    /// Whether the window has been read (false: still measuring).
    public var done: Bool

    public init(id: Int64, startedAt: Date, endsAt: Date, figures: HeartRateVariability?, done: Bool) {
        self.id = id
        self.startedAt = startedAt
        self.endsAt = endsAt
        self.figures = figures
        self.done = done
    }

    /// How long a resting reading lasts: the short-term recording the 1996 Task Force
    /// standard and most apps use (≥ 1 min; 2 min lets RMSSD settle).
    public static let standardSeconds: Double = 120
    public static let allowedSeconds: ClosedRange<Double> = 30...600
}
