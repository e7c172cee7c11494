import CMPDClient
import PacenoteCore

/// MPD's stored playlists for the player (issue 57): listed, read, renamed, deleted, edited
/// song by song, and loaded into the queue. A connection of its own per call; MPD's refusal
/// ("No such playlist", no `playlist_directory`) is thrown in MPD's words.
extension MPDQueue {
    /// The stored playlists with their modification times.
    public static func playlists(endpoint: MPDEndpoint, timeoutMs: UInt32 = 3000) throws(MPDError) -> [StoredPlaylist] {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = mpd_send_list_playlists(connection.handle)
        try connection.check()
        var out: [StoredPlaylist] = []
        while let playlist = mpd_recv_playlist(connection.handle) {
            out.append(StoredPlaylist(name: String(cString: mpd_playlist_get_path(playlist)),
                                      lastModified: Double(mpd_playlist_get_last_modified(playlist))))
            mpd_playlist_free(playlist)
        }
        _ = mpd_response_finish(connection.handle)
        try connection.check()
        return out
    }

    /// A stored playlist's songs, in order, with their tags.
    public static func playlistSongs(endpoint: MPDEndpoint, name: String, timeoutMs: UInt32 = 5000) throws(MPDError) -> [SongInfo] {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = mpd_send_list_playlist_meta(connection.handle, name)
        try connection.check()
        var songs: [SongInfo] = []
        while let song = mpd_recv_song(connection.handle) {
            songs.append(MPDConnection.songInfo(song))
            mpd_song_free(song)
        }
        _ = mpd_response_finish(connection.handle)
        try connection.check()
        return songs
    }

    public static func edit(endpoint: MPDEndpoint, playlist name: String, _ edit: StoredPlaylistEdit, timeoutMs: UInt32 = 5000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let h = connection.handle
        switch edit {
        case .create(let uris):
            if try names(connection).contains(name) {
                throw MPDError(kind: .server(code: 56), message: "Playlist already exists")
            }
            // MPD has no "create": adding the first song makes a playlist (`makeEmpty` without songs).
            if uris.isEmpty { try makeEmpty(connection, name) } else {
                try inOneList(connection, uris) { uri in mpd_send_playlist_add(h, name, uri) }
            }
        case .rename(let to): _ = mpd_run_rename(h, name, to)
        case .delete: _ = mpd_run_rm(h, name)
        case .add(let uris, nil):
            try inOneList(connection, uris) { uri in mpd_send_playlist_add(h, name, uri) }
        case .add(let uris, let position?):
            var at = UInt32(clamping: position)
            try inOneList(connection, uris) { uri in defer { at += 1 }; return mpd_send_playlist_add_to(h, name, uri, at) }
        case .remove(let position): _ = mpd_run_playlist_delete(h, name, UInt32(clamping: position))
        case .move(let from, let to): _ = mpd_run_playlist_move(h, name, UInt32(clamping: from), UInt32(clamping: to))
        case .clear: _ = mpd_run_playlist_clear(h, name)
        }
        try connection.check()
    }
}
