import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// `pacenote forward`: the `[[forward]]` targets' queues (status), parked plays sent again
/// (retry), the past queued (backfill) and an Audioscrobbler session obtained (login).
struct Forward: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and manage where plays are forwarded ([[forward]] in the configuration).",
        discussion: """
            Each counted play enters every [[forward]] target's outbox when it is stored, and the \
            running server sends it. These commands work beside a running server: it sees a retry, \
            a backfill or a login within a few seconds.
            """,
        subcommands: [ForwardStatus.self, ForwardRetry.self, ForwardBackfill.self, ForwardLogin.self],
        defaultSubcommand: ForwardStatus.self)

    /// The configuration's targets, made the database's (as `serve` does at start). Changes
    /// go through the operations (this process has no bus: the server's sender sees them
    /// at its next look); `status` only reads the store.
    static func open(_ storage: StorageOptions) throws -> (Config, Store) {
        let config = try storage.loadConfig()
        let store = try PacenoteServer.openStore(config: config)
        do { try Operations(store: store, events: nil).syncForwardTargets(config.forward.map(\.spec)) } catch {
            try? store.close()
            throw error
        }
        return (config, store)
    }

    static func target(_ name: String, in config: Config) throws -> Config.Forward {
        guard let target = config.forward.first(where: { $0.name == name }) else {
            let names = config.forward.map(\.name)
            throw Failure("no [[forward]] target is named '\(name)'"
                          + (names.isEmpty ? " (the configuration has none)" : " (there are: \(names.joined(separator: ", ")))"))
        }
        return target
    }
}

struct ForwardStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Per target: plays queued, sent and parked, the last success and error.")

    @OptionGroup var storage: StorageOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let (_, store) = try Forward.open(storage)
        defer { try? store.close() }
        let targets = try store.forwardTargets().filter(\.active)
        let parked = try store.parkedPlays(limit: 20)
        if json {
            let list: [[String: Any]] = targets.map { t in
                var item: [String: Any] = ["name": t.name, "kind": t.kind.rawValue, "url": URLSecrets.masked(t.url), "queued": t.queued,
                                           "parked": t.parked, "sent": t.sent]
                item["last_success_at"] = t.lastSuccessAt.map { ISO8601.string($0) } ?? NSNull()
                item["last_error"] = t.lastError.map(URLSecrets.maskedInText) ?? NSNull()
                item["last_error_at"] = t.lastErrorAt.map { ISO8601.string($0) } ?? NSNull()
                if t.kind == .lastfm { item["logged_in_as"] = t.sessionUser ?? NSNull() }
                return item
            }
            let data = try JSONSerialization.data(withJSONObject: ["targets": list], options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        guard !targets.isEmpty else {
            print("no [[forward]] targets: add a [[forward]] table to the configuration (docs/pacenote.example.toml)")
            return
        }
        for t in targets {
            print("\(t.name) (\(t.kind.rawValue), \(URLSecrets.masked(t.url)))")
            print("  queued \(t.queued), sent \(t.sent), parked \(t.parked)")
            if t.kind == .lastfm {
                print("  " + (t.sessionUser.map { "logged in as \($0)" } ?? "not logged in: run `pacenote forward login \(t.name)`"))
            }
            print("  last success: \(t.lastSuccessAt.map { ISO8601.string($0) } ?? "never")")
            if let error = t.lastError {
                print("  last error: \(URLSecrets.maskedInText(error)) (\(t.lastErrorAt.map { ISO8601.string($0) } ?? "?"))")
            }
        }
        if !parked.isEmpty {
            print("\nparked (newest first; `pacenote forward retry` queues them again):")
            for p in parked {
                print("  \(p.target): play \(p.playID) \(ISO8601.string(p.startedAt)) \(p.track.artist ?? "?") – \(p.track.title): \(p.reason)")
            }
        }
    }
}

struct ForwardRetry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue the parked plays again (of one target, or of all).")

    @OptionGroup var storage: StorageOptions

    @Argument(help: "The target's name; all targets when omitted.")
    var name: String?

    func run() throws {
        let (config, store) = try Forward.open(storage)
        defer { try? store.close() }
        if let name { _ = try Forward.target(name, in: config) }
        let count = try Operations(store: store, events: nil).retryParkedForwards(target: name)
        print("\(counted(count, "parked play")) queued again")
    }
}

struct ForwardBackfill: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backfill",
        abstract: "Queue the counted plays already logged since a day for a target.",
        discussion: """
            Plays the target took already are left out, as are those its sources and players \
            filters leave out. A backlog is sent in batches (ListenBrainz: listen_type import).
            """)

    @OptionGroup var storage: StorageOptions

    @Argument(help: "The target's name.")
    var name: String

    @Option(help: "The first day (YYYY-MM-DD, in the display time zone) or an ISO 8601 time.")
    var from: String

    @Option(help: "The last day (included), or an ISO 8601 time; today when omitted.")
    var to: String?

    func run() throws {
        let (config, store) = try Forward.open(storage)
        defer { try? store.close() }
        _ = try Forward.target(name, in: config)
        let local = LocalTime(timeZone: config.timeZone)
        guard let fromDate = try Export.instant(from, in: local, endOfDay: false) else { return }
        let toDate = try Export.instant(to, in: local, endOfDay: true)
        if let toDate, toDate <= fromDate { throw Failure("--to must be after --from") }
        let count = try Operations(store: store, events: nil).backfillForward(target: name, from: fromDate, to: toDate)
        print("\(counted(count, "play")) queued for \(name)")
    }
}

struct ForwardLogin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Log a lastfm target in: asks for the user name and password once, keeps only the session.",
        discussion: """
            The password is sent to the service (auth.getMobileSession) and never stored. Without a \
            terminal, the name and the password are read from standard input, one a line.
            """)

    @OptionGroup var storage: StorageOptions

    @Argument(help: "The target's name (a kind = \"lastfm\" target).")
    var name: String

    @Option(help: "The user name (asked when omitted).")
    var username: String?

    func run() throws {
        let (config, store) = try Forward.open(storage)
        defer { try? store.close() }
        let target = try Forward.target(name, in: config)
        guard target.kind == .lastfm else {
            throw Failure("'\(name)' is a \(target.kind.rawValue) target: it uses its token, no login")
        }
        let user = try username ?? Self.ask("user name: ", secret: false)
        let password = try Self.ask("password: ", secret: true)
        let session: (key: String, name: String)
        do { session = try PacenoteApp.ForwardLogin.login(target: target, username: user, password: password) } catch {
            throw Failure(URLSecrets.maskedInText("\(name): \(target.effectiveURL): \(error); nothing was stored"))
        }
        try Operations(store: store, events: nil).setForwardSession(target: name, key: session.key, user: session.name)
        print("\(name): logged in as \(session.name)")
    }

    /// The terminal's settings while a password is typed without echo, so that Ctrl-C
    /// (SIGINT's handler, `restoreAndExit`) gives the echo back before the process ends.
    nonisolated(unsafe) static var savedTerminal = termios()

    /// A line from the terminal (without echo for a secret) or from standard input.
    static func ask(_ prompt: String, secret: Bool) throws -> String {
        let terminal = isatty(STDIN_FILENO) == 1
        if terminal { FileHandle.standardError.write(Data(prompt.utf8)) }
        let hide = terminal && secret && tcgetattr(STDIN_FILENO, &savedTerminal) == 0
        if hide {
            var quiet = savedTerminal
            quiet.c_lflag &= ~tcflag_t(ECHO)
            // Only async-signal-safe calls in the handler: the settings back, a newline, exit.
            signal(SIGINT) { _ in
                tcsetattr(STDIN_FILENO, TCSANOW, &ForwardLogin.savedTerminal)
                _ = write(STDERR_FILENO, "\n", 1)
                _exit(130)
            }
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if hide {
                tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminal)
                signal(SIGINT, SIG_DFL)
                FileHandle.standardError.write(Data("\n".utf8))
            }
        }
        guard let line = readLine(), !line.isEmpty else { throw Failure("no \(prompt.dropLast(2)) given") }
        return line
    }
}
