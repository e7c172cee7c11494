import PacenoteCore

extension Config {
    /// `[likes]`: what Pacenote keeps in MPD for liked songs.
    public struct Likes: Sendable, Equatable {
        /// The stored playlist of liked songs in the default MPD; empty: none.
        public var playlist = "Liked"

        public init() {}
    }
}

extension ConfigSchema {
    static let likes = ConfigSection<Config.Likes>(name: "likes", doc: "", keys: [
        ConfigKey("playlist", \.playlist, Codec.string { (text) throws(ConfigProblem) -> String in
            guard !text.contains("/"), !text.contains("\n"), text.count <= 200 else {
                throw ConfigProblem("a playlist name without '/' or line breaks, at most 200 characters")
            }
            return text
        }, doc: """
            The MPD stored playlist (in the first [mpd]) that Pacenote keeps equal to the liked songs
            in MPD's library, newest like first; rewritten after each like, clear and import. Empty
            disables it. Each song also gets an MPD sticker `feeling` (like or dislike) when MPD has
            a sticker_file, so that other clients see them.
            """),
    ])
}
