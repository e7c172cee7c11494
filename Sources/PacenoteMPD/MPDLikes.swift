import CMPDClient
import PacenoteCore

/// What Pacenote keeps in MPD for likes: a stored playlist of the liked songs and a
/// `feeling` sticker per song, so that other clients see them. One short-lived connection
/// per call, like `MPDQueue`.
public enum MPDLikes {
    /// Makes the stored playlist `name` hold exactly `uris`, in order: `playlistclear`
    /// (a missing playlist is fine), then `playlistadd` for each in one command list. With
    /// no URIs an existing playlist is left empty, and a missing one is not created (MPD
    /// makes playlists by adding to them).
    public static func replacePlaylist(endpoint: MPDEndpoint, name: String, uris: [String],
                                       timeoutMs: UInt32 = 5000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = mpd_run_playlist_clear(connection.handle, name)
        do {
            try connection.check()
        } catch let error where error.kind == .server(code: Int32(MPD_SERVER_ERROR_NO_EXIST.rawValue)) {
            // Not there yet: playlistadd makes it.
        }
        guard !uris.isEmpty else { return }
        _ = mpd_command_list_begin(connection.handle, false)
        for uri in uris { _ = mpd_send_playlist_add(connection.handle, name, uri) }
        _ = mpd_command_list_end(connection.handle)
        _ = mpd_response_finish(connection.handle)
        try connection.check()
    }

    /// The songs of the stored playlist `name`; nil when there is no such playlist.
    public static func playlist(endpoint: MPDEndpoint, name: String, timeoutMs: UInt32 = 5000) throws(MPDError) -> [String]? {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = mpd_send_list_playlist(connection.handle, name)
        var uris: [String] = []
        while let pair = mpd_recv_pair_named(connection.handle, "file") {
            uris.append(String(cString: pair.pointee.value))
            mpd_return_pair(connection.handle, pair)
        }
        _ = mpd_response_finish(connection.handle)
        do {
            try connection.check()
        } catch let error where error.kind == .server(code: Int32(MPD_SERVER_ERROR_NO_EXIST.rawValue)) {
            return nil
        }
        return uris
    }

    /// Sets (`like`, `dislike`) or deletes (`none`) the `feeling` sticker of each song.
    /// Needs MPD's `sticker_file`; the first refusal ends the call (the caller logs it).
    public static func setFeelings(endpoint: MPDEndpoint, _ feelings: [(uri: String, feeling: Feeling)],
                                   timeoutMs: UInt32 = 5000) throws(MPDError) {
        guard !feelings.isEmpty else { return }
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        for (uri, feeling) in feelings {
            if feeling == .none {
                _ = mpd_run_sticker_delete(connection.handle, "song", uri, "feeling")
                do {
                    try connection.check()
                } catch let error where error.kind == .server(code: Int32(MPD_SERVER_ERROR_NO_EXIST.rawValue)) {
                    // It had none.
                }
            } else {
                _ = mpd_run_sticker_set(connection.handle, "song", uri, "feeling", feeling.rawValue)
                try connection.check()
            }
        }
    }
}
