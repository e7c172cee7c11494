import PacenoteCore

extension Config {
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

        public init() {}

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
                    throw ConfigError(key: "mpd.host", message: "'\(ConfigSecret.beforeAt.mask(host))' is not a host, host:port or socket path")
                }
            }
        }
    }
}

extension Config.MPD: CustomStringConvertible {
    /// Without the password, wherever a player is logged or interpolated.
    public var description: String {
        "MPD(name: \(name), host: \(ConfigSecret.beforeAt.mask(host)), port: \(port.map(String.init) ?? "default")"
            + (password == nil ? ")" : ", password: ***)")
    }
}

// `[mpd]`, or one `[[mpd]]` table per player.
extension ConfigSchema {
    static let mpd = ConfigSection<Config.MPD>(name: "mpd", doc: """
        The MPD to follow. For several players (rooms), write one [[mpd]] table per player
        instead of [mpd], each with the keys below and a distinct name; the first is the
        default player, the one MPD_HOST, MPD_PORT and --mpd apply to:

          [[mpd]]
          name = "living-room"
          host = "/run/mpd/socket"
          [[mpd]]
          name = "studio"
          host = "studio.lan"
        """, keys: [
        ConfigKey("name", \.name, Codec.string { (text) throws(ConfigProblem) in
            guard !text.isEmpty, text.count <= 64 else { throw ConfigProblem("must be 1 to 64 characters") }
            return text
        }, env: ["PACENOTE_MPD_NAME"], doc: "A name for this player (room). Every play records it."),
        ConfigKey("host", \.host, Codec.string { (text) throws(ConfigProblem) in
            guard (try? MPDEndpoint.parse(host: text)) != nil else {
                throw ConfigProblem("'\(text)' is not a host, password@host or socket path")
            }
            return text
        }, env: ["MPD_HOST"], flag: ConfigFlag("--mpd", "HOST[:PORT]", \.mpd, expand: splitMPDFlag), secret: .beforeAt,
           then: { mpd in
            // A password in the host replaces one set by an earlier layer.
            if (try? MPDEndpoint.parse(host: mpd.host))?.password != nil { mpd.password = nil }
        }, doc: """
            Where MPD is, as MPD clients (mpc, ncmpcpp) read MPD_HOST: a host name or address,
            "password@host", a Unix socket path ("/run/mpd/socket", "~/.mpd/socket") or an
            abstract socket ("@mpd").
            """),
        ConfigKey("port", \.port, ConfigCodec(read: { (input) throws(ConfigProblem) -> UInt16 in
            UInt16(try Codec.integer(input, in: 1...65535))
        }, show: { String($0) }).optional, env: ["MPD_PORT"], inEffect: { _ in "6600" },
           doc: "MPD's TCP port (ignored for sockets)."),
        ConfigKey("password", \.password, Codec.optionalString(), env: ["PACENOTE_MPD_PASSWORD"], secret: .whole, example: #""""#,
                  then: { mpd in
            // ...and a password set later replaces one written in the host.
            if mpd.password != nil, (try? MPDEndpoint.parse(host: mpd.host))?.password != nil, let at = mpd.host.lastIndex(of: "@") {
                mpd.host = String(mpd.host[mpd.host.index(after: at)...])
            }
        }, doc: """
            MPD's password, if its mpd.conf sets one. A password written in host
            ("secret@host") takes precedence.
            """),
        ConfigKey("connect_timeout_s", \.connectTimeoutSeconds, Codec.number(0.1...60),
                  doc: "Seconds to wait for MPD to answer when connecting."),
        ConfigKey("reconnect_initial_s", \.reconnectInitialSeconds, Codec.number(0.05...60), doc: """
            When MPD is unreachable or the connection drops, Pacenote retries after
            reconnect_initial_s seconds, doubling the wait after each failure up to reconnect_max_s.
            """),
        ConfigKey("reconnect_max_s", \.reconnectMaxSeconds, Codec.number(0.05...3600), doc: ""),
        ConfigKey("save_interval_s", \.saveIntervalSeconds, Codec.number(0.1...15), doc: """
            While something plays, the play in progress is saved this often (seconds, at most 15),
            besides on every change, so that a crash or a reboot loses at most this much.
            """),
        ConfigKey("music_directory", \.musicDirectory, Codec.optionalString(), env: ["PACENOTE_MUSIC_DIRECTORY"],
                  example: #""/srv/music""#, doc: """
            Where this MPD's music files are (as in mpd.conf), for `pacenote analyze`, which reads
            the audio to detect tempos. Unset, Pacenote asks MPD's `config` command, which MPD
            answers only over its local Unix socket (host = "/run/mpd/socket").
            """),
    ], validate: { (player) throws(ConfigError) in _ = try player.endpoint })  // host and port together

    static let players = ConfigList<Config.MPD>(
        element: { index in
            var player = Config.MPD()
            player.name = index == 0 ? "default" : "player\(index + 1)"
            return player
        },
        noun: "players",
        unique: (key: "name", of: { $0.name }))

    /// `--mpd [PASSWORD@]HOST[:PORT]` sets both host and port, so an MPD_PORT in the
    /// environment cannot win over it. The password may itself contain ':' or '@'.
    @Sendable static func splitMPDFlag(_ mpd: String) -> [(key: String, text: String)] {
        var password = ""
        var hostPort = Substring(mpd)
        if let at = mpd.lastIndex(of: "@"), at != mpd.startIndex {
            password = String(mpd[...at])
            hostPort = mpd[mpd.index(after: at)...]
        }
        if let split = MPDEndpoint.splitHostPort(String(hostPort)), !hostPort.hasPrefix("/"), !hostPort.hasPrefix("@") {
            return [("host", password + split.host), ("port", split.port)]
        }
        return [("host", mpd)]
    }
}
