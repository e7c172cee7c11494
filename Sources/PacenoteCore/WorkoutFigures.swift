import Foundation

/// A workout's figures from its heart-rate readings: time in each zone, average and maximum.
///
/// The one computation behind every workout's figures: summed over its samples when it ends,
/// over its samples so far while it is in progress (the API and its page), and kept reading
/// by reading for the live event stream — each reading is added once, in time order, so the
/// running figures are the ones a sum over the same samples gives.
///
/// Time in zone is `TimeInZone`'s rule (TempoTracks'): each reading counts until the next
/// one, never for more than `maxGap` seconds, so missing data is not counted. The latest
/// reading has no next one yet: it counts until the end given to `secondsInZone(until:)`,
/// and not at all "so far".
public struct WorkoutFigures: Equatable, Sendable {
    public let model: ZoneModel
    public let maxGap: Double
    /// Seconds in Z0…Z5 of every reading before the latest.
    private var counted: [Double] = Array(repeating: 0, count: 6)
    /// The zones that had a reading (bit n: Zn).
    private var zonesSeen: UInt8 = 0
    private var sum = 0
    public private(set) var count = 0
    public private(set) var maximum: Int?
    /// The latest reading and its zone.
    public private(set) var latest: (at: Date, zone: Zone)?

    public init(model: ZoneModel, maxGap: Double = 5) {
        self.model = model
        self.maxGap = maxGap
    }

    /// The figures of `samples`, oldest first.
    public init(_ samples: [HeartRateSample], model: ZoneModel, maxGap: Double = 5) {
        self.init(model: model, maxGap: maxGap)
        for sample in samples { add(sample) }
    }

    /// Adds the next reading: the one before it now counts until this one (at most `maxGap`;
    /// nothing when it is not older).
    public mutating func add(_ sample: HeartRateSample) {
        let zone = model.zone(for: Double(sample.bpm))
        if let latest {
            counted[latest.zone.rawValue] += Self.counted(from: latest.at, until: sample.at, maxGap: maxGap)
        }
        latest = (sample.at, zone)
        zonesSeen |= 1 << UInt8(zone.rawValue)
        sum += sample.bpm
        count += 1
        maximum = Swift.max(maximum ?? sample.bpm, sample.bpm)
    }

    /// Seconds a reading taken at `at` counts for when the next comes at `next` (or the
    /// workout ends then): until then, never more than `maxGap` so that missing data is not
    /// counted, nothing when `next` is not later. The one rule of time in zone, training
    /// load (`TRIMP`) and the plan-against-actual report (`PlanReport`).
    public static func counted(from at: Date, until next: Date, maxGap: Double) -> Double {
        min(max(next.timeIntervalSince(at), 0), maxGap)
    }

    /// The average heart rate to a tenth of a bpm (as workouts store it), nil without readings.
    public var average: Double? {
        count == 0 ? nil : (Double(sum) / Double(count) * 10).rounded() / 10
    }

    /// Seconds in Z0…Z5. With `end`, the latest reading counts until then (at most `maxGap`):
    /// a workout's figures once it ended. Without, up to the latest reading: a workout's
    /// figures so far.
    public func secondsInZone(until end: Date? = nil) -> [Double] {
        var seconds = counted
        if let end, let latest {
            seconds[latest.zone.rawValue] += Self.counted(from: latest.at, until: end, maxGap: maxGap)
        }
        return seconds
    }

    /// The same, keyed by zone, for the zones that had a reading.
    public func secondsByZone(until end: Date? = nil) -> [Zone: Double] {
        let seconds = secondsInZone(until: end)
        var result: [Zone: Double] = [:]
        for zone in Zone.allCases where zonesSeen & (1 << UInt8(zone.rawValue)) != 0 { result[zone] = seconds[zone.rawValue] }
        return result
    }

    public static func == (a: WorkoutFigures, b: WorkoutFigures) -> Bool {
        a.model == b.model && a.maxGap == b.maxGap && a.counted == b.counted && a.zonesSeen == b.zonesSeen
            && a.sum == b.sum && a.count == b.count && a.maximum == b.maximum
            && a.latest?.at == b.latest?.at && a.latest?.zone == b.latest?.zone
    }
}

/// A workout in progress, as the live event stream announces it after each batch of
/// readings: its figures so far and the readings this update added.
public struct WorkoutProgress: Equatable, Sendable {
    public var id: Int64
    public var startedAt: Date
    public var figures: WorkoutFigures
    /// The readings this update counted (oldest first), for a chart to add.
    public var samples: [HeartRateSample]

    public init(id: Int64, startedAt: Date, figures: WorkoutFigures, samples: [HeartRateSample]) {
        self.id = id
        self.startedAt = startedAt
        self.figures = figures
        self.samples = samples
    }
}

extension Array where Element == ZoneSettings {
    /// The zone model of a workout: the settings it was stored with (`settingsID`), else
    /// those in force when it began (`at`), else the first ever recorded; 190 bpm's
    /// percentages when there are none.
    public func model(settingsID: Int64? = nil, at date: Date) -> ZoneModel {
        (settingsID.flatMap { id in first { $0.id == id } } ?? last { $0.effectiveFrom <= date } ?? first)?.model
            ?? .percentMax(maxHR: 190)
    }
}
