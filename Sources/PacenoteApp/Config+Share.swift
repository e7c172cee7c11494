import PacenoteCore

extension Config {
    /// `[share]`: what the owner shows the world from Pacenote, beyond the song of the day.
    public struct Share: Sendable, Equatable {
        /// The now-playing card (`/now`, `/now.svg`, `/now.json`); off by default.
        public var now = false
        /// What the card shows.
        public var nowFields: [NowCard.Field] = NowCard.defaultFields

        public init() {}
    }
}

extension ConfigSchema {
    static let share = ConfigSection<Config.Share>(name: "share", doc: "", keys: [
        ConfigKey("now", \.now, Codec.boolean, env: ["PACENOTE_SHARE_NOW"], doc: """
            The now-playing card for your website: /now (a small page to embed in an iframe; any
            site may frame it), /now.svg (a badge) and /now.json (for a page's script; readable
            from the pages in server.cors_origins). Public, with only the fields of now_fields, and
            blank while nothing plays or a private session is on. Off by default: all three answer
            404. docs/API.md#now-playing-card.
            """),
        ConfigKey("now_fields", \.nowFields, Codec.nowFields, env: ["PACENOTE_SHARE_NOW_FIELDS"], doc: """
            What the card shows, of: "song", "artist", "album", "cover", "workout". "workout" adds
            the live workout and heart-rate zone ("running · Z4"): heart rate is health data, so
            it is shown only when listed here. Default: ["song", "artist"]. In the environment,
            fields are separated by commas.
            """),
    ])
}

extension Codec {
    /// The card's fields: a TOML array of strings, or comma-separated text.
    static let nowFields = ConfigCodec<[NowCard.Field]>(read: { (input) throws(ConfigProblem) in
        let items = try listItems(input, of: "fields", example: "song")
        switch NowCard.fields(items) {
        case .success(let fields): return fields
        case .failure(let problem):
            throw ConfigProblem("'\(problem.name)' is not one of \(NowCard.Field.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }, show: { "[" + $0.map { quote($0.rawValue) }.joined(separator: ", ") + "]" })
}
