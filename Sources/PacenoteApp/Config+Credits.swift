import PacenoteCore

extension Config {
    /// `[credits]`: how credit text is split into artists.
    public struct Credits: Sendable, Equatable {
        /// Separators besides `feat.`, `ft.`, `featuring` and `(with …)`.
        public var separators: [String] = []

        public init() {}
    }
}

extension ConfigSchema {
    /// A TOML array of strings, or (environment, flags) text with the separators between spaces.
    static let separators = ConfigCodec<[String]>(read: { (input) throws(ConfigProblem) in
        var items: [String]
        switch input {
        case .text(let text): items = text.split(whereSeparator: \.isWhitespace).map(String.init)
        case .toml(.string(let text)): items = [text]
        case .toml(.array(let values)):
            items = try values.map { (v: TOMLValue) throws(ConfigProblem) -> String in
                guard case .string(let s) = v else { throw ConfigProblem("expected strings such as \"&\"") }
                return s
            }
        case .toml(let other): throw ConfigProblem("expected an array of separators, got \(other.kindDescription)")
        }
        switch ArtistCredit.validSeparators(items) {
        case .success(let valid): return valid
        case .failure(let e): throw ConfigProblem(e.description)
        }
    }, show: { "[" + $0.map { Codec.quote($0) }.joined(separator: ", ") + "]" })

    static let credits = ConfigSection<Config.Credits>(name: "credits", doc: "", keys: [
        ConfigKey("separators", \.separators, separators, env: ["PACENOTE_CREDITS_SEPARATORS"],
                  example: #"["&", ","]"#, doc: """
            What else splits an artist credit such as "Simon & Garfunkel" into several artists,
            besides feat., ft., featuring and (with …), which always do: some of "&", ",", "x",
            ";", "/", "+", "and", "with", "vs.". None by default, since "&" and "," are part of
            many names. Artists listed one by one (MPD's several Artist tags, ListenBrainz's
            artist_names) are never split. When this changes, the daemon splits past credits
            again at its next start; `pacenote credits --preview --separators "& ,"` shows what
            a change would split first, and `pacenote credits --apply` applies it at once.
            """),
    ])
}
