import Foundation

/// One listen: a track played from `startedAt` to `endedAt`, for `playedSeconds` of real
/// playing (pauses excluded). A play that does not meet the scrobbling rule is still kept,
/// as a skip (`counted == false`): the recommender learns from skips.
public struct Play: Equatable, Sendable {
    public var id: Int64?
    public var trackID: Int64
    public var startedAt: Date
    public var endedAt: Date
    public var playedSeconds: Double
    public var counted: Bool
    /// Where the play came from: `mpd`, `listenbrainz`, `import:lastfm`, …
    public var source: String
    /// The name of the MPD (room) that played it, when it came from one.
    public var player: String?
    public var heartRateAverage: Double?
    public var heartRateMax: Int?
    public var zone: Zone?
    public var workoutID: Int64?
    /// Played from a copy rendered at another tempo (`TempoPlayback`): the tempo it was
    /// played at (bpm) and the factor (1.05: 5 % faster). Nil for a play at the track's own.
    public var playedBPM: Double?
    public var tempoRatio: Double?

    public init(
        id: Int64? = nil, trackID: Int64, startedAt: Date, endedAt: Date, playedSeconds: Double,
        counted: Bool, source: String, player: String? = nil, heartRateAverage: Double? = nil,
        heartRateMax: Int? = nil, zone: Zone? = nil, workoutID: Int64? = nil,
        playedBPM: Double? = nil, tempoRatio: Double? = nil
    ) {
        self.id = id
        self.trackID = trackID
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.playedSeconds = playedSeconds
        self.counted = counted
        self.source = source
        self.player = player
        self.heartRateAverage = heartRateAverage
        self.heartRateMax = heartRateMax
        self.zone = zone
        self.workoutID = workoutID
        self.playedBPM = playedBPM
        self.tempoRatio = tempoRatio
    }

    public var isSkip: Bool { !counted }
}

/// Heart-rate zones Z0–Z5 (Cue's % of max HR model by default: Z0 < 50 %, Z1 50–60,
/// Z2 60–70, Z3 70–80, Z4 80–90, Z5 ≥ 90 %).
public enum Zone: Int, Sendable, CaseIterable, Comparable {
    case z0 = 0, z1, z2, z3, z4, z5

    public static func < (a: Zone, b: Zone) -> Bool { a.rawValue < b.rawValue }
}
