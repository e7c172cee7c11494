import Foundation
import Logging
import PacenoteCore

/// Pacenote's effective configuration: defaults, then the TOML file, then environment
/// variables, then command-line flags — each layer overriding the one before.
/// The initial values below are the defaults; each key is declared once, with its name in
/// the file, environment variables, flag and documentation, in its section's
/// `ConfigSchema` declaration (`Config+*.swift`), from which docs/pacenote.example.toml is
/// written.
public struct Config: Sendable, Equatable {
    public var http: ListenAddress = .default
    /// Prefix for every URL when served behind a reverse proxy: `/pacenote`, or empty.
    public var basePath: String = ""
    public var maxBodyBytes: Int = 1 << 20
    /// The site's public address for share links (`https://music.example.org/pacenote`).
    public var publicURL: String?
    /// libmicrohttpd's worker threads (an epoll loop each); measured in scripts/bench/api.
    public var httpThreads: Int = 4
    /// The largest file `POST /api/v1/import` takes (written to a private file as it arrives).
    public var maxImportBytes: Int = 64 << 20
    /// Limits per client and overall, so that one address cannot take the service from
    /// another (`[server]` keys of the same names; see Config+Server.swift).
    public var maxConnectionsPerClient: Int = 32
    public var headerTimeoutSeconds: Double = 10
    public var maxUploadsPerClient: Int = 4
    public var maxBodyMemoryBytes: Int = 32 << 20
    public var keylessBodyTimeoutSeconds: Double = 10
    public var minBodyBytesPerSecond: Int = 1024
    /// `database.synced_acknowledgements`: changes answered only once on disk (`GroupCommit`).
    public var syncedAcknowledgements = true
    public var maxEventStreams: Int = 256
    public var maxEventStreamsPerClient: Int = 16
    public var eventStreamMaxSeconds: Double = 3600
    /// Clients that may read history and heart rate without the key.
    public var trustedNetworks: [IPNetwork] = IPNetwork.homeDefaults
    /// Reverse proxies whose X-Forwarded-For is believed.
    public var trustedProxies: [IPNetwork] = []
    /// Pages on other sites whose scripts may call the routes a key opens (`server.cors_origins`).
    public var corsOrigins: [WebOrigin] = []
    /// Days without a request after which a browser session ends (it ends at 30 days anyway).
    public var sessionIdleDays: Int = 7
    /// The site's static files; found beside the executable or its checkout when unset.
    public var publicDirectory: String?
    public var databasePath: String
    /// The time zone in which days start and end (SOTD, rollups, charts).
    public var timeZone: TimeZone = .current
    /// The day weeks begin on (`[site] week_starts`).
    public var weekStart: WeekStart = .monday
    /// Kilometres or miles for workouts' distances, paces and splits (`[site] units`).
    public var units: WorkoutMeasures.Units = .metric
    public var logLevel: Logger.Level = .info
    /// The players to follow: one `[mpd]` table, or several `[[mpd]]` (rooms). The first
    /// is the default player; `MPD_HOST`, `MPD_PORT` and `--mpd` apply to it.
    public var players: [MPD] = [MPD()]
    /// The first player.
    public var mpd: MPD {
        get { players[0] }
        set { players[0] = newValue }
    }
    /// When a play counts (Last.fm's rule by default).
    public var playRule: PlayRule = .lastFM
    public var heartRate = HeartRate()
    /// `[athlete]` as written; `athlete` fills what it leaves unset.
    public var athleteSettings = AthleteSettings()
    public var recommender = Recommender()
    public var tempo = Tempo()
    public var likes = Likes()
    public var workouts = Workouts()
    public var backup = Backup()
    public var credits = Credits()
    /// `[share]`: the now-playing card for the owner's website.
    public var share = Share()
    /// Curation rules from `[[rules]]` tables (none by default), in the file's order; each is
    /// `fromConfig`. `serve` and `import` store them at start (`Store.replaceConfigRules`).
    public var rules: [CurationRule] = []
    /// Forwarding targets from `[[forward]]` tables (none by default).
    public var forward: [Forward] = []
    /// Friends whose songs of the day are followed, from `[[friends]]` tables (none by
    /// default). `serve` stores them at start (`Store.replaceConfigFriends`).
    public var friends: [FriendFeed] = []
    /// Bluetooth heart-rate straps read through BlueZ, from `[[heart_rate.ble]]` tables
    /// (none by default).
    public var straps: [Strap] = []

    /// Where each key's value came from: `default`, `PATH:LINE`, `env NAME`, `--flag`.
    public var origins: [String: String] = [:]
    /// The configuration file that was read, if any.
    public var file: String?
    /// True when the database path is the default one in the XDG data directory.
    public var databaseIsDefault = true

    public init(databasePath: String) { self.databasePath = databasePath }
}

/// A configuration problem, described in one line that names the key and where it was set.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    public var key: String
    public var message: String
    public var origin: String?

    public init(key: String, message: String, origin: String? = nil) {
        self.key = key
        self.message = message
        self.origin = origin
    }

    public var description: String {
        if let origin { return "\(key) (\(origin)): \(message)" }
        return "\(key): \(message)"
    }
}

/// Values given on the command line; `nil` means "not given".
public struct ConfigFlags: Sendable, Equatable {
    public var config: String?
    public var db: String?
    public var http: String?
    public var mpd: String?
    public var basePath: String?
    public var timeZone: String?
    public var logLevel: String?
    public var trustedNetworks: String?

    public init(config: String? = nil, db: String? = nil, http: String? = nil, mpd: String? = nil,
                basePath: String? = nil, timeZone: String? = nil, logLevel: String? = nil, trustedNetworks: String? = nil) {
        self.trustedNetworks = trustedNetworks
        self.config = config
        self.db = db
        self.http = http
        self.mpd = mpd
        self.basePath = basePath
        self.timeZone = timeZone
        self.logLevel = logLevel
    }
}

/// Every section of the configuration file, in the order the printer and the example
/// file show them. A new section (or list of `[[tables]]`) is declared in its own
/// `Config+Section.swift` and added here.
enum ConfigSchema {
    static let sections: [AnyConfigSection] = [
        server.table(at: \.self),
        database.table(at: \.self),
        display.table(at: \.self),
        site.table(at: \.self),
        log.table(at: \.self),
        mpd.list(at: \.players, players),
        plays.table(at: \.playRule),
        heartRate.table(at: \.heartRate),
        strap.list(at: \.straps, strapList),
        workouts.table(at: \.workouts),
        athlete.table(at: \.athleteSettings),
        recommender.table(at: \.recommender),
        tempo.table(at: \.tempo),
        likes.table(at: \.likes),
        backup.table(at: \.backup),
        credits.table(at: \.credits),
        share.table(at: \.share),
        rules.list(at: \.rules, ruleList),
        forward.list(at: \.forward, forwardList),
        friends.list(at: \.friends, friendList),
    ]

    static func section(_ name: String) -> AnyConfigSection? { sections.first { $0.name == name } }

    /// Every key's full name: `server.http`, `mpd.host`, …
    static var keys: [String] { sections.flatMap { section in section.keys.map { "\(section.name).\($0.name)" } } }
}
