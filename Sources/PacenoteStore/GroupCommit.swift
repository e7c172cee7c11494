import Foundation
import Glibc

/// Group commit: makes commits durable against a power loss before they are acknowledged,
/// sharing one sync among every commit that arrived while the previous sync ran.
///
/// The database runs in WAL mode with `synchronous = NORMAL`: a commit appends its frames to
/// the WAL and returns; SQLite syncs the WAL only at a checkpoint (which also syncs the
/// database file before it resets the WAL: https://sqlite.org/pragma.html#pragma_synchronous,
/// https://sqlite.org/wal.html). `synchronous = FULL` would sync at every commit, inside the
/// write lock, so N writers waiting for the lock make N syncs one after another. Here the
/// writer commits without syncing and lets go of the lock; whoever must acknowledge the commit
/// then waits for a sync of the WAL that began after it (`fdatasync` on Linux flushes the
/// file whichever descriptor wrote it). The first to wait does the sync itself (the leader);
/// those who come while it runs wait for it and, if their commit came after it began, one of
/// them leads the next — so under load a sync covers many commits, and alone a commit costs
/// one sync on its own thread, with no hand-off to another (a sync thread that woke the
/// waiters cost half the throughput of 16 clients on this 2-core box, even on tmpfs).
/// A commit whose frames a checkpoint already copied is in the synced database file; a
/// frame past the last synced commit frame fails its checksum on recovery and is dropped,
/// as SQLite's own recovery does with FULL.
public final class GroupCommit: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is guarded by `condition`; `walFD` and
    // `walInode` only by the leader, one at a time (`syncing`).
    /// Why a commit could not be made durable (the sync failed): the commit is in the WAL,
    /// and is kept by anything short of a power loss.
    public struct SyncFailure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    private let condition = NSCondition()
    private var synced: UInt64 = 0
    private var syncing = false
    private let walPath: String
    private let directory: String
    private let ticket: @Sendable () -> UInt64
    /// The WAL as last opened, and its inode: SQLite may delete and create it again (when the
    /// last connection closes, or a backup is restored), and a descriptor of a deleted file
    /// syncs nothing useful.
    private var walFD: Int32 = -1
    private var walInode: (dev: UInt64, ino: UInt64) = (0, 0)
    /// Syncs done, for benchmarks and tests.
    public private(set) var syncs: UInt64 = 0

    /// `ticket`: the number of commits so far (`Store.commitCount`), read when a sync starts.
    init(databasePath: String, ticket: @escaping @Sendable () -> UInt64) {
        walPath = databasePath + "-wal"
        directory = (databasePath as NSString).deletingLastPathComponent.isEmpty
            ? "." : (databasePath as NSString).deletingLastPathComponent
        self.ticket = ticket
    }

    deinit {
        if walFD >= 0 { close(walFD) }
    }

    /// Blocks until every commit up to `ticket` (default: every commit so far) is on disk.
    public func waitDurable(_ ticket: UInt64? = nil) throws(SyncFailure) {
        let wanted = ticket ?? self.ticket()
        condition.lock()
        defer { condition.unlock() }
        while synced < wanted {
            if syncing {
                condition.wait()
                continue
            }
            syncing = true
            condition.unlock()
            // Every commit counted now has its frames in the WAL already.
            let covers = self.ticket()
            let failure = syncWAL()
            condition.lock()
            syncing = false
            syncs += 1
            if failure == nil { synced = max(synced, covers) }
            condition.broadcast()
            if let failure { throw failure }
        }
    }

    /// `fdatasync` of the WAL; the folder too when the WAL is a new file, so that its name
    /// survives as well. No WAL: every commit is in the database file, which SQLite synced.
    private func syncWAL() -> SyncFailure? {
        var info = stat()
        guard stat(walPath, &info) == 0 else {
            if errno == ENOENT { return nil }
            return SyncFailure(description: "cannot read \(walPath): \(String(cString: strerror(errno)))")
        }
        let inode = (UInt64(info.st_dev), UInt64(info.st_ino))
        if walFD < 0 || inode != walInode {
            if walFD >= 0 { close(walFD) }
            walFD = open(walPath, O_RDONLY | O_CLOEXEC)
            guard walFD >= 0 else { return SyncFailure(description: "cannot open \(walPath): \(String(cString: strerror(errno)))") }
            walInode = inode
            let folder = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                _ = fsync(folder)
                close(folder)
            }
        }
        guard fdatasync(walFD) == 0 else {
            let reason = String(cString: strerror(errno))
            close(walFD)
            walFD = -1
            return SyncFailure(description: "cannot sync \(walPath): \(reason)")
        }
        return nil
    }
}
