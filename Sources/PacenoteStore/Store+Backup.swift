import Foundation
import GRDB
import PacenoteCore

/// What a database (or a backup of one) holds, as `backup` and `restore` report it.
public struct DatabaseSummary: Equatable, Sendable {
    public var path: String
    public var bytes: Int64
    /// Every stored play, counted or skipped.
    public var plays: Int
    public var firstPlay: Date?
    public var lastPlay: Date?
    public var migrations: [String]
}

// Backups go through SQLite's online backup API (https://sqlite.org/backup.html), never a
// file copy: a copy of a WAL database while it is written can miss the WAL or tear a page.
// The source is read inside one read transaction, so every step copies the same snapshot
// — the database as it was when the backup began — and in WAL mode a reader never blocks
// the writer: `serve` keeps storing plays meanwhile.
extension Store {
    /// Pages copied per step of the backup API (8 MiB of a new database's 8 KiB pages, 4 MiB of
    /// an older one's 4 KiB).
    static let backupPagesPerStep: CInt = 1024

    /// Writes a consistent copy of this database to `destination` (created with mode 0600;
    /// written as `destination.partial` and renamed when complete and checked).
    /// `cancelled` is asked between steps; when it says yes, the backup stops and nothing is left.
    public func backup(to destination: String, cancelled: @escaping () -> Bool = { false }) throws(StoreError) -> DatabaseSummary {
        try Self.backup(from: pool, sourcePath: path, to: destination, cancelled: cancelled)
    }

    /// The same for a database this process has not opened (`pacenote backup`, while
    /// `serve` runs): no migration, nothing written to the source.
    /// `verify`: the copy must pass `integrity_check` (off when keeping a database that is
    /// being replaced, damaged or not).
    public static func backup(databaseAt source: String, to destination: String, verify: Bool = true) throws(StoreError) -> DatabaseSummary {
        guard FileManager.default.fileExists(atPath: source) else { throw .cannotOpen(path: source, reason: "no such file") }
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: source, configuration: plainConfiguration()) } catch { throw StoreError(error, path: source) }
        defer { try? queue.close() }
        return try backup(from: queue, sourcePath: source, to: destination, verify: verify)
    }

    private static func backup(from source: some DatabaseReader, sourcePath: String, to destination: String,
                               verify: Bool = true, cancelled: @escaping () -> Bool = { false }) throws(StoreError) -> DatabaseSummary {
        let partial = destination + BackupName.partialSuffix
        unlink(partial)  // one an interrupted backup left (a link is removed, not followed)
        try createPrivateFile(partial)
        do {
            let copy = try DatabaseQueue(path: partial, configuration: plainConfiguration())
            do {
                try source.backup(to: copy, pagesPerStep: backupPagesPerStep) { progress in
                    if !progress.isCompleted, cancelled() { throw StoreError.sqlite("backup cancelled") }
                }
                // The copy is one self-contained file: no -wal beside it.
                try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
                try copy.close()
            } catch {
                try? copy.close()
                throw error
            }
            let summary = try inspect(partial, requirePacenote: false, verify: verify)
            try? FileManager.default.removeItem(atPath: destination)
            try FileManager.default.moveItem(atPath: partial, toPath: destination)
            return DatabaseSummary(path: destination, bytes: summary.bytes, plays: summary.plays, firstPlay: summary.firstPlay,
                                   lastPlay: summary.lastPlay, migrations: summary.migrations)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw (error as? StoreError) ?? StoreError(error, path: sourcePath)
        }
    }

    /// Checks a file before it is restored: SQLite's `integrity_check` passes, it is a
    /// Pacenote database, and it has no migration this version does not know.
    public static func inspectBackup(at path: String) throws(StoreError) -> DatabaseSummary {
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        return try inspect(path, requirePacenote: true)
    }

    /// Replaces the database at `destination` with the backup at `source` (checked first),
    /// through the backup API. The database it replaces, if any, is first copied the same
    /// way to `replaced`. The caller makes sure no daemon uses `destination`.
    public static func restore(from source: String, into destination: String,
                               keepingReplacedAs replaced: String) throws(StoreError) -> (restored: DatabaseSummary, replaced: DatabaseSummary?) {
        _ = try inspectBackup(at: source)
        var old: DatabaseSummary?
        if FileManager.default.fileExists(atPath: destination) {
            do {
                old = try backup(databaseAt: destination, to: replaced, verify: false)
            } catch {
                // Too damaged to read: kept as it is, files moved aside (no daemon has it open).
                for suffix in ["", "-wal", "-shm", "-journal"] where FileManager.default.fileExists(atPath: destination + suffix) {
                    do { try FileManager.default.moveItem(atPath: destination + suffix, toPath: replaced + suffix) }
                    catch { throw .cannotOpen(path: destination, reason: "cannot move it aside: \(error.localizedDescription)") }
                }
            }
        }
        try createPrivateFile(destination, mayExist: true)
        do {
            let from = try DatabaseQueue(path: source, configuration: plainConfiguration(readonly: true))
            defer { try? from.close() }
            let into = try DatabaseQueue(path: destination, configuration: plainConfiguration())
            defer { try? into.close() }
            // SQLite refuses to copy into a WAL database whose pages are of another size (a
            // backup from before 8 KiB pages, restored over a new database): such a one leaves
            // WAL first. That needs the file to itself, so it is done only then (another
            // connection reading it, `pacenote backup` or a shell, does not stop the rest).
            let sourcePageSize = try from.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
            try into.writeWithoutTransaction { db in
                let size = try Int.fetchOne(db, sql: "PRAGMA page_size")
                let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode")
                guard mode?.lowercased() == "wal", size != sourcePageSize, try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0 > 0 else { return }
                // Refused (SQLITE_BUSY, or the old mode given back) while another connection has it.
                let left = try? String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
                guard left?.lowercased() == "delete" else {
                    throw StoreError.sqlite("the database's pages are of \(size ?? 0) bytes and the backup's of \(sourcePageSize ?? 0): "
                                            + "it must leave WAL mode to take them, and another process has it open; stop it and restore again")
                }
            }
            try from.backup(to: into, pagesPerStep: backupPagesPerStep)
            try into.writeWithoutTransaction { db in
                // Back to WAL, as `Store.open` keeps it, with nothing left in the log.
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                _ = try db.checkpoint(.truncate)
            }
        } catch {
            throw StoreError(error, path: destination)
        }
        var restored = try inspect(destination, requirePacenote: true)
        restored.path = destination
        return (restored, old)
    }

    /// Opens `path` on its own, checks it and counts its plays.
    private static func inspect(_ path: String, requirePacenote: Bool, verify: Bool = true) throws(StoreError) -> DatabaseSummary {
        do {
            let queue = try DatabaseQueue(path: path, configuration: plainConfiguration(readonly: true))
            defer { try? queue.close() }
            return try queue.read { db throws -> DatabaseSummary in
                let problems = verify ? try String.fetchAll(db, sql: "PRAGMA integrity_check(20)") : ["ok"]
                guard problems == ["ok"] else { throw StoreError.damaged(path: path, problems: problems) }
                let isPacenote = try db.tableExists("grdb_migrations") && db.tableExists("plays") && db.tableExists("meta")
                guard isPacenote || !requirePacenote else { throw StoreError.notPacenote(path: path) }
                let migrations = isPacenote ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
                let unknown = Set(migrations).subtracting(Schema.migrator.migrations)
                if requirePacenote, !unknown.isEmpty { throw StoreError.newerSchema(path: path, unknownMigrations: unknown.sorted()) }
                let row = isPacenote ? try Row.fetchOne(db, sql: "SELECT COUNT(*), MIN(started_at_ms), MAX(started_at_ms) FROM plays") : nil
                let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
                return DatabaseSummary(
                    path: path, bytes: bytes, plays: row?[0] ?? 0,
                    firstPlay: (row?[1] as Int64?).map { date(milliseconds: $0) },
                    lastPlay: (row?[2] as Int64?).map { date(milliseconds: $0) }, migrations: migrations)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notPacenote(path: path)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT {
            throw .damaged(path: path, problems: [error.message ?? "corrupt"])
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// A connection for copying and checking: no migrations, the same busy timeout as the store.
    private static func plainConfiguration(readonly: Bool = false) -> Configuration {
        var config = Configuration()
        config.readonly = readonly
        config.busyMode = .timeout(5)
        config.label = "pacenote-backup"
        return config
    }

    /// A free path for a new backup in `directory`: its name from `date` and `kind`, with a
    /// sequence number when one of that second exists.
    public static func newBackupPath(in directory: String, kind: BackupName.Kind, date: Date = Date()) -> String {
        var name = BackupName(date: date, kind: kind)
        while true {
            let path = (directory as NSString).appendingPathComponent(name.fileName)
            if !FileManager.default.fileExists(atPath: path) && !FileManager.default.fileExists(atPath: path + BackupName.partialSuffix) {
                return path
            }
            name.sequence += 1
        }
    }

    /// Before a migration changes the schema of a database that has data (some migrations
    /// applied, some pending), a backup in `directory` (created with mode 0700 if missing).
    func backupBeforeMigrating(into directory: String) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw .cannotOpen(path: directory, reason: "cannot create the backup folder: \(error.localizedDescription)")
        }
        _ = try backup(to: Self.newBackupPath(in: directory, kind: .beforeMigration))
    }
}
