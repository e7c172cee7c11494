import ArgumentParser
import PacenoteApp

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create or upgrade the database, then list the migrations it has.")

    @OptionGroup var storage: StorageOptions

    func run() throws {
        let config = try storage.loadConfig()
        let store = try PacenoteServer.openStore(config: config)
        let applied = try store.appliedMigrations()
        try store.close()
        print("database: \(config.databasePath)")
        for name in applied { print("  applied  \(name)") }
    }
}
