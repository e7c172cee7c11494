import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// An import drops the rollups' ranking indexes (and the tracks' by artist and album text,
/// which it never reads) when what it writes is large beside what is stored, and builds them again
/// when it ends (`DeferredIndexes`); the charts stay right.
@Suite struct DeferredIndexesTests {
    /// The indexes an import sets aside (the rollups' ranking indexes, and the tracks' by
    /// artist and album text, which it never reads): name and SQL.
    static func rankingIndexes(_ store: Store) throws -> [String] {
        try store.read { db in try Row.fetchAll(db, sql: DeferredIndexes.selection).map { "\($0[0] as String): \($0[1] as String)" } }
    }

    /// Records the set-aside indexes as a process's that is gone (no such pid), and opens
    /// the store again: the open builds them.
    static func reopenWithTheirProcessGone(_ store: Store, path: String, timeZone: TimeZone) throws -> Store {
        try store.pool.write { db in
            try db.execute(sql: "UPDATE meta SET value = '999999999 1' || substr(value, instr(value, char(10))) WHERE key = ?",
                           arguments: [DeferredIndexes.metaKey])
        }
        try store.close()
        return try Store.open(path: path, timeZone: timeZone)
    }

    static func recorded(_ store: Store) throws -> String? {
        try store.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [DeferredIndexes.metaKey]) }
    }

    /// Every chart the store answers from the ranking indexes, for ranges over the listens:
    /// whole years, a month, months and days, a few days. Seconds to the microsecond
    /// (`rounded`): an artist's or album's sums are added in another order by an import than
    /// by the trigger.
    static func charts(_ store: Store, rounded: Bool = false) throws -> [String] {
        var out: [String] = []
        for (from, to) in [("2024-01-01", "2026-12-31"), ("2024-04-01", "2024-04-30"), ("2024-03-29", "2024-05-17"), ("2024-04-10", "2024-04-12")] {
            for order in [ChartOrder.plays, .time] {
                for chart in [try store.topTracks(fromDay: from, toDay: to, limit: 5, by: order),
                              try store.topArtists(fromDay: from, toDay: to, limit: 5, by: order),
                              try store.topAlbums(fromDay: from, toDay: to, limit: 5, by: order)] {
                    out.append(chart.map { entry in
                        var entry = entry
                        if rounded { entry.seconds = (entry.seconds * 1e6).rounded() / 1e6 }
                        return "\(entry)"
                    }.joined(separator: "\n"))
                }
            }
        }
        return out
    }

    @Test func anImportIntoAnEmptyDatabaseDropsThemUntilItEnds() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? store.close(); try? reference.close() }
        let all = ImportStoreTests.listens(count: 3000, seed: 5)
        try reference.logThroughTriggers(all)
        let expected = try Self.rankingIndexes(store)
        #expect(expected.count == 30)  // with the day heads (v21) and the genres' (v30)
        let session = ListenImportSession(store: store, source: "import:test")
        for start in stride(from: 0, to: all.count, by: 1000) {
            _ = try session.insert(Array(all[start..<(start + 1000)]))
            // Dropped with the first transaction, and recorded as this process's.
            #expect(try Self.rankingIndexes(store).isEmpty)
            #expect(try Self.recorded(store)?.hasPrefix(DeferredIndexes.owner + "\n") == true)
            // The charts are right without them (SQLite sorts the rows).
            try EntityRollupTests.expectExact(store, "during the import")
        }
        let without = try Self.charts(store)
        #expect(try Self.charts(store, rounded: true) == (try Self.charts(reference, rounded: true)))
        // Artists' and albums' pages are the same without the tracks' text indexes.
        func pages() throws -> [TrackSummary] {
            try (Int64(1)...5).flatMap { id in [try store.artistSummary(id: id), try store.albumSummary(id: id)] }
        }
        let pagesWithout = try pages()
        #expect(pagesWithout.filter { $0.plays > 0 }.count >= 5)
        session.finish()
        #expect(try pages() == pagesWithout)
        #expect(try Self.rankingIndexes(store) == expected)
        #expect(try Self.recorded(store) == nil)
        // The same charts through the indexes as without them.
        #expect(try Self.charts(store) == without)
        #expect(try store.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// v21 run while an import (this process) has the ranking indexes set aside: the day
    /// heads are recorded with them, not created for the import to keep row by row, and
    /// whoever builds the recorded ones builds them too.
    @Test func theDayHeadsOfAnUpgradeDuringAnImportAreRecordedWithTheOthers() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store = try Store.open(path: path, timeZone: zone)
        defer { try? store.close() }
        let expected = try Self.rankingIndexes(store)
        let heads = ["rollup_day_album_top", "rollup_day_artist_top", "rollup_day_track_top"]
        // As v20 left it, with an import of this process under way.
        try store.pool.writeWithoutTransaction { db in
            for name in heads { try db.execute(sql: "DROP INDEX \(name)") }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v21.day-heads'")
            #expect(try DeferredIndexes.drop(in: db))
        }
        try store.close()
        store = try Store.open(path: path, timeZone: zone)
        let record = try #require(try Self.recorded(store))
        #expect(record.hasPrefix(DeferredIndexes.owner + "\n"))
        for name in heads { #expect(record.contains("CREATE INDEX \(name) ON "), "\(name)") }
        #expect(try Self.rankingIndexes(store).isEmpty)
        try DeferredIndexes.build(in: store.pool)
        #expect(try Self.rankingIndexes(store) == expected)
        #expect(try Self.recorded(store) == nil)
    }

    /// An import small beside the stored plays keeps them; a long one drops them once it
    /// has imported as many plays as were stored when it began.
    @Test func aSmallImportIntoAHistoryKeepsThemAndALongOneDropsThemLater() throws {
        try DeferredIndexes.$fewPlays.withValue(100) {
            let dir = try TemporaryDirectory()
            let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
            defer { try? store.close() }
            let all = ImportStoreTests.listens(count: 4000, seed: 9)
            let first = ListenImportSession(store: store, source: "import:test")
            _ = try first.insert(Array(all[0..<1000]))
            #expect(try Self.rankingIndexes(store).isEmpty)
            first.finish()
            #expect(try Self.rankingIndexes(store).count == 30)
            // 1,000 stored: 500 at a time, the indexes stay until 1,000 are imported.
            let second = ListenImportSession(store: store, source: "import:test")
            var dropped: [Bool] = []
            for start in stride(from: 1000, to: 4000, by: 500) {
                _ = try second.insert(Array(all[start..<(start + 500)]))
                dropped.append(try Self.rankingIndexes(store).isEmpty)
            }
            #expect(dropped == [false, false, true, true, true, true])
            second.finish()
            #expect(try Self.rankingIndexes(store).count == 30)
            #expect(try Self.recorded(store) == nil)
            try EntityRollupTests.expectExact(store, "after two imports")
        }
    }

    /// Indexes another process dropped are its to build (while it runs); those of a process
    /// that is gone are built by the next open. An import that finds them dropped by another
    /// leaves them be.
    @Test func theyAreBuiltAtOpenOnceTheirProcessIsGone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store = try Store.open(path: path, timeZone: zone)
        let expected = try Self.rankingIndexes(store)
        // As a running process (this one) would have left them.
        _ = try store.pool.write { db in try DeferredIndexes.drop(in: db) }
        try store.close()
        store = try Store.open(path: path, timeZone: zone)
        #expect(try Self.rankingIndexes(store).isEmpty)
        let session = ListenImportSession(store: store, source: "import:test")
        _ = try session.insert(ImportStoreTests.listens(count: 200))
        session.finish()
        #expect(try Self.rankingIndexes(store).isEmpty)
        try EntityRollupTests.expectExact(store, "imported while another process had them dropped")
        // Its process gone (no such pid): the next open builds them.
        store = try Self.reopenWithTheirProcessGone(store, path: path, timeZone: zone)
        defer { try? store.close() }
        #expect(try Self.rankingIndexes(store) == expected)
        #expect(try Self.recorded(store) == nil)
        #expect(!DeferredIndexes.isRunning("999999999 1"))
        #expect(DeferredIndexes.isRunning(DeferredIndexes.owner[...]))
    }

    /// A build that fails at open (here a statement that cannot run) is told, and the
    /// database opens: the indexes only make charts faster. The record stays for the next try.
    @Test func aBuildThatFailsAtOpenIsToldAndTheDatabaseOpens() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store = try Store.open(path: path, timeZone: zone)
        try store.pool.write { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?)",
                           arguments: [DeferredIndexes.metaKey, "999999999 1\nCREATE INDEX broken ON no_such_table(a)"])
        }
        try store.close()
        let told = Mutex<[String]>([])
        store = try Store.open(path: path, timeZone: zone, announce: { message in told.withLock { $0.append(message) } })
        defer { try? store.close() }
        let messages = told.withLock { $0 }
        #expect(messages.contains { $0.hasPrefix("the charts' indexes could not be built (") && $0.contains("no_such_table") }, "\(messages)")
        #expect(try Self.recorded(store) != nil)
        // The writer's settings are the store's again after a build, failed or not.
        let (cache, temp, threads) = try store.pool.writeWithoutTransaction { db in
            (try Int.fetchOne(db, sql: "PRAGMA cache_size"), try Int.fetchOne(db, sql: "PRAGMA temp_store"),
             try Int.fetchOne(db, sql: "PRAGMA threads"))
        }
        #expect(cache == -Store.cacheKiB)
        #expect(temp == 2)  // MEMORY
        #expect(threads == 0)  // no sorting helper
    }

    /// A recorded process is running while its pid has the recorded start time and has not
    /// exited (a zombie, not yet waited for, is gone); with no start time recorded, while
    /// its pid exists.
    @Test func whetherTheRecordedProcessRuns() throws {
        var pid: pid_t = 0
        var argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sleep"), strdup("0.3"), nil]
        defer { for a in argv { free(a) } }
        #expect(posix_spawn(&pid, "/bin/sleep", nil, nil, &argv, environ) == 0)
        let start = try #require(DeferredIndexes.startTime(of: pid))
        #expect(DeferredIndexes.isRunning("\(pid) \(start)"))
        #expect(DeferredIndexes.isRunning("\(pid) ?"))
        #expect(!DeferredIndexes.isRunning("\(pid) \(start)1"))
        // Exited, not waited for: a zombie ("Z"), unless something reaped it already.
        let deadline = Date().addingTimeInterval(20)
        while ![nil, "Z"].contains(DeferredIndexes.startTime(of: pid)), Date() < deadline { usleep(10_000) }
        #expect([nil, "Z"].contains(DeferredIndexes.startTime(of: pid)))
        #expect(!DeferredIndexes.isRunning("\(pid) \(start)"))
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        #expect(!DeferredIndexes.isRunning("\(pid) \(start)"))
        #expect(!DeferredIndexes.isRunning("\(pid) ?"))
        #expect(!DeferredIndexes.isRunning("garbage"))
    }
}
