import Foundation
import Glibc
import GRDB

/// What `pacenote doctor` reads from a database, opened read-only: nothing is created,
/// migrated or written.
public struct StoreInspection: Equatable, Sendable {
    /// `PRAGMA quick_check`'s rows: `["ok"]` for a sound file, else the problems found.
    public var quickCheck: [String]
    /// Migrations this version knows that the file lacks (`pacenote migrate` or the next
    /// start applies them).
    public var pendingMigrations: [String]
    /// Migrations the file has that this version does not know (a newer Pacenote wrote it).
    public var unknownMigrations: [String]
    public var plays: Int
    /// The newest heart-rate sample, from any source.
    public var latestHeartRate: Date?

    public var isSound: Bool { quickCheck == ["ok"] }
}

extension Store {
    /// Opens the file at `path` read-only and checks it. A file that is not a database (or
    /// is damaged past opening) throws `.cannotOpen`.
    public static func inspect(path: String) throws(StoreError) -> StoreInspection {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "no such file")
        }
        var config = Configuration()
        config.readonly = true
        config.label = "pacenote-inspect"
        // A read-only connection may remove an empty -wal and make it again, with the
        // database file's mode and this user as owner: at 0444, or as root, that left a -wal
        // the service could not write (issue 52). Put back as they were, after.
        let sideFiles = SideFiles(database: path)
        defer { sideFiles.restore() }
        do {
            let queue = try DatabaseQueue(path: path, configuration: config)
            defer { try? queue.close() }
            return try queue.read { db in
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                let migrator = Schema.migrator
                let applied = try migrator.appliedIdentifiers(db)
                let known = Set(migrator.migrations)
                let plays = try db.tableExists("plays") ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM plays") ?? 0 : 0
                let heartRate = try db.tableExists("hr_samples")
                    ? try Int64.fetchOne(db, sql: "SELECT MAX(at_ms) FROM hr_samples").map(Store.date(milliseconds:))
                    : nil
                return StoreInspection(
                    quickCheck: check,
                    pendingMigrations: migrator.migrations.filter { !applied.contains($0) },
                    unknownMigrations: applied.subtracting(known).sorted(),
                    plays: plays, latestHeartRate: heartRate)
            }
        } catch {
            throw StoreError(error, path: path)
        }
    }
}

extension Store {
    /// Makes every commit so far durable against a power loss. With `synchronous = NORMAL`
    /// a commit is frames appended to the WAL, synced only at the next checkpoint
    /// (https://sqlite.org/pragma.html#pragma_synchronous); a checkpoint also syncs the
    /// database file before it resets the WAL. So syncing the WAL file is enough, and it
    /// needs no free space (a checkpoint may have to grow the database, which a full disk
    /// refuses). On Linux `fsync` on any descriptor of a file flushes that file. Called
    /// before the spool of waiting plays is emptied: it is their other copy.
    public func makeDurable() throws(StoreError) {
        let wal = path + "-wal"
        let fd = Glibc.open(wal, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return }  // no WAL: everything is in the synced database file
            throw .sqlite("cannot open \(wal): \(String(cString: strerror(errno)))")
        }
        defer { Glibc.close(fd) }
        guard fsync(fd) == 0 else { throw .sqlite("cannot sync \(wal): \(String(cString: strerror(errno)))") }
    }
}

/// The database's -wal and -shm as they were (mode, owner, or not there), to put back after a
/// read-only look that SQLite may have made them again for (`Store.inspect`).
struct SideFiles {
    let paths: [String]
    let before: [stat?]

    init(database: String) {
        paths = [database + "-wal", database + "-shm"]
        before = paths.map { path in
            var info = stat()
            return lstat(path, &info) == 0 ? info : nil
        }
    }

    func restore() {
        var wal = stat()
        let walEmpty = lstat(paths[0], &wal) != 0 || wal.st_size == 0
        for (path, old) in zip(paths, before) {
            var now = stat()
            guard lstat(path, &now) == 0, (now.st_mode & S_IFMT) == S_IFREG else { continue }
            guard let old else {
                // Made by the look: gone again, unless a log with content needs it.
                if walEmpty { unlink(path) }
                continue
            }
            if now.st_mode & 0o7777 != old.st_mode & 0o7777 { chmod(path, old.st_mode & 0o7777) }
            if now.st_uid != old.st_uid || now.st_gid != old.st_gid { _ = chown(path, old.st_uid, old.st_gid) }
        }
    }
}
