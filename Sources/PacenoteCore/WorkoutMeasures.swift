import Foundation

/// A workout measured as a training log measures it (GoldenCheetah, Strava): distance, moving
/// time, pace and speed, elevation gain and loss, cadence, power, calories, and splits per
/// kilometre or mile and per lap with the songs that played in each. Pure: samples in,
/// figures out; the readers clean files, the pages and the API only show these.
///
/// The rules, each documented where it is computed:
/// - Samples are read oldest first; one not later than the sample kept before it is dropped (a
///   clock that went backwards would count a stretch twice), and values no body or device
///   makes (NaN, negative, faster than `Options.maxSpeed`, off the Earth) become missing:
///   see `MotionTrack.clean`.
/// - Distance: the device's cumulative distance when the samples carry it, else the speed
///   integrated over time, else the great circles between positions (`Geodesy.distance`, in
///   2-D: Strava and GoldenCheetah count distance on the map, not along the slope).
/// - Moving time: the steps between samples covered at `Options.stoppedSpeed` or faster.
/// - Elevation: `ElevationMethod`. Calories: `Calories`. Splits, laps and the songs in them:
///   `SplitCutter` (WorkoutMeasures+Splits.swift).
///
/// Every figure is nil when the samples cannot give it, never NaN or infinite.
public struct WorkoutMeasures: Equatable, Sendable, Codable {
    /// The first and last sample (motion or heart rate); nil without any.
    public var start: Date?
    public var end: Date?
    /// Seconds from the first sample to the last, pauses included.
    public var elapsed: Double
    /// Seconds in motion (`Options.stoppedSpeed`); nil when nothing tells moving from stopped.
    public var moving: Double?
    /// Metres, and where they came from.
    public var distance: Double?
    public var distanceSource: DistanceSource?
    /// Metres per second over the moving time.
    public var averageSpeed: Double?
    /// Seconds per kilometre or mile (`units`) over the moving time.
    public var averagePace: Double?
    /// The fastest average speed held for `Options.bestSpeedWindow` seconds, in m/s (a longest
    /// window, not the fastest sample: one GPS jump would be the maximum otherwise).
    public var bestSpeed: Double?
    /// The fastest kilometre or mile (`units`) anywhere in the workout, in seconds: Strava's
    /// "best effort", on elapsed time (a stop inside it counts, as in a race).
    public var bestPace: Double?
    /// Metres climbed and descended, smoothed by `Options.elevation`.
    public var elevationGain: Double?
    public var elevationLoss: Double?
    /// Per minute, over the moving time, zeros left out (a coasting cyclist or a runner at a
    /// crossing has no cadence; GoldenCheetah's "Average Cadence" does the same).
    public var averageCadence: Double?
    public var maxCadence: Double?
    /// Watts, over the moving time, zeros counted (coasting is part of the ride: GoldenCheetah's
    /// and Strava's average power include it).
    public var averagePower: Double?
    public var maxPower: Double?
    /// Beats per minute: the mean and the highest of the readings (as `WorkoutFigures`).
    public var averageHeartRate: Double?
    public var maxHeartRate: Int?
    /// Kilocalories: the device's when it counted them, else Keytel's estimate (`Calories`).
    public var calories: Double?
    public var caloriesSource: CaloriesSource?
    /// Whether the sport reads in pace (runs, walks, hikes) rather than speed (rides, rows).
    public var showsPace: Bool
    public var units: Units
    /// Each kilometre or mile, the last one partial; each lap the device marked.
    public var splits: [Split]
    public var laps: [Split]

    /// Metric (kilometres) or imperial (miles), as `[site] units` says.
    public enum Units: String, Equatable, Sendable, Codable, CaseIterable {
        case metric, imperial

        /// The length of one split in metres: a kilometre or an international mile.
        public var splitMetres: Double { self == .metric ? 1000 : 1609.344 }
    }

    public enum DistanceSource: String, Equatable, Sendable, Codable {
        /// The device's own count (FIT `distance`, TCX `DistanceMeters`).
        case device
        /// Speed integrated over time (a foot pod or a live feed without distance).
        case speed
        /// Great circles between positions (GPX).
        case positions
    }

    public enum CaloriesSource: String, Equatable, Sendable, Codable {
        case device, heartRate
    }

    /// How elevation gain and loss are smoothed. Altitude from GPS is noisy to a few metres,
    /// barometric altitude to a few decimetres; summed raw, the noise of a flat hour reads as
    /// hundreds of metres climbed.
    public enum ElevationMethod: Equatable, Sendable, Codable {
        /// GoldenCheetah's (src/Metrics/BasicRideMetrics.cpp, ElevationGain): a climb counts
        /// once the altitude is `metres` above the last turning point (3 m by default there),
        /// then from that point; a descent likewise. A step faster than
        /// `Options.maxVerticalSpeed` is a jump of the sensor (a recalibration, a bad fix),
        /// not a climb: it moves the turning point without counting.
        case hysteresis(metres: Double)
        /// gpxpy's `get_uphill_downhill` (gpxpy/geo.py, calculate_uphill_downhill): each
        /// altitude replaced by 0.3 × the one before + 0.4 × itself + 0.3 × the one after (the
        /// first and last as they are), then every rise and fall summed. Kept to compare with
        /// gpxpy; too light for 1 Hz GPS altitude.
        case gpxpy
    }

    /// The rules' numbers, each with its reason.
    public struct Options: Equatable, Sendable {
        /// m/s: a step slower than this is a stop. 0.5 m/s (1.8 km/h) is slower than anyone walks
        /// (about 1.4 m/s) and faster than the drift of a watch standing still; gpxpy uses 1 km/h
        /// on raw positions, GoldenCheetah any speed above zero (its devices report 0 when still).
        public var stoppedSpeed = 0.5
        /// Seconds: a longer gap between samples is a pause (an auto-pause, a lost signal):
        /// speed is not integrated over it and heart rate, cadence and power are not weighted by
        /// it. Smart recording spaces samples up to about 8 s.
        public var maxGap = 10.0
        /// m/s: faster is a glitch, not a sample (180 km/h; no run or ride gets near it).
        public var maxSpeed = 50.0
        /// m/s up or down: faster is a sensor's jump (a fast descent on a 20 % road is about 4).
        public var maxVerticalSpeed = 5.0
        public var elevation = ElevationMethod.hysteresis(metres: 3)
        /// Seconds over which `bestSpeed` is averaged.
        public var bestSpeedWindow = 10.0
        /// Seconds a song must play in a split to be listed in it (`Split.plays`).
        public var minimumPlayOverlap = 10.0

        public init() {}
    }

    /// Who did the workout, for the calorie estimate (`[athlete]`).
    public struct Athlete: Equatable, Sendable, Codable {
        public enum Sex: String, Equatable, Sendable, Codable { case female, male }
        /// Years.
        public var age: Double
        public var weightKilograms: Double
        public var sex: Sex

        public init(age: Double, weightKilograms: Double, sex: Sex) {
            self.age = age
            self.weightKilograms = weightKilograms
            self.sex = sex
        }
    }

    /// A song that played during the workout (a play, or the part of it the workout overlapped).
    public struct Play: Equatable, Sendable, Codable {
        public var start: Date
        public var end: Date
        public var trackID: Int64?
        public var title: String?
        public var artist: String?

        public init(start: Date, end: Date, trackID: Int64? = nil, title: String? = nil, artist: String? = nil) {
            self.start = start
            self.end = end
            self.trackID = trackID
            self.title = title
            self.artist = artist
        }
    }

    /// One kilometre, mile or lap.
    public struct Split: Equatable, Sendable, Codable {
        /// From 1.
        public var number: Int
        public var start: Date
        public var end: Date
        /// Metres (nil without a distance source).
        public var distance: Double?
        /// Seconds, pauses included, and in motion.
        public var elapsed: Double
        public var moving: Double?
        /// Seconds per kilometre or mile over the split's moving time (its elapsed time when
        /// nothing tells moving from stopped); nil without distance.
        public var pace: Double?
        public var averageHeartRate: Double?
        public var averageCadence: Double?
        /// Metres from the split's start to its end (altitude averaged over five samples at each).
        public var elevationChange: Double?
        /// The songs that played in it, in order, with the seconds each played in it.
        public var plays: [SplitPlay]
    }

    public struct SplitPlay: Equatable, Sendable, Codable {
        public var play: Play
        public var seconds: Double
    }

    /// Measures a workout.
    /// - Parameters:
    ///   - motion: its motion samples, oldest first (`MotionSample`).
    ///   - heartRate: its heart-rate readings, oldest first.
    ///   - laps: the laps the device marked, if any.
    ///   - deviceCalories: the kilocalories the device counted (FIT session, TCX laps), if any.
    ///   - sport: as the file or the user named it (`running`, `Biking`, …), for `showsPace`.
    ///   - athlete: for the calorie estimate; nil leaves `calories` nil without the device's.
    ///   - plays: the songs that overlapped the workout, for the splits.
    public init(motion: [MotionSample], heartRate: [HeartRateSample] = [], laps: [WorkoutLap] = [],
                deviceCalories: Double? = nil, sport: String? = nil, athlete: Athlete? = nil,
                units: Units = .metric, plays: [Play] = [], options: Options = Options()) {
        let track = MotionTrack(motion, options: options)
        let pulse = PulseTrack(heartRate)
        self.units = units
        showsPace = Self.readsInPace(sport: sport)

        let first = [track.origin, pulse.origin].compactMap { $0 }.min()
        let last = [track.last, pulse.last].compactMap { $0 }.max()
        start = first
        end = last
        elapsed = Self.finite(first.flatMap { f in last.map { $0.timeIntervalSince(f) } }) ?? 0

        moving = track.movingSeconds
        distance = track.totalDistance
        distanceSource = track.source
        if let distance, let moving, moving > 0 {
            averageSpeed = Self.finite(distance / moving)
            averagePace = distance > 0 ? Self.finite(moving / distance * units.splitMetres) : nil
        }
        bestSpeed = track.bestSpeed(window: options.bestSpeedWindow)
        bestPace = track.fastest(metres: units.splitMetres)
        let elevation = track.elevation(method: options.elevation, maxVerticalSpeed: options.maxVerticalSpeed)
        elevationGain = elevation?.gain
        elevationLoss = elevation?.loss
        averageCadence = track.averageCadence(from: 0, to: track.duration)
        maxCadence = track.maxCadence
        averagePower = track.averagePower
        maxPower = track.maxPower
        averageHeartRate = pulse.average(from: -.infinity, to: .infinity)
        maxHeartRate = pulse.maximum

        let energy = Calories.of(device: deviceCalories, laps: laps, heartRate: pulse, athlete: athlete, maxGap: options.maxGap)
        calories = energy?.kilocalories
        caloriesSource = energy?.source

        let cut = SplitCutter(track: track, pulse: pulse, plays: plays, units: units, minimumPlayOverlap: options.minimumPlayOverlap)
        splits = cut.byDistance()
        self.laps = cut.byLaps(laps)
    }

    /// Runs, walks, hikes and swims read in pace; rides and the rest in speed. A workout of no
    /// known sport reads in pace: most workouts with music are runs.
    static func readsInPace(sport: String?) -> Bool {
        switch WorkoutName.activity(sport: sport) {
        case "run"?, "walk"?, "hike"?, "swim"?, nil: true
        default: false
        }
    }

    /// The value when it is a number, else nil: no figure is ever NaN or infinite.
    static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }
}
