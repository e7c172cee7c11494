import Foundation

/// The distance along a live source's positions (`POST /api/v1/hr` or `hr-feed` sending
/// `lat`/`lon` without a distance), carried from one push to the next: positions are dropped
/// before storing unless `[workouts] keep_positions`, so the distance is summed as they arrive,
/// the way a GPX file's is (`MotionCleaning.distanceFromPositions`), and stored instead.
///
/// A sample that brings its own distance is left as it is, and the count starts again after it
/// (the figures read the source's own distance then, and two counts would not make one series).
/// A position older than the last one
/// counted adds nothing and is left without a distance; one further from it than a body can go
/// in the time between (`MotionCleaning.reach`) adds nothing and the count goes on from it. After
/// `restartAfter` seconds without a position the count starts again from 0, so a source's
/// totals stay those of one outing (the figures count a distance that falls back as a reset).
public struct LiveDistance: Sendable {
    /// Seconds without a position after which the count starts again: longer than a
    /// workout's pause (it ends after 5 minutes without readings).
    public static let restartAfter: TimeInterval = 3600
    /// Metres after which the count starts again (1,000 km: no outing on foot or by bike goes
    /// further in one go), so a total stays within what `motion_samples` takes.
    public static let longest = 1_000_000.0

    private var last: (at: Date, lat: Double, lon: Double)?
    private var total = 0.0

    public init() {}

    /// `samples`, in time order, with the distance filled in where they have a position and
    /// no distance.
    public mutating func fill(_ samples: [MotionSample]) -> [MotionSample] {
        samples.map { sample in
            if sample.distance != nil {
                last = nil
                return sample
            }
            guard let lat = sample.latitude, let lon = sample.longitude else { return sample }
            var s = sample
            if let last, s.at <= last.at { return s }
            if let last, s.at.timeIntervalSince(last.at) <= Self.restartAfter, total < Self.longest {
                let step = Geodesy.distance(last.lat, last.lon, lat, lon)
                if step.isFinite, step <= MotionCleaning.reach(from: last.at, to: s.at) { total += step }
            } else {
                total = 0
            }
            last = (s.at, lat, lon)
            s.distance = total
            return s
        }
    }
}
