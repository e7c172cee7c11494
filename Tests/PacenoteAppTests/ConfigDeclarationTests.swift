import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteApp

/// `pacenote config`'s output, read by whole key: `mpd.port` is the `port` line of the first
/// `[mpd]`/`[[mpd]]` table, `mpd[2].port` of the second, never a `port` line elsewhere.
struct PrintedConfig {
    let text: String
    /// Full key → (the value as written, or nil when the key is a comment; the origin comment).
    private(set) var entries: [String: (value: String?, comment: String)] = [:]

    init(_ text: String) {
        self.text = text
        var section = ""
        var element = 0
        var seen: [String: Int] = [:]
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("[[") {
                section = String(line.dropFirst(2).dropLast(2))
                element = seen[section, default: -1] + 1
                seen[section] = element
            } else if line.hasPrefix("[") {
                section = String(line.dropFirst().dropLast())
                element = 0
            } else if let split = line.range(of: " # ", options: .backwards), !section.isEmpty {
                let body = line[..<split.lowerBound].trimmingCharacters(in: .whitespaces)
                let unset = body.hasPrefix("# ")
                let parts = (unset ? String(body.dropFirst(2)) : body).split(separator: "=", maxSplits: 1)
                let name = parts[0].trimmingCharacters(in: .whitespaces)
                let key = element == 0 ? "\(section).\(name)" : "\(section)[\(element + 1)].\(name)"
                let value = unset ? nil : parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
                entries[key] = (value, String(line[split.upperBound...]))
            }
        }
    }

    func value(of key: String) -> String? { entries[key]?.value }
    func comment(of key: String) -> String? { entries[key]?.comment }
}

/// Loads `toml` as the file `c.toml`, with `env` and `flags` over it.
func loadConfigFile(_ toml: String, env: [String: String] = [:], flags: ConfigFlags = ConfigFlags()) throws -> Config {
    let dir = try TemporaryDirectory()
    try toml.write(toFile: dir.file("c.toml"), atomically: true, encoding: .utf8)
    var flags = flags
    flags.config = dir.file("c.toml")
    return try ConfigLoader.load(flags: flags, environment: ["HOME": "/home/listener"].merging(env) { $1 })
}

@Suite struct ConfigDeclarationTests {
    static let examplePath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("docs/pacenote.example.toml").path

    private func load(_ toml: String, env: [String: String] = [:], flags: ConfigFlags = ConfigFlags()) throws -> Config {
        try loadConfigFile(toml, env: env, flags: flags)
    }

    /// The configuration without what records how it was loaded.
    private func values(_ c: Config) -> Config {
        var c = c
        c.origins = [:]
        c.file = nil
        c.databaseIsDefault = true
        return c
    }

    /// docs/pacenote.example.toml is written from the declarations:
    /// `PACENOTE_WRITE_EXAMPLE=1 swift test --filter ConfigDeclarationTests` rewrites it.
    @Test func theExampleFileIsTheOneTheDeclarationsWrite() throws {
        let written = ConfigPrinter.example()
        if ProcessInfo.processInfo.environment["PACENOTE_WRITE_EXAMPLE"] == "1" {
            try written.write(toFile: Self.examplePath, atomically: true, encoding: .utf8)
        }
        let shipped = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        #expect(shipped == written, "docs/pacenote.example.toml differs from ConfigPrinter.example(); rewrite it with PACENOTE_WRITE_EXAMPLE=1")
    }

    /// Whatever wrote it: every declared key is in the example (set, or commented out) in its
    /// own section, no other key is, and the example's values are the defaults.
    @Test func theExampleDocumentsExactlyTheDeclaredKeysWithTheirDefaults() throws {
        let text = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        var section = ""
        var documented: [String] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("[") && !line.hasPrefix("[[") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            // A list that is empty by default is shown as one table, commented out.
            if line.hasPrefix("# [[") {
                section = String(line.dropFirst(4).dropLast(2))
                continue
            }
            // `key = value` or `# key = value`, at the start of the line: not the indented
            // sample tables or prose in comments.
            let body = line.hasPrefix("# ") ? line.dropFirst(2) : line
            guard !section.isEmpty, let equals = body.range(of: " = "),
                  body[..<equals.lowerBound].allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "_" }) else { continue }
            documented.append("\(section).\(body[..<equals.lowerBound])")
        }
        #expect(documented == ConfigSchema.keys)
        #expect(Set(documented).count == documented.count, "a key is documented twice")

        let home = "/home/listener"
        let example = try ConfigLoader.load(flags: ConfigFlags(config: Self.examplePath), environment: ["HOME": home])
        let defaults = try ConfigLoader.load(flags: ConfigFlags(), environment: ["HOME": home])
        #expect(values(example) == values(defaults))
        #expect(example.origins["server.http"] == "\(Self.examplePath):\(lineNumber(of: "http = ", in: text))")
    }

    @Test func everyKeyIsDocumentedAndSecretsAreMaskedInTheExample() {
        for section in ConfigSchema.sections {
            #expect(!section.keys.isEmpty && !section.keys[0].doc.isEmpty, "\(section.name) starts with an undocumented key")
            for key in section.keys where key.secret != .none {
                #expect(key.example == nil || key.example == "\"\"", "\(section.name).\(key.name) shows a secret")
            }
        }
    }

    @Test func secretsAreMaskedInThePrinterAndInErrors() throws {
        let c = try load("""
            [[mpd]]
            name = "kitchen"
            password = "hunter2"
            [[mpd]]
            name = "studio"
            host = "s3cret@studio.lan"
            """)
        let printed = PrintedConfig(ConfigPrinter.toml(c))
        #expect(!printed.text.contains("hunter2") && !printed.text.contains("s3cret"))
        #expect(printed.value(of: "mpd.password") == "\"***\"")
        #expect(printed.comment(of: "mpd.password")?.hasSuffix("c.toml:3, masked") == true)
        #expect(printed.value(of: "mpd[2].host") == "\"***@studio.lan\"")
        #expect(printed.value(of: "mpd[2].password") == nil)   // unset, a comment
        #expect(String(describing: c.players[1]).contains("***@studio.lan") && !String(describing: c.players).contains("s3cret"))
        #expect {
            _ = try load("[mpd]\nname = \"a\"\n", env: ["MPD_HOST": "s3cret@host:99999"])
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("mpd.host (env MPD_HOST): '***@host:99999'") && !text.contains("s3cret")
        }
    }

    @Test func longValuesPrintWholeAndTheOutputReadsBackTheSame() throws {
        let long = "/home/listener/.local/share/pacenote/a-folder-with-a-rather-long-name/pacenote.sqlite"
        let c = try load("""
            [server]
            public_url = "https://music.example.org/pacenote/and/a/long/path"
            trusted_proxies = ["127.0.0.1", "10.1.0.0/16"]
            base_path = "/pacenote"
            [database]
            path = "\(long)"
            [display]
            timezone = "America/Argentina/Buenos_Aires"
            [[mpd]]
            name = "kitchen"
            port = 6601
            music_directory = "/srv/music"
            [[mpd]]
            name = "studio"
            host = "/run/mpd/socket"
            [heart_rate]
            zone_model = "custom"
            zone_bounds = [95, 114, 133, 152, 171]
            age = 40
            [recommender]
            tempo_z4 = [128, 142.5]
            auto_queue = true
            [plays]
            min_fraction = 0.6
            """, env: ["PACENOTE_HTTP_THREADS": "8"], flags: ConfigFlags(logLevel: "debug"))
        let text = ConfigPrinter.toml(c)
        let printed = PrintedConfig(text)
        #expect(printed.value(of: "database.path") == "\"\(long)\"")
        #expect(printed.comment(of: "database.path")?.hasSuffix("c.toml:6") == true)
        #expect(text.contains("path = \"\(long)\"  # "))
        #expect(printed.value(of: "display.timezone") == "\"America/Argentina/Buenos_Aires\"")
        #expect(printed.comment(of: "server.http_threads") == "env PACENOTE_HTTP_THREADS")
        #expect(printed.comment(of: "log.level") == "--log-level")
        #expect(printed.comment(of: "heart_rate.max_hr") == "default (unset; this value is in effect)")

        _ = try TOML.parse(text)
        let again = try load(text)
        #expect(values(again) == values(c))
        #expect(values(try load(ConfigPrinter.toml(try load("")))) == values(try load("")))
    }

    @Test func instanceFilesNameEverythingBesideTheDatabase() {
        let files = InstanceFiles(databasePath: "/var/lib/pacenote/pacenote.sqlite")
        #expect(files.directory == "/var/lib/pacenote")
        #expect(files.all.map(\.path) == [
            "/var/lib/pacenote/pacenote.sqlite", "/var/lib/pacenote/pacenote.sqlite-wal", "/var/lib/pacenote/pacenote.sqlite-shm",
            "/var/lib/pacenote/api-key", "/var/lib/pacenote/scrobbler-secret", "/var/lib/pacenote/covers", "/var/lib/pacenote/hr-feed-buffer.jsonl",
            "/var/lib/pacenote/spool.jsonl", "/var/lib/pacenote/backups", "/var/lib/pacenote/tmp", "/var/lib/pacenote/pacenote.lock",
        ])
        #expect(files.all.filter(\.isDirectory).map(\.path) == [files.covers, files.backups, files.temporary])
        #expect(files.all.filter { $0.role == .database }.count == 3)
        #expect(files.hrFeedBuffer == "/var/lib/pacenote/hr-feed-buffer.jsonl")
        #expect(APIKey.path(forDatabase: files.database) == files.apiKey)
        #expect(InstanceFiles(databasePath: "p.sqlite").apiKey == "./api-key")
        var config = Config(databasePath: "/data/p.sqlite")
        config.databaseIsDefault = false
        #expect(InstanceFiles(config: config).covers == "/data/covers")
    }

    private func lineNumber(of prefix: String, in text: String) -> Int {
        text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix(prefix) }! + 1
    }
}
