import Foundation
import GRDBSQLite

/// Copies a bulk import's committed pages from the WAL into the database file on a thread
/// of its own, while the writer goes on with the next batch.
///
/// SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on
/// the writer: at 5M plays a tenth of an import's time was the writer copying the last
/// batch's pages instead of writing the next one. The import turns the writer's automatic
/// checkpoint off (`PRAGMA wal_autocheckpoint = 0`) and asks this one after each commit.
/// A passive checkpoint takes no lock a writer needs, so the two run at once. But SQLite
/// starts the WAL over only for a transaction that begins when every frame is copied (and
/// no reader is behind): the import waits for the copy before each transaction
/// (`caughtUp()`), so the WAL stays one transaction long. Without the wait it grew by
/// every transaction (1.7 GB for 5M plays), and each write was to a new block of the file:
/// with it, 5M plays took 4% less time (median of 3, 47.8 s to 44.6 s), and system time fell from 12.4 s to 7.0 s.
final class WALCheckpointer: @unchecked Sendable {
    private let path: String
    private let condition = NSCondition()
    /// Commits not yet checkpointed; `stopping` once `finish()` has been called.
    private var pending = 0
    private var stopping = false
    private var running = false
    /// A checkpoint is copying.
    private var busy = false
    /// How long each checkpoint waits before it copies (tests: a slow copy).
    var delayForTests: TimeInterval = 0
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

    /// Waits until the checkpoints of every commit so far have run (whether or not readers
    /// let them copy everything).
    func caughtUp() {
        condition.lock()
        // Not once the thread has ended (after `finish()`): nothing would copy them.
        while (pending > 0 || busy) && running { condition.wait() }
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
            busy = true
            condition.unlock()
            var frames: Int32 = -1, copied: Int32 = -1
            if delayForTests > 0 { Thread.sleep(forTimeInterval: delayForTests) }
            if let db {
                // A failure (busy) is harmless: the next commit's checkpoint copies it, and
                // SQLite's own checkpoints take over once the import ends.
                _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &copied)
            }
            condition.lock()
            busy = false
            condition.broadcast()
            if frames >= 0 && frames == copied { completed += 1 }
        }
        sqlite3_close(db)
        running = false
        condition.broadcast()
        condition.unlock()
    }
}
