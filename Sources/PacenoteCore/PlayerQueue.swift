/// A player's queue and stored playlists as the player page and the API show and edit them
/// (issue 57). MPD does the work (`MPDQueue`); these are the shapes that cross modules.
public struct PlayerQueue: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        /// MPD's song id (stable while the song is queued) and its position.
        public var id: Int
        public var position: Int
        public var song: SongInfo
        public init(id: Int, position: Int, song: SongInfo) {
            self.id = id
            self.position = position
            self.song = song
        }
    }

    /// The current song's id (playing or paused), if any.
    public var currentID: Int?
    public var entries: [Entry]
    public init(currentID: Int?, entries: [Entry]) {
        self.currentID = currentID
        self.entries = entries
    }
}

/// Where songs go in the queue: played at once, after the current song, or at the end.
public enum QueuePlace: String, Sendable, CaseIterable {
    case now, next, end
}

/// One edit of the queue.
public enum QueueEdit: Equatable, Sendable {
    case add(uris: [String], QueuePlace)
    case remove(id: Int)
    case move(id: Int, to: Int)
    case play(id: Int)
    case clear
    /// A stored playlist's songs, placed like `add`.
    case load(playlist: String, QueuePlace)
}

/// A stored playlist of MPD's.
public struct StoredPlaylist: Equatable, Sendable {
    public var name: String
    /// MPD's modification time (seconds since 1970), 0 when unknown.
    public var lastModified: Double
    public init(name: String, lastModified: Double) {
        self.name = name
        self.lastModified = lastModified
    }
}

/// One edit of a stored playlist.
public enum StoredPlaylistEdit: Equatable, Sendable {
    /// Made with these songs (refused when the name is taken).
    case create(uris: [String])
    case rename(to: String)
    case delete
    /// Songs added at the end, or from `position` on.
    case add(uris: [String], at: Int?)
    case remove(position: Int)
    case move(from: Int, to: Int)
    case clear
}
