import Foundation

/// One heart-rate reading.
public struct HeartRateSample: Equatable, Sendable {
    public var at: Date
    /// Beats per minute, 25–250.
    public var bpm: Int
    /// RR intervals (time between beats) in milliseconds, when the device sends them.
    public var rr: [Double]

    public static let validRange = 25...250

    public init(at: Date, bpm: Int, rr: [Double] = []) {
        self.at = at
        self.bpm = bpm
        self.rr = rr
    }
}

/// How heart rate maps to zones Z0–Z5. Formula-based maximums carry about ±10 bpm for an
/// individual (Tanaka et al. 2001): a measured maximum is better.
public enum ZoneModel: Equatable, Sendable {
    /// % of maximum heart rate (Cue's zones): Z1 from 50 %, Z2 60, Z3 70, Z4 80, Z5 90.
    case percentMax(maxHR: Int)
    /// Karvonen: the same percentages of the heart-rate reserve (max − resting), plus resting.
    case heartRateReserve(maxHR: Int, restingHR: Int)
    /// Friel's zones from the lactate threshold heart rate (Joe Friel, "Quick Guide to
    /// Setting Zones"). Friel's Z1–Z5 (5a–5c together) are Pacenote's Z1–Z5; Pacenote's Z0
    /// (below training) is under 65 % of LTHR.
    case lactateThreshold(lthr: Int, sport: Sport)
    /// Lower bpm bounds of Z1…Z5, ascending.
    case custom(lowerBounds: [Int])

    public enum Sport: String, Sendable, CaseIterable { case run, bike }

    /// Tanaka, Monahan & Seals (2001): HRmax = 208 − 0.7 × age.
    public static func tanakaMaxHR(age: Int) -> Int {
        Int((208 - 0.7 * Double(age)).rounded())
    }

    /// The lowest bpm of Z1, Z2, Z3, Z4 and Z5.
    public var lowerBounds: [Double] {
        switch self {
        case .percentMax(let max):
            return [0.5, 0.6, 0.7, 0.8, 0.9].map { $0 * Double(max) }
        case .heartRateReserve(let max, let resting):
            let reserve = Double(max - resting)
            return [0.5, 0.6, 0.7, 0.8, 0.9].map { Double(resting) + $0 * reserve }
        case .lactateThreshold(let lthr, .run):
            return [0.65, 0.85, 0.90, 0.95, 1.00].map { $0 * Double(lthr) }
        case .lactateThreshold(let lthr, .bike):
            return [0.65, 0.81, 0.90, 0.94, 1.00].map { $0 * Double(lthr) }
        case .custom(let bounds):
            return bounds.map(Double.init)
        }
    }

    public func zone(for bpm: Double) -> Zone {
        Zone(rawValue: lowerBounds.filter { bpm >= $0 }.count) ?? .z0
    }

    /// The configuration's name of the model.
    public var name: String {
        switch self {
        case .percentMax: "percent_max"
        case .heartRateReserve: "hrr"
        case .lactateThreshold(_, .run): "lthr_run"
        case .lactateThreshold(_, .bike): "lthr_bike"
        case .custom: "custom"
        }
    }
}

/// Zone settings from the moment they apply: changing them never rewrites the past.
public struct ZoneSettings: Equatable, Sendable {
    public var id: Int64?
    public var model: ZoneModel
    public var effectiveFrom: Date

    public init(id: Int64? = nil, model: ZoneModel, effectiveFrom: Date) {
        self.id = id
        self.model = model
        self.effectiveFrom = effectiveFrom
    }
}

/// Time in each zone from samples: each sample counts until the next one, but never for
/// more than `maxGap` seconds, so that missing data is not counted (TempoTracks' rule). The
/// last one counts until `end` (one second without). `WorkoutFigures` does the counting.
public enum TimeInZone {
    public static func seconds(_ samples: [HeartRateSample], model: ZoneModel, until end: Date? = nil,
                               maxGap: Double = 5) -> [Zone: Double] {
        let figures = WorkoutFigures(samples, model: model, maxGap: maxGap)
        return figures.secondsByZone(until: end ?? samples.last?.at.addingTimeInterval(1))
    }
}
