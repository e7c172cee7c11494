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
