import Foundation
import GRDBSQLite

/// Copies a bulk import's committed pages from the WAL into the database file on a thread
/// of its own, while the writer goes on with the next batch.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on
/// the writer: at 5M plays a tenth of an import's time was the writer copying the last
/// batch's pages instead of writing the next one. The import turns the writer's automatic
/// checkpoint off (`PRAGMA wal_autocheckpoint = 0`) and asks this one after each commit.
/// A passive checkpoint takes no lock a writer needs, so the two run at once; the WAL
/// stays about two batches long, because the writer starts it over once a checkpoint has
/// copied everything and no reader is behind.
final class WALCheckpointer: @unchecked Sendable {
    private let path: String
    private let condition = NSCondition()
    /// Commits not yet checkpointed; `stopping` once `finish()` has been called.
    private var pending = 0
    private var stopping = false
    private var running = false
    private var thread: Thread?
    /// Checkpoints that copied every frame of the log (for tests: SQLite gives -1 frames for
    /// a connection that does not know the database is in WAL mode).
    private(set) var completed = 0

    init(path: String) {
        self.path = path
    }

    /// After a commit: copy what is committed (at once if idle, else after the copy under way).
    func committed() {
        condition.lock()
        pending += 1
        if thread == nil {
            let thread = Thread { [self] in run() }
            thread.stackSize = 256 << 10
            thread.name = "pacenote-checkpoint"
            self.thread = thread
            running = true
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    /// Waits until every commit so far is checkpointed (as far as readers allow) and the
    /// thread has ended.
    func finish() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while running { condition.wait() }
        condition.unlock()
    }

    private func run() {
        var db: OpaquePointer?
        // The connection's own handle: a checkpoint touches only the WAL and the file.
        // It reads the schema first: until a connection has read the database, it does not
        // know the file is in WAL mode, and a checkpoint asked of it does nothing.
        if sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
           sqlite3_busy_timeout(db, 1000) == SQLITE_OK,
           sqlite3_exec(db, "PRAGMA schema_version", nil, nil, nil) == SQLITE_OK {
        } else {
            sqlite3_close(db)
            db = nil
        }
        condition.lock()
        while true {
            while pending == 0 && !stopping { condition.wait() }
            if pending == 0 && stopping { break }
            pending = 0
            condition.unlock()
            var frames: Int32 = -1, copied: Int32 = -1
            if let db {
                // A failure (busy) is harmless: the next commit's checkpoint copies it, and
                // SQLite's own checkpoints take over once the import ends.
                _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
            }
            condition.lock()
            if frames >= 0 && frames == copied { completed += 1 }
        }
        sqlite3_close(db)
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
