import Foundation
import Logging
import PacenoteCore

/// Pacenote's effective configuration: defaults, then the TOML file, then environment
/// variables, then command-line flags — each layer overriding the one before.
/// Every key is documented in docs/pacenote.example.toml.
public struct Config: Sendable, Equatable {
    public var http: ListenAddress = .default
    /// Prefix for every URL when served behind a reverse proxy: `/pacenote`, or empty.
    public var basePath: String = ""
    public var maxBodyBytes: Int = 1 << 20
    /// The site's public address for share links (`https://music.example.org/pacenote`).
    public var publicURL: String?
    /// libmicrohttpd's worker threads (an epoll loop each); measured in scripts/bench/api.
    public var httpThreads: Int = 4
    /// The largest file `POST /api/v1/import` takes (it is held in memory while imported).
    public var maxImportBytes: Int = 64 << 20
    /// Clients that may read history and heart rate without the key.
    public var trustedNetworks: [IPNetwork] = IPNetwork.homeDefaults
    /// Reverse proxies whose X-Forwarded-For is believed.
    public var trustedProxies: [IPNetwork] = []
    /// The site's static files; found beside the executable or its checkout when unset.
    public var publicDirectory: String?
    public var databasePath: String
    /// The time zone in which days start and end (SOTD, rollups, charts).
    public var timeZone: TimeZone = .current
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
    public var recommender = Recommender()

    /// `[recommender]`: the next-track suggestion.
    public struct Recommender: Sendable, Equatable {
        /// Target tempo window per zone (Karageorghis et al.; docs/RECOMMENDER.md).
        public var tempo: TempoTable = .defaults
        /// Songs started in the last this many hours are not suggested.
        public var recentHours = 6.0
        /// Keep one suggested track queued after the current one (auto-DJ).
        public var autoQueue = false
        /// Cadence mode's default target, steps per minute.
        public var cadence = 170.0
        /// Share of the list kept for tracks never played.
        public var exploration = 0.1
    }

    /// `[heart_rate]`: zones and workout detection.
    public struct HeartRate: Sendable, Equatable {
        public var zoneModel = "percent_max"
        public var maxHR: Int?
        public var age: Int?
        public var restingHR: Int?
        public var lthr: Int?
        public var zoneBounds: [Int]?
        public var workoutStartAfterSeconds = 60.0
        public var workoutEndAfterSeconds = 300.0
        /// The current heart rate is shown while its last reading is at most this old.
        public var freshForSeconds = 15.0

        /// The maximum heart rate: measured if given, else Tanaka's formula from the age,
        /// else 190.
        public var effectiveMaxHR: Int { maxHR ?? age.map(ZoneModel.tanakaMaxHR(age:)) ?? 190 }

        public var model: ZoneModel {
            get throws(ConfigError) {
                switch zoneModel {
                case "percent_max": return .percentMax(maxHR: effectiveMaxHR)
                case "hrr":
                    guard let restingHR else { throw ConfigError(key: "heart_rate.resting_hr", message: "the hrr zone model needs resting_hr") }
                    guard restingHR < effectiveMaxHR else { throw ConfigError(key: "heart_rate.resting_hr", message: "must be below the maximum heart rate") }
                    return .heartRateReserve(maxHR: effectiveMaxHR, restingHR: restingHR)
                case "lthr_run", "lthr_bike":
                    guard let lthr else { throw ConfigError(key: "heart_rate.lthr", message: "the \(zoneModel) zone model needs lthr") }
                    return .lactateThreshold(lthr: lthr, sport: zoneModel == "lthr_run" ? .run : .bike)
                default:
                    guard let zoneBounds, zoneBounds.count == 5, zip(zoneBounds, zoneBounds.dropFirst()).allSatisfy({ $0 < $1 }) else {
                        throw ConfigError(key: "heart_rate.zone_bounds", message: "the custom zone model needs 5 ascending bpm values (the lower bounds of Z1 to Z5)")
                    }
                    return .custom(lowerBounds: zoneBounds)
                }
            }
        }
    }

    public struct MPD: Sendable, Equatable {
        /// The player's name, recorded with every play (useful with several rooms).
        public var name = "default"
        /// `MPD_HOST` syntax: `host`, `password@host`, a socket path or `@abstract`.
        public var host = "localhost"
        public var port: UInt16?
        public var password: String?
        public var connectTimeoutSeconds = 5.0
        public var reconnectInitialSeconds = 1.0
        public var reconnectMaxSeconds = 30.0
        /// How often the play in progress is saved while playing.
        public var saveIntervalSeconds = 15.0
        /// Where this MPD's music files are, for `pacenote analyze`; when unset, MPD's
        /// `config` command is asked (it answers over a local socket only).
        public var musicDirectory: String?

        /// Where to connect: `host` parsed as MPD clients do, with `password` unless the
        /// host carries one (`secret@host`). Whichever of the two was set by the later
        /// layer (file, environment, flags) wins: setting one clears the other.
        public var endpoint: MPDEndpoint {
            get throws(ConfigError) {
                do {
                    var e = try MPDEndpoint.parse(host: host, port: port.map(String.init))
                    if e.password == nil { e.password = password }
                    return e
                } catch {
                    throw ConfigError(key: "mpd.host", message: "'\(host)' is not a host, host:port or socket path")
                }
            }
        }
    }

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

public enum ConfigLoader {
    /// Reads the file (if any), the environment and the flags into a validated `Config`.
    public static func load(flags: ConfigFlags, environment: [String: String]) throws(ConfigError) -> Config {
        let dirs = XDGDirectories(environment: environment)
        var config = Config(databasePath: dirs.dataHome + "/pacenote/pacenote.sqlite")
        for setting in settings { config.origins[setting.key] = "default" }

        // 1. The file: --config, else PACENOTE_CONFIG, else the XDG location if it exists.
        let explicit = flags.config.map { ($0, "--config") } ?? environment["PACENOTE_CONFIG"].map { ($0, "env PACENOTE_CONFIG") }
        let path = explicit?.0 ?? dirs.configHome + "/pacenote/config.toml"
        if let explicit, !FileManager.default.fileExists(atPath: explicit.0) {
            throw ConfigError(key: "config", message: "no such file: \(explicit.0)", origin: explicit.1)
        }
        if FileManager.default.fileExists(atPath: path) {
            try applyFile(path, to: &config)
        }

        // 2. The environment.
        for setting in settings {
            for name in setting.environment {
                guard let value = environment[name], !value.isEmpty else { continue }
                try setting.apply(.text(value), to: &config, origin: "env \(name)")
            }
        }

        // 3. The flags.
        let flagValues: [(String, String?, String)] = [
            ("database.path", flags.db, "--db"), ("server.http", flags.http, "--http"),
            ("server.base_path", flags.basePath, "--base-path"), ("display.timezone", flags.timeZone, "--timezone"),
            ("log.level", flags.logLevel, "--log-level"), ("server.trusted_networks", flags.trustedNetworks, "--trusted-networks"),
        ]
        for (key, value, flag) in flagValues {
            guard let value, let setting = settings.first(where: { $0.key == key }) else { continue }
            try setting.apply(.text(value), to: &config, origin: flag)
        }
        if let mpd = flags.mpd {
            // --mpd [PASSWORD@]HOST[:PORT] sets both, so an MPD_PORT in the environment
            // cannot win over it. The password may itself contain ':' or '@'.
            var password = ""
            var hostPort = Substring(mpd)
            if let at = mpd.lastIndex(of: "@"), at != mpd.startIndex {
                password = String(mpd[...at])
                hostPort = mpd[mpd.index(after: at)...]
            }
            if let split = MPDEndpoint.splitHostPort(String(hostPort)), !hostPort.hasPrefix("/"), !hostPort.hasPrefix("@") {
                try setting("mpd.host").apply(.text(password + split.host), to: &config, origin: "--mpd")
                try setting("mpd.port").apply(.text(split.port), to: &config, origin: "--mpd")
            } else {
                try setting("mpd.host").apply(.text(mpd), to: &config, origin: "--mpd")
            }
        }

        config.databasePath = dirs.expand(config.databasePath)
        config.databaseIsDefault = config.origins["database.path"] == "default"
        for player in config.players { _ = try player.endpoint }  // validates host and port together
        _ = try config.heartRate.model  // validates the zone settings together
        if let duplicate = Dictionary(grouping: config.players, by: \.name).first(where: { $0.value.count > 1 })?.key {
            throw ConfigError(key: "mpd.name", message: "'\(duplicate)' names two players; names must differ",
                              origin: config.origins["mpd.name"])
        }
        return config
    }

    private static func applyFile(_ path: String, to config: inout Config) throws(ConfigError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(key: "config", message: "cannot read \(path): \(error.localizedDescription)")
        }
        let root: TOMLTable
        do {
            root = try TOML.parse(text)
        } catch {
            throw ConfigError(key: "config", message: "\(path): \(error.description)")
        }
        config.file = path
        for section in root.keys {
            let line = root.line(of: section) ?? 0
            if section == "mpd", case .array(let items)? = root[section] {
                try applyPlayers(items, file: path, line: line, to: &config)
                continue
            }
            guard case .table(let table)? = root[section] else {
                if settings.contains(where: { $0.key == section }) { continue }
                throw ConfigError(key: section, message: "unknown key (see docs/pacenote.example.toml)", origin: "\(path):\(line)")
            }
            for key in table.keys {
                let full = "\(section).\(key)"
                let origin = "\(path):\(table.line(of: key) ?? line)"
                guard let setting = settings.first(where: { $0.key == full }) else {
                    let hint = suggestion(for: full).map { "; did you mean \($0)?" } ?? " (see docs/pacenote.example.toml)"
                    throw ConfigError(key: full, message: "unknown key\(hint)", origin: origin)
                }
                try setting.apply(.toml(table[key]!), to: &config, origin: origin)
            }
        }
    }

    /// `[[mpd]]` tables: one player each, with the `mpd.*` keys.
    private static func applyPlayers(_ items: [TOMLValue], file path: String, line: Int, to config: inout Config) throws(ConfigError) {
        var players: [Config.MPD] = []
        for (index, item) in items.enumerated() {
            guard case .table(let table) = item else {
                throw ConfigError(key: "mpd", message: "expected [[mpd]] tables", origin: "\(path):\(line)")
            }
            var scratch = config
            scratch.players = [Config.MPD()]
            scratch.mpd.name = index == 0 ? "default" : "player\(index + 1)"
            for key in table.keys {
                let full = "mpd.\(key)"
                let origin = "\(path):\(table.line(of: key) ?? line)"
                guard let setting = settings.first(where: { $0.key == full }) else {
                    let hint = suggestion(for: full).map { "; did you mean \($0)?" } ?? ""
                    throw ConfigError(key: "mpd[\(index + 1)].\(key)", message: "unknown key\(hint)", origin: origin)
                }
                do {
                    try setting.apply(.toml(table[key]!), to: &scratch, origin: origin)
                } catch var error {
                    error.key = "mpd[\(index + 1)].\(key)"
                    throw error
                }
                if index == 0 { config.origins[full] = origin }
            }
            if players.contains(where: { $0.name == scratch.mpd.name }) {
                throw ConfigError(key: "mpd[\(index + 1)].name", message: "'\(scratch.mpd.name)' names two players; names must differ",
                                  origin: "\(path):\(table.line(of: "name") ?? line)")
            }
            players.append(scratch.mpd)
        }
        guard !players.isEmpty else { throw ConfigError(key: "mpd", message: "[[mpd]] lists no player", origin: "\(path):\(line)") }
        config.players = players
    }

    /// A known key that differs by at most two edits, for "did you mean" hints.
    static func suggestion(for key: String) -> String? {
        settings.map(\.key).min { editDistance($0, key) < editDistance($1, key) }.flatMap { editDistance($0, key) <= 2 ? $0 : nil }
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }

    static func setting(_ key: String) -> Setting { settings.first { $0.key == key }! }

    // MARK: The settings

    enum Input {
        case toml(TOMLValue)
        case text(String)
    }

    /// One configuration key: its name in the file, its environment variables, how to apply it.
    struct Setting: Sendable {
        var key: String
        var environment: [String]
        var apply: @Sendable (Input, inout Config) throws(ConfigError) -> Void

        func apply(_ input: Input, to config: inout Config, origin: String) throws(ConfigError) {
            do {
                try apply(input, &config)
            } catch var error {
                error.origin = origin
                throw error
            }
            config.origins[key] = origin
        }
    }

    static let settings: [Setting] = [
        Setting(key: "server.http", environment: ["PACENOTE_HTTP"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "server.http")
            guard let address = ListenAddress(parsing: text) else {
                throw ConfigError(key: "server.http", message: "'\(text)' is not HOST:PORT (e.g. 127.0.0.1:6680, [::1]:6680)")
            }
            c.http = address
        },
        Setting(key: "server.base_path", environment: ["PACENOTE_BASE_PATH"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "server.base_path")
            guard text.isEmpty || text.hasPrefix("/"), !text.contains("?"), !text.contains("#"), !text.contains("..") else {
                throw ConfigError(key: "server.base_path", message: "'\(text)' must be empty or a path starting with '/'")
            }
            c.basePath = text
        },
        Setting(key: "server.max_body_bytes", environment: ["PACENOTE_MAX_BODY_BYTES"]) { (input, c) throws(ConfigError) in
            c.maxBodyBytes = Int(try integer(input, "server.max_body_bytes", in: 1024...(1 << 30)))
        },
        Setting(key: "server.public_url", environment: ["PACENOTE_PUBLIC_URL"]) { (input, c) throws(ConfigError) in
            var text = try string(input, "server.public_url")
            while text.hasSuffix("/") { text.removeLast() }
            guard text.isEmpty || ((text.hasPrefix("http://") || text.hasPrefix("https://")) && !text.contains(" ")
                                   && !text.contains("?") && !text.contains("#") && text.count > 8) else {
                throw ConfigError(key: "server.public_url", message: "'\(text)' must be an http:// or https:// address")
            }
            c.publicURL = text.isEmpty ? nil : text
        },
        Setting(key: "server.http_threads", environment: ["PACENOTE_HTTP_THREADS"]) { (input, c) throws(ConfigError) in
            c.httpThreads = Int(try integer(input, "server.http_threads", in: 1...64))
        },
        Setting(key: "server.max_import_bytes", environment: ["PACENOTE_MAX_IMPORT_BYTES"]) { (input, c) throws(ConfigError) in
            c.maxImportBytes = Int(try integer(input, "server.max_import_bytes", in: 1024...(1 << 30)))
        },
        Setting(key: "server.trusted_networks", environment: ["PACENOTE_TRUSTED_NETWORKS"]) { (input, c) throws(ConfigError) in
            c.trustedNetworks = try networks(input, "server.trusted_networks")
        },
        Setting(key: "server.trusted_proxies", environment: ["PACENOTE_TRUSTED_PROXIES"]) { (input, c) throws(ConfigError) in
            c.trustedProxies = try networks(input, "server.trusted_proxies")
        },
        Setting(key: "server.public_dir", environment: ["PACENOTE_PUBLIC_DIR"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "server.public_dir")
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: text, isDirectory: &isDir), isDir.boolValue else {
                throw ConfigError(key: "server.public_dir", message: "'\(text)' is not a directory")
            }
            c.publicDirectory = text
        },
        Setting(key: "database.path", environment: ["PACENOTE_DB"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "database.path")
            guard !text.isEmpty else { throw ConfigError(key: "database.path", message: "must not be empty") }
            c.databasePath = text
        },
        Setting(key: "display.timezone", environment: ["PACENOTE_TIMEZONE"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "display.timezone")
            guard let zone = TimeZone(identifier: text) else {
                throw ConfigError(key: "display.timezone", message: "'\(text)' is not an IANA time zone (e.g. Europe/Berlin, UTC)")
            }
            c.timeZone = zone
        },
        Setting(key: "log.level", environment: ["PACENOTE_LOG_LEVEL"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "log.level").lowercased()
            guard let level = Logger.Level(rawValue: text == "warn" ? "warning" : text) else {
                throw ConfigError(key: "log.level", message: "'\(text)' is not one of trace, debug, info, notice, warning, error, critical")
            }
            c.logLevel = level
        },
        Setting(key: "mpd.name", environment: ["PACENOTE_MPD_NAME"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "mpd.name")
            guard !text.isEmpty, text.count <= 64 else { throw ConfigError(key: "mpd.name", message: "must be 1 to 64 characters") }
            c.mpd.name = text
        },
        Setting(key: "mpd.host", environment: ["MPD_HOST"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "mpd.host")
            let parsed: MPDEndpoint
            do {
                parsed = try MPDEndpoint.parse(host: text)
            } catch {
                throw ConfigError(key: "mpd.host", message: "'\(text)' is not a host, password@host or socket path")
            }
            c.mpd.host = text
            // A password in the host replaces one set by an earlier layer.
            if parsed.password != nil { c.mpd.password = nil }
        },
        Setting(key: "mpd.port", environment: ["MPD_PORT"]) { (input, c) throws(ConfigError) in
            c.mpd.port = UInt16(try integer(input, "mpd.port", in: 1...65535))
        },
        Setting(key: "mpd.password", environment: ["PACENOTE_MPD_PASSWORD"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "mpd.password")
            c.mpd.password = text.isEmpty ? nil : text
            // ...and a password set later replaces one written in the host.
            if let parsed = try? MPDEndpoint.parse(host: c.mpd.host), parsed.password != nil,
               let at = c.mpd.host.lastIndex(of: "@") {
                c.mpd.host = String(c.mpd.host[c.mpd.host.index(after: at)...])
            }
        },
        Setting(key: "mpd.connect_timeout_s", environment: []) { (input, c) throws(ConfigError) in
            c.mpd.connectTimeoutSeconds = try number(input, "mpd.connect_timeout_s", in: 0.1...60)
        },
        Setting(key: "mpd.reconnect_initial_s", environment: []) { (input, c) throws(ConfigError) in
            c.mpd.reconnectInitialSeconds = try number(input, "mpd.reconnect_initial_s", in: 0.05...60)
        },
        Setting(key: "mpd.reconnect_max_s", environment: []) { (input, c) throws(ConfigError) in
            c.mpd.reconnectMaxSeconds = try number(input, "mpd.reconnect_max_s", in: 0.05...3600)
        },
        Setting(key: "mpd.save_interval_s", environment: []) { (input, c) throws(ConfigError) in
            c.mpd.saveIntervalSeconds = try number(input, "mpd.save_interval_s", in: 0.1...15)
        },
        Setting(key: "mpd.music_directory", environment: ["PACENOTE_MUSIC_DIRECTORY"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "mpd.music_directory")
            c.mpd.musicDirectory = text.isEmpty ? nil : text
        },
        Setting(key: "heart_rate.zone_model", environment: ["PACENOTE_ZONE_MODEL"]) { (input, c) throws(ConfigError) in
            let text = try string(input, "heart_rate.zone_model")
            let models = ["percent_max", "hrr", "lthr_run", "lthr_bike", "custom"]
            guard models.contains(text) else {
                throw ConfigError(key: "heart_rate.zone_model", message: "'\(text)' is not one of \(models.joined(separator: ", "))")
            }
            c.heartRate.zoneModel = text
        },
        Setting(key: "heart_rate.max_hr", environment: ["PACENOTE_MAX_HR"]) { (input, c) throws(ConfigError) in
            c.heartRate.maxHR = Int(try integer(input, "heart_rate.max_hr", in: 100...250))
        },
        Setting(key: "heart_rate.age", environment: []) { (input, c) throws(ConfigError) in
            c.heartRate.age = Int(try integer(input, "heart_rate.age", in: 5...110))
        },
        Setting(key: "heart_rate.resting_hr", environment: []) { (input, c) throws(ConfigError) in
            c.heartRate.restingHR = Int(try integer(input, "heart_rate.resting_hr", in: 25...120))
        },
        Setting(key: "heart_rate.lthr", environment: []) { (input, c) throws(ConfigError) in
            c.heartRate.lthr = Int(try integer(input, "heart_rate.lthr", in: 80...230))
        },
        Setting(key: "heart_rate.zone_bounds", environment: []) { (input, c) throws(ConfigError) in
            let items: [Int64]
            switch input {
            case .toml(.array(let values)):
                items = try values.map { (v: TOMLValue) throws(ConfigError) -> Int64 in
                    guard case .integer(let i) = v else { throw ConfigError(key: "heart_rate.zone_bounds", message: "expected integers") }
                    return i
                }
            case .text(let text):
                items = try text.split(separator: ",").map { (part: Substring) throws(ConfigError) -> Int64 in
                    guard let i = Int64(part.trimmingCharacters(in: .whitespaces)) else {
                        throw ConfigError(key: "heart_rate.zone_bounds", message: "expected integers")
                    }
                    return i
                }
            case .toml(let other):
                throw ConfigError(key: "heart_rate.zone_bounds", message: "expected an array of 5 integers, got \(other.kindDescription)")
            }
            guard items.allSatisfy({ (25...250).contains($0) }) else {
                throw ConfigError(key: "heart_rate.zone_bounds", message: "values must be 25–250 bpm")
            }
            c.heartRate.zoneBounds = items.map { Int($0) }
        },
        Setting(key: "heart_rate.workout_start_after_s", environment: []) { (input, c) throws(ConfigError) in
            c.heartRate.workoutStartAfterSeconds = try number(input, "heart_rate.workout_start_after_s", in: 1...3600)
        },
        Setting(key: "heart_rate.workout_end_after_s", environment: []) { (input, c) throws(ConfigError) in
            c.heartRate.workoutEndAfterSeconds = try number(input, "heart_rate.workout_end_after_s", in: 1...86400)
        },
        Setting(key: "heart_rate.fresh_for_s", environment: []) { (input, c) throws(ConfigError) in
            c.heartRate.freshForSeconds = try number(input, "heart_rate.fresh_for_s", in: 1...3600)
        },
        Setting(key: "recommender.tempo_z0", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.tempo.windows[.z0] = try tempoWindow(input, "recommender.tempo_z0")
        },
        Setting(key: "recommender.tempo_z1", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.tempo.windows[.z1] = try tempoWindow(input, "recommender.tempo_z1")
        },
        Setting(key: "recommender.tempo_z2", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.tempo.windows[.z2] = try tempoWindow(input, "recommender.tempo_z2")
        },
        Setting(key: "recommender.tempo_z3", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.tempo.windows[.z3] = try tempoWindow(input, "recommender.tempo_z3")
        },
        Setting(key: "recommender.tempo_z4", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.tempo.windows[.z4] = try tempoWindow(input, "recommender.tempo_z4")
        },
        Setting(key: "recommender.tempo_z5", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.tempo.windows[.z5] = try tempoWindow(input, "recommender.tempo_z5")
        },
        Setting(key: "recommender.recent_hours", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.recentHours = try number(input, "recommender.recent_hours", in: 0...720)
        },
        Setting(key: "recommender.auto_queue", environment: ["PACENOTE_AUTO_QUEUE"]) { (input, c) throws(ConfigError) in
            switch input {
            case .toml(.boolean(let b)): c.recommender.autoQueue = b
            case .text(let t) where ["true", "1", "yes", "on"].contains(t.lowercased()): c.recommender.autoQueue = true
            case .text(let t) where ["false", "0", "no", "off"].contains(t.lowercased()): c.recommender.autoQueue = false
            default: throw ConfigError(key: "recommender.auto_queue", message: "expected true or false")
            }
        },
        Setting(key: "recommender.cadence", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.cadence = try number(input, "recommender.cadence", in: 60...240)
        },
        Setting(key: "recommender.exploration", environment: []) { (input, c) throws(ConfigError) in
            c.recommender.exploration = try number(input, "recommender.exploration", in: 0...0.5)
        },
        Setting(key: "plays.min_track_s", environment: []) { (input, c) throws(ConfigError) in
            c.playRule.minimumDuration = try number(input, "plays.min_track_s", in: 0...3600)
        },
        Setting(key: "plays.min_fraction", environment: []) { (input, c) throws(ConfigError) in
            c.playRule.fraction = try number(input, "plays.min_fraction", in: 0.01...1)
        },
        Setting(key: "plays.always_count_after_s", environment: []) { (input, c) throws(ConfigError) in
            c.playRule.sufficientSeconds = try number(input, "plays.always_count_after_s", in: 1...86400)
        },
        Setting(key: "plays.stream_count_after_s", environment: []) { (input, c) throws(ConfigError) in
            c.playRule.streamSeconds = try number(input, "plays.stream_count_after_s", in: 1...86400)
        },
    ]

    /// CIDR networks: a TOML array of strings, or comma-separated text; `none` for none.
    private static func networks(_ input: Input, _ key: String) throws(ConfigError) -> [IPNetwork] {
        var items: [String]
        switch input {
        case .text(let text): items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        case .toml(.string(let text)): items = [text]
        case .toml(.array(let values)):
            items = try values.map { (v: TOMLValue) throws(ConfigError) -> String in
                guard case .string(let s) = v else { throw ConfigError(key: key, message: "expected strings such as \"192.168.0.0/16\"") }
                return s
            }
        case .toml(let other): throw ConfigError(key: key, message: "expected an array of networks, got \(other.kindDescription)")
        }
        items = items.filter { !$0.isEmpty }
        if items == ["none"] { return [] }
        return try items.map { (item: String) throws(ConfigError) -> IPNetwork in
            guard let network = IPNetwork(item) else {
                throw ConfigError(key: key, message: "'\(item)' is not a network (e.g. 192.168.0.0/16, fd00::/8, 127.0.0.1) or none")
            }
            return network
        }
    }

    /// A tempo window: `[low, high]` in bpm, or "low-high" as text.
    private static func tempoWindow(_ input: Input, _ key: String) throws(ConfigError) -> ClosedRange<Double> {
        var values: [Double] = []
        switch input {
        case .toml(.array(let items)):
            for item in items {
                switch item {
                case .integer(let i): values.append(Double(i))
                case .float(let f): values.append(f)
                default: throw ConfigError(key: key, message: "expected [low, high] in bpm")
                }
            }
        case .text(let text), .toml(.string(let text)):
            values = text.split(whereSeparator: { $0 == "-" || $0 == "," }).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        case .toml(let other): throw ConfigError(key: key, message: "expected [low, high], got \(other.kindDescription)")
        }
        guard values.count == 2, values[0] >= 30, values[1] <= 300, values[0] < values[1] else {
            throw ConfigError(key: key, message: "expected [low, high] with 30 ≤ low < high ≤ 300 bpm")
        }
        return values[0]...values[1]
    }

    private static func string(_ input: Input, _ key: String) throws(ConfigError) -> String {
        switch input {
        case .text(let s): return s
        case .toml(.string(let s)): return s
        case .toml(let other): throw ConfigError(key: key, message: "expected a string, got \(other.kindDescription)")
        }
    }

    private static func integer(_ input: Input, _ key: String, in range: ClosedRange<Int64>) throws(ConfigError) -> Int64 {
        let value: Int64?
        switch input {
        case .text(let s): value = Int64(s.trimmingCharacters(in: .whitespaces))
        case .toml(.integer(let i)): value = i
        case .toml(let other): throw ConfigError(key: key, message: "expected an integer, got \(other.kindDescription)")
        }
        guard let value, range.contains(value) else {
            throw ConfigError(key: key, message: "expected an integer from \(range.lowerBound) to \(range.upperBound), got \(describe(input))")
        }
        return value
    }

    private static func number(_ input: Input, _ key: String, in range: ClosedRange<Double>) throws(ConfigError) -> Double {
        let value: Double?
        switch input {
        case .text(let s): value = Double(s.trimmingCharacters(in: .whitespaces))
        case .toml(.integer(let i)): value = Double(i)
        case .toml(.float(let f)): value = f
        case .toml(let other): throw ConfigError(key: key, message: "expected a number, got \(other.kindDescription)")
        }
        guard let value, range.contains(value) else {
            throw ConfigError(key: key, message: "expected a number from \(range.lowerBound) to \(range.upperBound), got \(describe(input))")
        }
        return value
    }

    private static func describe(_ input: Input) -> String {
        switch input {
        case .text(let s): "\"\(s)\""
        case .toml(.integer(let i)): String(i)
        case .toml(.float(let f)): String(f)
        case .toml(.string(let s)): "\"\(s)\""
        case .toml(let other): other.kindDescription
        }
    }
}

/// The XDG base directories (https://specifications.freedesktop.org/basedir-spec/latest/).
struct XDGDirectories {
    let home: String
    let dataHome: String
    let configHome: String

    init(environment: [String: String]) {
        home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        // Relative XDG paths are invalid per the spec and must be ignored.
        func absolute(_ name: String) -> String? {
            environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
        dataHome = absolute("XDG_DATA_HOME") ?? home + "/.local/share"
        configHome = absolute("XDG_CONFIG_HOME") ?? home + "/.config"
    }

    /// Expands a leading `~/`.
    func expand(_ path: String) -> String {
        path == "~" ? home : path.hasPrefix("~/") ? home + path.dropFirst() : path
    }
}
