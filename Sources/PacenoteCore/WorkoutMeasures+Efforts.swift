import Foundation

/// The best efforts and the elevation of a `MotionTrack`.
extension MotionTrack {
    /// The fastest average speed over `window` seconds, in m/s: for each sample, the distance
    /// since `window` seconds before it (interpolated), over the window. Nil for a workout
    /// shorter than the window or without distance.
    func bestSpeed(window: Double) -> Double? {
        guard !cumulative.isEmpty, window > 0, duration >= window else { return nil }
        var best = 0.0
        var i = 0
        for j in times.indices where times[j] >= window {
            let from = times[j] - window
            while i + 1 < times.count && times[i + 1] <= from { i += 1 }
            let startDistance = i + 1 < times.count
                ? cumulative[i] + (cumulative[i + 1] - cumulative[i]) * (from - times[i]) / (times[i + 1] - times[i])
                : cumulative[i]
            best = max(best, (cumulative[j] - startDistance) / window)
        }
        return WorkoutMeasures.finite(best)
    }

    /// The shortest time in which `metres` were covered, in seconds: for each sample as the
    /// end, the latest moment the distance was `metres` less (interpolated within its step).
    /// Nil when the workout is shorter than `metres`.
    func fastest(metres: Double) -> Double? {
        guard let total = cumulative.last, metres > 0, total >= metres else { return nil }
        var best = Double.infinity
        var i = 0
        for j in times.indices where cumulative[j] >= metres {
            let target = cumulative[j] - metres
            while i + 1 < j && cumulative[i + 1] <= target { i += 1 }
            let covered = cumulative[i + 1] - cumulative[i]
            let start = covered > 0 ? times[i] + (target - cumulative[i]) / covered * (times[i + 1] - times[i]) : times[i]
            best = min(best, times[j] - start)
        }
        return WorkoutMeasures.finite(best)
    }

    /// Metres climbed and descended by `method`; nil without two altitudes.
    func elevation(method: WorkoutMeasures.ElevationMethod, maxVerticalSpeed: Double) -> (gain: Double, loss: Double)? {
        var altitudes: [Double] = []
        var at: [Double] = []
        altitudes.reserveCapacity(samples.count)
        for (i, s) in samples.enumerated() {
            if let altitude = s.altitude {
                altitudes.append(altitude)
                at.append(times[i])
            }
        }
        guard altitudes.count >= 2 else { return nil }
        switch method {
        case .gpxpy:
            return Self.gpxpyUpDown(altitudes)
        case .hysteresis(let metres):
            return Self.hysteresis(altitudes, at: at, metres: max(0, metres), maxVerticalSpeed: maxVerticalSpeed)
        }
    }

    static func gpxpyUpDown(_ altitudes: [Double]) -> (gain: Double, loss: Double) {
        let n = altitudes.count
        func smoothed(_ i: Int) -> Double {
            0 < i && i < n - 1 ? altitudes[i - 1] * 0.3 + altitudes[i] * 0.4 + altitudes[i + 1] * 0.3 : altitudes[i]
        }
        var gain = 0.0, loss = 0.0
        var previous = smoothed(0)
        for i in 1..<n {
            let current = smoothed(i)
            let d = current - previous
            if d > 0 { gain += d } else { loss -= d }
            previous = current
        }
        return (gain, loss)
    }

    static func hysteresis(_ altitudes: [Double], at times: [Double], metres: Double,
                           maxVerticalSpeed: Double) -> (gain: Double, loss: Double) {
        var gain = 0.0, loss = 0.0
        var turn = altitudes[0]
        for i in 1..<altitudes.count {
            let altitude = altitudes[i]
            if abs(altitude - altitudes[i - 1]) > maxVerticalSpeed * (times[i] - times[i - 1]) {
                turn = altitude
            } else if altitude > turn + metres {
                gain += altitude - turn
                turn = altitude
            } else if altitude < turn - metres {
                loss += turn - altitude
                turn = altitude
            }
        }
        return (gain, loss)
    }

    /// Altitude averaged over the five samples with an altitude nearest `t` in time order (two
    /// before, the one at or before `t`, two after), for a split's change: one sample's noise
    /// would be most of a flat kilometre's.
    func smoothedAltitude(at t: Double, altitudeTimes: [Double], altitudes: [Double]) -> Double? {
        guard !altitudes.isEmpty else { return nil }
        var lo = 0, hi = altitudeTimes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if altitudeTimes[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        let centre = max(0, lo - 1)
        let from = max(0, centre - 2), to = min(altitudes.count - 1, centre + 2)
        var sum = 0.0
        for k in from...to { sum += altitudes[k] }
        return sum / Double(to - from + 1)
    }
}
