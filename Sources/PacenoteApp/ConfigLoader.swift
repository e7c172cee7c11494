import Foundation
import PacenoteCore

/// Reads the configuration in the documented order — defaults, the TOML file, the
/// environment, the flags — through the declarations in `ConfigSchema`, recording where each
/// key's value came from (`default`, `PATH:LINE`, `env NAME`, `--flag`).
public enum ConfigLoader {
    /// Reads the file (if any), the environment and the flags into a validated `Config`.
    public static func load(flags: ConfigFlags, environment: [String: String]) throws(ConfigError) -> Config {
        let dirs = XDGDirectories(environment: environment)
        var config = Config(databasePath: dirs.dataHome + "/pacenote/pacenote.sqlite")
        for key in ConfigSchema.keys { config.origins[key] = "default" }

        // 1. The file: --config, else PACENOTE_CONFIG, else the XDG location if it exists.
        let explicit = flags.config.map { ($0, "--config") } ?? environment["PACENOTE_CONFIG"].map { ($0, "env PACENOTE_CONFIG") }
        let path = explicit?.0 ?? dirs.configHome + "/pacenote/config.toml"
        if let explicit, !FileManager.default.fileExists(atPath: explicit.0) {
            throw ConfigError(key: "config", message: "no such file: \(explicit.0)", origin: explicit.1)
        }
        if FileManager.default.fileExists(atPath: path) {
            try applyFile(path, to: &config)
        }

        // 2. The environment; a list section's variables set its first table.
        for section in ConfigSchema.sections {
            for key in section.keys {
                for name in key.environment {
                    guard let value = environment[name], !value.isEmpty else { continue }
                    try apply(section, key, .text(value), to: &config, origin: "env \(name)")
                }
            }
        }

        // 3. The flags.
        for section in ConfigSchema.sections {
            for key in section.keys {
                guard let flag = key.flag, let value = flags[keyPath: flag.value] else { continue }
                for (name, text) in flag.expand?(value) ?? [(key.name, value)] {
                    try apply(section, section.key(name)!, .text(text), to: &config, origin: flag.name)
                }
            }
        }

        // Served at a public address, every visitor may arrive through a forwarder on this
        // machine that adds no X-Forwarded-For (a bare proxy_pass, ssh -L, socat, Docker's
        // userland proxy) and so look like a loopback client: unless the owner chose trusted
        // networks, none are trusted then (issue 51; docs/SECURITY.md).
        if config.publicURL != nil, config.origins["server.trusted_networks"] == "default" {
            config.trustedNetworks = []
        }
        config.databasePath = dirs.expand(config.databasePath)
        config.backup.directory = config.backup.directory.map(dirs.expand)
        config.databaseIsDefault = config.origins["database.path"] == "default"
        for section in ConfigSchema.sections {
            try section.validate(config)
            guard let list = section.list, let uniqueKey = list.uniqueKey else { continue }
            // The environment may have renamed the first table after the file was read.
            let names = (0..<list.count(config)).map { list.identity(config, $0) }
            if let duplicate = Dictionary(grouping: names, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                let key = section.path(uniqueKey, element: 0)
                throw ConfigError(key: key, message: "'\(duplicate)' names two \(list.noun); \(uniqueKey)s must differ",
                                  origin: config.origins[key])
            }
        }
        return config
    }

    /// Reads one value into the section's table (or its list's table at `element`); a
    /// problem becomes an error naming `name` (the key, or `mpd[2].port` in a list) and
    /// `origin`, with any secret masked.
    private static func apply(_ section: AnyConfigSection, _ key: AnyConfigSection.Key, _ input: ConfigInput,
                              to config: inout Config, element: Int = 0, name: String? = nil, origin: String) throws(ConfigError) {
        // The environment or a flag for a list that is empty by default makes its first table.
        if let list = section.list, list.count(config) <= element { list.append(&config) }
        do {
            try key.read(input, &config, element)
        } catch {
            var message = error.message
            if key.secret != .none, let raw = input.text, !raw.isEmpty {
                message = message.replacingOccurrences(of: raw, with: key.secret.mask(raw))
            }
            throw ConfigError(key: name ?? section.path(key.name, element: element), message: message, origin: origin)
        }
        config.origins[section.path(key.name, element: element)] = origin
    }

    private static func applyFile(_ path: String, to config: inout Config) throws(ConfigError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(key: "config", message: "cannot read \(path): \(error.localizedDescription)")
        }
        let root: TOMLTable
        do {
            root = try TOML.parse(text)
        } catch {
            throw ConfigError(key: "config", message: "\(path): \(error.description)")
        }
        config.file = path
        for name in root.keys {
            try applySection(named: name, root[name], line: root.line(of: name) ?? 0, file: path, to: &config)
        }
    }

    /// A top-level table or list of tables, or one inside a section (`[[heart_rate.ble]]`).
    private static func applySection(named name: String, _ value: TOMLValue?, line: Int, file path: String,
                                     to config: inout Config) throws(ConfigError) {
        switch (ConfigSchema.section(name), value) {
        case (let section?, .table?) where section.list?.startsEmpty == true:
            throw ConfigError(key: name, message: "a list: write one [[\(name)]] table per item", origin: "\(path):\(line)")
        case (let section?, .table(let table)?):
            try applyTable(table, of: section, element: 0, listed: false, file: path, line: line, to: &config)
        case (let section?, .array(let items)?) where section.list != nil:
            try applyList(items, of: section, file: path, line: line, to: &config)
        case (nil, .table(let table)?) where !table.keys.isEmpty:
            // An unknown table: name its first key, which may be a misspelt known one.
            let key = table.keys[0], full = "\(name).\(key)"
            let hint = suggestion(for: full).map { "; did you mean \($0)?" } ?? " (see docs/pacenote.example.toml)"
            throw ConfigError(key: full, message: "unknown key\(hint)", origin: "\(path):\(table.line(of: key) ?? line)")
        default:
            throw ConfigError(key: name, message: "unknown key (see docs/pacenote.example.toml)", origin: "\(path):\(line)")
        }
    }

    /// One table's keys. In a `[[list]]` (`listed`), errors name the table: `mpd[2].prot`.
    private static func applyTable(_ table: TOMLTable, of section: AnyConfigSection, element: Int, listed: Bool,
                                   file path: String, line: Int, to config: inout Config) throws(ConfigError) {
        for name in table.keys {
            let full = "\(section.name).\(name)"
            let shown = listed ? "\(section.name)[\(element + 1)].\(name)" : full
            let origin = "\(path):\(table.line(of: name) ?? line)"
            // A section inside this one: `[[heart_rate.ble]]` is `ble` in `[heart_rate]`.
            if !listed, ConfigSchema.section(full) != nil {
                try applySection(named: full, table[name], line: table.line(of: name) ?? line, file: path, to: &config)
                continue
            }
            guard let key = section.key(name) else {
                let hint = suggestion(for: full).map { "; did you mean \($0)?" } ?? (listed ? "" : " (see docs/pacenote.example.toml)")
                throw ConfigError(key: shown, message: "unknown key\(hint)", origin: origin)
            }
            try apply(section, key, .toml(table[name]!), to: &config, element: element, name: shown, origin: origin)
        }
    }

    /// `[[name]]` tables: they replace the list's default table, one element each. A list
    /// that starts empty (`[[rules]]`) may stay so (`rules = []`).
    private static func applyList(_ items: [TOMLValue], of section: AnyConfigSection, file path: String, line: Int,
                                  to config: inout Config) throws(ConfigError) {
        guard let list = section.list else { return }
        list.reset(&config)
        for (index, item) in items.enumerated() {
            guard case .table(let table) = item else {
                throw ConfigError(key: section.name, message: "expected [[\(section.name)]] tables", origin: "\(path):\(line)")
            }
            list.append(&config)
            try applyTable(table, of: section, element: index, listed: true, file: path, line: line, to: &config)
            list.complete(&config, index, Set(table.keys))
            if let missing = list.required.first(where: { table[$0] == nil }) {
                throw ConfigError(key: section.listedPath(missing, element: index),
                                  message: "missing: each [[\(section.name)]] table sets \(list.required.joined(separator: ", "))",
                                  origin: "\(path):\(table.keys.first.flatMap { table.line(of: $0) } ?? line)")
            }
            guard let uniqueKey = list.uniqueKey else { continue }
            let identity = list.identity(config, index)
            if (0..<index).contains(where: { list.identity(config, $0) == identity }) {
                throw ConfigError(key: "\(section.name)[\(index + 1)].\(uniqueKey)",
                                  message: "'\(identity)' names two \(list.noun); \(uniqueKey)s must differ",
                                  origin: "\(path):\(table.line(of: uniqueKey) ?? line)")
            }
        }
        guard list.count(config) > 0 || list.startsEmpty else {
            throw ConfigError(key: section.name, message: "[[\(section.name)]] lists no \(list.noun.dropLast())", origin: "\(path):\(line)")
        }
    }

    /// A known key that differs by at most two edits, for "did you mean" hints.
    static func suggestion(for key: String) -> String? {
        ConfigSchema.keys.min { editDistance($0, key) < editDistance($1, key) }.flatMap { editDistance($0, key) <= 2 ? $0 : nil }
    }

    private static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}

/// The XDG base directories (https://specifications.freedesktop.org/basedir-spec/latest/).
struct XDGDirectories {
    let home: String
    let dataHome: String
    let configHome: String

    init(environment: [String: String]) {
        home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        // Relative XDG paths are invalid per the spec and must be ignored.
        func absolute(_ name: String) -> String? {
            environment[name].flatMap { $0.hasPrefix("/") ? $0 : nil }
        }
        dataHome = absolute("XDG_DATA_HOME") ?? home + "/.local/share"
        configHome = absolute("XDG_CONFIG_HOME") ?? home + "/.config"
    }

    /// Expands a leading `~/`.
    func expand(_ path: String) -> String {
        path == "~" ? home : path.hasPrefix("~/") ? home + path.dropFirst() : path
    }
}
