import CMPDClient
import PacenoteCore

/// MPD's stored playlists and adding songs at the queue's end: the pre-run playlist of a
/// plan saved as `Pacenote: PLAN` or queued (issue 55). A connection of its own per call.
extension MPDQueue {
    /// The stored playlists' names.
    public static func storedPlaylists(endpoint: MPDEndpoint, timeoutMs: UInt32 = 3000) throws(MPDError) -> [String] {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        return try names(connection)
    }

    static func names(_ connection: MPDConnection) throws(MPDError) -> [String] {
        _ = mpd_send_list_playlists(connection.handle)
        try connection.check()
        var names: [String] = []
        while let playlist = mpd_recv_playlist(connection.handle) {
            names.append(String(cString: mpd_playlist_get_path(playlist)))
            mpd_playlist_free(playlist)
        }
        _ = mpd_response_finish(connection.handle)
        try connection.check()
        return names
    }

    /// Makes the stored playlist `name` hold `uris`, in order, replacing what it held (empty when none).
    public static func savePlaylist(endpoint: MPDEndpoint, name: String, uris: [String], timeoutMs: UInt32 = 5000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        if try names(connection).contains(name) {
            _ = mpd_run_rm(connection.handle, name)
            try connection.check()
        }
        // No songs: an empty playlist, not none.
        if uris.isEmpty { return try makeEmpty(connection, name) }
        try inOneList(connection, uris) { uri in mpd_send_playlist_add(connection.handle, name, uri) }
        try connection.check()
    }

    /// A placeholder an empty playlist is made with (`makeEmpty`): never fetched, taken out at once.
    static let placeholder = "http://pacenote.invalid/empty"

    /// Makes the stored playlist `name`, empty. MPD has no command for that: it makes a
    /// playlist by adding its first song, and `playlistclear` of a new name is "No such
    /// playlist" (MPD 0.23). So a placeholder URL (MPD keeps a remote URI in a stored
    /// playlist without reading it) is added and removed in one command list.
    static func makeEmpty(_ connection: MPDConnection, _ name: String) throws(MPDError) {
        let h = connection.handle
        _ = mpd_command_list_begin(h, false)
        // At position 0, and position 0 removed: a playlist another client made meanwhile
        // keeps all its songs.
        _ = mpd_send_playlist_add_to(h, name, placeholder, 0)
        _ = mpd_send_playlist_delete(h, name, 0)
        _ = mpd_command_list_end(h)
        _ = mpd_response_finish(h)
        try connection.check()
    }

    /// Adds `uris` at the queue's end, in order.
    public static func append(endpoint: MPDEndpoint, uris: [String], timeoutMs: UInt32 = 5000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        try inOneList(connection, uris) { uri in mpd_send_add(connection.handle, uri) }
    }

    /// One command list: MPD runs all of it or stops at the first failure, in one round trip.
    static func inOneList(_ connection: MPDConnection, _ uris: [String], _ send: (String) -> Bool) throws(MPDError) {
        guard !uris.isEmpty else { return }
        _ = mpd_command_list_begin(connection.handle, false)
        for uri in uris { _ = send(uri) }
        _ = mpd_command_list_end(connection.handle)
        try connection.check()
        _ = mpd_response_finish(connection.handle)
        try connection.check()
    }
}
