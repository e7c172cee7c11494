import Foundation
import GRDB

/// The rollups' ranking indexes (`rollup_…_top`, `rollup_…_by_time`: a period's rows by
/// plays and by time, which the charts read a prefix of), and the tracks' indexes of artist
/// and album text, which an import never reads, dropped for the rest of a big import and
/// built again once it ends.
///
/// Every rollup row an import writes or updates is written again in each of its table's two
/// ranking indexes (an update moves the entry: a delete and an insert). At 5M plays those
/// are 12.5M of the import's ~37M B-tree entries, and SQLite's cost is per entry: the import
/// took 30.5 s without them against 48.5 s with them, while `CREATE INDEX` builds all of them
/// again in ~7 s, sorted once. So an import session (`ListenImportSession`) drops them when
/// what it will write is large beside what is stored — when the database holds few plays,
/// or the session has already imported as many as the database held when it began — and
/// builds them again when it finishes. A small import into a long history never does: the
/// build reads every row of the rollups.
///
/// While they are missing, the charts are right but slower (SQLite sorts a period's rows),
/// and a look-up of tracks by their artist text scans them.
/// The dropped indexes are recorded in `meta` in the transaction that drops them, with the
/// process that did: if it dies before it has built them again, the next `Store.open` does
/// (`buildIfOwnerIsGone`).
enum DeferredIndexes {
    static let metaKey = "deferred_indexes"

    /// Plays stored below which an import drops the indexes from its first transaction:
    /// building them again for so few rows takes well under a second. (A task local, read
    /// on the importing task: tests set it low.)
    @TaskLocal static var fewPlays: Int64 = 50_000

    /// The writer's page cache while it builds the indexes, in KiB (see `build`).
    static let sortKiB = 2_048

    /// The indexes an import drops: the rollup tables' `…_top` and `…_by_time`, and the two
    /// of a new track's texts that it never reads (tracks by artist and by album, case folded:
    /// a B-tree entry in random order for every new track). What it looks up — tracks by match
    /// key, recording and URI, artists and albums by key, plays by track and time — keeps its
    /// index, and so do those a year's review and a range's chart read per artist or album
    /// (credits by artist, tracks by album, first plays by day): without them, one such read
    /// during an import would scan a table once per artist.
    static let selection = """
        SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND sql LIKE 'CREATE INDEX %'
        AND ((tbl_name LIKE 'rollup\\_%' ESCAPE '\\' AND (name LIKE '%\\_top' ESCAPE '\\' OR name LIKE '%\\_by\\_time' ESCAPE '\\'))
             OR name IN ('tracks_artist', 'tracks_album'))
        ORDER BY name
        """

    /// This process, as `meta` records it: its pid and the time it started (since boot), so
    /// that another process given the same pid later is not taken for it.
    static let owner: String = "\(getpid()) \(startTime(of: getpid()) ?? "?")"

    /// Field 22 of `/proc/PID/stat` (the start time, in clock ticks since boot); "Z" for a
    /// process that has exited and not yet been waited for.
    static func startTime(of pid: pid_t) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // The fields after the command's closing parenthesis start at field 3 (the state).
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.first == "Z" { return "Z" }
        return fields.count > 19 ? String(fields[19]) : nil
    }

    /// Whether the process `owner` names is still running. Without `/proc` (or with the
    /// start time unknown when it was recorded), whether a process of that pid exists.
    static func isRunning(_ owner: Substring) -> Bool {
        let parts = owner.split(separator: " ")
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0 else { return false }
        if parts[1] != "?", let now = startTime(of: pid) { return now == String(parts[1]) }
        if parts[1] != "?", FileManager.default.fileExists(atPath: "/proc/self/stat") { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// The record (`value`), its owner and the statements of the recorded indexes, if any are recorded.
    static func recorded(in db: Database) throws -> (value: String, owner: Substring, statements: [String])? {
        guard let value = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [metaKey]) else { return nil }
        let lines = value.split(separator: "\n", omittingEmptySubsequences: false)
        return (value, lines[0], lines.dropFirst().map(String.init).filter { !$0.isEmpty })
    }

    /// Drops the ranking indexes in the caller's transaction and records them, as this
    /// process's. Returns false, dropping nothing, when some are already recorded (another
    /// import of this or another process dropped them; it builds them again).
    static func drop(in db: Database) throws -> Bool {
        guard try recorded(in: db) == nil else { return false }
        let indexes = try Row.fetchAll(db, sql: selection).map { (name: $0[0] as String, sql: $0[1] as String) }
        guard !indexes.isEmpty else { return false }
        // One statement a line: SQLite keeps an index's text as it was written, on one line here.
        guard indexes.allSatisfy({ !$0.sql.contains("\n") }) else { return false }
        let value = ([owner] + indexes.map(\.sql)).joined(separator: "\n")
        try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?)", arguments: [metaKey, value])
        for index in indexes { try db.execute(sql: "DROP INDEX \(index.name)") }
        return true
    }

    /// Builds the recorded indexes again, one transaction each (the write lock is never held
    /// for long: ~2 s for the largest at 5M plays), and forgets them with the last. `only`:
    /// do it only if the recorded owner satisfies it. `afterEach`: after each commit.
    /// `stopping`: asked before each index; true leaves the rest recorded, for later.
    static func build(in pool: DatabasePool, only: (Substring) -> Bool = { _ in true }, before: () -> Void = {},
                      afterEach: () -> Void = {}, stopping: () -> Bool = { false }) throws {
        guard let (value, owner, statements) = try pool.read({ db in try recorded(in: db) }), only(owner) else { return }
        before()
        // The sort's runs in a temporary file: in memory (the store's setting), the largest
        // index's keys are held whole (peak 237 MiB at 5M plays, against 170 for the import).
        // And a sort buffer of `sortKiB`: SQLite sorts as much as its page cache in memory, in
        // runs it then merges. Small runs sort faster (they stay in the processor's caches):
        // the 18 ranking indexes of 1M plays by the sqlite3 shell, 2 MiB 2.78–2.85 s, 16 MiB
        // 2.97–2.99 s; an import of 1M plays 3.5 % faster, and less memory at its end.
        // One helper thread sorts runs while the writer reads the next (`PRAGMA threads`): the
        // build is all the import does by then (the same 18 indexes, four runs each way:
        // 2.72–2.88 s alone, 2.18–2.42 s with a helper; two helpers were no faster than none).
        // The settings are the writer connection's: they are set and restored around each index
        // while it is held (`writeWithoutTransaction`), so an import's transactions between two
        // indexes (the daemon's, while `AbandonedIndexes` builds another's) keep their own.
        // Restored whatever happens; a PRAGMA of these fails only on a connection that no
        // longer works, whose next write fails.
        for statement in statements {
            if stopping() { return }
            try pool.writeWithoutTransaction { db in
                let cache = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -Store.cacheKiB
                let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
                defer { try? db.execute(sql: "PRAGMA temp_store = MEMORY; PRAGMA cache_size = \(cache); PRAGMA threads = \(threads)") }
                try db.execute(sql: "PRAGMA temp_store = FILE; PRAGMA cache_size = -\(sortKiB); PRAGMA threads = 1")
                try db.inTransaction(.immediate) {
                    try db.execute(sql: statement.replacingOccurrences(of: "CREATE INDEX ", with: "CREATE INDEX IF NOT EXISTS ",
                                                                        options: .anchored))
                    return .commit
                }
            }
            afterEach()
        }
        // Only the record read: one written since (by an import that dropped them again) stays.
        try pool.write { db in try db.execute(sql: "DELETE FROM meta WHERE key = ? AND value = ?", arguments: [metaKey, value]) }
        afterEach()
    }

    /// At open: builds the indexes an import dropped if its process is gone (it died, or was
    /// killed, before it had built them).
    static func buildIfOwnerIsGone(in pool: DatabasePool, announce: (@Sendable (String) -> Void)?,
                                   stopping: () -> Bool = { false }) throws {
        try build(in: pool, only: { !isRunning($0) }, before: {
            announce?("building the charts' indexes again, which an import that did not finish had dropped")
        }, stopping: stopping)
    }
}
