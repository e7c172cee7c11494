import CMPDClient
import PacenoteCore

/// On-demand commands for the recommender: the queue after the current song, inserting a
/// track right after it, `bpm` stickers and MPD's `music_directory`. Each call opens a
/// short-lived connection of its own (like `MPDCoverArt`), so the watcher's idle
/// connection is never held up.
public enum MPDQueue {
    public struct State: Equatable, Sendable {
        /// The current song (playing or paused), if any.
        public var current: SongInfo?
        public var currentPosition: Int?
        /// MPD's song ids of `upcoming`, in order.
        public var upcomingIDs: [Int] = []
        /// The songs queued after the current one (the whole queue when nothing is current),
        /// at most `limit`.
        public var upcoming: [SongInfo]
    }

    /// The current song's position (-1: none) and the queue's length.
    static func queuePosition(_ connection: MPDConnection) throws(MPDError) -> (Int32, UInt32) {
        guard let status = mpd_run_status(connection.handle) else {
            try connection.check()
            throw MPDError(kind: .other, message: "MPD sent no status")
        }
        defer { mpd_status_free(status) }
        return (mpd_status_get_song_pos(status), mpd_status_get_queue_length(status))
    }

    public static func state(endpoint: MPDEndpoint, limit: Int = 2000, timeoutMs: UInt32 = 3000) throws(MPDError) -> State {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let (position, length) = try queuePosition(connection)
        let start = position >= 0 ? UInt32(position) : 0
        let end = min(length, start + UInt32(limit) + 1)
        var songs: [SongInfo] = []
        var ids: [Int] = []
        if end > start {
            _ = mpd_send_list_queue_range_meta(connection.handle, start, end)
            try connection.check()
            while let song = mpd_recv_song(connection.handle) {
                songs.append(MPDConnection.songInfo(song))
                ids.append(Int(mpd_song_get_id(song)))
                mpd_song_free(song)
            }
            _ = mpd_response_finish(connection.handle)
            try connection.check()
        }
        var current: SongInfo?
        if position >= 0, !songs.isEmpty {
            current = songs.removeFirst()
            ids.removeFirst()
        }
        return State(current: current, currentPosition: position >= 0 ? Int(position) : nil, upcomingIDs: ids, upcoming: songs)
    }

    /// Adds `uri` right after the current song (`addid URI POS`), or at the end when nothing
    /// is current. Returns MPD's song id and the position it went to.
    public static func insertAfterCurrent(endpoint: MPDEndpoint, uri: String, timeoutMs: UInt32 = 3000) throws(MPDError) -> (id: Int, position: Int) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let (position, length) = try queuePosition(connection)
        let target = position >= 0 ? UInt32(position) + 1 : length
        let id = mpd_run_add_id_to(connection.handle, uri, target)
        try connection.check()
        guard id >= 0 else { throw MPDError(kind: .other, message: "MPD did not add \(uri)") }
        return (Int(id), Int(target))
    }

    /// Sets a song sticker (`sticker set song URI NAME VALUE`); needs MPD's `sticker_file`.
    public static func setSticker(endpoint: MPDEndpoint, uri: String, name: String, value: String,
                                  timeoutMs: UInt32 = 3000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = mpd_run_sticker_set(connection.handle, "song", uri, name, value)
        try connection.check()
    }

    /// MPD's `music_directory` from its `config` command (local socket connections only).
    public static func musicDirectory(endpoint: MPDEndpoint, timeoutMs: UInt32 = 3000) throws(MPDError) -> String? {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = pacenote_mpd_send_config(connection.handle)
        try connection.check()
        var directory: String?
        while let pair = mpd_recv_pair(connection.handle) {
            if String(cString: pair.pointee.name) == "music_directory" { directory = String(cString: pair.pointee.value) }
            mpd_return_pair(connection.handle, pair)
        }
        try connection.check()
        _ = mpd_response_finish(connection.handle)
        try connection.check()
        return directory
    }
}

extension MPDQueue {
    /// Removes a song from the queue by MPD's song id (the auto-DJ replacing its own pick).
    public static func delete(endpoint: MPDEndpoint, songID: Int, timeoutMs: UInt32 = 3000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = mpd_run_delete_id(connection.handle, UInt32(songID))
        try connection.check()
    }
}
