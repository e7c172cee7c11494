import Foundation

/// Who is training: what training load (and calories) need besides the readings.
public struct Athlete: Equatable, Sendable {
    public enum Sex: String, Equatable, Sendable, CaseIterable {
        case male, female
    }

    public var restingHR: Int
    public var maxHR: Int
    /// Nil: not given; TRIMP then uses Banister's constants for men, the original ones.
    public var sex: Sex?
    public var age: Int?
    public var weightKg: Double?

    public init(restingHR: Int = 60, maxHR: Int = 190, sex: Sex? = nil, age: Int? = nil, weightKg: Double? = nil) {
        self.restingHR = restingHR
        self.maxHR = maxHR
        self.sex = sex
        self.age = age
        self.weightKg = weightKg
    }

    /// The figures a stored TRIMP depends on: when they change, stored loads are computed again.
    public var trimpBasis: String { "\(restingHR)/\(maxHR)/\(sex?.rawValue ?? "-")" }
}

/// Banister's training impulse (TRIMP): a workout's load from its heart rate.
///
/// Banister, E. W. (1991). Modeling elite athletic performance. In J. D. MacDougall,
/// H. A. Wenger & H. J. Green (Eds.), *Physiological Testing of the High-Performance Athlete*
/// (2nd ed., pp. 403–424). Human Kinetics. (Also Morton, Fitz-Clarke & Banister 1990,
/// J. Appl. Physiol. 69(3): 1171–1177.)
///
///     HRr   = (HR − resting) / (max − resting)              heart-rate reserve fraction
///     TRIMP = Σ Δt[min] × HRr × 0.64 × e^(1.92 × HRr)       men
///     TRIMP = Σ Δt[min] × HRr × 0.86 × e^(1.67 × HRr)       women
///
/// Summed reading by reading rather than from the workout's average (the weighting is
/// exponential: intervals count for more than the same average held steady). Each reading
/// counts until the next one, never for more than `maxGap` seconds, and the last until the
/// workout's end (at most `maxGap`): the rule time in zone follows (`WorkoutFigures`), so
/// a gap in the readings adds no load. HRr is held to 0…1: a reading below the resting heart
/// rate adds nothing, one above the maximum counts as the maximum.
public struct TRIMP: Equatable, Sendable {
    /// The workout's load.
    public var total: Double
    /// The same load split by the zone of each reading (Z0…Z5), for the year in review.
    public var byZone: [Double]

    public init(total: Double, byZone: [Double]) {
        self.total = total
        self.byZone = byZone
    }

    /// Banister's weighting of one minute at heart-rate reserve fraction `hrr`.
    public static func weight(hrr: Double, sex: Athlete.Sex?) -> Double {
        let (a, b) = sex == .female ? (0.86, 1.67) : (0.64, 1.92)
        return hrr * a * exp(b * hrr)
    }

    public static func reserve(bpm: Double, athlete: Athlete) -> Double {
        let span = Double(athlete.maxHR - athlete.restingHR)
        guard span > 0 else { return 0 }
        return min(max((bpm - Double(athlete.restingHR)) / span, 0), 1)
    }

    /// The load of `samples` (oldest first) ending at `end`.
    public init(_ samples: [HeartRateSample], end: Date? = nil, athlete: Athlete, zones: ZoneModel, maxGap: Double = 5) {
        var byZone = [Double](repeating: 0, count: 6)
        for (i, sample) in samples.enumerated() {
            let next = i + 1 < samples.count ? samples[i + 1].at : end
            guard let next else { continue }
            let seconds = WorkoutFigures.counted(from: sample.at, until: next, maxGap: maxGap)
            let load = seconds / 60 * Self.weight(hrr: Self.reserve(bpm: Double(sample.bpm), athlete: athlete), sex: athlete.sex)
            byZone[zones.zone(for: Double(sample.bpm)).rawValue] += load
        }
        self.init(total: byZone.reduce(0, +), byZone: byZone)
    }
}

/// Fitness, fatigue and form: Banister's impulse–response model in the exponentially
/// weighted form Coggan's Performance Manager (TrainingPeaks), GoldenCheetah and
/// intervals.icu use, over daily loads (TRIMP here).
///
///     fitness_t (CTL) = fitness_{t−1} + (load_t − fitness_{t−1}) / 42
///     fatigue_t (ATL) = fatigue_{t−1} + (load_t − fatigue_{t−1}) / 7
///     form_t    (TSB) = fitness_{t−1} − fatigue_{t−1}
///
/// Day t's load is the sum of the loads of the workouts that began that (local) day; a day
/// without one has load 0. Both start at 0 the day before the first workout, so the figures of
/// a range depend on everything before it, not on where the range begins. Form is yesterday's
/// fitness minus yesterday's fatigue, as TrainingPeaks shows it: how fresh you are coming into
/// the day, before its own training.
public enum TrainingLoadModel {
    public static let fitnessDays = 42.0
    public static let fatigueDays = 7.0

    public struct Day: Equatable, Sendable {
        /// Days since 1970-01-01 of the local day (`LocalTime.Walker.slot`'s `dayNumber`).
        public var day: Int
        public var load: Double
        public var fitness: Double
        public var fatigue: Double
        public var form: Double

        public init(day: Int, load: Double, fitness: Double, fatigue: Double, form: Double) {
            self.day = day
            self.load = load
            self.fitness = fitness
            self.fatigue = fatigue
            self.form = form
        }
    }

    /// Every day from the first day with load through `last`, in order; only those from `from` on
    /// are returned. `loads`: the load of each day that had one.
    public static func days(loads: [Int: Double], from: Int, through last: Int) -> [Day] {
        guard let first = loads.keys.min() else {
            return from <= last ? (from...last).map { Day(day: $0, load: 0, fitness: 0, fatigue: 0, form: 0) } : []
        }
        var out: [Day] = []
        out.reserveCapacity(max(0, last - from + 1))
        var fitness = 0.0, fatigue = 0.0
        for d in min(first, from)...max(last, min(first, from)) {
            let load = loads[d] ?? 0
            let form = fitness - fatigue
            fitness += (load - fitness) / fitnessDays
            fatigue += (load - fatigue) / fatigueDays
            if d >= from && d <= last { out.append(Day(day: d, load: load, fitness: fitness, fatigue: fatigue, form: form)) }
        }
        return out
    }
}

extension Athlete {
    /// The athlete as `WorkoutMeasures` estimates calories (Keytel): nil unless age, weight and
    /// sex are all given.
    public var forCalories: WorkoutMeasures.Athlete? {
        guard let age, let weightKg, let sex else { return nil }
        return WorkoutMeasures.Athlete(age: Double(age), weightKilograms: weightKg, sex: sex == .female ? .female : .male)
    }
}
