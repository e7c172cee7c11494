import CMPDClient
import Glibc
import PacenoteCore

/// Playback commands on a short-lived connection (the demo's "play everything").
public enum MPDControl {
    /// Indexes the music directory, waits until MPD has, then queues every song under
    /// `folders` (the whole library by default) and plays them on repeat in random order.
    public static func playEverything(endpoint: MPDEndpoint, under folders: [String] = [""],
                                      timeoutMs: UInt32 = 5000) throws(MPDError) {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let job = mpd_run_update(connection.handle, nil)
        try connection.check()
        // The update is done when MPD reports no update job (or a later one).
        for _ in 0..<200 {
            guard let status = mpd_run_status(connection.handle) else { try connection.check(); break }
            let running = mpd_status_get_update_id(status)
            mpd_status_free(status)
            if running == 0 || running > job { break }
            usleep(50_000)
        }
        _ = mpd_run_clear(connection.handle)
        try connection.check()
        for folder in folders {
            _ = mpd_run_add(connection.handle, folder)
            try connection.check()
        }
        _ = mpd_run_repeat(connection.handle, true)
        _ = mpd_run_random(connection.handle, true)
        _ = mpd_run_play(connection.handle)
        try connection.check()
    }
}

extension MPDControl {
    /// Connects (sending the endpoint's password), reads the status as the watcher would,
    /// and returns MPD's protocol version: what `pacenote doctor` checks.
    public static func probe(endpoint: MPDEndpoint, timeoutMs: UInt32 = 3000) throws(MPDError) -> String {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        _ = try connection.snapshot()
        return connection.serverVersion
    }
}

extension MPDControl {
    /// Sends one press of the controls (issue 57) on a connection of its own and reads the
    /// state it left. MPD's refusal ("Not playing", "No such song", a permission) is thrown
    /// with MPD's own words.
    public static func run(_ command: PlayerCommand, endpoint: MPDEndpoint, timeoutMs: UInt32 = 3000) throws(MPDError) -> PlayerControls {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        let h = connection.handle
        switch command {
        case .play: _ = mpd_run_play(h)
        case .pause: _ = mpd_run_pause(h, true)
        case .toggle:
            if try connection.snapshot().state == .play { _ = mpd_run_pause(h, true) } else { _ = mpd_run_play(h) }
        case .stop: _ = mpd_run_stop(h)
        case .next: _ = mpd_run_next(h)
        case .previous: _ = mpd_run_previous(h)
        case .seek(let seconds): _ = mpd_run_seek_current(h, Float(seconds), false)
        case .volume(let volume): _ = mpd_run_set_volume(h, UInt32(min(max(volume, 0), 100)))
        case .changeVolume(let change): _ = mpd_run_change_volume(h, Int32(min(max(change, -100), 100)))
        case .modes(let random, let repeatMode, let single, let consume):
            // One command list: all of them or, at MPD's first refusal, the ones before it.
            _ = mpd_command_list_begin(h, false)
            if let random { _ = mpd_send_random(h, random) }
            if let repeatMode { _ = mpd_send_repeat(h, repeatMode) }
            if let single {
                _ = mpd_send_single_state(h, single == .on ? MPD_SINGLE_ON : single == .oneshot ? MPD_SINGLE_ONESHOT : MPD_SINGLE_OFF)
            }
            if let consume { _ = mpd_send_consume(h, consume) }
            _ = mpd_command_list_end(h)
            _ = mpd_response_finish(h)
        }
        try connection.check()
        guard let controls = try connection.snapshot().controls else {
            throw MPDError(kind: .other, message: "MPD sent no status")
        }
        return controls
    }

    /// The controls' state now, read on a connection of its own.
    public static func controls(endpoint: MPDEndpoint, timeoutMs: UInt32 = 3000) throws(MPDError) -> PlayerControls {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        guard let controls = try connection.snapshot().controls else {
            throw MPDError(kind: .other, message: "MPD sent no status")
        }
        return controls
    }
}
