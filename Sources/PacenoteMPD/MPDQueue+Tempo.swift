import CMPDClient
import Glibc
import PacenoteCore

/// What tempo-matched playback asks of MPD: index the folder of rendered copies, and put a
/// copy in the place of the song it was rendered from.
extension MPDQueue {
    /// `update PATH`, then waits (at most `waitSeconds`) until MPD has indexed it: the copy
    /// can be queued by its path only once MPD knows it.
    public static func update(endpoint: MPDEndpoint, path: String, waitSeconds: Double = 10,
                              timeoutMs: UInt32 = 3000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let job = mpd_run_update(connection.handle, path)
        try connection.check()
        guard job != 0 else { throw MPDError(kind: .other, message: "MPD did not start indexing \(path)") }
        let deadline = Double(Glibc.time(nil)) + waitSeconds
        while Double(Glibc.time(nil)) <= deadline {
            guard let status = mpd_run_status(connection.handle) else { try connection.check(); return }
            let running = mpd_status_get_update_id(status)
            mpd_status_free(status)
            if running == 0 || running > job { return }
            usleep(20_000)
        }
        throw MPDError(kind: .other, message: "MPD did not finish indexing \(path) within \(Int(waitSeconds)) s")
    }

    /// What became of a replacement.
    public enum Replacement: Equatable, Sendable {
        /// The copy is queued where the song was (MPD's new song id); the song is out.
        case replaced(newID: Int)
        /// The song is playing (or paused) already: left as it is.
        case alreadyPlaying
        /// The song is no longer in the queue.
        case gone
    }

    /// Puts `uri` at the position of the queued song `songID` and removes that song, unless it
    /// is the current song (a song that started is never cut) or left the queue.
    public static func replace(endpoint: MPDEndpoint, songID: Int, with uri: String,
                               timeoutMs: UInt32 = 3000) throws(MPDError) -> Replacement {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        guard let status = mpd_run_status(connection.handle) else {
            try connection.check()
            throw MPDError(kind: .other, message: "MPD sent no status")
        }
        let current = mpd_status_get_song_id(status)
        mpd_status_free(status)
        if current >= 0, Int(current) == songID { return .alreadyPlaying }
        guard let song = mpd_run_get_queue_song_id(connection.handle, UInt32(songID)) else {
            // "No such song" (an ACK) is the song gone; anything else is an error.
            if mpd_connection_get_error(connection.handle) == MPD_ERROR_SERVER {
                _ = mpd_connection_clear_error(connection.handle)
                return .gone
            }
            try connection.check()
            return .gone
        }
        let position = mpd_song_get_pos(song)
        mpd_song_free(song)
        _ = mpd_response_finish(connection.handle)
        try connection.check()
        let id = mpd_run_add_id_to(connection.handle, uri, position)
        try connection.check()
        guard id >= 0 else { throw MPDError(kind: .other, message: "MPD did not add \(uri)") }
        // Between the look and the add the song may have begun, or left (the auto-DJ replacing
        // its pick): then the copy goes again and the queue is as it was.
        let began = mpd_run_status(connection.handle).map { status in
            defer { mpd_status_free(status) }
            return Int(mpd_status_get_song_id(status)) == songID
        } ?? false
        if began {
            _ = mpd_run_delete_id(connection.handle, UInt32(id))
            try connection.check()
            return .alreadyPlaying
        }
        _ = mpd_run_delete_id(connection.handle, UInt32(songID))
        if mpd_connection_get_error(connection.handle) == MPD_ERROR_SERVER {
            _ = mpd_connection_clear_error(connection.handle)
            _ = mpd_run_delete_id(connection.handle, UInt32(id))
            try connection.check()
            return .gone
        }
        try connection.check()
        return .replaced(newID: Int(id))
    }
}

extension MPDQueue {
    /// A queued song by MPD's song id, with its tags; nil when it left the queue.
    public static func queuedSong(endpoint: MPDEndpoint, songID: Int, timeoutMs: UInt32 = 3000) throws(MPDError) -> SongInfo? {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        guard let song = mpd_run_get_queue_song_id(connection.handle, UInt32(songID)) else {
            _ = mpd_connection_clear_error(connection.handle)
            return nil
        }
        defer { mpd_song_free(song) }
        let info = MPDConnection.songInfo(song)
        _ = mpd_response_finish(connection.handle)
        try connection.check()
        return info
    }
}
