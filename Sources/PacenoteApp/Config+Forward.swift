import PacenoteCore
import PacenoteStore

// `[[forward]]`: where plays go on to (none by default). At each start `serve` makes the
// database's targets these (`Store.syncForwardTargets`); every counted play stored from then
// on enters each target's outbox in the same transaction, and `ForwardService` sends it.
extension Config {
    public struct Forward: Sendable, Equatable {
        public var name = ""
        public var kind: Forwarding.Kind = .listenbrainz
        /// The service's address; empty: the kind's default (ListenBrainz, Last.fm).
        public var url = ""
        /// ListenBrainz: the user token (ListenBrainz's settings page, Maloja's API key, a
        /// Pacenote key with the submit scope).
        public var token: String?
        /// Last.fm: the API account's key and secret; the session comes from `forward login`.
        public var apiKey: String?
        public var apiSecret: String?
        public var sources: [String]?
        public var players: [String]?
        /// Whether the song playing now is sent too (never queued).
        public var nowPlaying = true
        /// Plays a request carries when there is a backlog; nil: the kind's default.
        public var batchSize: Int?

        public var effectiveBatchSize: Int { batchSize ?? kind.defaultBatchSize }

        public var effectiveURL: String { url.isEmpty ? kind.defaultURL : url }

        public var spec: ForwardTargetSpec {
            ForwardTargetSpec(name: name, kind: kind, url: effectiveURL, sources: sources, players: players)
        }

        var invalidity: (key: String, message: String)? {
            switch kind {
            case .listenbrainz where token == nil:
                return ("token", "a listenbrainz target needs the user token of the service")
            case _ where (batchSize ?? 1) > kind.maxBatchSize:
                return ("batch_size", "\(kind.rawValue) takes at most \(kind.maxBatchSize) plays a request")
            case .lastfm where apiKey == nil || apiSecret == nil:
                return (apiKey == nil ? "api_key" : "api_secret",
                        "a lastfm target needs api_key and api_secret (https://www.last.fm/api/account/create)")
            default:
                return nil
            }
        }
    }
}

extension Codec {
    /// Words: a TOML array of strings, or comma-separated text.
    static let words = ConfigCodec<[String]?>(read: { (input) throws(ConfigProblem) -> [String]? in
        let items: [String]
        switch input {
        case .toml(.array(let values)):
            items = try values.map { (v: TOMLValue) throws(ConfigProblem) -> String in
                guard case .string(let s) = v else { throw ConfigProblem("expected strings") }
                return s
            }
        case .text(let text):
            items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        case .toml(let other):
            throw ConfigProblem("expected a list of strings, got \(other.kindDescription)")
        }
        guard !items.isEmpty, items.allSatisfy({ !$0.isEmpty && !$0.contains("\u{1F}") }) else {
            throw ConfigProblem("expected a list of non-empty strings")
        }
        return items
    }, show: { $0.map { "[" + $0.map(quote).joined(separator: ", ") + "]" } })
}

extension ConfigSchema {
    static let forward = ConfigSection<Config.Forward>(name: "forward", doc: """
        Where plays go on to, none by default: one [[forward]] table per target. Each counted
        play (never a skip, never heart rate) enters a durable outbox in the transaction that
        stores it, and is sent once, in order, in batches when there is a backlog; a target
        that is down or limits requests is retried with growing delays, and a play it refuses
        is parked with the reason (`pacenote forward status`, `pacenote forward retry`). A new
        target takes plays from its first start on; `pacenote forward backfill NAME --from DATE`
        sends the past. For example:

          [[forward]]
          name = "listenbrainz"
          kind = "listenbrainz"
          token = "your ListenBrainz user token"

          [[forward]]
          name = "lastfm"
          kind = "lastfm"
          api_key = "…"
          api_secret = "…"
          # then, once: pacenote forward login lastfm

          [[forward]]
          name = "maloja"
          kind = "listenbrainz"
          url = "http://maloja.lan:42010/apis/listenbrainz"
          token = "a Maloja API key"
          batch_size = 1
          sources = ["mpd"]
        """, keys: [
        ConfigKey("name", \.name, Codec.string { (text) throws(ConfigProblem) in
            guard !text.isEmpty, text.count <= 64, !text.contains("/") else {
                throw ConfigProblem("must be 1 to 64 characters, without '/'")
            }
            return text
        }, example: #""listenbrainz""#, doc: "A name for the target, used by `pacenote forward` and in the status."),
        ConfigKey("kind", \.kind, word(Forwarding.Kind.self), doc: """
            listenbrainz: ListenBrainz's submit-listens API (ListenBrainz, Maloja, Koito, another
            Pacenote). lastfm: the Audioscrobbler 2.0 API (Last.fm, Libre.fm, Maloja).
            """),
        ConfigKey("url", \.url, Codec.string { (text) throws(ConfigProblem) in
            guard text.isEmpty || text.hasPrefix("http://") || text.hasPrefix("https://") else {
                throw ConfigProblem("expected an http:// or https:// address")
            }
            return text
        }, secret: .url, example: #""""#, inEffect: { $0.effectiveURL }, doc: """
            The service's address. Unset: https://api.listenbrainz.org for listenbrainz,
            https://ws.audioscrobbler.com/2.0/ for lastfm. A ListenBrainz-compatible server is
            given by its API root (the part before /1/submit-listens): Maloja's is
            http://HOST:42010/apis/listenbrainz, another Pacenote's http://HOST:6680.
            Libre.fm's Audioscrobbler 2.0 is https://libre.fm/2.0/, Maloja's
            http://HOST:42010/apis/audioscrobbler/2.0/ (its login's password is a Maloja API key).
            """),
        ConfigKey("token", \.token, Codec.optionalString(), secret: .whole, example: #""""#, doc: """
            listenbrainz: the user token (ListenBrainz: your settings page; Maloja: an API key;
            Pacenote: a key with the submit scope).
            """),
        ConfigKey("api_key", \.apiKey, Codec.optionalString(), example: #""""#, doc: """
            lastfm: your API account's key (https://www.last.fm/api/account/create).
            """),
        ConfigKey("api_secret", \.apiSecret, Codec.optionalString(), secret: .whole, example: #""""#, doc: """
            lastfm: the API account's shared secret. The user's session comes from
            `pacenote forward login NAME`, which asks for the password once and never stores it.
            """),
        ConfigKey("sources", \.sources, Codec.words, example: #"["mpd"]"#, doc: """
            Only plays from these sources: mpd, listenbrainz, audioscrobbler, mpdscribble,
            manual (added on the site). Unset: all of them. Imports are never forwarded; backfill
            sends the past.
            """),
        ConfigKey("players", \.players, Codec.words, example: #"["living-room"]"#, doc: """
            Only plays from these players (the [[mpd]] names, or the names scrobblers give).
            Unset: every player.
            """),
        ConfigKey("batch_size", \.batchSize, Codec.integer(1...1000).optional, example: "1",
                  inEffect: { String($0.effectiveBatchSize) }, doc: """
            Plays a request carries when a backlog is sent: for listenbrainz 500 by default, at
            most 1000; for lastfm 50, the most it takes. Maloja needs 1: it answers a ListenBrainz
            batch holding a play it already has as if it took all, keeping none after that one,
            and its Audioscrobbler 2.0 API takes no batches.
            """),
        ConfigKey("now_playing", \.nowPlaying, Codec.boolean, doc: """
            Whether the song playing now is sent too (live, never queued).
            """),
    ])

    static let forwardList = ConfigList<Config.Forward>(
        element: { _ in Config.Forward() },
        noun: "forward targets",
        unique: (key: "name", of: { $0.name }),
        required: ["name", "kind"],
        problem: { $0.invalidity })
}
