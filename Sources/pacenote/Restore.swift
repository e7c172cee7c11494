import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteStore

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup back in place of the database (pacenote serve must be stopped).",
        discussion: """
            The file is checked first: SQLite's integrity_check, Pacenote's schema, and no migration newer than \
            this version knows. A running daemon is detected by the lock it holds (pacenote.lock beside the \
            database) and the restore refused. The database it replaces is kept beside it as \
            DATABASE.replaced-YYYYMMDD-HHMMSS (UTC). A backup from an older version is upgraded when the \
            daemon next starts.
            """)

    @OptionGroup var storage: StorageOptions

    @Argument(help: ArgumentHelp("The backup to restore.", valueName: "file"))
    var file: String

    func run() throws {
        let config = try storage.loadConfig()
        let database = config.databasePath
        let files = InstanceFiles(config: config)
        guard (file as NSString).standardizingPath != (database as NSString).standardizingPath else {
            throw Failure("\(file) is the database itself")
        }
        let backup: DatabaseSummary
        do { backup = try Store.inspectBackup(at: file) } catch { throw Failure("refusing to restore: \(error.description)") }
        try PacenoteServer.prepareDirectory(config: config)
        let lock: InstanceLock
        do {
            lock = try InstanceLock.acquire(files)
        } catch {
            if case .held(_, let pid) = error {
                throw Failure("refusing to restore: \(database) is in use by a running pacenote serve"
                              + (pid.map { " (process \($0))" } ?? "") + "; stop it first (systemctl stop pacenote)")
            }
            throw Failure("refusing to restore: \(error)")
        }
        defer { lock.release() }
        let replaced = database + ".replaced-" + BackupName.stamp(Date())
        let result: (restored: DatabaseSummary, replaced: DatabaseSummary?)
        do {
            result = try Store.restore(from: file, into: database, keepingReplacedAs: replaced)
        } catch {
            throw Failure("restore of \(file) into \(database) failed: \(error.description)")
        }
        print("restored \(file) into \(database)")
        print("  plays: \(Backup.playRange(result.restored, timeZone: config.timeZone))")
        let pending = Store.knownMigrations.filter { !backup.migrations.contains($0) }
        if !pending.isEmpty { print("  it is upgraded (\(pending.joined(separator: ", "))) when pacenote next opens it") }
        if let old = result.replaced {
            print("the database it replaced (\(counted(old.plays, "play"))) is kept as \(replaced)")
        } else if FileManager.default.fileExists(atPath: replaced) {
            print("the database it replaced could not be read; its files are kept as \(replaced)")
        }
    }
}
