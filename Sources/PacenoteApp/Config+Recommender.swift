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

        public init() {}
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
    ])
}
