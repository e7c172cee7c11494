import Foundation
import GRDB
@testable import PacenoteApp
@testable import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing

/// An import larger than the history sets the charts' indexes aside while it runs and
/// creates them again at its end, also when it is stopped; a smaller one keeps them.
@Suite struct IndexDeferralTests {
    static func write(_ dir: TemporaryDirectory, _ name: String, plays: Int, from start: Int) throws -> String {
        let lines = (0..<plays).map { i in
            #"{"listened_at": \#(start + i * 600), "track_metadata": {"artist_name": "Band \#(i % 7)", "track_name": "Song \#(i % 40)", "additional_info": {"duration_ms": \#(120_000 + i % 13 * 1000)}}}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir.file(name), atomically: true, encoding: .utf8)
        return dir.file(name)
    }

    static func chartIndexes(_ store: Store) throws -> [String] {
        try store.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND (name LIKE '%\\_top' ESCAPE '\\' OR name LIKE '%\\_by\\_time' ESCAPE '\\') ORDER BY name")
        }
    }

    /// The top tracks by plays from the rollups, and recomputed from the plays.
    static func expectTopTracksExact(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let chart = try store.topTracks(fromDay: "2023-01-01", toDay: "2023-12-31", limit: 10).map { [$0.track!.id!, Int64($0.plays)] }
        let recomputed = try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.track_id, SUM(p.counted) AS n FROM plays p JOIN tracks t ON t.id = p.track_id
                WHERE p.local_day BETWEEN '2023-01-01' AND '2023-12-31' GROUP BY 1 ORDER BY n DESC, SUM(p.played_s) DESC, t.title LIMIT 10
                """).map { [$0[0] as Int64, $0[1] as Int64] }
        }
        #expect(chart == recomputed, sourceLocation: sourceLocation)
    }

    @Test func theRuleWeighsTheImportAgainstTheHistory() {
        #expect(ListenImporter.defersIndexes(estimatedPlays: 5_000_000, storedPlays: 0, minimum: 200_000))
        #expect(ListenImporter.defersIndexes(estimatedPlays: 1_000_000, storedPlays: 1_000_000, minimum: 200_000))
        #expect(!ListenImporter.defersIndexes(estimatedPlays: 999_999, storedPlays: 1_000_000, minimum: 200_000))
        #expect(!ListenImporter.defersIndexes(estimatedPlays: 150_000, storedPlays: 0, minimum: 200_000), "small: not worth the charts' slower reads")
    }

    @Test func aLargeImportSetsTheChartIndexesAsideAndCreatesThemAgain() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let all = try Self.chartIndexes(store)
        #expect(all.count == 18)
        let file = try Self.write(dir, "big.jsonl", plays: 900, from: 1_672_531_200)  // 2023-01-01
        let aside = Mutex<[Int]>([])
        try ListenImporter.$indexDeferralMinimum.withValue(500) {
            // Transactions of 100 plays: the charts are read between them, without the indexes.
            let importer = ListenImporter(store: store, batchSize: 100, progress: { _ in
                aside.withLock { $0.append((try? store.deferredIndexes().count) ?? -1) }
                #expect((try? Self.expectTopTracksExact(store)) != nil)
            })
            let summary = try importer.importFile(at: file)
            #expect(summary.imported == 900)
        }
        #expect(aside.withLock { $0.count } == 9 && aside.withLock { $0.allSatisfy { $0 == 18 } }, "\(aside.withLock { $0 })")
        #expect(try store.deferredIndexes().isEmpty)
        #expect(try Self.chartIndexes(store) == all)
        try Self.expectTopTracksExact(store)

        // A second import, smaller than the history now: the indexes stay.
        let more = try Self.write(dir, "more.jsonl", plays: 600, from: 1_690_000_000)
        let seen = Mutex<[Int]>([])
        try ListenImporter.$indexDeferralMinimum.withValue(500) {
            let importer = ListenImporter(store: store, batchSize: 100, progress: { _ in
                seen.withLock { $0.append((try? store.deferredIndexes().count) ?? -1) }
            })
            let summary = try importer.importFile(at: more)
            #expect(summary.imported == 600)
        }
        #expect(!seen.withLock { $0.isEmpty } && seen.withLock { $0.allSatisfy { $0 == 0 } })
        try Self.expectTopTracksExact(store)
    }

    /// Stopped (the daemon stopping under an upload, Ctrl-C under `pacenote import`): the
    /// transactions before stay, and the indexes come back before it returns.
    @Test func aStoppedImportCreatesTheIndexesAgain() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let file = try Self.write(dir, "big.jsonl", plays: 900, from: 1_672_531_200)
        let asked = Mutex(0)
        try ListenImporter.$indexDeferralMinimum.withValue(500) {
            let importer = ListenImporter(store: store, batchSize: 100, cancelled: {
                asked.withLock { $0 += 1; return $0 > 3 }
            }, progress: { _ in #expect((try? store.deferredIndexes().count) == 18) })
            #expect(throws: ListenImporter.FileError.self) { _ = try importer.importFile(at: file) }
        }
        #expect(try store.counts().plays == 300)
        #expect(try store.deferredIndexes().isEmpty)
        #expect(try Self.chartIndexes(store).count == 18)
        try Self.expectTopTracksExact(store)
    }
}
