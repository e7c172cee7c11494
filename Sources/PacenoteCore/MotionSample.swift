import Foundation

/// One moment of a workout beyond its heart rate: what a watch, a bike computer, a foot pod
/// or a phone records (FIT `record`, TCX `Trackpoint`, GPX `trkpt`, a live push).
///
/// Units are SI and fixed here, whatever the source said, so that every reader converts once
/// and every figure reads one convention. Any field may be missing: a treadmill run has no
/// position, a phone no power, a heart-rate strap nothing of this at all.
public struct MotionSample: Equatable, Sendable {
    public var at: Date
    /// Metres per second.
    public var speed: Double?
    /// Metres from the workout's start, as the device counted it (never decreasing).
    public var distance: Double?
    /// Metres above sea level.
    public var altitude: Double?
    /// Per minute: steps (both feet) when running or walking, pedal revolutions when cycling.
    /// FIT and TCX count a runner's strides (one foot): their readers double it.
    public var cadence: Double?
    /// Watts.
    public var power: Double?
    /// Degrees (WGS 84). Read to compute distance; stored only with `[workouts] keep_positions`.
    public var latitude: Double?
    public var longitude: Double?

    public init(at: Date, speed: Double? = nil, distance: Double? = nil, altitude: Double? = nil,
                cadence: Double? = nil, power: Double? = nil, latitude: Double? = nil, longitude: Double? = nil) {
        self.at = at
        self.speed = speed
        self.distance = distance
        self.altitude = altitude
        self.cadence = cadence
        self.power = power
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Whether it carries anything beyond its time.
    public var isEmpty: Bool {
        speed == nil && distance == nil && altitude == nil && cadence == nil && power == nil
            && latitude == nil && longitude == nil
    }
}

/// A lap as the device marked it (the lap button, or an automatic lap every kilometre).
public struct WorkoutLap: Equatable, Sendable {
    public var start: Date
    public var end: Date
    /// Energy the device counted for the lap, in kilocalories.
    public var calories: Double?

    public init(start: Date, end: Date, calories: Double? = nil) {
        self.start = start
        self.end = end
        self.calories = calories
    }
}

/// Distances on the Earth's surface.
public enum Geodesy {
    /// The mean radius of the Earth (IUGG), in metres.
    public static let earthRadius = 6_371_008.8

    /// The great-circle distance in metres between two positions in degrees (haversine:
    /// exact on a sphere, within 0.5 % of the ellipsoid, and well-conditioned at the metre
    /// scale of one-second steps, where the spherical law of cosines is not).
    public static func distance(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double {
        let φ1 = lat1 * .pi / 180, φ2 = lat2 * .pi / 180
        let dφ = φ2 - φ1, dλ = (lon2 - lon1) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * asin(min(1, sqrt(a)))
    }
}
