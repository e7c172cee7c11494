import PacenoteCore

/// Writes configuration as TOML from the declarations in `ConfigSchema`: the effective
/// values with their origins (`pacenote config`), and the documented example file.
/// Secrets are masked in both.
public enum ConfigPrinter {
    /// The effective configuration, each key with where its value came from. It is valid
    /// TOML: read back, it gives the same configuration (secrets aside, which show as `***`).
    /// Keys that are unset are comments, with the value in effect where there is one.
    public static func toml(_ c: Config) -> String {
        var out = ["# Effective configuration" + (c.file.map { " (file: \($0))" } ?? " (no configuration file)")]
        for section in ConfigSchema.sections {
            let count = section.count(c)
            let startsEmpty = section.list?.startsEmpty == true
            if startsEmpty && count == 0 {
                out.append("")
                out.append("# No [[\(section.name)]] (the default)")
            }
            for element in 0..<count {
                out.append("")
                out.append(section.list != nil && (count > 1 || startsEmpty) ? "[[\(section.name)]]" : "[\(section.name)]")
                for key in section.keys {
                    let origin = c.origins[section.path(key.name, element: element)] ?? "default"
                    if let value = key.show(c, element) {
                        let masked = mask(value, key.secret)
                        out.append(annotated("\(key.name) = \(masked)", masked == value ? origin : "\(origin), masked"))
                    } else if let value = key.inEffect(c, element) {
                        out.append(annotated("# \(key.name) = \(value)", "\(origin) (unset; this value is in effect)"))
                    } else {
                        out.append(annotated("# \(key.name)", "\(origin) (unset)"))
                    }
                }
            }
        }
        return out.joined(separator: "\n")
    }

    /// docs/pacenote.example.toml: every key with its documentation, environment variables
    /// and flag, set to its default, or commented out with an example where it has none.
    /// A list that is empty by default (`[[rules]]`) is shown as one table, commented out.
    public static func example() -> String {
        var out = exampleHeader
        for section in ConfigSchema.sections {
            var defaults = Config(databasePath: "")
            let startsEmpty = section.list?.startsEmpty == true
            if startsEmpty { section.list?.append(&defaults) }
            let set = startsEmpty ? "# " : ""
            out.append("")
            if !section.doc.isEmpty { out += commented(section.doc) + (startsEmpty ? [""] : []) }
            out.append(startsEmpty ? "# [[\(section.name)]]" : "[\(section.name)]")
            for (index, key) in section.keys.enumerated() {
                if !key.doc.isEmpty {
                    if index > 0 { out.append("") }
                    out += commented(key.doc)
                }
                let sources = (key.environment.isEmpty ? [] : ["Environment: \(key.environment.joined(separator: ", "))."])
                    + (key.flag.map { ["Flag: \($0.name) \($0.argument)."] } ?? [])
                if !sources.isEmpty { out.append("# " + sources.joined(separator: " ")) }
                switch key.secret {
                case .none: break
                case .whole: out.append("# A secret: `pacenote config` and error messages show it as ***.")
                case .beforeAt: out.append("# A password in it is a secret: `pacenote config` and error messages show ***@host.")
                case .url: out.append("# A password (user:***@host) or a token in its query (token=***) is shown masked, everywhere.")
                }
                if let example = key.example {
                    out.append("# \(key.name) = \(example)")
                } else if let value = key.show(defaults, 0) {
                    out += wrapped("\(key.name) = \(value)").map { set + $0 }
                } else {
                    out.append("# \(key.name) = \(key.inEffect(defaults, 0) ?? "")")
                }
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// A long array over several lines, its items aligned under the first.
    private static func wrapped(_ line: String, width: Int = 92) -> [String] {
        guard line.count > width, let open = line.firstIndex(of: "["), line.hasSuffix("]") else { return [line] }
        let indent = String(repeating: " ", count: line.distance(from: line.startIndex, to: open) + 1)
        var lines = [String(line[...open])]
        for item in line[line.index(after: open)..<line.index(before: line.endIndex)].split(separator: ", ") {
            let last = lines[lines.count - 1]
            let next = last.hasSuffix("[") ? last + item : last + ", " + item
            if next.count + 2 > width {
                lines[lines.count - 1] += ","
                lines.append(indent + item)
            } else {
                lines[lines.count - 1] = next
            }
        }
        lines[lines.count - 1] += "]"
        return lines
    }

    /// The origin as a comment after the whole value, aligned where the value is short.
    private static func annotated(_ text: String, _ comment: String) -> String {
        (text.count < 40 ? text.padding(toLength: 40, withPad: " ", startingAt: 0) : text + " ") + " # " + comment
    }

    /// A secret's TOML literal with the secret part replaced by `***`.
    static func mask(_ literal: String, _ secret: ConfigSecret) -> String {
        guard secret != .none, literal.count >= 2, literal.hasPrefix("\""), literal.hasSuffix("\"") else { return literal }
        return "\"" + secret.mask(String(literal.dropFirst().dropLast())) + "\""
    }

    private static func commented(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "#" : "# \($0)" }
    }

    private static let exampleHeader = """
        # Pacenote configuration — every key, with its default.
        #
        # Copy this file to ~/.config/pacenote/config.toml (or $XDG_CONFIG_HOME/pacenote/config.toml),
        # or pass it with `pacenote --config PATH` / PACENOTE_CONFIG=PATH.
        #
        # Precedence, lowest to highest: built-in defaults, this file, environment variables, flags.
        # `pacenote config` prints the effective value of every key and where it came from.
        # Unknown keys are an error (with a "did you mean" hint), so typos never pass silently.
        # TOML reference: https://toml.io/en/v1.0.0
        #
        # This file is written from the declarations in Sources/PacenoteApp/Config+*.swift
        # (ConfigPrinter.example()); ConfigTests checks that it still matches them.
        """.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
}
