import GRDB
import Testing
@testable import PacenoteStore

/// `BulkInsert` with `everyRowChanges`: the import writes plays, new tracks and their
/// credits as `INSERT OR IGNORE` (no statement journal), so a row SQLite ignores must fail
/// the write, never vanish; the transaction around it then leaves nothing behind.
@Suite struct BulkInsertTests {
    private func table() throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, n INTEGER NOT NULL CHECK (n >= 0))")
            try db.execute(sql: "INSERT INTO t (id, key, n) VALUES (1000, 'taken', 0)")
        }
        return queue
    }

    /// Writes `rows` (key, n; nil n is NULL) in one transaction, as the import does.
    private func write(_ rows: [(String, Int64?)], into queue: DatabaseQueue) throws {
        try queue.write { db in
            let texts = TextArena()
            var insert = BulkInsert(db, columns: 2, everyRowChanges: true) { values in
                "INSERT OR IGNORE INTO t (key, n) VALUES \(values)"
            }
            for (key, n) in rows {
                insert.append(key, in: texts)
                insert.append(n)
                try insert.endRow()
            }
            try insert.finish()
        }
    }

    private func keys(_ queue: DatabaseQueue) throws -> [String] {
        try queue.read { db in try String.fetchAll(db, sql: "SELECT key FROM t ORDER BY id") }
    }

    @Test func rowsThatBreakNothingAreAllWritten() throws {
        let queue = try table()
        let rows = (0..<150).map { ("k\($0)", Int64($0)) }  // two full statements and 22 rows one by one
        try write(rows, into: queue)
        #expect(try keys(queue) == ["taken"] + rows.map(\.0))
    }

    /// A broken constraint in a full statement of 64 rows, or in the rows written one by one
    /// at the end: a unique key, a NULL, a failed CHECK.
    @Test(arguments: [10, 140], [("taken", Int64(1)), ("k3", Int64(1)), ("fresh", nil), ("fresh", Int64(-1))])
    func anIgnoredRowFailsTheWriteAndLeavesNothing(at position: Int, bad: (String, Int64?)) throws {
        let queue = try table()
        var rows = (0..<150).map { ("k\($0)", Int64?($0)) }
        rows[position] = bad
        #expect(throws: StoreError.self) { try write(rows, into: queue) }
        #expect(try keys(queue) == ["taken"])
    }
}
