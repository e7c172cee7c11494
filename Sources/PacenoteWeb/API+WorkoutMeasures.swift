import Foundation
import PacenoteCore
import PacenoteStore

/// A workout read once for its API answer, its page and its export: the stored rows and the
/// figures `WorkoutMeasures` makes of them.
struct WorkoutReading {
    /// With its figures so far when in progress (`API.soFar`).
    var workout: Workout
    /// Heart rate from 30 s before the start (a first song's lift needs them), and during it.
    var samples: [HeartRateSample]
    var during: [HeartRateSample]
    /// Its end, or now (or its latest reading) in progress.
    var end: Date
    var plays: [PlayWithTrack]
    var motion: [MotionSample]
    var laps: [WorkoutLap]
    var measures: WorkoutMeasures
    /// Each play's pace against the minutes before it (`PaceEffect`), by play id: on a run
    /// with distance, the plays that could be measured.
    var paces: [Int64: PaceEffect.Measured] = [:]

    /// Whether anything beyond heart rate was recorded: what decides the page's figures, chart
    /// and splits (a workout of heart rate alone looks as it always did).
    var hasMotion: Bool { !motion.isEmpty }
}

extension API {
    func reading(_ id: Int64) throws -> WorkoutReading {
        guard let stored = try context.store.workout(id: id) else { throw APIError.notFound("no workout \(id)") }
        let (samples, end) = try Self.samples(of: stored, in: context.store, now: context.clock.now())
        let during = samples.filter { $0.at >= stored.startedAt }
        let w = try soFar(stored, samples: during)
        let plays = try context.store.plays(overlapping: w.startedAt, end)
        let motion = try context.store.motionSamples(workout: w)
        let laps = try context.store.laps(workout: id)
        let measures = WorkoutMeasures(motion: motion, heartRate: during, laps: laps, deviceCalories: w.calories, sport: w.sport,
                                       athlete: context.athlete, units: context.units, plays: plays.map(Self.measuredPlay))
        // Measured here as the heart-rate service measures it when the run ends: the same
        // function over the same samples, so the page and the stored figures agree.
        let paces = PaceEffect.countsAsRun(sport: w.sport) && !motion.isEmpty
            ? PaceEffect.measure(plays.compactMap { p in p.play.id.map { PaceEffect.Play(id: $0, start: p.play.startedAt, end: p.play.endedAt) } },
                                 motion: motion)
            : []
        return WorkoutReading(workout: w, samples: samples, during: during, end: end, plays: plays, motion: motion, laps: laps,
                              measures: measures, paces: Dictionary(paces.map { ($0.playID, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    static func measuredPlay(_ p: PlayWithTrack) -> WorkoutMeasures.Play {
        WorkoutMeasures.Play(start: p.play.startedAt, end: p.play.endedAt, trackID: p.play.trackID, title: p.track.title,
                             artist: p.track.artist)
    }

    /// The list's distance and pace of a finished workout, kept until a workout or its samples
    /// change (a list of 100 workouts read every sample of each otherwise). One in progress is
    /// measured each time: it changes every second.
    func listMeasures(_ w: Workout) throws -> WorkoutMeasures? {
        func measure() throws -> WorkoutMeasures? {
            let motion = try context.store.motionSamples(workout: w)
            guard !motion.isEmpty else { return nil }
            return WorkoutMeasures(motion: motion, sport: w.sport, units: context.units)
        }
        guard let end = w.endedAt else { return try measure() }
        return try workoutMeasures.kept("\(w.id):\(Chart.milliseconds(end)):\(context.units.rawValue)", measure)
    }

    // MARK: GET /api/v1/workouts/{id}/export.tcx, export.gpx

    /// The workout as a file for another training log. GPX only when positions were kept: it
    /// is a list of positions.
    func exportWorkout(_ id: Int64, format: String) throws -> HTTPResponse {
        let r = try reading(id)
        let w = r.workout
        let export = WorkoutExport(heartRate: r.during, motion: r.motion, laps: r.laps, calories: r.measures.calories,
                                   sport: w.sport, name: w.name)
        let text: String, type: String
        switch format {
        case "gpx":
            guard let gpx = export.gpx() else {
                throw APIError(kind: .notFound, code: "no_positions",
                               message: "workout \(id) has no positions to write as GPX (they are kept with [workouts] keep_positions = true); export.tcx has the rest")
            }
            (text, type) = (gpx, "application/gpx+xml")
        default:
            guard !r.during.isEmpty || !r.motion.isEmpty else {
                throw APIError(kind: .notFound, code: "no_samples", message: "workout \(id) has no samples to export")
            }
            (text, type) = (export.tcx(), "application/vnd.garmin.tcx+xml")
        }
        let day = ISO8601.string(w.startedAt).prefix(10)
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", type + "; charset=utf-8"),
            ("Content-Disposition", "attachment; filename=\"pacenote-\(day)-workout-\(id).\(format)\""),
            ("Cache-Control", "private, no-store"),
        ], body: Array(text.utf8))
    }
}

extension APIJSON {
    /// Rounded to 1/`scale` for reading (a tenth by default), never NaN (`WorkoutMeasures`
    /// gives nil instead).
    private static func rounded(_ value: Double?, _ scale: Double = 10) -> JSONValue {
        .optional(value.map { ($0 * scale).rounded() / scale })
    }

    /// A workout's figures (`WorkoutMeasures`): paces in seconds per kilometre or mile as
    /// `units` says, speeds in m/s, distances and elevation in metres.
    static func measures(_ m: WorkoutMeasures) -> JSONValue {
        .object([
            ("units", .string(m.units.rawValue)),
            ("shows_pace", .bool(m.showsPace)),
            ("distance_m", rounded(m.distance)),
            ("distance_source", .optional(m.distanceSource?.rawValue)),
            ("elapsed_s", rounded(m.elapsed)),
            ("moving_s", rounded(m.moving)),
            ("avg_speed_mps", rounded(m.averageSpeed, 1000)),
            ("best_speed_mps", rounded(m.bestSpeed, 1000)),
            ("avg_pace_s", rounded(m.averagePace)),
            ("best_pace_s", rounded(m.bestPace)),
            ("elevation_gain_m", rounded(m.elevationGain)),
            ("elevation_loss_m", rounded(m.elevationLoss)),
            ("cadence_avg", rounded(m.averageCadence)),
            ("cadence_max", rounded(m.maxCadence)),
            ("power_avg_w", rounded(m.averagePower)),
            ("power_max_w", rounded(m.maxPower)),
            ("calories_kcal", rounded(m.calories, 1)),
            ("calories_source", .optional(m.caloriesSource.map { $0 == .device ? "device" : "heart_rate" })),
        ])
    }

    /// A kilometre, mile or lap, with the songs that played in it.
    static func split(_ s: WorkoutMeasures.Split) -> JSONValue {
        .object([
            ("number", .int(Int64(s.number))),
            ("started_at", timestamp(s.start)),
            ("ended_at", timestamp(s.end)),
            ("distance_m", rounded(s.distance)),
            ("elapsed_s", rounded(s.elapsed)),
            ("moving_s", rounded(s.moving)),
            ("pace_s", rounded(s.pace)),
            ("hr_avg", rounded(s.averageHeartRate)),
            ("cadence_avg", rounded(s.averageCadence)),
            ("elevation_change_m", rounded(s.elevationChange)),
            ("songs", .array(s.plays.map { p in
                .object([
                    ("track_id", .optional(p.play.trackID)),
                    ("title", .optional(p.play.title)),
                    ("artist", .optional(p.play.artist)),
                    ("started_at", timestamp(p.play.start)),
                    ("seconds", rounded(p.seconds)),
                ])
            })),
        ])
    }
}

extension APIJSON {
    /// A play's pace against the minutes before it (`PaceEffect.Measured`): speeds in m/s,
    /// `speed_change` a ratio (0.04: 4 % faster), cadence in steps (revolutions) a minute.
    static func paceEffect(_ e: PaceEffect.Measured) -> JSONValue {
        .object([
            ("speed_before_mps", rounded(e.speedBefore, 1000)),
            ("speed_during_mps", rounded(e.speedDuring, 1000)),
            ("speed_change", rounded(e.speedChange, 10000)),
            ("cadence_before", rounded(e.cadenceBefore)),
            ("cadence_during", rounded(e.cadenceDuring)),
            ("cadence_change", rounded(e.cadenceChange)),
        ])
    }

    /// A song's effect over its runs (`PaceEffect.Song`), as fields to go beside its track.
    static func paceEffectFields(_ s: PaceEffect.Song) -> [(String, JSONValue)] {
        [
            ("speed_change", rounded(s.speedChange, 10000)),
            ("cadence_change", rounded(s.cadenceChange)),
            ("plays", .int(Int64(s.plays))),
            ("runs", .int(Int64(s.runs))),
            ("shown", .bool(s.isShown)),
        ]
    }
}
