import Foundation
import PacenoteCore

extension Config {
    /// `[tempo]`: tempo-matched playback (issue 56). A suggestion Pacenote queues is rendered
    /// time-stretched to the tempo target (pitch kept) and the copy queued in its place.
    public struct Tempo: Sendable, Equatable {
        public var enabled = false
        /// The largest tempo change a render makes, either way (0.08: ±8 %).
        public var maxChange = 0.08
        /// `fast`, `balanced` or `best` (`TempoQuality`).
        public var quality = "balanced"
        /// Where the rendered copies are kept; nil: a `tempo` folder beside the database.
        public var cacheDirectory: String?
        public var cacheMaxMB = 2048
        /// A soft click on each beat of the rendered copy (beats from aubio's tracker).
        public var click = false

        public init() {}

        /// The cache folder for a database at `databasePath`.
        public func cacheFolder(databasePath: String) -> String {
            cacheDirectory ?? ((databasePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("tempo")
        }
    }
}

extension ConfigSchema {
    static let tempo = ConfigSection<Config.Tempo>(name: "tempo", doc: """
        Tempo-matched playback: when Pacenote queues a suggestion (the auto-DJ, POST /api/v1/queue,
        a planned workout) and a tempo target is known (a cadence, a plan segment's tempo, a
        zone's window), it renders the song time-stretched to the target with its pitch kept
        (Rubber Band) and queues the copy instead, a song ahead. MPD plays the copy either from
        a folder inside its music directory (set cache_dir there: Pacenote updates that folder
        only) or, over MPD's local socket, from anywhere (file:// URIs). The play is logged as
        a play of the original, with the tempo it was played at. `pacenote doctor` checks it.
        """, keys: [
        ConfigKey("enabled", \.enabled, Codec.boolean, env: ["PACENOTE_TEMPO"], doc: """
            Render queued suggestions to the tempo target. Off by default: renders take CPU
            (about a twentieth of the song's length on two cores) and disk.
            """),
        ConfigKey("max_change", \.maxChange, Codec.number(0.01...0.2), doc: """
            The largest tempo change, either way (0.08: a 163 bpm song plays at up to 176).
            Cadence mode then takes songs within this change of the cadence.
            """),
        ConfigKey("quality", \.quality, Codec.oneOf(["fast", "balanced", "best"]), doc: """
            Rubber Band's settings: "fast" (short windows, about half the time), "balanced", or
            "best" (its finer R3 engine, several times slower). See scripts/bench/tempo.
            """),
        ConfigKey("cache_dir", \.cacheDirectory, Codec.optionalString(), env: ["PACENOTE_TEMPO_CACHE_DIR"], doc: """
            Where the rendered copies are kept (FLAC, with a small .json each naming the
            original). Inside MPD's music directory, MPD plays them as a folder of its library
            (which Pacenote never mirrors as tracks); elsewhere, Pacenote must reach MPD over its
            local socket. Default: a "tempo" folder beside the database.
            """),
        ConfigKey("cache_max_mb", \.cacheMaxMB, Codec.integer(16...1_000_000), doc: """
            The cache's size limit in MiB: the least recently played copies go first.
            """),
        ConfigKey("click", \.click, Codec.boolean, doc: """
            Metronome: a soft click mixed into the rendered copy on each beat.
            """),
    ])
}
