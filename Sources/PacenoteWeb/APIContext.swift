import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// What the web layer reads from the running app, given whole when it is made: PacenoteApp's
/// composition root (`PacenoteServer.makeContext`) builds it once; tests build their own.
/// Nothing in it is filled in afterwards.
@dynamicMemberLookup
public struct APIContext: Sendable {
    /// The configuration's plain values, read as the context's own (`context.timeZone`).
    public struct Settings: Sendable {
        public var version: String
        public var startedAt: Date
        /// The display time zone: local days in `from`/`to` follow it.
        public var timeZone: TimeZone
        /// The day weeks begin on (`[site] week_starts`): the `week` ranges, the heatmap, the
        /// song-of-the-day calendar.
        public var weekStart: WeekStart = .monday
        /// Kilometres or miles for workouts (`[site] units`): distances, paces, splits.
        public var units: WorkoutMeasures.Units = .metric
        /// Who trains, for the calorie estimate when a workout has no device count; nil: no
        /// estimate (`[athlete]` gives it).
        public var athlete: WorkoutMeasures.Athlete?
        /// What unseals a named key's md5 for the Last.fm protocols' tokens (`ScrobblerCredentials`).
        public var scrobblerSecret: [UInt8] = []
        /// Clients in these networks read history and heart rate without the key.
        public var trustedNetworks: [IPNetwork] = IPNetwork.homeDefaults
        /// Reverse proxies whose `X-Forwarded-For` is believed (none unless configured).
        public var trustedProxies: [IPNetwork] = []
        /// Pages on other sites that may call the routes a key opens (`server.cors_origins`):
        /// `API+CrossOrigin.swift` answers their preflights and lets them read the answers.
        public var corsOrigins: [WebOrigin] = []
        /// This server's own names besides IP addresses, `localhost` and `publicURL`'s host:
        /// the host it listens on (`server.http`'s) and the machine's name. Only these may be in
        /// `Host` for the trusted networks to count (`Authorization.isOwnHost`).
        public var ownHosts: [String] = []
        /// The URL prefix the site is served under (for cookie paths and redirects).
        public var basePath = ""
        /// The site's public address (`https://music.example.org/pacenote`), for the share
        /// pages' OpenGraph links; nil: taken from each request's Host.
        public var publicURL: String?
        /// Seconds without a request after which a session ends (`server.session_idle_days`).
        public var sessionIdleSeconds = Sessions.defaultIdleTimeout
        /// Where `Public/` is read from (nil: the files built in).
        public var publicDirectory: String?
        /// When a play counts (`[plays]`): webhooks' plays and ListenBrainz's `duration_played`
        /// are judged by the rule MPD's plays are.
        public var playRule: PlayRule = .lastFM
        /// The tempo window of each zone (`[recommender] tempo_zN`): a song's zone fit in the player.
        public var tempo: TempoTable = .defaults
        /// The now-playing card's fields (`[share] now_fields`); nil: the card is off
        /// (`[share] now`), and `/now`, `/now.svg`, `/now.json` answer 404.
        public var nowFields: [NowCard.Field]?
        /// Live events (`/api/v1/events`) and their limits; nil: not offered.
        public var eventStreams: EventStreamHub.Limits?

        public init(version: String, startedAt: Date, timeZone: TimeZone = .current) {
            self.version = version
            self.startedAt = startedAt
            self.timeZone = timeZone
        }
    }

    /// What the running app provides, each behind a small protocol (AppServices.swift);
    /// nil where this app has none.
    public struct Services: Sendable {
        public var players: any PlayerSource
        public var keys: any KeySource
        public var heartRate: (any HeartRateBackend)?
        /// Next-track suggestions and queueing (PacenoteApp's `RecommenderService`).
        public var recommender: (any RecommenderBackend)?
        /// Imports of uploaded export and workout files; nil: not offered.
        public var imports: (any ImportService)?
        public var coverArt: (any CoverArtSource)?
        /// The Prometheus text for `/metrics`; nil: metrics are not collected.
        public var metrics: (any MetricsSource)?
        public var backups: (any BackupSource)?
        public var waitingPlays: (any WaitingPlaysSource)?
        /// The `[[forward]]` targets; nil when none is configured.
        public var forwarding: (any ForwardingSource)?
        /// The heart-rate sources Pacenote reads itself (`[[heart_rate.ble]]` straps).
        public var heartRateSources: (any HeartRateSourceList)?
        /// The smart playlists' copies in MPD; nil without a player.
        public var smartPlaylists: (any SmartPlaylistStates)?

        public init(players: any PlayerSource, keys: any KeySource) {
            self.players = players
            self.keys = keys
        }
    }

    public let settings: Settings
    public let services: Services
    public let store: Store
    /// Where changes are announced; every cache of the web layer follows it.
    public let events: EventBus?
    /// The web layer's only source of the time of day.
    public let clock: WebClock
    /// Where errors' details and security warnings go (bodies outside the trusted
    /// networks say less).
    public let logger: Logger
    public let sessions: Sessions
    /// The scrobbling protocols' submission log and other players' now-playing.
    public let scrobbles: ScrobbleState
    public let staticFiles: StaticFiles
    public let eventHub: EventStreamHub?
    /// The plays in progress that webhooks report (Jellyfin, Plex, Web Scrobbler).
    public let webhooks = WebhookPlays()
    let notices = SecurityNotices()

    public init(settings: Settings, store: Store, events: EventBus?, services: Services, clock: WebClock,
                logger: Logger = Logger(label: "pacenote.web")) {
        self.settings = settings
        self.services = services
        self.store = store
        self.events = events
        self.clock = clock
        self.logger = logger
        sessions = Sessions(idleTimeout: settings.sessionIdleSeconds, clock: clock)
        scrobbles = ScrobbleState(clock: clock)
        staticFiles = StaticFiles(root: settings.publicDirectory)
        eventHub = settings.eventStreams.map { EventStreamHub(bus: events, clock: clock, limits: $0) }
    }

    public subscript<Value>(dynamicMember path: KeyPath<Settings, Value>) -> Value { settings[keyPath: path] }

    /// The one write path: every change a request makes goes through it.
    public var operations: Operations { Operations(store: store, events: events) }
    public var heartRate: (any HeartRateBackend)? { services.heartRate }
    public var recommender: (any RecommenderBackend)? { services.recommender }
    func players() -> [PlayerStatus] { services.players.players() }
    func nowPlaying() -> [NowPlaying] { services.players.nowPlaying() }
    func currentKey() -> String? { services.keys.currentKey() }
    func namedKey(_ sent: String) -> KeyScope? { services.keys.scope(of: sent) }
}

/// Where the web layer reads the time: the composition root gives the system's, tests a
/// fixed or a moving one, so that no answer depends on when a test runs.
public struct WebClock: Sendable {
    private let read: @Sendable () -> Date

    public init(_ read: @escaping @Sendable () -> Date) {
        self.read = read
    }

    public static func fixed(_ date: Date) -> WebClock { WebClock { date } }

    public func now() -> Date { read() }
}
