import ArgumentParser
import Foundation
import PacenoteApp

struct Key: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the API key that writes need (created on first use, mode 0600).",
        discussion: """
            Send it as 'Authorization: Token KEY' or 'X-API-Key: KEY'. PACENOTE_API_KEY overrides the stored key. \
            --new replaces the key and --revoke withdraws it; a running server notices within a second.
            """)

    @OptionGroup var storage: StorageOptions

    @Flag(name: .customLong("new"), help: "Replace the key with a new one and print it.")
    var rotate = false

    @Flag(help: "Withdraw the key: no write is accepted until 'pacenote key --new'.")
    var revoke = false

    func run() throws {
        let config = try storage.loadConfig()
        if config.databaseIsDefault {
            // Create the data directory the same way serve does.
            try PacenoteServer.openStore(config: config).close()
        }
        if rotate && revoke { throw Failure("--new and --revoke: choose one") }
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
