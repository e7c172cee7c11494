import Foundation

/// What a player's controls show (issue 57): playing, paused or stopped, the volume and MPD's
/// modes, read from MPD's `status` with every look the watcher takes (player, mixer and
/// options events), and after each command the dashboard or the API sends.
public struct PlayerControls: Equatable, Sendable {
    /// MPD's `single`: off, on (stop after the song, or repeat it with repeat on), or once
    /// (`oneshot`: for the current song only).
    public enum Single: String, Sendable, CaseIterable { case off, on, oneshot }

    public var state: PlayerSnapshot.State
    /// 0–100; nil when MPD has no mixer (a `null` output, software volume off).
    public var volume: Int?
    public var random: Bool
    public var `repeat`: Bool
    public var single: Single
    public var consume: Bool
    /// Songs in MPD's queue.
    public var queueLength: Int
    /// MPD's queue id of the current song, if any.
    public var songID: Int?
    /// Seconds into the current song, and its length, as of the look.
    public var elapsed: Double?
    public var duration: Double?
    /// MPD's own last error (`status`'s `error`: a song it could not decode), if any.
    public var error: String?
    /// When MPD was asked: `elapsed` moves on from here while playing.
    public var at: Date?

    public init(state: PlayerSnapshot.State, volume: Int?, random: Bool, repeat: Bool, single: Single, consume: Bool,
                queueLength: Int, songID: Int? = nil, elapsed: Double? = nil, duration: Double? = nil, error: String? = nil,
                at: Date? = nil) {
        self.at = at
        self.state = state
        self.volume = volume
        self.random = random
        self.repeat = `repeat`
        self.single = single
        self.consume = consume
        self.queueLength = queueLength
        self.songID = songID
        self.elapsed = elapsed
        self.duration = duration
        self.error = error
    }

    /// Whether a dashboard showing `other` must be told of this state: everything but the
    /// position, which moves on by itself while playing.
    public func differsFromWhatIsShown(_ other: PlayerControls?) -> Bool {
        guard var other else { return true }
        other.elapsed = elapsed
        other.duration = duration
        other.at = at
        return other != self
    }

    /// The position at `now`: `elapsed` moved on by the time since the look while playing.
    public func elapsed(at now: Date) -> Double? {
        guard let elapsed else { return nil }
        guard state == .play, let at else { return elapsed }
        return min(elapsed + max(0, now.timeIntervalSince(at)), duration ?? .infinity)
    }
}

/// A press on a player's controls (`POST /api/v1/players/{name}/{action}`, the dashboard).
public enum PlayerCommand: Equatable, Sendable {
    public enum Mode: String, Sendable, CaseIterable { case random, `repeat`, single, consume }

    /// Plays, resuming where it paused.
    case play
    case pause
    /// Pauses while playing, plays otherwise.
    case toggle
    case stop
    case next
    case previous
    /// To this many seconds into the current song.
    case seek(Double)
    /// To this volume, 0–100.
    case volume(Int)
    /// By this much, −100…100 (the dashboard's − and +, 5 a press).
    case changeVolume(Int)
    /// MPD's modes; `single` takes `oneshot` too.
    case modes(random: Bool?, repeat: Bool?, single: PlayerControls.Single?, consume: Bool?)

    /// The actions the API takes in its path, for its error messages and the OpenAPI document.
    public static let actions = ["play", "pause", "toggle", "stop", "next", "previous", "seek", "volume", "modes"]
    /// What a press of − or + on the volume changes.
    public static let volumeStep = 5
}
