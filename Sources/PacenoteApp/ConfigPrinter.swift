import PacenoteCore

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
        out.append("[mpd]")
        out.append(line("mpd.name", q(c.mpd.name)))
        out.append(line("mpd.host", q(host)))
        out.append(line("mpd.port", c.mpd.port.map(String.init) ?? "6600"))
        out.append(line("mpd.password", q(c.mpd.password == nil ? "" : "***")))
        out.append(line("mpd.connect_timeout_s", "\(c.mpd.connectTimeoutSeconds)"))
        out.append(line("mpd.reconnect_initial_s", "\(c.mpd.reconnectInitialSeconds)"))
        out.append(line("mpd.reconnect_max_s", "\(c.mpd.reconnectMaxSeconds)"))
        return out.joined(separator: "\n")
    }
}
