import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The charts' indexes set aside for a large import (`Store+DeferredIndexes`): charts stay
/// exact without them, they come back as they were, and an import that died leaves them
/// to the next opening.
@Suite struct DeferredIndexTests {
    static let zone = TimeZone(identifier: "Europe/Berlin")!

    /// Every index of the schema: name → statement.
    static func indexes(_ store: Store) throws -> [String: String] {
        try store.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
                .map { ($0[0] as String, $0[1] as String) })
        }
    }

    @Test func chartsStayExactWithoutTheirIndexesWhichComeBackAsTheyWere() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        defer { try? store.close() }
        let listens = ImportStoreTests.listens(count: 1200, seed: 8)
        _ = try ListenImportSession(store: store, source: "import:test").insert(Array(listens.prefix(600)))
        let before = try Self.indexes(store)
        let charts = before.keys.filter { $0.hasPrefix("rollup_") && ($0.hasSuffix("_top") || $0.hasSuffix("_by_time")) }
        // By plays and by time, of tracks, artists and albums: every total, year and month rollup.
        #expect(charts.count == 18, "\(charts.sorted())")
        #expect(try store.deferChartIndexes() == 18)
        #expect(Set(try store.deferredIndexes()) == Set(charts))
        #expect(Set(try Self.indexes(store).keys) == Set(before.keys).subtracting(charts))
        // A second import meanwhile finds nothing to set aside, and the set-aside survive it.
        #expect(try store.deferChartIndexes() == 0)
        let session = ListenImportSession(store: store, source: "import:test")
        #expect(try session.insert(Array(listens.dropFirst(600))).imported == 600)
        session.finish()
        try EntityRollupTests.expectExact(store, "imported with the charts' indexes set aside")
        // Opening the database again in the process that set them aside leaves them aside.
        let again = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.zone)
        #expect(try again.deferredIndexes().count == 18)
        try again.close()
        #expect(try store.restoreDeferredIndexes(of: .abandoned) == 0, "this process's own are not abandoned")
        #expect(try store.restoreDeferredIndexes(of: .mine) == 18)
        #expect(try Self.indexes(store) == before)
        #expect(try store.deferredIndexes().isEmpty)
        try EntityRollupTests.expectExact(store, "with the indexes back")
        // The reads the charts make go through them again.
        let plan = try store.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT track_id FROM rollup_month_track WHERE month = '2024-04' ORDER BY played_s DESC, plays DESC LIMIT 5")
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
        #expect(plan.contains("rollup_month_track_by_time") && !plan.contains("TEMP B-TREE"), "\(plan)")
    }

    /// An import killed while the indexes were aside: the next process to open the database
    /// creates them again; a process that is alive keeps its own.
    @Test func anAbandonedImportsIndexesComeBackAtTheNextOpening() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store = try Store.open(path: path, timeZone: Self.zone)
        _ = try ListenImportSession(store: store, source: "import:test").insert(ImportStoreTests.listens(count: 300, seed: 9))
        let before = try Self.indexes(store)
        #expect(try store.deferChartIndexes() == 18)
        // Owned by a live process that is not this one (pid 1, as it started), then by one
        // that is gone (pid 1 with another start time is a later process).
        let init1 = try #require(Store.processIdentity(1))
        try store.write { db in try db.execute(sql: "UPDATE deferred_indexes SET owner = ?", arguments: [init1]) }
        try store.close()
        store = try Store.open(path: path, timeZone: Self.zone)
        #expect(try store.deferredIndexes().count == 18, "an import under way keeps its indexes aside")
        try store.write { db in try db.execute(sql: "UPDATE deferred_indexes SET owner = '1:0'") }
        try store.close()
        store = try Store.open(path: path, timeZone: Self.zone)
        #expect(try store.deferredIndexes().isEmpty)
        #expect(try Self.indexes(store) == before)
        try EntityRollupTests.expectExact(store, "after the indexes came back")
        try store.close()
    }

    @Test func aProcessIsKnownByItsPidAndStartTime() throws {
        let me = try #require(Store.processIdentity())
        #expect(me.hasPrefix("\(getpid()):"))
        #expect(Store.processIdentity() == me)
        #expect(Store.processIdentity(Int32.max) == nil)
    }
}
