import Foundation
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
