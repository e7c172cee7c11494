import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// `pacenote key`: the instance's own key (the admin key), and named keys with a scope
/// for each player or app (`key add`, `key list`, `key revoke`).
struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the admin API key, or manage named keys with narrower scopes.",
        discussion: """
            Send a key as 'Authorization: Token KEY' or 'X-API-Key: KEY'. 'pacenote key' prints the \
            admin key (created on first use, mode 0600); PACENOTE_API_KEY overrides it. Give each \
            player or app its own named key with the least scope it needs: 'submit' sends listens, \
            now-playing and heart rate; 'read' reads history; 'client' does both and sends likes (an app \
            that scrobbles and reads: no deletes, imports, curation or admin); 'admin' does \
            everything. A running \
            server notices new and revoked keys at once (the admin key file within a second).
            """,
        subcommands: [ShowKey.self, AddKey.self, ListKeys.self, RevokeKey.self],
        defaultSubcommand: ShowKey.self)
}

struct ShowKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the admin key; --new replaces it, --revoke withdraws it.")

    @OptionGroup var storage: StorageOptions

    @Flag(name: .customLong("new"), help: "Replace the admin key with a new one and print it.")
    var rotate = false

    @Flag(help: "Withdraw the admin key: no write is accepted with it until 'pacenote key --new'.")
    var revoke = false

    func run() throws {
        let config = try storage.loadConfig()
        if config.databaseIsDefault {
            // Create the data directory the same way serve does.
            try PacenoteServer.openStore(config: config).close()
        }
        if rotate && revoke { throw Failure("--new and --revoke: choose one") }
        // The Last.fm protocols' sessions the old key opened end with it (a running server
        // refuses them anyway once it reads the new file; this forgets them).
        let old = rotate || revoke ? try? APIKey.load(database: config.databasePath, environment: [:]) : nil
        defer {
            if let old, old != "revoked", let store = try? PacenoteServer.openStore(config: config) {
                try? Operations(store: store, events: nil).endScrobblerSessions(keySHA256: SHA256.hex(old))
                try? store.close()
            }
        }
        if revoke {
            try APIKey.revoke(database: config.databasePath)
            print("the API key is revoked; 'pacenote key --new' creates another")
        } else if rotate {
            print(try APIKey.rotate(database: config.databasePath))
        } else {
            let key = try APIKey.load(database: config.databasePath, environment: ProcessInfo.processInfo.environment)
            if key == "revoked" { throw Failure("the API key is revoked; 'pacenote key --new' creates another") }
            print(key)
        }
    }
}

struct AddKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Create a named key and print it (once: only its hash is stored).")

    @OptionGroup var storage: StorageOptions

    @Argument(help: "A name for the key: the player or app it is for (letters, digits, '.', '_', '-').")
    var name: String

    @Option(help: """
            What the key may do: submit (listens, now-playing, heart rate), read (history, stats, \
            health data), client (both, and likes: an app that scrobbles and reads; no deletes, \
            imports, curation or admin) or admin (everything).
            """,
            transform: { (text: String) throws -> KeyScope in
                guard let scope = KeyScope(rawValue: text.lowercased()) else {
                    throw ValidationError("--scope: one of submit, read, client, admin")
                }
                return scope
            })
    var scope: KeyScope

    func run() throws {
        let config = try storage.loadConfig()
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        let secret = try ScrobblerSecret.load(database: config.databasePath)
        print(try NamedKeys.add(name: name, scope: scope, store: store, scrobblerSecret: secret))
    }
}

struct ListKeys: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the named keys: name, scope, first characters, created, last use (to the minute), revoked.")

    @OptionGroup var storage: StorageOptions

    func run() throws {
        let store = try PacenoteServer.openStore(config: storage.loadConfig())
        defer { try? store.close() }
        let keys = try store.keys()
        guard !keys.isEmpty else {
            print("no named keys; 'pacenote key add NAME --scope submit|read|client|admin' creates one")
            return
        }
        func time(_ date: Date?) -> String { date.map { ISO8601.string($0) } ?? "never" }
        let rows = [["NAME", "SCOPE", "KEY", "CREATED", "LAST USE", "REVOKED"]] + keys.map {
            [$0.name, $0.scope.rawValue, $0.prefix + "…", time($0.createdAt), time($0.lastUsedAt), $0.revokedAt.map { ISO8601.string($0) } ?? "-"]
        }
        let widths = (0..<6).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            print(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces))
        }
    }
}

struct RevokeKey: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revoke",
        abstract: "Revoke a named key: a running server refuses it from its next request.")

    @OptionGroup var storage: StorageOptions

    @Argument(help: "The key's name (pacenote key list shows them).")
    var name: String

    func run() throws {
        let store = try PacenoteServer.openStore(config: storage.loadConfig())
        defer { try? store.close() }
        try NamedKeys.revoke(name: name, store: store)
        print("the key '\(name)' is revoked")
    }
}
