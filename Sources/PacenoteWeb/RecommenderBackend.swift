import Foundation
import PacenoteCore

/// A request for next-track suggestions, as the API and the site ask it.
public struct RecommendationQuery: Hashable, Sendable {
    public enum Mode: String, Equatable, Sendable, CaseIterable {
        /// The zone's tempo window (`[recommender] tempo_zN`).
        case zone
        /// A running cadence (`cadence`, steps/min), 1:1 or 2:1, at most ±10 % change.
        case cadence
    }

    /// nil: the live zone from the heart-rate service, if any.
    public var zone: Zone?
    public var limit: Int
    public var mode: Mode
    /// Cadence mode's target; nil: the configured one.
    public var cadence: Double?

    public init(zone: Zone? = nil, limit: Int = 10, mode: Mode = .zone, cadence: Double? = nil) {
        self.zone = zone
        self.limit = limit
        self.mode = mode
        self.cadence = cadence
    }
}

/// Ranked suggestions and what they were made for.
public struct RecommendationList: Equatable, Sendable {
    public var zone: Zone?
    /// Where the zone came from: `query`, `live`, or `none`.
    public var zoneSource: String
    public var mode: RecommendationQuery.Mode
    public var target: TempoTarget
    /// The song playing now, left out of the suggestions.
    public var current: Recommender.SongRef?
    public var suggestions: [Recommender.Suggestion]
    /// What the library held and why tracks were left out.
    public var census: Recommender.Census
    /// Why `suggestions` is empty, with the way forward; nil when it is not.
    public var emptyReason: Recommender.EmptyReason?
    /// A remark on a list that is not empty (`Recommender.Census.tempoNote`).
    public var note: String?
    /// Why MPD's queue could not be read (then neither it nor the song MPD plays is left out).
    public var queueError: String?

    public init(zone: Zone?, zoneSource: String, mode: RecommendationQuery.Mode, target: TempoTarget,
                current: Recommender.SongRef?, suggestions: [Recommender.Suggestion], census: Recommender.Census = .init(),
                emptyReason: Recommender.EmptyReason? = nil, note: String? = nil, queueError: String? = nil) {
        self.zone = zone
        self.zoneSource = zoneSource
        self.mode = mode
        self.target = target
        self.current = current
        self.suggestions = suggestions
        self.census = census
        self.emptyReason = emptyReason
        self.note = note
        self.queueError = queueError
    }
}

/// A track put into MPD's queue.
public struct QueuedTrack: Equatable, Sendable {
    public var track: ListeningModel.Candidate
    public var player: String
    /// MPD's song id and queue position.
    public var songID: Int
    public var position: Int
    /// The suggestion it was, when the top suggestion was queued.
    public var suggestion: Recommender.Suggestion?
    /// The tempo it is being rendered at (`[tempo]`, issue 56): the copy takes its place in
    /// the queue when ready (`GET /api/v1/tempo` says when, or why the original plays).
    public var tempo: TempoStretch.Plan?

    public init(track: ListeningModel.Candidate, player: String, songID: Int, position: Int, suggestion: Recommender.Suggestion?) {
        self.track = track
        self.player = player
        self.songID = songID
        self.position = position
        self.suggestion = suggestion
    }
}

/// What the API needs from the recommender (PacenoteApp's `RecommenderService`), so that
/// the web module never talks to MPD itself.
public protocol RecommenderBackend: Sendable {
    func recommendations(_ query: RecommendationQuery) throws -> RecommendationList
    /// The same, or nil when the model must be built first (asked for in the background):
    /// what the dashboard shows, which must not wait for a build.
    func recommendationsIfReady(_ query: RecommendationQuery) throws -> RecommendationList?
    /// Queues `trackID` (or, when nil, the top suggestion for `query`) right after the
    /// current song of the default player.
    func enqueue(trackID: Int64?, query: RecommendationQuery) throws -> QueuedTrack
    /// "Not now" on a suggestion: the track is lowered for a while (in memory only).
    func notNow(trackID: Int64) throws
    /// Whether suggestions can be made at once (the listening model is built).
    var isReady: Bool { get }
    /// Builds the model in the background, if it is not built yet.
    func prepare()
    /// A plan's pre-run playlist (issue 55): built over the whole plan, or — given the
    /// playlist as it is (`current`, track ids in order) and a `swap` — the song at
    /// `swap.index` swapped for `swap.trackID` (nil: taken out) and the rest rebalanced.
    func planPlaylist(_ plan: WorkoutPlan, current: [Int64]?, swap: PlaylistSwap?) throws -> PlanPlaylistAnswer
    /// Saves the songs as MPD's stored playlist `name` (replacing it) or, with `queue`,
    /// adds them at the queue's end. Returns how many songs went.
    func savePlaylist(_ trackIDs: [Int64], name: String, queue: Bool) throws -> Int
    /// Tempo-matched playback's settings and its last renders (`GET /api/v1/tempo`).
    func tempoStatus() -> TempoStatus
}

extension RecommenderBackend {
    public func tempoStatus() -> TempoStatus { TempoStatus() }
}

/// Tempo-matched playback as the API shows it (issue 56).
public struct TempoStatus: Equatable, Sendable {
    public var enabled = false
    /// How MPD reaches the copies: `folder` or `local_socket`; nil with `problem`.
    public var access: String?
    /// Why MPD cannot play the copies (then every song plays at its own tempo).
    public var problem: String?
    public var maxChange = 0.0
    public var quality = ""
    public var cacheDirectory = ""
    public var cachedCopies = 0
    public var cachedBytes: Int64 = 0
    public var renders: [Render] = []

    public init() {}

    public struct Render: Equatable, Sendable {
        public var uri: String
        public var title: String
        public var artist: String?
        public var bpm: Double
        public var plan: TempoStretch.Plan
        /// `rendering`, `queued` (the copy took the song's place) or `original` (see `reason`).
        public var state: String
        public var reason: String?
        public var reused: Bool
        public var renderSeconds: Double?
        public var askedAt: Date

        public init(uri: String, title: String, artist: String?, bpm: Double, plan: TempoStretch.Plan, state: String,
                    reason: String?, reused: Bool, renderSeconds: Double?, askedAt: Date) {
            self.uri = uri
            self.title = title
            self.artist = artist
            self.bpm = bpm
            self.plan = plan
            self.state = state
            self.reason = reason
            self.reused = reused
            self.renderSeconds = renderSeconds
            self.askedAt = askedAt
        }
    }
}

/// A listener's change to a pre-run playlist: the song at `index` swapped for `trackID`, or
/// taken out (nil).
public struct PlaylistSwap: Equatable, Sendable {
    public var index: Int
    public var trackID: Int64?

    public init(index: Int, trackID: Int64?) {
        self.index = index
        self.trackID = trackID
    }
}

/// A pre-run playlist and the texts of its tracks.
public struct PlanPlaylistAnswer: Equatable, Sendable {
    public var playlist: PlanPlaylist.Playlist
    public var texts: [Int64: ListeningModel.Texts]
    /// The library it was chosen from: tracks that can be queued, with a length.
    public var librarySize: Int

    public init(playlist: PlanPlaylist.Playlist, texts: [Int64: ListeningModel.Texts], librarySize: Int) {
        self.playlist = playlist
        self.texts = texts
        self.librarySize = librarySize
    }
}

extension RecommenderBackend {
    public var isReady: Bool { true }
    public func prepare() {}
    public func planPlaylist(_ plan: WorkoutPlan, current: [Int64]?, swap: PlaylistSwap?) throws -> PlanPlaylistAnswer {
        throw APIError.unavailable("pre-run playlists need the recommender")
    }
    public func savePlaylist(_ trackIDs: [Int64], name: String, queue: Bool) throws -> Int {
        throw APIError.unavailable("saving a playlist needs the recommender and MPD")
    }
    public func recommendationsIfReady(_ query: RecommendationQuery) throws -> RecommendationList? {
        try recommendations(query)
    }
}
