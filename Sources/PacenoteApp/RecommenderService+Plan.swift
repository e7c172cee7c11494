import Foundation
import PacenoteCore
import PacenoteStore

/// The music of a planned workout (issue 55, point 3): the suggestions follow the segment the
/// *next* song will mostly play in — looking ahead by what is left of the song playing and a
/// song's usual length — not the last reading, so in intervals they are not one interval late.
/// When the sensors stop, the plan goes on by time and so do the suggestions.
struct PlannedTarget: Equatable {
    /// The zone the segment means there (a ramp's where the song's middle comes); nil for a
    /// cadence, a tempo or a free segment.
    var zone: Zone?
    var target: TempoTarget
    /// The segment's index in the plan's timeline, and a word on it for the list's note.
    var segment: Int
    var note: String
    /// Seconds from the next song's start to its segment's end, for the length preference
    /// (`Recommender.preferringLength`); nil when that end is not known (open-ended, paused).
    var fitSeconds: Double?
}

extension RecommenderService {
    /// The planned workout in progress' target for the next song; nil without one, once its
    /// plan is done, or in a free segment (then the live zone leads, as without a plan).
    func plannedTarget(now: Date, version: UInt64) throws -> PlannedTarget? {
        guard let workout = try store.openWorkout(), let plan = workout.plan, let start = workout.planStartedAt else { return nil }
        let timeline = plan.timeline()
        let state = PlanProgress.state(of: timeline, start: start, marks: try store.planMarks(workoutID: workout.id), now: now)
        let startsIn = players.first(where: { $0.name == playerName })?.nowPlaying.flatMap { playing -> Double? in
            guard playing.state == .play, let duration = playing.duration, let elapsed = playing.elapsed else { return nil }
            return max(0, duration - elapsed - now.timeIntervalSince(playing.at))
        } ?? 0
        guard let next = PlanProgress.nextSong(in: timeline, state: state, startsIn: startsIn, seconds: try typicalSongSeconds(version: version)) else {
            return nil
        }
        let segment = timeline[next.segment]
        if case .free = segment.target { return nil }
        let tempos = PlanPlaylist.Tempos(table: settings.tempo, model: try store.zoneSettings().model(at: now))
        var zone: Zone?
        switch segment.target {
        case .zone, .ramp: zone = segment.target.zone(at: next.fraction).flatMap { Zone(rawValue: Int($0.rounded())) }
        case .heartRate(let r): zone = tempos.zoneOfHeartRate(Double(r.lowerBound + r.upperBound) / 2)
        case .cadence, .tempo, .free: zone = nil
        }
        let when = next.segment == state.current ? "this segment" : "the segment ahead"
        return PlannedTarget(zone: zone, target: tempos.tempo(for: segment.target, at: next.fraction), segment: next.segment,
                             note: "for \(when) of \(plan.name) (\(segment.index + 1): \(segment.target.text)), where the next song will mostly play",
                             fitSeconds: PlanProgress.secondsToEnd(of: next.segment, in: timeline, state: state).map { $0 - startsIn })
    }

    /// The library's median track length (210 s when none is known), read again when the
    /// tracks change.
    func typicalSongSeconds(version: UInt64) throws -> Double {
        try libraryLengths(version: version).median
    }

    /// The library's song lengths by track id, for the length preference.
    func libraryDurations(version: UInt64) throws -> [Int64: Int] {
        try libraryLengths(version: version).durations
    }

    private func libraryLengths(version: UInt64) throws -> (durations: [Int64: Int], median: Double) {
        if let kept = libraryLengthsKept.withLock({ $0 }), kept.version == version { return (kept.durations, kept.median) }
        let durations = try store.libraryDurations()
        let lengths = durations.values.sorted()
        let median = lengths.isEmpty ? 210 : Double(lengths[lengths.count / 2])
        libraryLengthsKept.withLock { $0 = (version, durations, median) }
        return (durations, median)
    }
}
