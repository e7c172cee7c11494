import Foundation
import Logging
import PacenoteCore
import PacenoteWeb

// `[server]`, `[database]`, `[display]` and `[log]`: keys of `Config` itself.
extension ConfigSchema {
    static let server = ConfigSection<Config>(name: "server", doc: "", keys: [
        ConfigKey("http", \.http, Codec.parsed { (text) throws(ConfigProblem) in
            guard let address = ListenAddress(parsing: text) else {
                throw ConfigProblem("'\(text)' is not HOST:PORT (e.g. 127.0.0.1:6680, [::1]:6680)")
            }
            return address
        }, env: ["PACENOTE_HTTP"], flag: ConfigFlag("--http", "HOST:PORT", \.http), doc: """
            Address and port of the web dashboard and API. Use "0.0.0.0:6680" to listen on every
            IPv4 interface, "[::]:6680" for IPv6. Port 0 picks a free port (it is logged on start).
            """),
        ConfigKey("base_path", \.basePath, Codec.string { (text) throws(ConfigProblem) in
            guard text.isEmpty || text.hasPrefix("/"), !text.contains("?"), !text.contains("#"), !text.contains("..") else {
                throw ConfigProblem("'\(text)' must be empty or a path starting with '/'")
            }
            return text
        }, env: ["PACENOTE_BASE_PATH"], flag: ConfigFlag("--base-path", "PATH", \.basePath), doc: """
            URL prefix when Pacenote is served behind a reverse proxy under a sub-path, e.g.
            "/pacenote" for https://home.example/pacenote/. Empty serves at the root.
            """),
        ConfigKey("max_body_bytes", \.maxBodyBytes, Codec.integer(1024...(1 << 30)), env: ["PACENOTE_MAX_BODY_BYTES"], doc: """
            Largest request body accepted, in bytes (1024 to 1073741824). Larger requests get
            413 Payload Too Large with a JSON error.
            """),
        ConfigKey("public_url", \.publicURL, ConfigCodec(read: { (input) throws(ConfigProblem) -> String? in
            var text = try Codec.text(input)
            while text.hasSuffix("/") { text.removeLast() }
            guard text.isEmpty || ((text.hasPrefix("http://") || text.hasPrefix("https://")) && !text.contains(" ")
                                   && !text.contains("?") && !text.contains("#") && text.count > 8) else {
                throw ConfigProblem("'\(text)' must be an http:// or https:// address")
            }
            return text.isEmpty ? nil : text
        }, show: { Codec.quote($0 ?? "") }), env: ["PACENOTE_PUBLIC_URL"], doc: """
            The address friends reach the site at, for the song-of-the-day share links and their
            preview cards (og:url, og:image), e.g. "https://music.example.org/pacenote". Empty: the
            address the browser used (its Host header). Once it is set, trusted_networks defaults
            to none (see there).
            """),
        ConfigKey("http_threads", \.httpThreads, Codec.integer(1...64), env: ["PACENOTE_HTTP_THREADS"], doc: """
            Worker threads of the HTTP server, each running its own epoll loop (1 to 64). Event
            streams do not hold a thread (they are suspended between events), so a few threads
            serve hundreds of dashboards; four kept a slow chart from stalling other requests on
            a 2-core box (scripts/bench/api --threads 1,2,4,8 compares them in one run). The
            server starts at least 4, so that none holds more than 125 of its 500 connections:
            libmicrohttpd 0.9.75 stalls a worker that has 128 of them ready at once.
            """),
        ConfigKey("max_import_bytes", \.maxImportBytes, Codec.integer(1024...(1 << 30)), env: ["PACENOTE_MAX_IMPORT_BYTES"], doc: """
            Largest export file POST /api/v1/import takes, in bytes (1024 to 1073741824). The file
            is written as it arrives to a private file in the "tmp" folder beside the database
            (mode 0700), imported from there and removed; one import runs at a time.
            """),
        ConfigKey("max_body_memory_bytes", \.maxBodyMemoryBytes, Codec.integer((1 << 20)...(1 << 32)), doc: """
            Memory all request bodies being received may take together, in bytes (at least the
            largest single body: max_body_bytes, or 16 MiB for ListenBrainz batches). A request
            that would pass it gets 503 with Retry-After. Uploads to /api/v1/import go to disk.
            """),
        ConfigKey("max_connections_per_client", \.maxConnectionsPerClient, Codec.integer(1...512), doc: """
            Open connections one IP address may have (1 to 512); more are closed as they arrive.
            Trusted proxies are exempt (they carry many clients). Browsers open six at most.
            """),
        ConfigKey("header_timeout_s", \.headerTimeoutSeconds, Codec.number(1...300), doc: """
            Seconds a request's headers may take to arrive (1 to 300), the first on a connection
            or the next on a kept-alive one; a connection that takes longer is closed (against
            clients that hold connections open by sending headers slowly).
            """),
        ConfigKey("max_uploads_per_client", \.maxUploadsPerClient, Codec.integer(1...64), doc: """
            Requests with a body one IP address may be sending at once (1 to 64); more get 429
            with Retry-After before their body is read.
            """),
        ConfigKey("keyless_body_timeout_s", \.keylessBodyTimeoutSeconds, Codec.number(1...120), doc: """
            Seconds a request body sent before any key is checked may take in all (1 to 120): the
            login form and the Audioscrobbler protocols, whose credentials are inside the body.
            Such bodies are at most 16 KiB (64 KiB for scrobble batches), are never invited with
            "100 Continue", and share 2 MiB of memory apart from what clients with a key use.
            """),
        ConfigKey("min_body_bytes_per_s", \.minBodyBytesPerSecond, Codec.integer(0...(1 << 30)), doc: """
            Every request body must arrive at this many bytes a second on average, counted from
            10 s after its headers (0 turns the check off); a slower one has its connection closed,
            so that a client trickling bytes cannot hold memory and upload slots for ever.
            """),
        ConfigKey("max_event_streams", \.maxEventStreams, Codec.integer(1...400), doc: """
            Live event streams (GET /api/v1/events, one per open dashboard) open at once (1 to
            400, below the 500 connections the server takes); more get 503 with Retry-After.
            """),
        ConfigKey("max_event_streams_per_client", \.maxEventStreamsPerClient, Codec.integer(1...400), doc: """
            Live event streams one client may have open (1 to 400); more get 429 with Retry-After.
            """),
        ConfigKey("event_stream_max_s", \.eventStreamMaxSeconds, Codec.number(1...86400), doc: """
            Seconds after which a live event stream is ended (1 to 86400); the page opens it again
            and misses no event (Last-Event-ID).
            """),
        ConfigKey("trusted_networks", \.trustedNetworks, Codec.networks, env: ["PACENOTE_TRUSTED_NETWORKS"],
                  flag: ConfigFlag("--trusted-networks", "NETWORKS", \.trustedNetworks), example: #"["192.168.1.0/24"]"#, doc: """
            Listening history, heart rate and workouts are private. Clients in these networks read
            them without the API key; from anywhere else the key is needed (writes always need it).
            Default: loopback and the private ranges; none once public_url is set, because a
            forwarder on this machine that adds no X-Forwarded-For (a bare proxy_pass, ssh -L,
            socat, Docker's userland proxy) makes every visitor look local (docs/SECURITY.md).
            "none" trusts no network. In the environment and the flag, networks are separated by
            commas.
            """),
        ConfigKey("trusted_proxies", \.trustedProxies, Codec.networks, env: ["PACENOTE_TRUSTED_PROXIES"], doc: """
            Reverse proxies whose X-Forwarded-For header tells the real client (and whose
            X-Forwarded-Proto says whether it came over https). A request with forwarding headers
            from any other address gets no trusted-network privileges, and a warning is logged
            once. See docs/SECURITY.md for a tested nginx set-up.
            """),
        ConfigKey("cors_origins", \.corsOrigins, Codec.origins, env: ["PACENOTE_CORS_ORIGINS"],
                  example: #"["https://example.org", "http://localhost:8080"]"#, doc: """
            Pages on other sites whose scripts may call Pacenote from the browser (CORS): a list of
            exact origins, scheme, host and port, e.g. a personal website that shows what plays, or
            a browser extension's page ("moz-extension://UUID", "chrome-extension://ID"). Only the routes a key opens answer them (ListenBrainz,
            Audioscrobbler 2.0, the /api/v1 reads, heart rate, likes), and only with the key the
            page sends: such a request gets no trusted-network or session privileges, and no
            cookies are allowed (no Access-Control-Allow-Credentials). The site's forms, the login,
            sessions and admin writes never answer another origin. "*" is refused (any page could
            read what a browser in a trusted network may), as is "null". Default: none. In the
            environment, origins are separated by commas. docs/API.md#cross-origin-requests.
            """),
        ConfigKey("session_idle_days", \.sessionIdleDays, Codec.integer(1...30), env: ["PACENOTE_SESSION_IDLE_DAYS"], doc: """
            A browser logged in with the admin key stays logged in until it has made no request
            for this many days (1 to 30), and at most 30 days in all.
            """),
        ConfigKey("public_dir", \.publicDirectory, Codec.optionalString { (text) throws(ConfigProblem) in
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ConfigProblem("'\(text)' is not a directory")
            }
            return text
        }, env: ["PACENOTE_PUBLIC_DIR"], example: #""/etc/pacenote/site""#, doc: """
            A folder whose files replace the site's own (CSS, JS, icons), for a restyled site;
            files it does not have still come from the binary. Default: none (Public/ is built
            into the binary).
            """),
    ])

    static let database = ConfigSection<Config>(name: "database", doc: "", keys: [
        ConfigKey("path", \.databasePath, Codec.string { (text) throws(ConfigProblem) in
            guard !text.isEmpty else { throw ConfigProblem("must not be empty") }
            return text
        }, env: ["PACENOTE_DB"], flag: ConfigFlag("--db", "PATH", \.db), example: #""~/.local/share/pacenote/pacenote.sqlite""#, doc: """
            The SQLite database file. Its directory must exist, except for the default location,
            which is created with mode 0700 (heart rate is health data). Every other file of the
            instance (the API key, covers, the hr-feed buffer) lives beside it.
            Default: $XDG_DATA_HOME/pacenote/pacenote.sqlite (~/.local/share/pacenote/pacenote.sqlite).
            "~/" is expanded.
            """),
        ConfigKey("synced_acknowledgements", \.syncedAcknowledgements, Codec.boolean, doc: """
            Answer a change (a submitted listen or scrobble, heart rate, a like, a correction) only
            once it is on disk, so that a power cut cannot lose what a client was told is stored.
            Changes that arrive together share one sync (group commit), so it costs little even
            on slow storage. false answers as soon as SQLite has the change: a crash of Pacenote
            still loses nothing, a power cut may lose the last seconds. Default: true.
            """),
    ])

    static let display = ConfigSection<Config>(name: "display", doc: "", keys: [
        ConfigKey("timezone", get: { $0.timeZone.identifier }, set: { $0.timeZone = TimeZone(identifier: $1)! },
                  Codec.string { (text) throws(ConfigProblem) in
            guard TimeZone(identifier: text) != nil else {
                throw ConfigProblem("'\(text)' is not an IANA time zone (e.g. Europe/Berlin, UTC)")
            }
            return text
        }, env: ["PACENOTE_TIMEZONE"], flag: ConfigFlag("--timezone", "ZONE", \.timeZone), example: #""Europe/Berlin""#, doc: """
            IANA time zone in which days begin and end: song of the day, daily charts, the
            listening clock. Timestamps are always stored in UTC; changing this re-groups past
            plays by the new local days on the next start. Default: the system's time zone.
            """),
    ])

    static let log = ConfigSection<Config>(name: "log", doc: "", keys: [
        ConfigKey("level", get: { $0.logLevel.rawValue }, set: { $0.logLevel = Logger.Level(rawValue: $1)! },
                  Codec.string { (text) throws(ConfigProblem) in
            let text = text.lowercased()
            guard let level = Logger.Level(rawValue: text == "warn" ? "warning" : text) else {
                throw ConfigProblem("'\(text)' is not one of trace, debug, info, notice, warning, error, critical")
            }
            return level.rawValue
        }, env: ["PACENOTE_LOG_LEVEL"], flag: ConfigFlag("--log-level", "LEVEL", \.logLevel), doc: """
            How much to log to stderr: trace, debug, info, notice, warning, error or critical.
            """),
    ])
}
