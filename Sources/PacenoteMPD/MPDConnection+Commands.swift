import CMPDClient
import Foundation
import PacenoteCore

extension MPDConnection {
    /// `status` and `currentsong` in one command list, so that the two always describe the
    /// same moment (MPD sends several `player` events per change; PLATFORM.md).
    func snapshot() throws(MPDError) -> PlayerSnapshot {
        _ = mpd_command_list_begin(handle, true)
        _ = mpd_send_status(handle)
        _ = mpd_send_current_song(handle)
        _ = mpd_command_list_end(handle)
        try check()
        guard let status = mpd_recv_status(handle) else {
            try check()
            throw MPDError(kind: .other, message: "MPD sent no status")
        }
        defer { mpd_status_free(status) }
        _ = mpd_response_next(handle)
        var song: OpaquePointer?
        if let s = mpd_recv_song(handle) { song = s }
        defer { if let song { mpd_song_free(song) } }
        _ = mpd_response_finish(handle)
        try check()

        let controls = Self.controls(status)
        let state = controls.state
        guard let song else { return PlayerSnapshot(state: .stop, controls: controls) }
        var info = Self.songInfo(song)
        let total = mpd_status_get_total_time(status)
        if info.durationSeconds == nil, total > 0, !info.isStream { info.durationSeconds = Double(total) }
        let id = mpd_status_get_song_id(status)
        return PlayerSnapshot(
            state: state, song: info, songID: id >= 0 ? Int(id) : Int(mpd_song_get_id(song)),
            elapsed: Double(mpd_status_get_elapsed_ms(status)) / 1000, controls: controls)
    }

    /// The controls' state in a `status` answer: play state, volume, modes, queue, position.
    static func controls(_ status: OpaquePointer) -> PlayerControls {
        let state: PlayerSnapshot.State
        switch mpd_status_get_state(status) {
        case MPD_STATE_PLAY: state = .play
        case MPD_STATE_PAUSE: state = .pause
        default: state = .stop
        }
        let single: PlayerControls.Single
        switch mpd_status_get_single_state(status) {
        case MPD_SINGLE_ON: single = .on
        case MPD_SINGLE_ONESHOT: single = .oneshot
        default: single = .off
        }
        let volume = mpd_status_get_volume(status)
        let id = mpd_status_get_song_id(status)
        let total = mpd_status_get_total_time(status)
        return PlayerControls(
            state: state, volume: volume >= 0 ? Int(volume) : nil, random: mpd_status_get_random(status),
            repeat: mpd_status_get_repeat(status), single: single, consume: mpd_status_get_consume(status),
            queueLength: Int(mpd_status_get_queue_length(status)), songID: id >= 0 ? Int(id) : nil,
            elapsed: state == .stop ? nil : Double(mpd_status_get_elapsed_ms(status)) / 1000,
            duration: total > 0 ? Double(total) : nil,
            error: mpd_status_get_error(status).map { String(cString: $0) }, at: Date())
    }

    /// MPD's time of its last database update (`stats`), to skip unchanged libraries.
    func databaseUpdateTime() throws(MPDError) -> Int {
        guard let stats = mpd_run_stats(handle) else {
            try check()
            return 0
        }
        defer { mpd_stats_free(stats) }
        return Int(mpd_stats_get_db_update_time(stats))
    }

    /// Every song in MPD's database, streamed to `body` one at a time.
    ///
    /// Read in windows of `page` songs (`find "(modified-since '0')" window A:B`), not with
    /// one `listallinfo`: MPD closes a client whose answer outgrows `max_output_buffer_size`
    /// (8 MiB by default), which a library of ~30,000 songs does.
    func forEachSong(page: Int = 5000, _ body: (SongInfo) -> Void) throws(MPDError) {
        var start: UInt32 = 0
        while true {
            _ = mpd_search_db_songs(handle, false)
            _ = mpd_search_add_modified_since_constraint(handle, MPD_OPERATOR_DEFAULT, 0)
            _ = mpd_search_add_window(handle, start, start + UInt32(page))
            _ = mpd_search_commit(handle)
            try check()
            var count = 0
            while let song = mpd_recv_song(handle) {
                body(Self.songInfo(song))
                mpd_song_free(song)
                count += 1
            }
            try check()
            _ = mpd_response_finish(handle)
            try check()
            if count < page { return }
            start += UInt32(page)
        }
    }

    /// `readcomments` for many files, in command lists of `batch` (one round trip each).
    /// A file MPD cannot read (an ACK) is left out and the others are still read. A
    /// connection error (timeout, MPD gone, a comment longer than libmpdclient's 4 KiB
    /// line buffer) throws, so the caller can set the batch aside.
    func readComments(_ uris: [String], batch: Int = 256) throws(MPDError) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        var start = 0
        while start < uris.count {
            let slice = Array(uris[start..<min(start + batch, uris.count)])
            _ = mpd_command_list_begin(handle, true)
            for uri in slice { _ = mpd_send_read_comments(handle, uri) }
            _ = mpd_command_list_end(handle)
            try check()
            var index = 0
            var failedAt: Int?
            while index < slice.count {
                var comments: [String: String] = [:]
                while let pair = mpd_recv_pair(handle) {
                    let name = String(cString: pair.pointee.name).uppercased()
                    if comments[name] == nil { comments[name] = String(cString: pair.pointee.value) }
                    mpd_return_pair(handle, pair)
                }
                let code = mpd_connection_get_error(handle)
                if code == MPD_ERROR_SERVER {
                    // An ACK aborts the rest of the list; it names the failing command.
                    // (The location may only be asked for after a server error.)
                    failedAt = Int(mpd_connection_get_server_error_location(handle))
                    break
                }
                if code != MPD_ERROR_SUCCESS { try check() }
                if !comments.isEmpty { result[slice[index]] = comments }
                index += 1
                if index < slice.count { _ = mpd_response_next(handle) }
            }
            if let failedAt {
                do { try check() } catch where !error.isFatal {}
                start += max(failedAt, index) + 1
                continue
            }
            _ = mpd_response_finish(handle)
            try check()
            start += slice.count
        }
        return result
    }

    /// Every song's sticker `name` (`sticker find song "" NAME`): URI → value; `nil` when
    /// MPD has no sticker database.
    func stickers(named name: String) throws(MPDError) -> [String: String]? {
        _ = mpd_send_sticker_find(handle, "song", "", name)
        try check()
        var result: [String: String] = [:]
        var uri: String?
        while let pair = mpd_recv_pair(handle) {
            let key = String(cString: pair.pointee.name)
            let value = String(cString: pair.pointee.value)
            if key == "file" {
                uri = value
            } else if key == "sticker", let uri, let eq = value.firstIndex(of: "=") {
                if value[..<eq] == name { result[uri] = String(value[value.index(after: eq)...]) }
            }
            mpd_return_pair(handle, pair)
        }
        do {
            try check()
        } catch where !error.isFatal {
            return nil  // no sticker database configured (or stickers refused): unknown
        }
        _ = mpd_response_finish(handle)
        try check()
        return result
    }

    static func songInfo(_ song: OpaquePointer) -> SongInfo {
        var tags: [String: String] = [:]
        var multiTags: [String: [String]] = [:]
        for raw in 0..<MPD_TAG_COUNT.rawValue {
            let type = mpd_tag_type(rawValue: raw)
            guard let value = mpd_song_get_tag(song, type, 0), let cName = mpd_tag_name(type) else { continue }
            let name = String(cString: cName)
            tags[name] = String(cString: value)
            // Every value of a multi-valued tag (several artists), not only the first.
            var index: UInt32 = 1
            while let more = mpd_song_get_tag(song, type, index) {
                if index == 1 { multiTags[name] = [tags[name]!] }
                multiTags[name]!.append(String(cString: more))
                index += 1
            }
        }
        let ms = mpd_song_get_duration_ms(song)
        let modified = mpd_song_get_last_modified(song)
        return SongInfo(
            uri: String(cString: mpd_song_get_uri(song)), tags: tags, multiTags: multiTags.isEmpty ? nil : multiTags,
            durationSeconds: ms > 0 ? Double(ms) / 1000 : nil,
            lastModified: modified > 0 ? Double(modified) : nil)
    }
}
