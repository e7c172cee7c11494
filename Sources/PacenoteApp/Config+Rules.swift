import PacenoteCore

// `[[rules]]`: curation rules declared in the file (none by default). At each start, `serve`
// and `import` put them in the database in place of the file's previous ones
// (`Store.replaceConfigRules`); the site and the API show them, marked as the
// configuration's, and do not change them.
extension ConfigSchema {
    /// One of an enumeration's words (`ignore`, `hide`, `rewrite`).
    static func word<E: RawRepresentable & CaseIterable & Sendable>(_: E.Type) -> ConfigCodec<E> where E.RawValue == String {
        ConfigCodec(read: { (input) throws(ConfigProblem) in
            let text = try Codec.text(input)
            guard let value = E(rawValue: text) else {
                throw ConfigProblem("'\(text)' is not one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return value
        }, show: { Codec.quote($0.rawValue) })
    }

    /// A rule's value: text, or a number of seconds (`value = 20` for a duration).
    static let ruleValue = ConfigCodec<String>(read: { (input) throws(ConfigProblem) in
        switch input {
        case .toml(.integer(let i)): return String(i)
        case .toml(.float(let f)): return Codec.decimal(f)
        default: return try Codec.text(input)
        }
    }, show: { Codec.quote($0) })

    /// A rewrite's replacement: a string, which may be empty (to delete what matched).
    static let replacement = ConfigCodec<String?>(read: { (input) throws(ConfigProblem) in try Codec.text(input) },
                                                  show: { $0.map(Codec.quote) })

    static let rules = ConfigSection<CurationRule>(name: "rules", doc: """
        Curation rules, none by default: one [[rules]] table per rule. `ignore` keeps a matching
        play out of the history; `hide` logs it but keeps it out of charts, songs of the day and
        the recommender; `rewrite` replaces what a regular expression matches in a title, artist
        or album. Every rewrite applies first, then the ignores, then the hides; these rules
        come before the site's. They apply to plays as they arrive (from MPD, ListenBrainz
        submissions and `pacenote import`); the /rules page previews and applies one to the
        past. At each start, `pacenote serve` and `pacenote import` replace the rules the file
        gave before with these; the site and the API show them as the configuration's and
        refuse to change them (edit this file). For example:

          [[rules]]
          action = "ignore"
          field = "genre"
          value = "Podcast"
          [[rules]]
          action = "rewrite"
          field = "title"
          match = "regex"
          value = " - Remastered \\\\d{4}$"
          replacement = ""
          [[rules]]
          action = "hide"
          field = "duration"
          value = 20
        """, keys: [
        ConfigKey("action", \.action, word(CurationRule.Action.self), doc: """
            ignore, hide or rewrite. Each [[rules]] table sets action, field and value.
            """),
        ConfigKey("field", \.field, word(CurationRule.Field.self), example: #""genre""#, doc: """
            What the rule compares: artist, album, title, genre, path (the MPD path of a file of
            the library), stream (a stream's URL) or duration (how long the play lasted, in
            seconds). A rewrite changes title, artist or album.
            """),
        ConfigKey("match", \.match, word(CurationRule.Match.self), doc: """
            How: equals, prefix and contains ignore case, accents and width; regex is a regular
            expression as written ("(?i)" for case); shorter_than is for the field duration (plays
            shorter than value seconds). A rewrite takes regex. Unset: shorter_than for duration,
            regex for a rewrite, else equals.
            """),
        ConfigKey("value", \.value, ruleValue, example: #""Podcast""#, doc: """
            The text, pattern or number of seconds compared with (at most 500 bytes).
            """),
        ConfigKey("replacement", \.replacement, replacement, example: #""""#, doc: """
            A rewrite's replacement for each match, "$1" naming a group; it may be empty. Only a
            rewrite takes one, and needs one.
            """),
        ConfigKey("enabled", \.enabled, Codec.boolean, doc: "false keeps the rule without applying it."),
    ])

    static let ruleList = ConfigList<CurationRule>(
        element: { _ in CurationRule(action: .ignore, field: .title, match: .equals, value: "", fromConfig: true) },
        noun: "rules",
        required: ["action", "field", "value"],
        problem: { $0.invalidity },
        completed: { rule, given in
            if !given.contains("match") { rule.match = CurationRule.defaultMatch(action: rule.action, field: rule.field) }
        })
}
