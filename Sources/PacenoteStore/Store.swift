import CSQLiteConfig
import Foundation
import GRDB
import PacenoteCore
import Synchronization

/// Pacenote's SQLite database: a WAL `DatabasePool`, so the web layer reads while the
/// watcher writes. Open it with `Store.open`, close it with `close()`.
public final class Store: Sendable {
    public let path: String
    let pool: DatabasePool
    /// The display time zone's days and hours (local days of plays, pins and rollups).
    public let localTime: LocalTime
    /// Where a backup goes before a migration changes the schema (nil: none is taken).
    let migrationBackups: String?

    /// Counts this process's commits (`CommitCounter`, on the writer): a value read before a
    /// read began and unchanged after tells that no write of this process committed since.
    private let commits = CommitCounter()
    /// The rule set compiled for ingest (`currentRules`).
    let ruleCache = RuleCache()
    /// Makes commits durable before they are acknowledged, one sync for many (`GroupCommit`).
    public let groupCommit: GroupCommit

    /// The number of transactions this process has committed to the database so far: every
    /// writer (operations, heart rate, the library mirror, the play in progress) goes through
    /// the pool's one writer, so any change of ours moves it on, after its commit and before
    /// the write returns. Caches keep what they computed with the value read *before* the
    /// read; another process's writes do not move it (caches bound their age for those).
    public var commitCount: UInt64 { commits.count.load(ordering: .acquiring) }

    /// The names of all migrations this version knows, oldest first.
    public static var knownMigrations: [String] { Schema.migrator.migrations }

    private init(path: String, pool: DatabasePool, localTime: LocalTime, migrationBackups: String?) {
        self.path = path
        self.migrationBackups = migrationBackups
        self.pool = pool
        self.localTime = localTime
        groupCommit = GroupCommit(databasePath: path) { [commits] in commits.count.load(ordering: .acquiring) }
    }

    /// Blocks until every commit of this process so far is on disk (`GroupCommit`): for
    /// writers that acknowledge what they stored outside an HTTP answer (plays from MPD).
    public func waitDurable() throws(StoreError) {
        do { try groupCommit.waitDurable() } catch { throw .sqlite(error.description) }
    }

    /// Opens (creating if needed) and migrates the database at `path`. The directory must
    /// exist. `timeZone` is the display zone: if it differs from the one the rollups were
    /// built for, local days are recomputed and the rollups rebuilt, in one transaction.
    /// `backupsBeforeMigrating`: the folder a backup is written to before a migration changes
    /// the schema of a database that already has one (`pacenote-…-before-migration.sqlite`).
    /// `announce`: told before an existing database is upgraded (on a long history a
    /// migration can take a minute, during which nothing else answers).
    public static func open(path: String, timeZone: TimeZone, backupsBeforeMigrating: String? = nil,
                            announce: (@Sendable (String) -> Void)? = nil) throws(StoreError) -> Store {
        try checkLocation(path)
        // Heart rate is health data: a new database is readable by its owner only, from its
        // first byte (created here with mode 0600, never made wider and narrowed). SQLite
        // creates the -wal and -shm files with the database file's mode.
        _ = try createPrivateFile(path, mayExist: true)
        _ = processSettings
        var config = Configuration()
        config.foreignKeysEnabled = true
        // A writer waits up to 10 s for the lock: another process's import holds it for a
        // transaction at a time (`ListenImporter.transactionSeconds`, then its rollups).
        config.busyMode = .timeout(10)
        config.label = "pacenote"
        // Readers: one per HTTP worker thread is enough; each keeps its own page cache.
        config.maximumReaderCount = 4
        config.prepareDatabase { db in
            // Pages of 8 KiB in a new database (this runs before its first write; an existing
            // one keeps the size it has). Rollup rows and index entries are small and many: at
            // 8 KiB a page holds twice as many, so a bulk import splits and rewrites fewer
            // pages — scripts/bench/scale's files, 4 KiB and 8 KiB imports taken in turn, the
            // median of the pairs' time ratios: 5M plays 0.95, 1M 0.93, 200,000 new tracks 0.98
            // — while the uncached charts and the resident memory after the load stayed the same.
            try db.execute(sql: "PRAGMA page_size = \(Store.pageSize)")
            // NORMAL is durable across application crashes in WAL mode; only a power loss
            // can roll back the last commits (https://sqlite.org/pragma.html#pragma_synchronous).
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // 512 KiB of page cache per connection (SQLite's default is 2 MiB): the rollups
            // keep the hot set small, the OS caches the file anyway, and a home server's
            // memory is shared (scripts/bench/api: same p99, ~2 MiB less resident).
            try db.execute(sql: "PRAGMA cache_size = -\(Store.cacheKiB)")
            // Statement journals (and sorts) in memory, not in files under /var/tmp: a bulk
            // import's upserts wrote one page to a statement journal per row, 1.5M write
            // calls for a million plays (strace), for journals of a page or two each.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
            db.add(function: Store.artistKeyFunction())
            db.add(function: Store.searchWordsFunction())
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: config)
        } catch {
            throw StoreError(error, path: path)
        }
        let store = Store(path: path, pool: pool, localTime: LocalTime(timeZone: timeZone), migrationBackups: backupsBeforeMigrating)
        pool.add(transactionObserver: store.commits, extent: .databaseLifetime)
        do {
            // Indexes a killed import dropped (`DeferredIndexes`), built before a migration
            // may name them.
            store.buildDeferredIndexes(announce: announce)
            try store.migrate(announce: announce)
            try store.alignRollups(to: timeZone)
        } catch {
            try? pool.close()
            throw error
        }
        return store
    }

    /// The database's directory exists, the path is not a directory, and this user may write
    /// the database, its side files and the folder: what must hold before anything is created
    /// beside it.
    public static func checkLocation(_ path: String) throws(StoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        var isDir: ObjCBool = false
        if !directory.isEmpty, !(FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) && isDir.boolValue) {
            throw .cannotOpen(path: path, reason: "directory \(directory) does not exist")
        }
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue {
            throw .cannotOpen(path: path, reason: "it is a directory")
        }
        // SQLite would open a file this user may not write read-only, and leave a `-shm` as
        // read-only as the database (`DatabaseFileAccess`).
        if let problem = DatabaseFileAccess.problems(databasePath: path).first {
            throw .cannotOpen(path: path, reason: problem.description)
        }
    }

    /// Creates an empty file readable by its owner only, from its first byte (`O_CREAT|O_EXCL`,
    /// mode 0600: never created wider and narrowed, never through a link planted in its
    /// place). With `mayExist`, a file already there is left as it is; returns whether it was
    /// created.
    @discardableResult
    static func createPrivateFile(_ path: String, mayExist: Bool = false) throws(StoreError) -> Bool {
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd >= 0 {
            Glibc.close(fd)
            return true
        }
        if mayExist && errno == EEXIST { return false }
        throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
    }

    /// Each connection's page cache, in KiB.
    static let cacheKiB = 512

    /// The page size of a database this version creates, in bytes (SQLite's default: 4096).
    public static let pageSize = 8192

    /// Process-wide SQLite settings, made once before the first connection opens.
    /// Allocation statistics off: SQLite built with them (Debian's is) takes a global mutex
    /// around each of its allocations, an eighth of a bulk import's time
    /// (scripts/bench/import).
    private static let processSettings: Void = {
        _ = pacenote_sqlite_memstatus(0)
    }()

    /// Builds the rollups' ranking indexes an import dropped, if its process is gone
    /// (`DeferredIndexes`). A failure (a full disk) is told and leaves them recorded: they
    /// only make charts faster, and the next open tries again.
    /// Returns whether it built them.
    @discardableResult
    func buildDeferredIndexes(announce: (@Sendable (String) -> Void)? = nil, stopping: () -> Bool = { false }) -> Bool {
        let building = Atomic<Bool>(false)
        do {
            guard try pool.read({ db in try db.tableExists("meta") }) else { return false }
            try DeferredIndexes.buildIfOwnerIsGone(in: pool, announce: { message in
                building.store(true, ordering: .relaxed)
                announce?(message)
            }, stopping: stopping)
            return building.load(ordering: .relaxed) && !stopping()
        } catch {
            announce?("the charts' indexes could not be built (\(StoreError(error, path: path))); the charts are right but slower until they are")
            return false
        }
    }

    /// What the daemon does while it runs (`AbandonedIndexes`): builds the indexes an import
    /// in a process that is gone set aside, as an open would. One read of `meta` when there
    /// are none. `announce`: when it starts, and if it fails. `stopping`: asked before each
    /// index (the daemon is stopping: the rest stay recorded, for its next start).
    /// Returns whether it built them.
    @discardableResult
    public func buildAbandonedIndexes(announce: @escaping @Sendable (String) -> Void, stopping: () -> Bool = { false }) -> Bool {
        buildDeferredIndexes(announce: announce, stopping: stopping)
    }

    /// Applies every migration not yet applied. Running it again changes nothing. A
    /// database that has a schema is backed up first (`migrationBackups`).
    public func migrate(announce: (@Sendable (String) -> Void)? = nil) throws(StoreError) {
        do {
            let migrator = Schema.migrator
            let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
            let unknown = applied.subtracting(migrator.migrations)
            if !unknown.isEmpty { throw StoreError.newerSchema(path: path, unknownMigrations: unknown.sorted()) }
            let pending = migrator.migrations.filter { !applied.contains($0) }
            if !applied.isEmpty, !pending.isEmpty {
                announce?("upgrading the database \(path) (\(pending.joined(separator: ", "))): on a long history this takes a minute or two")
            }
            if let migrationBackups, !applied.isEmpty, !pending.isEmpty {
                try backupBeforeMigrating(into: migrationBackups)
            }
            try migrator.migrate(pool)
            try pool.write { db in
                // Derived from the rollups' declarations, not a migration (`RollupTriggers`).
                try RollupTriggers.sync(in: db)
                try db.execute(
                    sql: "INSERT INTO meta (key, value) VALUES ('created_at_ms', ?) ON CONFLICT (key) DO NOTHING",
                    arguments: [Self.milliseconds(Date())])
            }
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// The migrations recorded in this database, in the order they were applied.
    public func appliedMigrations() throws(StoreError) -> [String] {
        do {
            return try pool.read { db in try Schema.migrator.appliedMigrations(db) }
        } catch {
            throw StoreError(error, path: path)
        }
    }

    /// Checkpoints the WAL and closes every connection. The store is unusable afterwards.
    public func close() throws(StoreError) {
        do {
            try pool.writeWithoutTransaction { db in
                _ = try? db.checkpoint(.truncate)
            }
            try pool.close()
        } catch {
            throw StoreError(error, path: path)
        }
    }

    // MARK: Helpers shared by the query files

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Runs a read and maps any failure to `StoreError`.
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.read(body) } catch { throw StoreError(error, path: path) }
    }

    /// Runs a write in one transaction and maps any failure to `StoreError`: on error,
    /// nothing of it is kept.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do { return try pool.write(body) } catch { throw StoreError(error, path: path) }
    }
}

/// Counts the writer's commits. GRDB calls `databaseDidCommit` for every commit of the
/// connection it observes, whatever the tables (`observes` answers false, so no row change
/// is reported: a bulk import pays nothing per row).
final class CommitCounter: TransactionObserver, Sendable {
    let count = Atomic<UInt64>(0)

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { count.add(1, ordering: .releasing) }
    func databaseDidRollback(_ db: Database) {}
}
