/// `writeWithoutForeignKeyChecks`: a write transaction for bulk writes, with SQLite's foreign-key checks off.

import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// `write`, with SQLite's foreign-key checks off for the transaction: for bulk writes
    /// whose every reference was just read or written in the same transaction (a check is a
    /// look-up in `tracks` per row and per rollup row). The pragma is a no-op inside a
    /// transaction, so it is set around it; it is on again before the connection is used
    /// for anything else.
    func writeWithoutForeignKeyChecks<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                var outcome: Result<T, any Error>
                do {
                    var result: T?
                    try db.inTransaction {
                        result = try body(db)
                        return .commit
                    }
                    outcome = .success(result!)
                } catch {
                    outcome = .failure(error)
                }
                // Checks back on, and seen to be on: the writer also logs the watcher's plays.
                // (The pragma does nothing while a transaction is open, e.g. one whose
                // rollback failed.)
                try db.execute(sql: "PRAGMA foreign_keys = ON")
                guard try Bool.fetchOne(db, sql: "PRAGMA foreign_keys") == true else {
                    throw StoreError.sqlite("foreign-key checks could not be turned back on after an import batch")
                }
                return try outcome.get()
            }
        } catch {
            throw StoreError(error, path: path)
        }
    }
}
