import Foundation
import GRDB

/// The charts' indexes set aside for a large import (`deferred_indexes`, v16).
///
/// The rollups' orders by plays (`rollup_…_top`) and by time (`rollup_…_by_time`) are read
/// only by charts; nothing that writes looks anything up through them. An import moves every
/// row it sums in each of them (a delete and an insert at a random place, per index and per
/// row written), a fifth of the time of a first import of 5M plays; created again from the
/// finished tables, each is one sort: seconds. So an import larger than the history sets them
/// aside for its duration (`ListenImporter` decides), and charts read meanwhile are sorted
/// rather than walked: slower, never different.
///
/// Each index set aside is a row of `deferred_indexes` with its statement, dropped in the same
/// transaction: nothing is lost if the import dies. Its end creates them again; if it never
/// comes, the next opening of the database by another process does (`open`).
extension Store {
    /// Which indexes an import may set aside.
    static let chartIndexes = "type = 'index' AND (name GLOB 'rollup_*_top' OR name GLOB 'rollup_*_by_time')"

    /// This process as an owner of deferred indexes: its pid and start time (`/proc/PID/stat`),
    /// which a later process given the same pid does not share. nil: no such process.
    static func processIdentity(_ pid: Int32 = getpid()) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command (in parentheses, and it may hold spaces): the state is field 3,
        // the start time field 22.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 19 ? "\(pid):\(fields[19])" : nil
    }

    /// Sets aside the charts' indexes (see above) until `restoreDeferredIndexes()`. Returns
    /// how many were set aside now (none when another import already holds them).
    @discardableResult
    public func deferChartIndexes() throws(StoreError) -> Int {
        guard let owner = Self.processIdentity() else { return 0 }
        return try write { db in
            let indexes = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE \(Self.chartIndexes) AND sql IS NOT NULL")
            for index in indexes {
                let name: String = index[0]
                try db.execute(sql: "INSERT INTO deferred_indexes (name, sql, owner) VALUES (?, ?, ?)", arguments: [name, index[1], owner])
                try db.execute(sql: "DROP INDEX \(name.quotedDatabaseIdentifier)")
            }
            return indexes.count
        }
    }

    /// Whose indexes set aside `restoreDeferredIndexes` creates again.
    public enum DeferredIndexOwners: Sendable {
        /// This process's (an import at its end).
        case mine
        /// Those of processes that are gone (an import that died: what `open` does).
        case abandoned
    }

    /// Creates the indexes set aside by `owners` again, one transaction each (a few seconds
    /// at 5M plays, the lock held for one at a time). Returns how many.
    @discardableResult
    public func restoreDeferredIndexes(of owners: DeferredIndexOwners) throws(StoreError) -> Int {
        let me = Self.processIdentity()
        let rows = try read { db in try Row.fetchAll(db, sql: "SELECT name, sql, owner FROM deferred_indexes ORDER BY name") }
        var restored = 0
        for row in rows {
            let (name, sql, owner): (String, String, String) = (row[0], row[1], row[2])
            switch owners {
            case .mine: if owner != me { continue }
            case .abandoned: if owner == me || Self.processIdentity(Int32(owner.prefix { $0 != ":" }) ?? 0) == owner { continue }
            }
            try write { db in
                // Still set aside (another process may have restored it meanwhile).
                guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM deferred_indexes WHERE name = ?)", arguments: [name]) == true else { return }
                try db.execute(sql: sql.replacingOccurrences(of: "CREATE INDEX ", with: "CREATE INDEX IF NOT EXISTS ", options: .anchored))
                try db.execute(sql: "DELETE FROM deferred_indexes WHERE name = ?", arguments: [name])
            }
            restored += 1
        }
        return restored
    }

    /// The names of the indexes set aside now.
    public func deferredIndexes() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT name FROM deferred_indexes ORDER BY name") }
    }
}
