import Foundation
import PacenoteBluetooth
import Glibc
import PacenoteCore
import PacenoteMPD
import PacenoteStore

extension Doctor {
    /// Below this much free space the disk check warns, below `diskFailBytes` it fails
    /// (a database grows a few MiB a year; an import or a backup needs about its size).
    static let diskWarnBytes: Int64 = 500 << 20
    static let diskFailBytes: Int64 = 50 << 20
    /// A backup older than this warns (the daemon takes one a day by default).
    static let backupMaxAge: TimeInterval = 2 * 86400

    static func database(config: Config) -> (DoctorCheck, StoreInspection?) {
        let path = config.databasePath
        let origin = config.origins["database.path"].map { $0 == "default" ? "" : " (database.path from \($0))" } ?? ""
        guard FileManager.default.fileExists(atPath: path) else {
            return (DoctorCheck("database", .failure, "no database at \(path)\(origin)",
                                advice: "check database.path, or start `pacenote serve` (or `pacenote migrate`) to create it"), nil)
        }
        let inspection: StoreInspection
        do {
            inspection = try Store.inspect(path: path)
        } catch {
            return (DoctorCheck("database", .failure, "\(path) cannot be read: \(error.description)",
                                advice: "restore the last backup (`pacenote restore FILE`), or move the file away to start afresh"), nil)
        }
        if !inspection.isSound {
            let problems = inspection.quickCheck.prefix(3).joined(separator: "; ")
            return (DoctorCheck("database", .failure, "\(path) is damaged (quick_check: \(problems))",
                                advice: "stop pacenote, then restore the last backup (`pacenote restore FILE`) or try `sqlite3 \(path) .recover`"),
                    inspection)
        }
        if !inspection.unknownMigrations.isEmpty {
            return (DoctorCheck("database", .failure, "\(path) was written by a newer Pacenote",
                                advice: "install that version again (or a later one)"), inspection)
        }
        let summary = "\(path): \(inspection.plays) play\(inspection.plays == 1 ? "" : "s"), quick_check ok"
        if !inspection.pendingMigrations.isEmpty {
            return (DoctorCheck("database", .warning, "\(summary), \(inspection.pendingMigrations.count) migration(s) to apply",
                                advice: "run `pacenote migrate` (or restart `pacenote serve`, which applies them)"), inspection)
        }
        return (DoctorCheck("database", .ok, summary), inspection)
    }

    /// Whether the user doctor runs as (run it as the service's user) may write the database,
    /// its `-wal` and `-shm` and their folder, and whether those belong to the database's
    /// owner and are writable by it: `serve` fails on any of them ("attempt to write a
    /// readonly database"), also when the database itself reads fine.
    static func databaseFiles(_ path: String) -> DoctorCheck {
        let name = "database files"
        var problems = DatabaseFileAccess.problems(databasePath: path)
        // What else the daemon writes beside it, left by a command run as root (a `backups/`
        // that `sudo pacenote backup` made stops the daemon's own backups; a `pacenote.lock`
        // from `sudo pacenote restore`, its start).
        let files = InstanceFiles(databasePath: path)
        let others = files.all.filter { $0.role != .database }.map(\.path)
        for problem in DatabaseFileAccess.ownerProblems(databasePath: path, others: others) where !problems.contains(where: { $0.path == problem.path }) {
            problems.append(problem)
        }
        guard !problems.isEmpty else {
            return DoctorCheck(name, .ok, "\(DatabaseFileAccess.userArgument(geteuid())) may write the database, its -wal and -shm and their folder")
        }
        return DoctorCheck(name, .failure, problems.map(\.detail).joined(separator: "; "),
                           advice: problems.map(\.fix).joined(separator: ", ") + "; then start pacenote again")
    }

    static func diskSpace(_ directory: String) -> DoctorCheck {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else {
            return DoctorCheck("disk space", .failure, "cannot read \(directory): \(String(cString: strerror(errno)))",
                               advice: "check that the database's folder exists")
        }
        let free = Int64(info.f_bavail) * Int64(info.f_frsize)
        let text = "\(mebibytes(free)) free where the database is (\(directory))"
        if free < diskFailBytes {
            return DoctorCheck("disk space", .failure, text,
                               advice: "free some space: plays from MPD wait in the spool meanwhile, other writes fail")
        }
        if free < diskWarnBytes {
            return DoctorCheck("disk space", .warning, text, advice: "free some space before the disk fills up")
        }
        return DoctorCheck("disk space", .ok, text)
    }

    static func spool(_ path: String) -> DoctorCheck {
        guard let found = PlaySpool.read(path: path), !found.plays.isEmpty || found.damaged > 0 else {
            return DoctorCheck("plays waiting", .ok, "none: every play from MPD is stored")
        }
        if found.plays.isEmpty {
            return DoctorCheck("plays waiting", .warning, "\(found.damaged) damaged line(s) in \(path)",
                               advice: "a write was cut short; the next start of `pacenote serve` skips them and empties the spool")
        }
        let oldest = found.plays.map(\.play.endedAt).min().map { " since \(ISO8601.string($0))" } ?? ""
        let why = found.plays.last?.error.map { ": \($0)" } ?? ""
        return DoctorCheck("plays waiting", .failure, "\(found.plays.count) play(s) from MPD wait to be stored\(oldest)\(why)",
                           advice: "free space where the database is; a running `pacenote serve` retries every minute, the next start stores them")
    }

    static func mpd(_ player: Config.MPD) -> DoctorCheck {
        let name = "mpd \(player.name)"
        let endpoint: MPDEndpoint
        do { endpoint = try player.endpoint } catch {
            return DoctorCheck(name, .failure, error.description, advice: "fix mpd.host")
        }
        let timeout = UInt32(min(max(player.connectTimeoutSeconds, 0.5), 10) * 1000)
        do {
            let version = try MPDControl.probe(endpoint: endpoint, timeoutMs: timeout)
            let password = endpoint.password == nil ? "" : ", password accepted"
            return DoctorCheck(name, .ok, "\(endpoint): protocol \(version)\(password)")
        } catch {
            switch error.kind {
            case .permission:
                return DoctorCheck(name, .failure, "\(endpoint) refused the password: \(error.message)",
                                   advice: endpoint.password == nil
                                       ? "this MPD needs a password: set mpd.password"
                                       : "check mpd.password (or the `password@` in mpd.host) against MPD's `password` setting")
            default:
                return DoctorCheck(name, .failure, "cannot reach \(endpoint): \(error.message)",
                                   advice: "is MPD running? check mpd.host and mpd.port (and MPD's bind_to_address)")
            }
        }
    }

    /// Whether MPD keeps stored playlists (`playlist_directory`): the "Liked" playlist, smart
    /// playlists and moods, and a plan's playlist are written there.
    static func playlists(_ player: Config.MPD) -> DoctorCheck {
        let name = "playlists \(player.name)"
        guard let endpoint = try? player.endpoint else { return DoctorCheck(name, .note, "not checked: mpd.host is wrong") }
        let timeout = UInt32(min(max(player.connectTimeoutSeconds, 0.5), 10) * 1000)
        do {
            let stored = try MPDQueue.playlists(endpoint: endpoint, timeoutMs: timeout)
            return DoctorCheck(name, .ok, "MPD keeps stored playlists (\(stored.count) now)")
        } catch where !error.isFatal {
            return DoctorCheck(name, .warning, "MPD keeps no stored playlists: \(error.message)",
                               advice: "set playlist_directory in mpd.conf: the Liked playlist, smart playlists and moods are written there")
        } catch {
            return DoctorCheck(name, .note, "not checked: MPD cannot be reached")
        }
    }

    /// Where `pacenote analyze` finds the files: the configured folder, else MPD's own
    /// (which it tells over a local socket only).
    static func musicDirectory(_ player: Config.MPD) -> DoctorCheck {
        let name = "music directory (\(player.name))"
        guard let directory = BPMAnalyzer.musicDirectory(player) else {
            return DoctorCheck(name, .note, "not configured, and MPD does not say over this connection (only for `pacenote analyze`)",
                               advice: "set mpd.music_directory to let `pacenote analyze` read the files")
        }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue
        guard exists, access(directory, R_OK | X_OK) == 0 else {
            let configured = player.musicDirectory != nil
            return DoctorCheck(name, configured ? .failure : .warning,
                               "\(directory) \(exists ? "cannot be read" : "is not a folder")\(configured ? "" : " (MPD's music_directory)")",
                               advice: "set mpd.music_directory to where the files are, readable by this user")
        }
        return DoctorCheck(name, .ok, "\(directory) readable")
    }

    static func keyFile(_ path: String, environment: [String: String]) -> DoctorCheck {
        if let key = environment["PACENOTE_API_KEY"], !key.isEmpty {
            return DoctorCheck("api key", .note, "from PACENOTE_API_KEY (the key file is not used)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            return DoctorCheck("api key", .note, "no key file yet at \(path): `pacenote serve` creates it (mode 0600)")
        }
        let mode = info.st_mode & 0o777
        let shown = String(mode, radix: 8)
        if mode & 0o077 != 0 {
            return DoctorCheck("api key", .failure, "\(path) is readable by others (mode 0\(shown))",
                               advice: "chmod 600 \(path), then `pacenote key --new` if others may have read it")
        }
        if info.st_uid != geteuid() {
            return DoctorCheck("api key", .failure, "\(path) belongs to uid \(info.st_uid), not to this user (uid \(geteuid()))",
                               advice: "run doctor as the user pacenote runs as, or chown that user \(path)")
        }
        return DoctorCheck("api key", .ok, "\(path): mode 0\(shown), yours")
    }

    /// Whether the networks that read everything without the key make sense for where
    /// the server listens. `chosen`: `server.trusted_networks` was set (file, environment or
    /// flag), not left to its default, which is none once `server.public_url` is set.
    static func trustedNetworks(listen: ListenAddress, trusted: [IPNetwork], proxies: [IPNetwork],
                                publicURL: String?, chosen: Bool = true) -> DoctorCheck {
        let name = "trusted networks"
        let list = trusted.isEmpty ? "none"
            : trusted == IPNetwork.homeDefaults ? "loopback and private ranges (the default)"
            : trusted.map(\.description).joined(separator: ", ")
        let loopbackOnly = ["localhost", "::1"].contains(listen.host) || listen.host.hasPrefix("127.")
        let everyone = trusted.filter { $0.prefixLength == 0 }
        if !loopbackOnly, !everyone.isEmpty {
            return DoctorCheck(name, .warning,
                               "\(everyone.map(\.description).joined(separator: ", ")) trusts every client, and it listens on \(listen)",
                               advice: "anyone who reaches \(listen) reads your history and heart rate without the key: narrow server.trusted_networks")
        }
        let loopbackTrusted = trusted.contains { $0.contains("127.0.0.1") || $0.contains("::1") }
        if publicURL != nil, loopbackTrusted {
            // A trusted proxy's X-Forwarded-For is believed, but a forwarder that sends none
            // (a bare proxy_pass, ssh -L, socat, haproxy without headers, docker-proxy) passes
            // every visitor on as this machine.
            return DoctorCheck(name, .warning, "served at a public URL, and \(list) trusted, loopback included",
                               advice: "a forwarder on this machine that adds no X-Forwarded-For (a bare proxy_pass, ssh -L, socat, "
                                   + "docker-proxy) makes every visitor trusted: remove server.trusted_networks (the default is none "
                                   + "with a public URL) or leave loopback out of it, and log in or use a key; behind nginx, set "
                                   + "server.trusted_proxies as docs/SECURITY.md shows")
        }
        let reach = loopbackOnly ? "this machine only" : ["0.0.0.0", "::"].contains(listen.host) ? "every network of this machine" : listen.host
        if publicURL != nil, trusted.isEmpty, !chosen {
            return DoctorCheck(name, .ok, "listens on \(listen) (\(reach)); trusted: none, the default with server.public_url set "
                               + "(a forwarder without X-Forwarded-For would make every visitor look local): log in or use a key")
        }
        return DoctorCheck(name, .ok, "listens on \(listen) (\(reach)); trusted: \(list)")
    }

    static func heartRate(latest: Date?, readable: Bool, now: Date) -> DoctorCheck {
        guard readable else { return DoctorCheck("heart rate", .note, "unknown (the database cannot be read)") }
        guard let latest else {
            return DoctorCheck("heart rate", .note, "no sample yet",
                               advice: "`pacenote hr-feed`, POST /api/v1/hr or `pacenote import` bring heart rate in")
        }
        return DoctorCheck("heart rate", .note, "last sample \(age(now.timeIntervalSince(latest))) ago (\(ISO8601.string(latest)))")
    }

    /// A `[[heart_rate.ble]]` strap: BlueZ answers, the adapter is there and on, and whether
    /// BlueZ has seen the strap (the daemon searches for it; a strap asleep is not seen).
    static func bluetooth(_ strap: Config.Strap) -> DoctorCheck {
        let name = "bluetooth (\(strap.source))"
        let objects: BlueZObjects
        do { objects = try HeartRateStrap.survey() } catch {
            if error.isServiceUnknown {
                return DoctorCheck(name, .failure, "BlueZ (bluetoothd) is not running",
                                   advice: "install bluez and start it: systemctl enable --now bluetooth")
            }
            if error.name == "org.freedesktop.DBus.Error.AccessDenied" {
                return DoctorCheck(name, .failure, "not allowed to use BlueZ (\(error.message))",
                                   advice: "add the user pacenote runs as to the bluetooth group")
            }
            return DoctorCheck(name, .failure, "cannot reach BlueZ on the system bus: \(error.message.isEmpty ? error.name : error.message)",
                               advice: "is D-Bus running (systemctl status dbus)?")
        }
        guard let adapter = objects.adapters(named: strap.adapter).first else {
            return DoctorCheck(name, .failure, strap.adapter.map { "no Bluetooth adapter \($0)" } ?? "no Bluetooth adapter",
                               advice: "plug one in, or check `bluetoothctl list`")
        }
        let adapterName = adapter.split(separator: "/").last.map(String.init) ?? adapter
        guard objects.isPowered(adapter) else {
            return DoctorCheck(name, .warning, "the adapter \(adapterName) is off", advice: "bluetoothctl power on")
        }
        let seen = objects.strap(address: strap.wantedAddress, adapter: adapter, kind: BLESensorKind(rawValue: strap.sensor) ?? .heartRate)
        let what = strap.wantedAddress.map { address in
            seen.map { "\($0.name ?? address) (\(address)) known\($0.connected ? ", connected" : "")" } ?? "\(address) not seen yet (worn straps are found when the daemon searches)"
        } ?? (seen.map { "first strap: \($0.name ?? $0.address) (\($0.address))" } ?? "auto: no strap seen yet")
        return DoctorCheck(name, .ok, "BlueZ answers, adapter \(adapterName) on; \(what)")
    }

    static func backup(latest: (path: String, date: Date)?, directory: String, now: Date) -> DoctorCheck {
        guard let latest else {
            return DoctorCheck("backup", .warning, "no backup in \(directory)",
                               advice: "run `pacenote backup`, or let the daemon take them (`[backup] interval`)")
        }
        let elapsed = now.timeIntervalSince(latest.date)
        let text = "last \(age(elapsed)) ago (\(latest.path))"
        if elapsed > backupMaxAge {
            return DoctorCheck("backup", .warning, text, advice: "is the daemon running? `pacenote backup` takes one now")
        }
        return DoctorCheck("backup", .ok, text)
    }

    static func mebibytes(_ bytes: Int64) -> String {
        bytes >= 10 << 30 ? "\(bytes >> 30) GiB" : "\(bytes >> 20) MiB"
    }

    /// "3 min", "5 h", "12 days".
    static func age(_ seconds: TimeInterval) -> String {
        let s = max(0, Int(seconds))
        if s < 120 { return "\(s) s" }
        if s < 7200 { return "\(s / 60) min" }
        if s < 172_800 { return "\(s / 3600) h" }
        return "\(s / 86400) days"
    }
}
