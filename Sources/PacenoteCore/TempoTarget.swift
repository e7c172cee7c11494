import Foundation

/// Target tempo windows per heart-rate zone, in beats per minute.
///
/// Defaults follow the exercise-music research: preferred music tempo rises with exercise
/// intensity, levelling off at about 120–140 bpm at moderate-to-high effort
/// (Karageorghis, Jones & Low 2006, Res Q Exerc Sport 77(2):240–250; Karageorghis et al. 2011,
/// Res Q Exerc Sport 82(2):274–284; Karageorghis & Priest 2012, Int Rev Sport Exerc Psychol 5(1)).
public struct TempoTable: Equatable, Sendable {
    public var windows: [Zone: ClosedRange<Double>]

    public init(windows: [Zone: ClosedRange<Double>]) {
        self.windows = windows
    }

    public static let defaults = TempoTable(windows: [
        .z0: 100...120, .z1: 115...125, .z2: 120...130,
        .z3: 125...135, .z4: 130...140, .z5: 135...145,
    ])

    public func window(for zone: Zone) -> ClosedRange<Double> {
        windows[zone] ?? TempoTable.defaults.windows[zone]!
    }
}

/// What a suggestion's tempo should match: the window of a heart-rate zone, or a running
/// cadence in steps per minute.
public enum TempoTarget: Equatable, Sendable {
    /// No tempo preference (no live zone): every track fits equally.
    case any
    /// The zone's window; half- and double-time count (a 68 bpm track fits 136).
    case window(ClosedRange<Double>)
    /// A cadence: one beat per step (1:1) or one beat per two steps (2:1). A track that
    /// would need more than `maxChange` tempo change is rejected; the smaller the change,
    /// the better.
    case cadence(stepsPerMinute: Double, maxChange: Double = 0.10)
}

/// How well a tempo fits a target.
public struct TempoFit: Equatable, Sendable {
    /// 0…1: 1 at the window's centre (or no change for a cadence); `nil` when rejected.
    public var fit: Double
    /// The factor the track's tempo was read at (0.5, 1, 2).
    public var factor: Double
    /// The tempo after the factor.
    public var effectiveBPM: Double
    /// Cadence mode: the relative change a player would need (signed).
    public var change: Double?
}

extension TempoTarget {
    /// The fit of a track at `bpm`, or `nil` when it does not fit.
    public func fit(bpm: Double) -> TempoFit? {
        switch self {
        case .any:
            return TempoFit(fit: 1, factor: 1, effectiveBPM: bpm, change: nil)
        case .window(let window):
            let centre = (window.lowerBound + window.upperBound) / 2
            let half = max((window.upperBound - window.lowerBound) / 2, 0.5)
            var best: TempoFit?
            for factor in [1.0, 2.0, 0.5] {
                let effective = bpm * factor
                guard window.contains(effective) else { continue }
                // Inside the window: 1 at the centre, 0.7 at the edges.
                let fit = 1 - 0.3 * abs(effective - centre) / half
                if best == nil || fit > best!.fit {
                    best = TempoFit(fit: fit, factor: factor, effectiveBPM: effective, change: nil)
                }
            }
            return best
        case .cadence(let steps, let maxChange):
            var best: TempoFit?
            // 1:1 (a beat per step) and 2:1 (two steps per beat); a double-time track (1:2) too.
            for factor in [1.0, 2.0, 0.5] {
                let effective = bpm * factor
                let change = steps / effective - 1
                guard abs(change) <= maxChange + 1e-9 else { continue }
                let fit = 1 - abs(change) / max(maxChange, 1e-9) * 0.5
                if best == nil || abs(change) < abs(best!.change!) {
                    best = TempoFit(fit: fit, factor: factor, effectiveBPM: effective, change: change)
                }
            }
            return best
        }
    }
}
