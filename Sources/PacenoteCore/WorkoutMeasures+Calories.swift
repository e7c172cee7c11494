import Foundation

/// Heart-rate readings as the figures read them: oldest first, each later than the one kept
/// before it, within `HeartRateSample.validRange`, with running totals for any stretch's mean.
struct PulseTrack {
    let at: [Double]
    let bpm: [Int]
    let origin: Date?
    let last: Date?
    /// Sum of bpm of the readings before index i.
    private let totals: [Int]

    init(_ readings: [HeartRateSample]) {
        var at: [Double] = [], bpm: [Int] = []
        at.reserveCapacity(readings.count)
        bpm.reserveCapacity(readings.count)
        var origin: Date?, last: Date?
        for r in readings where r.at.timeIntervalSinceReferenceDate.isFinite && HeartRateSample.validRange.contains(r.bpm) {
            if let last, r.at <= last { continue }
            origin = origin ?? r.at
            last = r.at
            at.append(r.at.timeIntervalSinceReferenceDate)
            bpm.append(r.bpm)
        }
        var totals = [0]
        totals.reserveCapacity(bpm.count + 1)
        for b in bpm { totals.append(totals[totals.count - 1] + b) }
        self.at = at
        self.bpm = bpm
        self.origin = origin
        self.last = last
        self.totals = totals
    }

    var maximum: Int? { bpm.max() }

    /// The mean of the readings at `a` (seconds since the reference date) up to and not at
    /// `b` (at `b` too when `closed`), to a tenth of a bpm as workouts store it.
    func average(from a: Double, to b: Double, closed: Bool = true) -> Double? {
        let i = index(of: a, after: false), j = index(of: b, after: closed)
        guard j > i else { return nil }
        return (Double(totals[j] - totals[i]) / Double(j - i) * 10).rounded() / 10
    }

    /// The first reading at `t` or later (`after`: later than `t`).
    private func index(of t: Double, after: Bool) -> Int {
        var lo = 0, hi = at.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if at[mid] < t || (after && at[mid] == t) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}

/// Energy: the device's count when there is one, else an estimate from heart rate.
///
/// The estimate is Keytel et al. (2005), "Prediction of energy expenditure from heart rate
/// monitoring during submaximal exercise", J Sports Sci 23(3):289–297, their model without
/// VO₂max, in kJ per minute:
///   men:   −55.0969 + 0.6309 × HR + 0.1988 × weight (kg) + 0.2017 × age (years)
///   women: −20.4022 + 0.4472 × HR − 0.1263 × weight (kg) + 0.0740 × age (years)
/// integrated reading by reading (each until the next, at most `maxGap` seconds, as time in
/// zone is counted), never below zero, and divided by 4.184 kJ per kcal. It was fitted on
/// exercise (heart rates of about 90–180); at rest it is rough. Without the athlete's age,
/// weight and sex (`[athlete]`) there is no estimate: calories are nil, not a guess.
enum Calories {
    static func of(device: Double?, laps: [WorkoutLap], heartRate: PulseTrack, athlete: WorkoutMeasures.Athlete?,
                   maxGap: Double) -> (kilocalories: Double, source: WorkoutMeasures.CaloriesSource)? {
        if let device, device.isFinite, device >= 0 { return (device, .device) }
        // Some files count energy per lap only (TCX): their sum, when every lap has it.
        let perLap = laps.compactMap(\.calories).filter { $0.isFinite && $0 >= 0 }
        if !laps.isEmpty, perLap.count == laps.count { return (perLap.reduce(0, +), .device) }
        guard let athlete, let kcal = keytel(heartRate, athlete: athlete, maxGap: maxGap) else { return nil }
        return (kcal, .heartRate)
    }

    /// Kilocalories by Keytel's equations; nil without two readings or with an athlete's
    /// figures that are not a person's.
    static func keytel(_ pulse: PulseTrack, athlete: WorkoutMeasures.Athlete, maxGap: Double) -> Double? {
        guard pulse.bpm.count >= 2, (5...120).contains(athlete.age), (20...400).contains(athlete.weightKilograms) else { return nil }
        let w = athlete.weightKilograms, a = athlete.age
        let (base, perBeat) = switch athlete.sex {
        case .male: (-55.0969 + 0.1988 * w + 0.2017 * a, 0.6309)
        case .female: (-20.4022 - 0.1263 * w + 0.0740 * a, 0.4472)
        }
        var kilojoules = 0.0
        for i in 0..<(pulse.bpm.count - 1) {
            let minutes = min(pulse.at[i + 1] - pulse.at[i], maxGap) / 60
            kilojoules += max(0, base + perBeat * Double(pulse.bpm[i])) * minutes
        }
        return WorkoutMeasures.finite(kilojoules / 4.184)
    }
}
