import Foundation

/// The motion samples as the figures read them: cleaned, in time order, with the distance
/// covered up to each and, for each step between two samples, whether it was in motion.
/// Times are seconds from the first sample; every sum a split needs is kept as a running
/// total per sample, so any stretch of the workout costs two binary searches.
struct MotionTrack {
    typealias Measures = WorkoutMeasures

    let samples: [MotionSample]
    /// Seconds from `origin`, strictly increasing.
    let times: [Double]
    let origin: Date?
    let options: Measures.Options
    /// Metres from the start at each sample; empty without a distance source.
    private(set) var cumulative: [Double] = []
    private(set) var source: Measures.DistanceSource?
    /// Running totals at each sample over the steps before it: seconds in motion, and the
    /// cadence × seconds and seconds of the moving steps that had a cadence.
    private(set) var movingTotal: [Double] = []
    private(set) var cadenceTotal: [Double] = []
    private(set) var cadenceSeconds: [Double] = []
    private var knowsMoving = false

    init(_ motion: [MotionSample], options: Measures.Options) {
        self.options = options
        samples = Self.clean(motion, options: options)
        origin = samples.first?.at
        let t0 = origin?.timeIntervalSinceReferenceDate ?? 0
        times = samples.map { $0.at.timeIntervalSinceReferenceDate - t0 }
        measureDistance()
        measureMotion()
    }

    var last: Date? { samples.last?.at }
    var duration: Double { times.last ?? 0 }
    var totalDistance: Double? { cumulative.last }
    var movingSeconds: Double? { knowsMoving ? movingTotal.last : nil }

    /// Samples oldest first, each later than the one kept before it; values no device or body
    /// makes become missing: NaN and infinities, negative speed, distance, cadence and power,
    /// speed over `maxSpeed`, altitude outside −500…9,000 m (the Dead Sea's shore is −430,
    /// Everest 8,849), cadence over 300 per minute, power over 3,000 W (a sprinter's peak is
    /// about 2,500), positions off the globe or at exactly 0°, 0° (what devices write with no fix).
    static func clean(_ motion: [MotionSample], options: Measures.Options) -> [MotionSample] {
        var kept: [MotionSample] = []
        kept.reserveCapacity(motion.count)
        func within(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
            guard let value, value.isFinite, range.contains(value) else { return nil }
            return value
        }
        for var s in motion {
            guard s.at.timeIntervalSinceReferenceDate.isFinite else { continue }
            if let previous = kept.last, s.at <= previous.at { continue }
            s.speed = within(s.speed, 0...options.maxSpeed)
            s.distance = within(s.distance, 0...Double.greatestFiniteMagnitude)
            s.altitude = within(s.altitude, -500...9000)
            s.cadence = within(s.cadence, 0...300)
            s.power = within(s.power, 0...3000)
            let lat = within(s.latitude, -90...90), lon = within(s.longitude, -180...180)
            if let lat, let lon, lat != 0 || lon != 0 {
                s.latitude = lat
                s.longitude = lon
            } else {
                s.latitude = nil
                s.longitude = nil
            }
            kept.append(s)
        }
        return kept
    }

    /// The device's distance when any sample has it, else speed when any has it, else
    /// positions. Between two samples carrying the source the step is counted when it is
    /// forward and no faster than `maxSpeed`: a device's distance that falls back was reset
    /// and one that leaps was a glitch; both start a new base without counting. Speed is
    /// integrated by trapezoids, never over a gap longer than `maxGap` (a pause). A sample
    /// without the source gets the distance interpolated in time between its neighbours.
    private mutating func measureDistance() {
        let n = samples.count
        let source: Measures.DistanceSource
        if samples.contains(where: { $0.distance != nil }) {
            source = .device
        } else if samples.contains(where: { $0.speed != nil }) {
            source = .speed
        } else if samples.contains(where: { $0.latitude != nil }) {
            source = .positions
        } else {
            return
        }
        func carries(_ s: MotionSample) -> Bool {
            switch source {
            case .device: s.distance != nil
            case .speed: s.speed != nil
            case .positions: s.latitude != nil
            }
        }
        var total = 0.0
        var known: [Int] = []
        var cumulative = [Double](repeating: 0, count: n)
        for i in 0..<n where carries(samples[i]) {
            if let p = known.last {
                let a = samples[p], b = samples[i]
                let dt = times[i] - times[p]
                let step: Double
                switch source {
                case .device: step = b.distance! - a.distance!
                case .speed: step = dt <= options.maxGap ? (a.speed! + b.speed!) / 2 * dt : 0
                case .positions: step = Geodesy.distance(a.latitude!, a.longitude!, b.latitude!, b.longitude!)
                }
                if step > 0, step <= options.maxSpeed * dt { total += step }
            }
            cumulative[i] = total
            known.append(i)
        }
        // Samples between two that carry the source: interpolated; before the first, 0; after the last, the total.
        var k = 0
        for i in 0..<n where !carries(samples[i]) {
            while k < known.count && known[k] < i { k += 1 }
            if k == 0 {
                cumulative[i] = 0
            } else if k == known.count {
                cumulative[i] = total
            } else {
                let a = known[k - 1], b = known[k]
                cumulative[i] = cumulative[a] + (cumulative[b] - cumulative[a]) * (times[i] - times[a]) / (times[b] - times[a])
            }
        }
        self.cumulative = cumulative
        self.source = source
    }

    /// Which steps were in motion, and the running totals. With a distance, a step is in
    /// motion when covered at `stoppedSpeed` or faster, however long (a tunnel without GPS
    /// still moved you); without one, when the sample at its end has a cadence or power above
    /// zero (GoldenCheetah's "Time Moving" on a trainer) and it is no longer than `maxGap`.
    /// A step's cadence and power are those of the sample at its end (a FIT record describes
    /// the second that ends at its time), weighted by its length up to `maxGap`.
    private mutating func measureMotion() {
        let n = samples.count
        guard n > 0 else { return }
        let pedals = samples.contains { $0.cadence != nil || $0.power != nil }
        knowsMoving = !cumulative.isEmpty || pedals
        movingTotal = [Double](repeating: 0, count: n)
        cadenceTotal = [Double](repeating: 0, count: n)
        cadenceSeconds = [Double](repeating: 0, count: n)
        for i in 1..<n {
            let dt = times[i] - times[i - 1]
            let moving = isMoving(step: i - 1)
            movingTotal[i] = movingTotal[i - 1] + (moving ? dt : 0)
            cadenceTotal[i] = cadenceTotal[i - 1]
            cadenceSeconds[i] = cadenceSeconds[i - 1]
            if moving || !knowsMoving, let cadence = samples[i].cadence, cadence > 0 {
                let weight = min(dt, options.maxGap)
                cadenceTotal[i] += cadence * weight
                cadenceSeconds[i] += weight
            }
        }
    }

    /// Whether the step from sample `i` to the next was in motion.
    func isMoving(step i: Int) -> Bool {
        let dt = times[i + 1] - times[i]
        if !cumulative.isEmpty {
            let covered = cumulative[i + 1] - cumulative[i]
            return covered > 0 && covered >= options.stoppedSpeed * dt
        }
        let s = samples[i + 1]
        return dt <= options.maxGap && ((s.cadence ?? 0) > 0 || (s.power ?? 0) > 0)
    }

    // MARK: - Stretches of the workout

    /// The step that holds time `t` (the index of the sample that begins it), clamped.
    func step(at t: Double) -> Int {
        var lo = 0, hi = times.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= t { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// A running total (one value per sample) at time `t`, linear within a step.
    func value(_ totals: [Double], at t: Double) -> Double {
        guard let lastTime = times.last, !totals.isEmpty else { return 0 }
        if t <= 0 { return totals[0] }
        if t >= lastTime { return totals[totals.count - 1] }
        let i = step(at: t)
        let span = times[i + 1] - times[i]
        return totals[i] + (totals[i + 1] - totals[i]) * (t - times[i]) / span
    }

    func distance(from a: Double, to b: Double) -> Double? {
        cumulative.isEmpty ? nil : max(0, value(cumulative, at: b) - value(cumulative, at: a))
    }

    func moving(from a: Double, to b: Double) -> Double? {
        knowsMoving ? max(0, value(movingTotal, at: b) - value(movingTotal, at: a)) : nil
    }

    /// Time-weighted, zeros left out, moving steps only (all when nothing tells).
    func averageCadence(from a: Double, to b: Double) -> Double? {
        let seconds = value(cadenceSeconds, at: b) - value(cadenceSeconds, at: a)
        guard seconds > 1e-9 else { return nil }
        return Measures.finite((value(cadenceTotal, at: b) - value(cadenceTotal, at: a)) / seconds)
    }

    var maxCadence: Double? { samples.lazy.compactMap(\.cadence).max() }
    var maxPower: Double? { samples.lazy.compactMap(\.power).max() }

    /// Time-weighted over the moving steps (all when nothing tells), zeros counted.
    var averagePower: Double? {
        var sum = 0.0, seconds = 0.0
        for i in samples.indices.dropFirst() {
            guard let power = samples[i].power, !knowsMoving || isMoving(step: i - 1) else { continue }
            let weight = min(times[i] - times[i - 1], options.maxGap)
            sum += power * weight
            seconds += weight
        }
        return seconds > 0 ? Measures.finite(sum / seconds) : nil
    }
}
