import Foundation
import PacenoteCore

/// One finding of `pacenote doctor`: what was checked, what was found and, when it is not
/// fine, what to do.
public struct DoctorCheck: Equatable, Sendable {
    public enum Outcome: Int, Comparable, Sendable {
        /// Informational: nothing to judge (no heart-rate source yet, a check that does not apply).
        case note
        case ok
        /// Works now, but deserves a look (little free space, an old backup, a risky trust).
        case warning
        /// Broken: Pacenote cannot do its job, or will lose or leak data.
        case failure

        public static func < (a: Outcome, b: Outcome) -> Bool { a.rawValue < b.rawValue }
    }

    public var name: String
    public var outcome: Outcome
    public var detail: String
    /// What to do about it (shown unless the check passed).
    public var advice: String?

    public init(_ name: String, _ outcome: Outcome, _ detail: String, advice: String? = nil) {
        self.name = name
        self.outcome = outcome
        self.detail = detail
        self.advice = advice
    }
}

/// `pacenote doctor`: every check of an installation, in the order a user would fix them.
/// Nothing is created or changed: the database is opened read-only, the spool is only read.
public enum Doctor {
    /// The checks that need a valid configuration (`Doctor.configuration` comes before).
    public static func run(config: Config, environment: [String: String], now: Date = Date()) -> [DoctorCheck] {
        let files = InstanceFiles(config: config)
        // The files' modes and owners before SQLite opens the database to inspect it (a
        // read-only connection may make and remove its own -wal and -shm).
        let filesCheck = databaseFiles(config.databasePath)
        let (databaseCheck, inspection) = database(config: config)
        var checks = [configuration(config), databaseCheck, filesCheck, diskSpace(files.directory), durability(files.directory), spool(files.spool)]
        for player in config.players { checks.append(mpd(player)) }
        if let first = config.players.first { checks.append(playlists(first)) }
        for player in config.players { checks.append(musicDirectory(player)) }
        if config.tempo.enabled { checks.append(tempo(config)) }
        checks.append(keyFile(files.apiKey, environment: environment))
        checks.append(trustedNetworks(listen: config.http, trusted: config.trustedNetworks, proxies: config.trustedProxies,
                                      publicURL: config.publicURL, chosen: config.origins["server.trusted_networks"] != "default"))
        checks.append(heartRate(latest: inspection?.latestHeartRate, readable: inspection != nil, now: now))
        for strap in config.straps { checks.append(bluetooth(strap)) }
        checks.append(backup(latest: Backups.latest(config: config).map { ($0.path, $0.date) }, directory: config.backupDirectory,
                             now: now))
        return checks
    }

    /// The exit status: 1 when a check failed (or, with `strict`, warned), else 0.
    public static func status(_ checks: [DoctorCheck], strict: Bool = false) -> Int32 {
        let worst = checks.map(\.outcome).max() ?? .ok
        return worst == .failure || (strict && worst == .warning) ? 1 : 0
    }

    /// The report: one line per check, the advice indented under it, and a summary line.
    /// `symbols`: ✓ ✗ ! · on a terminal; plain words otherwise (logs, mail from cron).
    public static func report(_ checks: [DoctorCheck], symbols: Bool) -> String {
        var lines: [String] = []
        for check in checks {
            let mark = switch check.outcome {
            case .ok: symbols ? "✓" : "ok  "
            case .note: symbols ? "·" : "info"
            case .warning: symbols ? "!" : "WARN"
            case .failure: symbols ? "✗" : "FAIL"
            }
            lines.append("\(mark) \(check.name): \(check.detail)")
            if check.outcome != .ok, let advice = check.advice {
                lines.append("    \(symbols ? "→" : "->") \(advice)")
            }
        }
        let failed = checks.filter { $0.outcome == .failure }.count
        let warned = checks.filter { $0.outcome == .warning }.count
        lines.append(failed == 0 && warned == 0
            ? "all \(checks.count) check\(checks.count == 1 ? "" : "s") passed"
            : "\(failed) failed, \(warned) warning\(warned == 1 ? "" : "s") (of \(checks.count) check\(checks.count == 1 ? "" : "s"))")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The failure line for a configuration that does not load.
    public static func configuration(error: ConfigError) -> DoctorCheck {
        // A file named by --config or PACENOTE_CONFIG that is not there: no key to fix.
        let missing = "no such file: "
        if error.key == "config", error.message.hasPrefix(missing) {
            let path = String(error.message.dropFirst(missing.count))
            let given = error.origin ?? "--config"
            return DoctorCheck("configuration", .failure, error.description,
                               advice: "create it: copy docs/pacenote.example.toml (every key, commented) to \(path), or run "
                                   + "`pacenote config > \(path)` without \(given) (the defaults in effect); or leave \(given) out")
        }
        return DoctorCheck("configuration", .failure, error.description,
                           advice: "fix that key (every key is documented in docs/pacenote.example.toml; `pacenote config` prints what is in effect)")
    }

    static func configuration(_ config: Config) -> DoctorCheck {
        let file = config.file.map { FileManager.default.fileExists(atPath: $0) ? "valid (\($0))" : "valid (defaults; no file at \($0))" }
        return DoctorCheck("configuration", .ok, file ?? "valid (defaults)")
    }
}
