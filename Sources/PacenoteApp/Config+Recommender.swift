import PacenoteCore

extension Config {
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
        /// Genres preferred in steady-state zones 2–3 and threshold zones 4–5 (Cue's).
        public var steadyGenres: [String] = []
        public var thresholdGenres: [String] = []

        public init() {}

        /// The two lists as the recommender takes them.
        public var genrePreference: PacenoteCore.Recommender.GenrePreference { .init(steady: steadyGenres, threshold: thresholdGenres) }
    }
}

extension ConfigSchema {
    static let recommender = ConfigSection<Config.Recommender>(name: "recommender", doc: "", keys: Zone.allCases.map { zone in
        ConfigKey("tempo_z\(zone.rawValue)", get: { $0.tempo.window(for: zone) }, set: { $0.tempo.windows[zone] = $1 },
                  Codec.tempoWindow, doc: zone != .z0 ? "" : """
            Target tempo window (bpm) per heart-rate zone for next-track suggestions. Half- and
            double-time count: a 68 bpm track fits 130–140. The defaults follow the exercise-music
            research (Karageorghis et al.: preferred tempo rises with intensity, to about
            120–140 bpm at moderate-to-high effort); see docs/RECOMMENDER.md.
            """)
    } + [
        ConfigKey("recent_hours", \.recentHours, Codec.number(0...720), doc: """
            Songs (any version: "Radio Edit", "Remastered 2011", …) started in the last this many
            hours are not suggested.
            """),
        ConfigKey("auto_queue", \.autoQueue, Codec.boolean, env: ["PACENOTE_AUTO_QUEUE"], doc: """
            Auto-DJ: keep one suggested track queued right after the current song, refreshed when
            the song or the zone changes. Off by default: Pacenote then never touches the queue
            unless asked (POST /api/v1/queue).
            """),
        ConfigKey("cadence", \.cadence, Codec.number(60...240), doc: """
            Cadence mode (mode=cadence): target running cadence in steps per minute; a track fits
            1:1 or 2:1 with at most ±10 % tempo change.
            """),
        ConfigKey("exploration", \.exploration, Codec.number(0...0.5),
                  doc: "Share of the suggestion list kept for tracks never played (0 to 0.5)."),
        ConfigKey("steady_genres", \.steadyGenres, genreList, env: ["PACENOTE_STEADY_GENRES"],
                  example: #"["Downtempo", "Deep House"]"#, doc: """
            Genres preferred in steady-state running (heart-rate zones 2 and 3): a track of one
            of them is raised in the suggestions (reason `genre`). Names as tagged, case aside.
            None by default.
            """),
        ConfigKey("threshold_genres", \.thresholdGenres, genreList, env: ["PACENOTE_THRESHOLD_GENRES"],
                  example: #"["Drum & Bass", "Techno"]"#, doc: """
            Genres preferred at threshold effort (heart-rate zones 4 and 5), as steady_genres.
            """),
    ])

    /// A TOML array of genre names, or (environment, flags) text with the names between
    /// `;` or `,` (`GenreTags`).
    static let genreList = ConfigCodec<[String]>(read: { (input) throws(ConfigProblem) in
        switch input {
        case .text(let text): return GenreTags.split(text)
        case .toml(.string(let text)): return GenreTags.split(text)
        case .toml(.array(let values)):
            let names = try values.map { (v: TOMLValue) throws(ConfigProblem) -> String in
                guard case .string(let s) = v else { throw ConfigProblem("expected genre names such as \"Drum & Bass\"") }
                return s
            }
            return GenreTags.split(names)
        case .toml(let other): throw ConfigProblem("expected an array of genre names, got \(other.kindDescription)")
        }
    }, show: { "[" + $0.map { Codec.quote($0) }.joined(separator: ", ") + "]" })
}
