import Foundation

extension WorkoutMeasures {
    /// One point of a workout's speed and elevation chart: a stretch of equal time.
    public struct SeriesPoint: Equatable, Sendable {
        /// The stretch's middle.
        public var at: Date
        /// Metres per second over the stretch, stops included (the distance covered over its
        /// time); nil without a distance source.
        public var speed: Double?
        /// The mean altitude of its samples, metres.
        public var altitude: Double?
    }

    /// A workout's speed and altitude in at most `points` stretches of equal time, read from
    /// the samples as the figures read them (cleaned, the distance as `distance` counts it),
    /// so the chart and the figures beside it agree.
    public static func series(motion: [MotionSample], points: Int, options: Options = Options()) -> [SeriesPoint] {
        let track = MotionTrack(motion, options: options)
        guard let origin = track.origin, track.samples.count > 1, points > 0 else { return [] }
        let count = min(points, track.samples.count - 1)
        let width = track.duration / Double(count)
        guard width > 0 else { return [] }
        var result: [SeriesPoint] = []
        var i = 0
        for k in 0..<count {
            let a = Double(k) * width, b = k == count - 1 ? track.duration : Double(k + 1) * width
            var sum = 0.0, n = 0
            while i < track.times.count, track.times[i] < b || (k == count - 1 && i < track.times.count) {
                if let altitude = track.samples[i].altitude {
                    sum += altitude
                    n += 1
                }
                i += 1
            }
            let speed = track.distance(from: a, to: b).map { $0 / (b - a) }
            result.append(SeriesPoint(at: origin.addingTimeInterval((a + b) / 2), speed: finite(speed),
                                      altitude: n > 0 ? sum / Double(n) : nil))
        }
        return result
    }
}
