import PacenoteCore
import PacenoteWeb

/// Renders the effective configuration as TOML, each line annotated with its origin.
/// Secrets are masked.
public enum ConfigPrinter {
    public static func toml(_ c: Config) -> String {
        func q(_ s: String) -> String {
            var out = "\""
            for ch in s.unicodeScalars {
                switch ch {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                default:
                    if ch.value < 0x20 || ch.value == 0x7F {
                        let h = String(ch.value, radix: 16, uppercase: true)
                        out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                    } else {
                        out.unicodeScalars.append(ch)
                    }
                }
            }
            return out + "\""
        }
        func line(_ key: String, _ value: String) -> String {
            let name = String(key.split(separator: ".").last!)
            return "\(name) = \(value)".padding(toLength: 40, withPad: " ", startingAt: 0) + " # \(c.origins[key] ?? "default")"
        }
        let host = c.mpd.host.contains("@") && !c.mpd.host.hasPrefix("@")
            ? "***@" + c.mpd.host.split(separator: "@").last! : c.mpd.host
        var out: [String] = []
        out.append("# Effective configuration" + (c.file.map { " (file: \($0))" } ?? " (no configuration file)"))
        out.append("")
        out.append("[server]")
        out.append(line("server.http", q(c.http.description)))
        out.append(line("server.base_path", q(c.basePath)))
        out.append(line("server.max_body_bytes", String(c.maxBodyBytes)))
        out.append(line("server.http_threads", String(c.httpThreads)))
        out.append(line("server.public_url", q(c.publicURL ?? "")))
        out.append(line("server.max_import_bytes", String(c.maxImportBytes)))
        func list(_ networks: [IPNetwork]) -> String {
            networks.isEmpty ? "\"none\"" : "[" + networks.map { q($0.description) }.joined(separator: ", ") + "]"
        }
        out.append(line("server.trusted_networks", list(c.trustedNetworks)))
        out.append(line("server.trusted_proxies", list(c.trustedProxies)))
        out.append(line("server.public_dir", q(c.publicDirectory ?? "")))
        out.append("")
        out.append("[database]")
        out.append(line("database.path", q(c.databasePath)))
        out.append("")
        out.append("[display]")
        out.append(line("display.timezone", q(c.timeZone.identifier)))
        out.append("")
        out.append("[log]")
        out.append(line("log.level", q(c.logLevel.rawValue)))
        out.append("")
        for (index, player) in c.players.enumerated() {
            // Origins are known per key for the default player; the others come from the file.
            func origin(_ key: String) -> String? { index == 0 ? nil : c.file.map { "\($0)" } }
            func entry(_ key: String, _ value: String) -> String {
                guard index > 0 else { return line(key, value) }
                let name = String(key.split(separator: ".").last!)
                return "\(name) = \(value)".padding(toLength: 40, withPad: " ", startingAt: 0) + " # \(origin(key) ?? "default")"
            }
            let shownHost = player.host.contains("@") && !player.host.hasPrefix("@")
                ? "***@" + player.host.split(separator: "@").last! : player.host
            out.append(c.players.count > 1 ? "[[mpd]]" : "[mpd]")
            out.append(entry("mpd.name", q(player.name)))
            out.append(entry("mpd.host", q(index == 0 ? host : shownHost)))
            out.append(entry("mpd.port", player.port.map(String.init) ?? "6600"))
            out.append(entry("mpd.password", q(player.password == nil ? "" : "***")))
            out.append(entry("mpd.connect_timeout_s", "\(player.connectTimeoutSeconds)"))
            out.append(entry("mpd.reconnect_initial_s", "\(player.reconnectInitialSeconds)"))
            out.append(entry("mpd.reconnect_max_s", "\(player.reconnectMaxSeconds)"))
            out.append(entry("mpd.save_interval_s", "\(player.saveIntervalSeconds)"))
            if let dir = player.musicDirectory { out.append(entry("mpd.music_directory", q(dir))) }
            out.append("")
        }
        out.append("[heart_rate]")
        out.append(line("heart_rate.zone_model", q(c.heartRate.zoneModel)))
        out.append(line("heart_rate.max_hr", String(c.heartRate.effectiveMaxHR)))
        if let age = c.heartRate.age { out.append(line("heart_rate.age", String(age))) }
        if let resting = c.heartRate.restingHR { out.append(line("heart_rate.resting_hr", String(resting))) }
        if let lthr = c.heartRate.lthr { out.append(line("heart_rate.lthr", String(lthr))) }
        if let bounds = c.heartRate.zoneBounds {
            out.append(line("heart_rate.zone_bounds", "[" + bounds.map(String.init).joined(separator: ", ") + "]"))
        }
        out.append(line("heart_rate.workout_start_after_s", "\(c.heartRate.workoutStartAfterSeconds)"))
        out.append(line("heart_rate.workout_end_after_s", "\(c.heartRate.workoutEndAfterSeconds)"))
        out.append(line("heart_rate.fresh_for_s", "\(c.heartRate.freshForSeconds)"))
        out.append("")
        out.append("[recommender]")
        for zone in Zone.allCases {
            let w = c.recommender.tempo.window(for: zone)
            out.append(line("recommender.tempo_z\(zone.rawValue)", "[\(w.lowerBound), \(w.upperBound)]"))
        }
        out.append(line("recommender.recent_hours", "\(c.recommender.recentHours)"))
        out.append(line("recommender.auto_queue", "\(c.recommender.autoQueue)"))
        out.append(line("recommender.cadence", "\(c.recommender.cadence)"))
        out.append(line("recommender.exploration", "\(c.recommender.exploration)"))
        out.append("")
        out.append("[plays]")
        out.append(line("plays.min_track_s", "\(c.playRule.minimumDuration)"))
        out.append(line("plays.min_fraction", "\(c.playRule.fraction)"))
        out.append(line("plays.always_count_after_s", "\(c.playRule.sufficientSeconds)"))
        out.append(line("plays.stream_count_after_s", "\(c.playRule.streamSeconds)"))
        return out.joined(separator: "\n")
    }
}
