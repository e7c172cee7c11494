import Foundation

/// Takes out of motion samples what no body on foot or on a bike can do, before anything is
/// stored: a file or a push may carry a device's glitches (a GPS fix 5 km off, an altitude
/// from a barometer that reset) or a forger's numbers (NaN, 1000 km/h, a clock that runs
/// backwards). A value found impossible is dropped (the sample keeps its other values), and
/// each drop is counted under its reason, so the user is told what was left out and why.
///
/// The work is one pass over the samples, O(n): the readers bound their number
/// (`FITFile.maxRecords`) before this sees them.
public enum MotionCleaning {
    /// 150 km/h: beyond the fastest descents of road cycling (~130 km/h), far beyond running.
    public static let maxSpeed = 150 / 3.6
    /// Metres: below the Dead Sea shore (−430 m), above Everest (8,849 m).
    public static let altitudeRange = -500.0...9_000.0
    /// Metres a second, up or down: a barometer's reset or a GPS altitude's glitch is faster.
    public static let maxClimbRate = 50.0
    /// Per minute: sprinters step ~250 times, track cyclists pedal ~200 rpm.
    public static let cadenceRange = 0.0...300.0
    /// Metres from the start: 10,000 km, more than a week of riding day and night.
    public static let maxDistance = 10_000_000.0
    /// Watts: track sprinters peak near 2,500 W.
    public static let powerRange = 0.0...3_000.0
    /// What a device corrects its distance or position by at once without it being a jump
    /// (metres, on top of what `maxSpeed` allows over the time between the samples).
    public static let jumpSlack = 100.0

    public enum Reason: Int, CaseIterable, Comparable, Sendable {
        case notANumber, clockBackwards, negativeSpeed, tooFast, negativeDistance, tooFar, distanceBackwards, distanceJump,
             altitudeOutOfRange, altitudeJump, cadenceOutOfRange, powerOutOfRange, positionOutOfRange, positionJump

        public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

        /// "3 speeds above 150 km/h dropped".
        public func line(_ n: Int) -> String {
            func of(_ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
            return switch self {
            case .notANumber: of("value that was not a number", "values that were not numbers") + " dropped"
            case .clockBackwards: of("sample earlier than the one before", "samples earlier than the one before") + " dropped (the clock went backwards)"
            case .negativeSpeed: of("negative speed", "negative speeds") + " dropped"
            case .tooFast: of("speed", "speeds") + " above 150 km/h dropped"
            case .negativeDistance: of("negative distance", "negative distances") + " dropped"
            case .tooFar: of("distance", "distances") + " beyond 10,000 km dropped"
            case .distanceBackwards: of("distance", "distances") + " shorter than the one before dropped"
            case .distanceJump: of("distance", "distances") + " further from the one before than 150 km/h goes dropped"
            case .altitudeOutOfRange: of("altitude", "altitudes") + " outside −500 to 9,000 m dropped"
            case .altitudeJump: of("altitude", "altitudes") + " changing faster than 50 m a second dropped"
            case .cadenceOutOfRange: of("cadence", "cadences") + " outside 0 to 300 a minute dropped"
            case .powerOutOfRange: of("power", "powers") + " outside 0 to 3,000 W dropped"
            case .positionOutOfRange: of("position", "positions") + " off the globe (or at 0°, 0°) dropped"
            case .positionJump: of("position", "positions") + " further from the one before than 150 km/h goes dropped"
            }
        }
    }

    /// What was dropped, counted by reason.
    public struct Report: Equatable, Sendable, CustomStringConvertible {
        public var counts: [Reason: Int] = [:]

        public init() {}

        public var isEmpty: Bool { counts.isEmpty }
        public var total: Int { counts.values.reduce(0, +) }
        /// One line per reason, in a fixed order.
        public var lines: [String] { counts.keys.sorted().map { $0.line(counts[$0]!) } }
        public var description: String { lines.joined(separator: "; ") }

        mutating func count(_ reason: Reason) { counts[reason, default: 0] += 1 }

        public mutating func add(_ other: Report) {
            for (reason, n) in other.counts { counts[reason, default: 0] += n }
        }
    }

    /// The samples with every impossible value dropped, in time order, one per second (the
    /// first), and none left empty; and what was dropped.
    public static func clean(_ samples: [MotionSample]) -> (samples: [MotionSample], report: Report) {
        var report = Report()
        var kept: [MotionSample] = []
        kept.reserveCapacity(samples.count)
        // The last kept value of each cumulative or continuous field, and when it was.
        var lastDistance: (at: Date, value: Double)?
        var lastAltitude: (at: Date, value: Double)?
        var lastPosition: (at: Date, lat: Double, lon: Double)?
        for original in samples {
            var s = original
            if let last = kept.last {
                if s.at < last.at {
                    report.count(.clockBackwards)
                    continue
                }
                // The same second as the sample before (a flood of one moment): one sample,
                // as heart rate is read (`WorkoutFile.onePerSecond`).
                if s.at.timeIntervalSince1970.rounded(.down) == last.at.timeIntervalSince1970.rounded(.down) { continue }
            }
            func finite(_ value: inout Double?) {
                if let v = value, !v.isFinite { value = nil; report.count(.notANumber) }
            }
            finite(&s.speed); finite(&s.distance); finite(&s.altitude); finite(&s.cadence); finite(&s.power)
            finite(&s.latitude); finite(&s.longitude)
            if let v = s.speed, v < 0 { s.speed = nil; report.count(.negativeSpeed) }
            if let v = s.speed, v > maxSpeed { s.speed = nil; report.count(.tooFast) }
            if let v = s.cadence, !cadenceRange.contains(v) { s.cadence = nil; report.count(.cadenceOutOfRange) }
            if let v = s.power, !powerRange.contains(v) { s.power = nil; report.count(.powerOutOfRange) }
            if let v = s.distance {
                if v < 0 {
                    s.distance = nil; report.count(.negativeDistance)
                } else if v > maxDistance {
                    s.distance = nil; report.count(.tooFar)
                } else if let last = lastDistance {
                    if v < last.value {
                        s.distance = nil; report.count(.distanceBackwards)
                    } else if v - last.value > reach(from: last.at, to: s.at) {
                        s.distance = nil; report.count(.distanceJump)
                    }
                }
                if let v = s.distance { lastDistance = (s.at, v) }
            }
            if let v = s.altitude {
                if !altitudeRange.contains(v) {
                    s.altitude = nil; report.count(.altitudeOutOfRange)
                } else if let last = lastAltitude,
                          abs(v - last.value) > maxClimbRate * max(1, s.at.timeIntervalSince(last.at)) + jumpSlack / 2 {
                    s.altitude = nil; report.count(.altitudeJump)
                }
                if let v = s.altitude { lastAltitude = (s.at, v) }
            }
            if s.latitude != nil || s.longitude != nil {
                if let lat = s.latitude, let lon = s.longitude, abs(lat) <= 90, abs(lon) <= 180, lat != 0 || lon != 0 {
                    if let last = lastPosition, Geodesy.distance(last.lat, last.lon, lat, lon) > reach(from: last.at, to: s.at) {
                        s.latitude = nil; s.longitude = nil; report.count(.positionJump)
                    } else {
                        lastPosition = (s.at, lat, lon)
                    }
                } else {
                    s.latitude = nil; s.longitude = nil; report.count(.positionOutOfRange)
                }
            }
            if !s.isEmpty { kept.append(s) }
        }
        return (kept, report)
    }

    /// The furthest a body moves from `from` to `to` at `maxSpeed`, with the slack a device's
    /// correction takes.
    static func reach(from: Date, to: Date) -> Double { maxSpeed * max(1, to.timeIntervalSince(from)) + jumpSlack }

    /// When no sample has a distance but some have positions (GPX): the distance along the
    /// positions, summed from the first. Horizontal only, as watches, Strava and GoldenCheetah
    /// count a run's distance: the climb adds well under 1 % on any road or trail (a 10 %
    /// grade adds 0.5 %), and a GPS altitude's noise would add more than it measures.
    public static func distanceFromPositions(_ samples: [MotionSample]) -> [MotionSample] {
        guard !samples.contains(where: { $0.distance != nil }) else { return samples }
        var total = 0.0
        var last: (lat: Double, lon: Double)?
        return samples.map { sample in
            guard let lat = sample.latitude, let lon = sample.longitude else { return sample }
            var s = sample
            if let last { total += Geodesy.distance(last.lat, last.lon, lat, lon) }
            last = (lat, lon)
            s.distance = total
            return s
        }
    }

    /// The samples without their positions (`[workouts] keep_positions = false`: a run's start
    /// is usually someone's home); samples left with nothing are dropped.
    public static func withoutPositions(_ samples: [MotionSample]) -> [MotionSample] {
        samples.compactMap { sample in
            var s = sample
            s.latitude = nil
            s.longitude = nil
            return s.isEmpty ? nil : s
        }
    }
}
