import Foundation
import PacenoteCore

extension Doctor {
    /// Tempo-matched playback (`[tempo]`): whether MPD can play the rendered copies, and
    /// whether the cache folder can be written.
    static func tempo(_ config: Config) -> DoctorCheck {
        let name = "tempo"
        guard config.tempo.enabled else { return DoctorCheck(name, .note, "tempo-matched playback is off ([tempo] enabled)") }
        guard let player = config.players.first, let endpoint = try? player.endpoint else {
            return DoctorCheck(name, .failure, "no MPD to queue the copies in", advice: "check mpd.host")
        }
        let folder = URL(fileURLWithPath: config.tempo.cacheFolder(databasePath: config.databasePath)).standardizedFileURL.path
        // The folder, or the nearest folder above it that exists (the daemon makes the rest).
        var existing = folder
        while !FileManager.default.fileExists(atPath: existing), existing != "/" { existing = (existing as NSString).deletingLastPathComponent }
        guard access(existing, W_OK | X_OK) == 0 else {
            return DoctorCheck(name, .failure, "\(existing) cannot be written: no copies can be kept",
                               advice: "set tempo.cache_dir to a folder this user can write (and MPD can read)")
        }
        let music = BPMAnalyzer.musicDirectory(player).map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        // MPD usually runs as its own user: every folder down to the copies must let others through.
        let closed = closedToOthers(existing)
        func reachable(_ check: DoctorCheck) -> DoctorCheck {
            guard let closed else { return check }
            return DoctorCheck(name, .warning, "\(closed) is closed to other users: MPD, if it runs as its own user, cannot read the copies",
                               advice: "chmod o+x \(closed), or set tempo.cache_dir to a folder MPD can read")
        }
        switch TempoService.access(folder: folder, musicDirectory: music, endpoint: endpoint) {
        case .success(.folder(let relative)):
            return reachable(DoctorCheck(name, .ok, "copies in \(folder), a folder of MPD's library (Pacenote updates \(relative) only)"))
        case .success(.localSocket):
            return reachable(DoctorCheck(name, .ok, "copies in \(folder), played as file:// URIs over MPD's local socket"))
        case .failure(let problem):
            return DoctorCheck(name, .failure, problem.message,
                               advice: "MPD refuses file:// URIs from a client on TCP; a folder inside its music directory always works")
        }
    }

    /// The first folder from `/` down to `path` that other users cannot pass through, if any.
    static func closedToOthers(_ path: String) -> String? {
        var current = ""
        for part in path.split(separator: "/") {
            current += "/" + part
            var info = stat()
            guard stat(current, &info) == 0 else { return nil }
            if info.st_mode & 0o001 == 0 { return current }
        }
        return nil
    }
}
