import Foundation

/// Splits per kilometre or mile and per lap.
///
/// A distance split ends at the moment the distance reached the next whole kilometre (mile),
/// interpolated between the two samples around it, so a split is exactly 1,000 m (1,609.344)
/// whatever the sampling; the first begins at the first sample, the last ends at the last one
/// and is listed when it holds at least 1 % of a split (a cool-down standing still is not a
/// split). A lap is the device's, clipped to the samples.
///
/// Its songs: each play that played in it for at least `minimumPlayOverlap` seconds, or for
/// all of the split or all of the song when either is shorter; so a song that ends a second
/// into a kilometre is not listed there, and a song is listed in every split it spans.
struct SplitCutter {
    typealias Split = WorkoutMeasures.Split

    let track: MotionTrack
    let pulse: PulseTrack
    let plays: [WorkoutMeasures.Play]
    let units: WorkoutMeasures.Units
    let minimumPlayOverlap: Double
    private let altitudeTimes: [Double]
    private let altitudes: [Double]

    init(track: MotionTrack, pulse: PulseTrack, plays: [WorkoutMeasures.Play], units: WorkoutMeasures.Units,
         minimumPlayOverlap: Double) {
        self.track = track
        self.pulse = pulse
        self.plays = plays.filter {
            $0.start.timeIntervalSinceReferenceDate.isFinite && $0.end.timeIntervalSinceReferenceDate.isFinite && $0.end > $0.start
        }.sorted { $0.start < $1.start }
        self.units = units
        self.minimumPlayOverlap = minimumPlayOverlap
        var altitudeTimes: [Double] = [], altitudes: [Double] = []
        for (i, s) in track.samples.enumerated() {
            if let altitude = s.altitude {
                altitudeTimes.append(track.times[i])
                altitudes.append(altitude)
            }
        }
        self.altitudeTimes = altitudeTimes
        self.altitudes = altitudes
    }

    func byDistance() -> [Split] {
        guard let total = track.totalDistance, total > 0 else { return [] }
        let length = units.splitMetres
        var bounds = [0.0]
        var i = 0
        let cumulative = track.cumulative, times = track.times
        var k = 1
        while Double(k) * length <= total {
            let mark = Double(k) * length
            while cumulative[i + 1] < mark { i += 1 }
            let covered = cumulative[i + 1] - cumulative[i]
            bounds.append(times[i] + (mark - cumulative[i]) / covered * (times[i + 1] - times[i]))
            k += 1
        }
        if total - Double(bounds.count - 1) * length >= length / 100 { bounds.append(track.duration) }
        return (1..<bounds.count).map { split(number: $0, from: bounds[$0 - 1], to: bounds[$0]) }
    }

    func byLaps(_ laps: [WorkoutLap]) -> [Split] {
        var splits: [Split] = []
        for lap in laps.sorted(by: { $0.start < $1.start }) {
            if let split = stretch(number: splits.count + 1, from: lap.start, to: lap.end) { splits.append(split) }
        }
        return splits
    }

    /// The split from `start` to `end`, clipped to the samples; nil when nothing of it is left.
    func stretch(number: Int, from start: Date, to end: Date) -> Split? {
        guard let origin = track.origin ?? pulse.origin else { return nil }
        let duration = track.samples.isEmpty ? (pulse.last?.timeIntervalSince(origin) ?? 0) : track.duration
        let a = max(0, start.timeIntervalSince(origin)), b = min(duration, end.timeIntervalSince(origin))
        guard a.isFinite, b.isFinite, b > a else { return nil }
        return split(number: number, from: a, to: b)
    }

    /// The split from `a` to `b`, seconds since the first motion sample (or reading).
    private func split(number: Int, from a: Double, to b: Double) -> Split {
        let origin = track.origin ?? pulse.origin ?? Date(timeIntervalSinceReferenceDate: 0)
        let start = origin.addingTimeInterval(a), end = origin.addingTimeInterval(b)
        let distance = track.distance(from: a, to: b)
        let moving = track.moving(from: a, to: b)
        let elapsed = b - a
        let timed = (moving ?? 0) > 0 ? moving! : elapsed
        let pace = distance.flatMap { $0 > 0 ? WorkoutMeasures.finite(timed / $0 * units.splitMetres) : nil }
        let isLast = b >= track.duration
        let heartRate = pulse.average(from: start.timeIntervalSinceReferenceDate, to: end.timeIntervalSinceReferenceDate,
                                      closed: isLast)
        let change = track.smoothedAltitude(at: b, altitudeTimes: altitudeTimes, altitudes: altitudes).flatMap { to in
            track.smoothedAltitude(at: a, altitudeTimes: altitudeTimes, altitudes: altitudes).map { to - $0 }
        }
        return Split(number: number, start: start, end: end, distance: distance, elapsed: elapsed, moving: moving, pace: pace,
                     averageHeartRate: heartRate, averageCadence: track.averageCadence(from: a, to: b),
                     elevationChange: change, plays: songs(from: start, to: end))
    }

    private func songs(from start: Date, to end: Date) -> [WorkoutMeasures.SplitPlay] {
        let length = end.timeIntervalSince(start)
        var listed: [WorkoutMeasures.SplitPlay] = []
        for play in plays {
            if play.start >= end { break }
            let overlap = min(play.end, end).timeIntervalSince(max(play.start, start))
            guard overlap > 0 else { continue }
            let needed = min(minimumPlayOverlap, length, play.end.timeIntervalSince(play.start))
            if overlap >= needed - 1e-6 { listed.append(.init(play: play, seconds: overlap)) }
        }
        return listed
    }
}

extension WorkoutMeasures {
    /// The figures of any stretches of a workout, each measured as a lap is: the songs that made
    /// you faster (issue 54, point 5) set a play's stretch against the minutes before it. In
    /// the order given, numbered from 1; nil for a stretch outside the samples. The samples are
    /// read once however many stretches are asked for.
    public static func stretches(_ stretches: [(start: Date, end: Date)], motion: [MotionSample],
                                 heartRate: [HeartRateSample] = [], units: Units = .metric,
                                 options: Options = Options()) -> [Split?] {
        let cut = SplitCutter(track: MotionTrack(motion, options: options), pulse: PulseTrack(heartRate), plays: [],
                              units: units, minimumPlayOverlap: options.minimumPlayOverlap)
        return stretches.enumerated().map { cut.stretch(number: $0.offset + 1, from: $0.element.start, to: $0.element.end) }
    }
}
