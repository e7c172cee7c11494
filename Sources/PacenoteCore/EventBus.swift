import Foundation
import Synchronization

/// What is playing on one player right now.
public struct NowPlaying: Equatable, Sendable {
    public enum State: String, Sendable { case play, pause }

    public var player: String
    public var state: State
    public var track: Track
    public var startedAt: Date
    /// Real playing time of this play so far, as of `at`.
    public var playedSeconds: Double
    /// Position in the song, as of `at`.
    public var elapsed: Double?
    public var duration: Double?
    public var at: Date

    public init(player: String, state: State, track: Track, startedAt: Date, playedSeconds: Double,
                elapsed: Double?, duration: Double?, at: Date) {
        self.player = player
        self.state = state
        self.track = track
        self.startedAt = startedAt
        self.playedSeconds = playedSeconds
        self.elapsed = elapsed
        self.duration = duration
        self.at = at
    }
}

/// Something that happened, for whoever listens (the live event stream, the dashboard).
public enum PacenoteEvent: Equatable, Sendable {
    /// What a player plays changed (song, pause/resume, seek); `nil`: it stopped.
    case nowPlaying(player: String, NowPlaying?)
    /// A play was stored.
    case playLogged(id: Int64, play: Play, track: Track)
    /// A player (MPD) connected or went away.
    case playerConnection(PlayerStatus)
    /// A player's controls changed (issue 57): played, paused, stopped, another song, the
    /// volume or a mode, from Pacenote or any other client of that MPD.
    case playerControls(player: String, PlayerControls)
    /// A new live heart-rate value (smoothed) and its zone: one per reading while readings
    /// are fresh.
    case heartRate(bpm: Double, zone: Zone, at: Date)
    /// The live zone changed.
    case zoneChanged(from: Zone?, to: Zone)
    case workoutStarted(id: Int64, at: Date)
    /// The workout in progress counted new readings: its figures so far.
    case workoutProgress(WorkoutProgress)
    case workoutEnded(id: Int64, at: Date)
    /// What cadence mode follows changed (issue 56): switched on or off, a target set (−5 / +5),
    /// or the live cadence moved enough that the suggestions are found again.
    case cadence(CadenceState)
    /// Stored data changed, announced once per operation after its transaction committed
    /// (PacenoteOperations is the only publisher): caches and the recommender follow it.
    /// `commit`: the store's commit count (`Store.commitCount`) read after that commit, so
    /// a cache can keep one number — the commit it was made at — as its one signal.
    case changed(DataChange, commit: UInt64 = 0)
}

/// What a committed change touched, so that each follower rebuilds only what it derives
/// from that data.
public enum DataChange: Equatable, Sendable {
    /// New plays were stored (a player, a scrobble): the rows above the last id read.
    case playsAdded(ids: [Int64])
    /// Plays that were not simply appended: an import batch (older plays with newer ids),
    /// credits split again. What is derived from the plays must be read again. (Corrections
    /// by hand or by a rule are `curated`.)
    case playsRewritten(Reason)
    /// A day's pinned song of the day changed (pinned, re-noted or unpinned).
    case songOfTheDay(day: String)
    /// A track's BPM changed, or another figure measured from its audio (how clear its beat
    /// is, its loudness).
    case trackBPM(trackID: Int64)
    /// Tracks were liked, disliked or cleared (one from a heart, many from an import).
    case trackFeeling(trackIDs: [Int64])
    /// The history was corrected by hand or by a rule (a curation entry, or its undo):
    /// plays, tracks, artists or albums may all have changed.
    case curated(entryID: Int64, undone: Bool)
    /// Someone was followed or unfollowed (the friends' poller asks a new friend at once).
    case friends(id: Int64)
    /// Plays were given their heart rate, zone and workout (as they end, or when samples
    /// arrive late): zone charts change; what a play is does not.
    case playsTagged(ids: [Int64])
    /// A workout began, was amended or got its figures (and the plays during it their link).
    case workout(id: Int64)
    /// A workout's plays were measured again and their effect on pace changed (`PaceEffect`):
    /// the songs that made you faster; no chart counts it.
    case paceEffects(workoutID: Int64)
    /// A player's library mirror changed: files, or tempos read from tags and stickers.
    case library(player: String)
    /// The outbox changed by hand (plays refused by a target queued again, a backfill, a
    /// target's session): the sender looks at once.
    case forwarding
    /// Credentials changed (a key, a scrobbler session): nothing derived from plays.
    case credentials
    /// Heart-rate samples were stored: workout and review heart-rate figures read them;
    /// the plays they tag are announced apart (`playsTagged`).
    case heartRateSamples
    /// A player's play in progress was saved (on each tick): no chart counts it.
    case playInProgress(player: String)
    /// A private session was turned on or off (`PrivateSession`): the plays logged from now
    /// on are hidden, or no longer; nothing stored so far changed.
    case privateSession
    /// A saved plan was made, changed or deleted (`WorkoutPlan`): the plans' pages; nothing
    /// stored of plays or workouts changed.
    case plans
    /// A smart playlist or mood was defined, changed or deleted (`SmartPlaylist`).
    case playlists

    public enum Reason: String, Equatable, Sendable {
        case imported
        /// Artist credits were split again (`[credits] separators` changed).
        case credits
    }

    /// Whether charts, counts and history figures may differ after this change.
    public var touchesPlays: Bool {
        switch self {
        case .playsAdded, .playsRewritten, .curated, .playsTagged, .workout: true
        case .songOfTheDay, .trackBPM, .trackFeeling, .friends, .library, .forwarding, .credentials,
             .heartRateSamples, .playInProgress, .paceEffects, .privateSession, .plans, .playlists: false
        }
    }
}

/// In-process publish/subscribe. Subscribers are called synchronously on the publisher's
/// thread, in subscription order, so they must return quickly (queue work elsewhere).
public final class EventBus: Sendable {
    public struct Subscription: Hashable, Sendable { let id: Int }

    private let subscribers = Mutex<(next: Int, handlers: [(Int, @Sendable (PacenoteEvent) -> Void)])>((0, []))

    public init() {}

    @discardableResult
    public func subscribe(_ handler: @escaping @Sendable (PacenoteEvent) -> Void) -> Subscription {
        subscribers.withLock { state in
            state.next += 1
            state.handlers.append((state.next, handler))
            return Subscription(id: state.next)
        }
    }

    public func unsubscribe(_ subscription: Subscription) {
        subscribers.withLock { $0.handlers.removeAll { $0.0 == subscription.id } }
    }

    public func publish(_ event: PacenoteEvent) {
        for (_, handler) in subscribers.withLock({ $0.handlers }) { handler(event) }
    }
}
