import Foundation

/// The songs that made you faster (issue 54, point 5): each play during a workout set against
/// the same runner's pace in the minutes just before it, and those effects put together per
/// song over every run.
///
/// A play's effect is its moving speed (distance over moving time: a stop at a crossing is
/// left out, as in a split) against the moving speed of the `before` seconds before it
/// started, as a ratio: +0.04 is 4 % faster, which is 4 % less time per kilometre only
/// approximately (pace is the inverse; 4 % faster is 3.8 % less time). Cadence is compared the
/// same way, in steps (or revolutions) a minute. The runner's own minutes before are the
/// baseline, so a hilly route, a tired day or a slow runner do not make a song look slow; what
/// is left is the change when the song came on.
///
/// A play is measured only when both stretches are long enough to mean something:
/// `minimumDuring` seconds of the play in motion and `minimumBefore` of the minutes before
/// (so a song that starts in the first minutes of a run, before the samples, or after a long
/// stop has no baseline and is left out). A song's effect is the mean over its measured plays,
/// shown once it has `minimumPlays` of them over at least `minimumRuns` workouts: one play can
/// land on a downhill, three over two runs rarely all do.
public enum PaceEffect {
    /// Seconds before a play that are its baseline.
    public static let before: TimeInterval = 180
    /// Moving seconds of the play needed to measure it.
    public static let minimumDuring: TimeInterval = 60
    /// Moving seconds of the baseline needed.
    public static let minimumBefore: TimeInterval = 90
    /// Measured plays a song needs before its effect is shown.
    public static let minimumPlays = 3
    /// Workouts those plays must come from.
    public static let minimumRuns = 2

    /// A play to measure.
    public struct Play: Equatable, Sendable {
        public var id: Int64
        public var start: Date
        public var end: Date

        public init(id: Int64, start: Date, end: Date) {
            self.id = id
            self.start = start
            self.end = end
        }
    }

    /// One play's effect.
    public struct Measured: Equatable, Sendable, Codable {
        public var playID: Int64
        /// Moving speed, m/s, in the baseline and during the play.
        public var speedBefore: Double
        public var speedDuring: Double
        /// Average cadence (steps or revolutions a minute) of each, when the samples have it.
        public var cadenceBefore: Double?
        public var cadenceDuring: Double?

        public init(playID: Int64, speedBefore: Double, speedDuring: Double, cadenceBefore: Double? = nil,
                    cadenceDuring: Double? = nil) {
            self.playID = playID
            self.speedBefore = speedBefore
            self.speedDuring = speedDuring
            self.cadenceBefore = cadenceBefore
            self.cadenceDuring = cadenceDuring
        }

        /// +0.04: 4 % faster than the minutes before.
        public var speedChange: Double { speedDuring / speedBefore - 1 }

        /// Steps (revolutions) a minute more than in the minutes before.
        public var cadenceChange: Double? {
            guard let cadenceBefore, let cadenceDuring else { return nil }
            return cadenceDuring - cadenceBefore
        }
    }

    /// The effect of each play that can be measured in `motion` (one workout's samples, oldest
    /// first), in the order given; plays that cannot are left out.
    public static func measure(_ plays: [Play], motion: [MotionSample],
                               options: WorkoutMeasures.Options = .init()) -> [Measured] {
        let valid = plays.filter {
            $0.start.timeIntervalSinceReferenceDate.isFinite && $0.end.timeIntervalSinceReferenceDate.isFinite && $0.end > $0.start
        }
        guard !valid.isEmpty, !motion.isEmpty else { return [] }
        var stretches: [(start: Date, end: Date)] = []
        for play in valid {
            stretches.append((play.start.addingTimeInterval(-before), play.start))
            stretches.append((play.start, play.end))
        }
        let measured = WorkoutMeasures.stretches(stretches, motion: motion, options: options)
        var effects: [Measured] = []
        for (i, play) in valid.enumerated() {
            guard let baseline = measured[2 * i], let during = measured[2 * i + 1],
                  let speedBefore = speed(baseline, minimum: minimumBefore),
                  let speedDuring = speed(during, minimum: minimumDuring), speedBefore > 0 else { continue }
            effects.append(Measured(playID: play.id, speedBefore: speedBefore, speedDuring: speedDuring,
                                    cadenceBefore: baseline.averageCadence, cadenceDuring: during.averageCadence))
        }
        return effects
    }

    /// A stretch's moving speed when it has distance and enough time in motion.
    static func speed(_ split: WorkoutMeasures.Split, minimum: TimeInterval) -> Double? {
        guard let distance = split.distance, distance.isFinite, distance >= 0 else { return nil }
        let moving = split.moving ?? split.elapsed
        guard moving.isFinite, moving >= minimum else { return nil }
        return WorkoutMeasures.finite(distance / moving)
    }

    /// A song's effect over its measured plays.
    public struct Song: Equatable, Sendable {
        public var trackID: Int64
        /// Measured plays, and the workouts they were in.
        public var plays: Int
        public var runs: Int
        /// Mean of the plays' `speedChange`.
        public var speedChange: Double
        /// Mean of the plays' `cadenceChange`, over those with cadence.
        public var cadenceChange: Double?

        public init(trackID: Int64, plays: Int, runs: Int, speedChange: Double, cadenceChange: Double?) {
            self.trackID = trackID
            self.plays = plays
            self.runs = runs
            self.speedChange = speedChange
            self.cadenceChange = cadenceChange
        }

        /// Enough plays over enough workouts to be shown.
        public var isShown: Bool { plays >= PaceEffect.minimumPlays && runs >= PaceEffect.minimumRuns }
    }

    /// Puts measured plays together per song: `(trackID, workoutID, effect)` each. All songs,
    /// shown or not, fastest first (then by more plays, then by id: a stable order).
    public static func songs(_ plays: [(trackID: Int64, workoutID: Int64, effect: Measured)]) -> [Song] {
        struct Sum { var plays = 0, speed = 0.0, cadenceCount = 0, cadence = 0.0, runs = Set<Int64>() }
        var sums: [Int64: Sum] = [:]
        for p in plays {
            let change = p.effect.speedChange
            guard change.isFinite else { continue }
            var s = sums[p.trackID, default: Sum()]
            s.plays += 1
            s.speed += change
            s.runs.insert(p.workoutID)
            if let c = p.effect.cadenceChange, c.isFinite {
                s.cadenceCount += 1
                s.cadence += c
            }
            sums[p.trackID] = s
        }
        return sums.map { id, s in
            Song(trackID: id, plays: s.plays, runs: s.runs.count, speedChange: s.speed / Double(s.plays),
                 cadenceChange: s.cadenceCount > 0 ? s.cadence / Double(s.cadenceCount) : nil)
        }.sorted(by: fasterFirst)
    }

    /// Fastest first, then more plays, then the lower track id.
    public static func fasterFirst(_ a: Song, _ b: Song) -> Bool {
        if a.speedChange != b.speedChange { return a.speedChange > b.speedChange }
        if a.plays != b.plays { return a.plays > b.plays }
        return a.trackID < b.trackID
    }

    /// How a song's effect is measured, in a sentence for the pages.
    public static let explanation = "Each play during a run set against your own pace in the 3 minutes before it; "
        + "a song is listed once \(minimumPlays) of its plays over at least \(minimumRuns) runs were measured."

    /// "4 % faster" / "2 % slower" / "as fast": a change in words, to the whole percent.
    public static func words(_ change: Double) -> String {
        let percent = Int((abs(change) * 100).rounded())
        if percent == 0 { return "as fast" }
        return "\(percent) % " + (change > 0 ? "faster" : "slower")
    }

    /// Whether a workout of this sport counts as a run here: a run, or a workout with no sport
    /// at all (live workouts have none, and most workouts with music are runs). A ride's speed
    /// and cadence are another scale, and a file's `generic` or `multisport` may be anything
    /// (a triathlon's ride and run): neither is mixed in.
    public static func countsAsRun(sport: String?) -> Bool {
        guard let sport, !sport.trimmingCharacters(in: .whitespaces).isEmpty else { return true }
        return WorkoutName.activity(sport: sport) == "run"
    }
}
