import CMPDClient
import PacenoteCore

/// The queue for the player page (issue 57): read whole with MPD's song ids, and edited —
/// songs added now, next or at the end, removed, moved, played, cleared, a stored playlist
/// loaded. A connection of its own per call.
extension MPDQueue {
    /// The queue from its start, at most `limit` songs, and the current song's id.
    public static func queue(endpoint: MPDEndpoint, limit: Int = 1000, timeoutMs: UInt32 = 3000) throws(MPDError) -> PlayerQueue {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        guard let status = mpd_run_status(connection.handle) else {
            try connection.check()
            throw MPDError(kind: .other, message: "MPD sent no status")
        }
        let currentID = mpd_status_get_song_id(status)
        let length = mpd_status_get_queue_length(status)
        mpd_status_free(status)
        var entries: [PlayerQueue.Entry] = []
        if length > 0 {
            _ = mpd_send_list_queue_range_meta(connection.handle, 0, min(length, UInt32(limit)))
            try connection.check()
            while let song = mpd_recv_song(connection.handle) {
                entries.append(PlayerQueue.Entry(id: Int(mpd_song_get_id(song)), position: Int(mpd_song_get_pos(song)),
                                                 song: MPDConnection.songInfo(song)))
                mpd_song_free(song)
            }
            _ = mpd_response_finish(connection.handle)
            try connection.check()
        }
        return PlayerQueue(currentID: currentID >= 0 ? Int(currentID) : nil, entries: entries)
    }

    public static func edit(endpoint: MPDEndpoint, queue edit: QueueEdit, timeoutMs: UInt32 = 5000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let h = connection.handle
        switch edit {
        case .add(let uris, let place):
            try add(connection, place) { (at: UInt32?) throws(MPDError) in
                var position = at
                try inOneList(connection, uris) { uri in
                    defer { position = position.map { $0 + 1 } }
                    if let p = position { return mpd_send_add_id_to(h, uri, p) }
                    return mpd_send_add(h, uri)
                }
            }
        case .load(let playlist, let place):
            try add(connection, place) { (at: UInt32?) throws(MPDError) in
                if let at { _ = mpd_run_load_range_to(h, playlist, 0, UInt32.max, at, MPD_POSITION_ABSOLUTE) } else { _ = mpd_run_load(h, playlist) }
                try connection.check()
            }
        case .remove(let id): _ = mpd_run_delete_id(h, UInt32(clamping: id))
        case .move(let id, let to): _ = mpd_run_move_id(h, UInt32(clamping: id), UInt32(clamping: to))
        case .play(let id): _ = mpd_run_play_id(h, UInt32(clamping: id))
        case .clear: _ = mpd_run_clear(h)
        }
        try connection.check()
    }

    /// Adds at the place asked for: `body` gets the position to insert at (nil: the end).
    /// "now" inserts after the current song and plays the first song added.
    private static func add(_ connection: MPDConnection, _ place: QueuePlace, _ body: (UInt32?) throws(MPDError) -> Void) throws(MPDError) {
        let (position, length) = try queuePosition(connection)
        switch place {
        case .end:
            try body(nil)
        case .next, .now:
            let at = position >= 0 ? UInt32(position) + 1 : length
            try body(at)
            if place == .now {
                _ = mpd_run_play_pos(connection.handle, at)
                try connection.check()
            }
        }
    }
}
