import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import Synchronization

/// What the API reads from the running app. PacenoteApp fills it in; tests build their own.
public struct APIContext: Sendable {
    public var version: String
    public var startedAt: Date
    public var store: Store
    /// The display time zone: local days in `from`/`to` follow it.
    public var timeZone: TimeZone
    /// The day weeks begin on (`[site] week_starts`): the `week` ranges, the heatmap, the
    /// song-of-the-day calendar.
    public var weekStart: WeekStart = .monday
    /// The configured players (MPDs), the first being the default one.
    public var players: @Sendable () -> [PlayerStatus]
    /// What each player plays now (players that play nothing are absent).
    public var nowPlaying: @Sendable () -> [NowPlaying]
    /// The key every write needs (`Authorization: Token KEY` or `X-API-Key: KEY`), read on
    /// each use so that `pacenote key --new` and `--revoke` take effect at once; nil
    /// when revoked.
    public var currentKey: @Sendable () -> String?
    /// What unseals a named key's md5 for the Last.fm protocols' tokens (`ScrobblerCredentials`).
    public var scrobblerSecret: [UInt8] = []
    /// The scope of a named key (`pacenote key add`), looked up on each use; nil for a key
    /// that is no live named key.
    public var namedKey: @Sendable (_ sent: String) -> KeyScope? = { _ in nil }
    public var heartRate: (any HeartRateBackend)?
    /// Next-track suggestions and queueing (PacenoteApp's `RecommenderService`).
    public var recommender: (any RecommenderBackend)?
    /// Clients in these networks read history and heart rate without the key.
    public var trustedNetworks: [IPNetwork] = IPNetwork.homeDefaults
    /// Reverse proxies whose `X-Forwarded-For` is believed (none unless configured).
    public var trustedProxies: [IPNetwork] = []
    /// This server's own names besides IP addresses, `localhost` and `publicURL`'s host:
    /// the host it listens on (`server.http`'s) and the machine's name. Only these may be in
    /// `Host` for the trusted networks to count (`Authorization.isOwnHost`).
    public var ownHosts: [String] = []
    /// Where errors' details and security warnings go (bodies outside the trusted
    /// networks say less).
    public var logger = Logger(label: "pacenote.web")
    let notices = SecurityNotices()
    /// Where stored plays are announced (the heart-rate service tags them).
    public var events: EventBus?
    /// The one write path: every change a request makes goes through it.
    public var operations: Operations { Operations(store: store, events: events) }
    public var staticFiles = StaticFiles(root: nil)
    public var eventHub: EventStreamHub?
    /// The Prometheus text for `/metrics`, when metrics are collected.
    public var metricsText: (@Sendable () -> [UInt8])?
    public var sessions = Sessions()
    /// The scrobbling protocols' submission log and other players' now-playing.
    public var scrobbles = ScrobbleState()
    /// Imports an uploaded export file (`POST /api/v1/import`): the private file the body
    /// was written to, the format if the client names one, and a name for problem reports.
    /// Nil: imports are not offered.
    public var importListens: (@Sendable (_ path: String, _ format: ImportFormat?, _ name: String) throws -> ImportSummary)?
    /// Imports an uploaded workout file (TCX, GPX, FIT) the way `pacenote import` does;
    /// throws `WorkoutFileRejected` for a file it cannot read. Nil: not offered.
    public var importWorkout: (@Sendable (_ path: String) throws -> WorkoutImport)?
    /// The URL prefix the site is served under (for cookie paths and redirects).
    public var basePath = ""
    /// The site's public address (`https://music.example.org/pacenote`), for the share
    /// pages' OpenGraph links; nil: taken from each request's Host.
    public var publicURL: String?
    /// A track's cover from its player (cached by the app), nil when there is none.
    public var coverArt: (@Sendable (Track) -> CoverImage?)?
    /// The newest backup of the database (PacenoteApp's `Backups`), for the private status.
    public var lastBackup: (@Sendable () -> (at: Date, bytes: Int64)?)?
    /// Plays from MPD waiting to be stored (a full disk): how many, the last error, since when.
    public var playsWaiting: (@Sendable () -> (count: Int, lastError: String?, since: Date?))?
    /// The `[[forward]]` targets' queues and errors, with each one's next attempt while it
    /// waits; nil when none is configured.
    public var forwarding: (@Sendable () throws -> [(state: ForwardTargetState, nextAttempt: Date?)])?
    /// The heart-rate sources Pacenote reads itself (`[[heart_rate.ble]]` straps).
    public var heartRateSources: (@Sendable () -> [HeartRateSourceStatus])?

    public init(version: String, startedAt: Date, store: Store, timeZone: TimeZone = .current,
                apiKey: String, heartRate: (any HeartRateBackend)? = nil,
                players: @escaping @Sendable () -> [PlayerStatus],
                nowPlaying: @escaping @Sendable () -> [NowPlaying] = { [] }) {
        self.version = version
        self.startedAt = startedAt
        self.store = store
        self.timeZone = timeZone
        self.currentKey = { apiKey }
        self.heartRate = heartRate
        self.players = players
        self.nowPlaying = nowPlaying
    }
}
