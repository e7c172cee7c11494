import Foundation
import PacenoteCore
import PacenoteStore

// What the running app offers the web layer, one small protocol each. PacenoteApp's parts
// conform (or a small value of the composition root does); `APIContext.Services` holds them.

/// The players (MPDs) the app watches.
public protocol PlayerSource: Sendable {
    /// The configured players, the first being the default one.
    func players() -> [PlayerStatus]
    /// What each player plays now (players that play nothing are absent).
    func nowPlaying() -> [NowPlaying]
    /// A player's controls: play state, volume and modes (nil: no such player). Throws the
    /// `APIError` MPD's failure becomes.
    func controls(player: String) throws -> PlayerControls?
    /// Sends a press to a player's MPD and returns the state it left (nil: no such player).
    func control(player: String, _ command: PlayerCommand) throws -> PlayerControls?
    /// A player's queue (nil: no such player).
    func queue(player: String) throws -> PlayerQueue?
    /// Edits a player's queue; false when there is no such player.
    func editQueue(player: String, _ edit: QueueEdit) throws -> Bool
    /// A player's stored playlists (nil: no such player).
    func playlists(player: String) throws -> [StoredPlaylist]?
    /// A stored playlist's songs (nil: no such player).
    func playlistSongs(player: String, name: String) throws -> [SongInfo]?
    /// Edits a stored playlist; false when there is no such player.
    func editPlaylist(player: String, name: String, _ edit: StoredPlaylistEdit) throws -> Bool
}

/// How a smart playlist's copy in MPD stands (`SmartPlaylistSync`).
public struct SmartPlaylistState: Equatable, Sendable {
    public var songs: Int
    public var seconds: Double
    /// When MPD last got it (nil: never, see `error`).
    public var writtenAt: Date?
    public var error: String?
    public init(songs: Int, seconds: Double, writtenAt: Date?, error: String? = nil) {
        self.songs = songs
        self.seconds = seconds
        self.writtenAt = writtenAt
        self.error = error
    }
}

/// The smart playlists' copies in MPD, by definition id.
public protocol SmartPlaylistStates: Sendable {
    func states() -> [Int64: SmartPlaylistState]
    /// When every smart playlist was last refreshed (chosen again and, where changed,
    /// written to MPD), and how long that took.
    func lastRefresh() -> (at: Date, seconds: Double)?
}

/// The keys a request may bring.
public protocol KeySource: Sendable {
    /// The key every write needs (`Authorization: Token KEY` or `X-API-Key: KEY`), read on
    /// each use so that `pacenote key --new` and `--revoke` take effect at once; nil when
    /// revoked.
    func currentKey() -> String?
    /// The scope of a named key (`pacenote key add`), looked up on each use; nil for a key
    /// that is no live named key.
    func scope(of sent: String) -> KeyScope?
}

/// Uploaded files imported the way `pacenote import` imports them.
public protocol ImportService: Sendable {
    /// An export file (`POST /api/v1/import`): the private file the body was written to,
    /// the format if the client names one, and a name for problem reports.
    func importListens(path: String, format: ImportFormat?, name: String) throws -> ImportSummary
    /// A workout file (TCX, GPX, FIT); throws `WorkoutFileRejected` for a file it cannot read.
    func importWorkout(path: String) throws -> WorkoutImport
}

/// A track's cover from its player (cached by the app).
public protocol CoverArtSource: Sendable {
    func image(for track: Track) -> CoverImage?
}

/// The Prometheus text for `/metrics`.
public protocol MetricsSource: Sendable {
    func prometheusText() -> [UInt8]
}

/// The newest backup of the database, for the private status.
public protocol BackupSource: Sendable {
    func lastBackup() -> (at: Date, bytes: Int64)?
}

/// Plays from MPD waiting to be stored (a full disk).
public protocol WaitingPlaysSource: Sendable {
    /// How many, the last error, since when.
    func waiting() -> (count: Int, lastError: String?, since: Date?)
}

/// The `[[forward]]` targets.
public protocol ForwardingSource: Sendable {
    /// Each active target's queue and errors, with its next attempt while it waits.
    func targets() throws -> [(state: ForwardTargetState, nextAttempt: Date?)]
}

/// The heart-rate sources Pacenote reads itself (`[[heart_rate.ble]]` straps).
public protocol HeartRateSourceList: Sendable {
    func states() -> [HeartRateSourceStatus]
}
