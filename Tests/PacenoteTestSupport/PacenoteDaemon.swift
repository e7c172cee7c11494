import Foundation

/// `pacenote serve` on a free port with its own database and configuration, as a user
/// runs it; restartable (gracefully or with SIGKILL) on the same database.
public final class PacenoteDaemon: @unchecked Sendable {
    // @unchecked Sendable: used by the one test that owns it.
    public let dir: TemporaryDirectory
    public private(set) var process: PacenoteProcess
    public private(set) var port: UInt16 = 0
    private let arguments: [String]
    private let environment: [String: String]
    private let binary: String?

    public var db: String { dir.file("pacenote.sqlite") }
    public var base: String { "http://127.0.0.1:\(port)" }
    public var statusURL: String { base + "/api/v1/status" }

    /// - Parameters:
    ///   - mpd: `--mpd` (omit when the configuration lists the players).
    ///   - config: TOML appended to the test defaults (short reconnect delays).
    ///   - binary: another copy of the executable (default: the one built beside the tests).
    public init(mpd: String?, config: String = "", arguments: [String] = [], environment: [String: String] = [:],
                binary: String? = nil) throws {
        dir = try TemporaryDirectory("pacenote-e2e")
        let hasPlayers = config.contains("[[mpd]]")
        // Short reconnect delays keep the tests quick; the default rule is tested in PacenoteCoreTests.
        let defaults = hasPlayers ? "" : "[mpd]\nreconnect_initial_s = 0.2\nreconnect_max_s = 0.5\nsave_interval_s = 1\n"
        try (defaults + config).write(toFile: dir.file("config.toml"), atomically: true, encoding: .utf8)
        var args = ["serve", "--config", dir.file("config.toml"), "--db", dir.file("pacenote.sqlite"), "--http", "127.0.0.1:0"]
        if let mpd { args += ["--mpd", mpd] }
        self.arguments = args + arguments
        self.environment = environment.merging(["HOME": dir.path]) { a, _ in a }
        self.binary = binary
        process = try PacenoteProcess(self.arguments, environment: self.environment, binary: binary)
        port = try waitForPort()
    }

    private func waitForPort() throws -> UInt16 {
        var found: UInt16?
        let marker = "serving http://127.0.0.1:"
        _ = eventually(timeout: 15) {
            let text = process.stderr
            guard let range = text.range(of: marker, options: .backwards) else { return !process.process.isRunning }
            found = UInt16(text[range.upperBound...].prefix { $0.isNumber })
            return true
        }
        guard let found else { throw HarnessError("pacenote did not start:\n\(process.stderr)") }
        return found
    }

    /// Stops the daemon (SIGTERM, or SIGKILL with `kill9`) and starts it again on the same
    /// database and configuration.
    /// `samePort` restarts on the port it had (clients keep their URL).
    public func restart(kill9: Bool = false, pause: Double = 0, samePort: Bool = false) throws {
        if process.process.isRunning { try stop(kill9: kill9) }
        if pause > 0 { usleep(UInt32(pause * 1_000_000)) }
        var args = arguments
        if samePort, let i = args.firstIndex(of: "--http") { args[i + 1] = "127.0.0.1:\(port)" }
        process = try PacenoteProcess(args, environment: environment, binary: binary)
        port = try waitForPort()
    }

    public func stop(kill9: Bool = false) throws {
        process.signal(kill9 ? SIGKILL : SIGTERM)
        let status = try process.wait()
        if !kill9 && status != 0 { throw HarnessError("pacenote exited \(status):\n\(process.stderr)") }
    }

    /// The API key the daemon created beside its database.
    public var apiKey: String {
        ((try? String(contentsOfFile: dir.file("api-key"), encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The API key as a header, for reads that need it.
    public var keyHeader: [String: String] { ["Authorization": "Token \(apiKey)", "Content-Type": "application/json"] }

    /// A request with the API key.
    public func post(_ path: String, body: String, contentType: String = "application/json",
                     key: String? = nil) throws -> HTTPResult {
        try HTTP.request("POST", base + path, headers: ["Authorization": "Token \(key ?? apiKey)", "Content-Type": contentType],
                         body: Data(body.utf8))
    }

    /// Rows from the daemon's database through the sqlite3 command line.
    public func sql(_ query: String) throws -> String {
        try run(try Tools.require("sqlite3"), [db, query]).stdout
    }

    public func status() throws -> [String: Any] {
        let r = try HTTP.get(statusURL)
        guard r.status == 200, let json = r.json else { throw HarnessError("status answered \(r.status): \(r.text)") }
        return json
    }

    public func mpdConnected() throws -> Bool {
        try (status()["mpd"] as? [String: Any])?["connected"] as? Bool ?? false
    }

    /// Every stored play, oldest first, read through `GET /api/v1/listens`.
    public func listens() throws -> [Listen] {
        var all: [Listen] = []
        var cursor: String?
        repeat {
            var url = base + "/api/v1/listens?limit=500"
            if let cursor { url += "&cursor=\(cursor)" }
            let r = try HTTP.get(url)
            guard r.status == 200, let json = r.json, let items = json["listens"] as? [[String: Any]] else {
                throw HarnessError("listens answered \(r.status): \(r.text)")
            }
            all += items.map(Listen.init)
            cursor = json["next_cursor"] as? String
        } while cursor != nil
        return all.reversed()
    }

    /// One play as the API returns it.
    public struct Listen: CustomStringConvertible {
        public var json: [String: Any]
        public var track: [String: Any] { json["track"] as? [String: Any] ?? [:] }
        public var title: String? { track["title"] as? String }
        public var artist: String? { track["artist"] as? String }
        public var uri: String? { track["uri"] as? String }
        public var counted: Bool { json["counted"] as? Bool ?? false }
        public var playedSeconds: Double { (json["played_s"] as? NSNumber)?.doubleValue ?? -1 }
        public var player: String? { json["player"] as? String }
        public var startedAt: Date? { (json["started_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } }
        public var endedAt: Date? { (json["ended_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) } }
        public var description: String {
            "\(title ?? "?") \(counted ? "counted" : "skip") \(String(format: "%.2f", playedSeconds)) s on \(player ?? "-")"
        }
    }
}
