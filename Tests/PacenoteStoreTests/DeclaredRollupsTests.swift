import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// Every declared rollup (`Rollups.all`), whichever it is, held to its recomputation from
/// `plays` after each way plays arrive and change: the triggers, the bulk import (onto
/// stored rows and new ones), curation (delete, edit, merges, undo) and the rebuild for a
/// new time zone. No rollup is named here: a new declaration is covered as it is added.
@Suite struct DeclaredRollupsTests {
    /// Tables named `rollup_…` that are not rollups of plays, and why.
    static let notRollups: Set<String> = [
        "rollup_year_charted",  // counts of a year rollup's rows with plays (`YearChartLengths`), not sums of plays
    ]

    /// Each declared rollup's rows, stored (`recomputed: false`) or summed from the plays:
    /// key → its measures, seconds as numbers to compare within rounding.
    static func rows(_ rollup: Rollup, recomputed: Bool, in db: Database) throws -> [String: [DatabaseValue]] {
        let sql = recomputed ? rollup.recomputed() : "SELECT \(rollup.keys.joined(separator: ", ")), \(rollup.measureColumns) FROM \(rollup.table)"
        var out: [String: [DatabaseValue]] = [:]
        for row in try Row.fetchAll(db, sql: sql) {
            let values = Array(row.databaseValues)
            out[values.prefix(rollup.keys.count).map(\.description).joined(separator: " ")] = Array(values.dropFirst(rollup.keys.count))
        }
        return out
    }

    static func expectEveryRollupRecomputed(_ store: Store, _ step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try store.read { db in
            for rollup in Rollups.all {
                let stored = try rows(rollup, recomputed: false, in: db), fromPlays = try rows(rollup, recomputed: true, in: db)
                #expect(!fromPlays.isEmpty, "\(step): \(rollup.table) has rows", sourceLocation: sourceLocation)
                #expect(stored.keys.sorted() == fromPlays.keys.sorted(), "\(step): \(rollup.table)'s keys", sourceLocation: sourceLocation)
                for (key, expected) in fromPlays {
                    let found = stored[key] ?? []
                    let same = found.count == expected.count && zip(found, expected).allSatisfy { a, b in
                        if case .double(let x) = a.storage, case .double(let y) = b.storage { return abs(x - y) <= 1e-6 * max(1, abs(y)) }
                        return a == b
                    }
                    #expect(same, "\(step): \(rollup.table) \(key): \(found) stored, \(expected) from the plays", sourceLocation: sourceLocation)
                }
            }
        }
    }

    @Test func everyDeclaredRollupIsItsRecomputationFromThePlays() throws {
        let (dir, store) = try CurationStoreTests.history(seed: 5, plays: 200)
        var open = store
        defer { try? open.close() }
        try Self.expectEveryRollupRecomputed(store, "through the triggers")
        // The bulk import, onto stored rows (the same days and tracks) and new ones, in batches.
        let session = ListenImportSession(store: store, source: "import:test")
        let listens = ImportStoreTests.listens(count: 1500, seed: 9)
        var imported = 0
        for start in stride(from: 0, to: listens.count, by: 400) {
            imported += try session.insert(Array(listens[start..<min(start + 400, listens.count)])).imported
        }
        #expect(imported == 1500)
        try Self.expectEveryRollupRecomputed(store, "imported")
        // And with the sums made on the writer's own thread.
        let later = try ImportEntityRollups.$refusesThreads.withValue(true) { () throws -> Int in
            // Later days: rows the import knows to be new.
            let more = ImportStoreTests.listens(count: 300, seed: 10).map { listen in
                var later = listen
                later.startedAtMs += 86_400_000 * 400
                later.endedAtMs += 86_400_000 * 400
                return later
            }
            return try ListenImportSession(store: store, source: "import:more").insert(more).imported
        }
        #expect(later == 300)
        try Self.expectEveryRollupRecomputed(store, "imported on one thread")
        // Curation: deletes, edits (counted, another track), merges, an undo.
        let plays = try CurationStoreTests.ids(store, "SELECT id FROM plays ORDER BY id")
        let tracks = try CurationStoreTests.ids(store, "SELECT id FROM tracks WHERE id IN (SELECT track_id FROM plays) ORDER BY id")
        let albums = try CurationStoreTests.ids(store, "SELECT id FROM albums ORDER BY id")
        _ = try store.curateDelete(playIDs: [plays[3], plays[400]], request: "{}", source: "test")
        _ = try store.curateEdit(playID: plays[10], Store.PlayEdit(counted: false), request: "{}", source: "test")
        let edit = try store.curateEdit(playID: plays[11], Store.PlayEdit(track: Track(title: "Corrected", artist: "Someone New", album: "New")),
                                        request: "{}", source: "test").entry
        try Self.expectEveryRollupRecomputed(store, "plays deleted and edited")
        _ = try store.merge(.track, from: [tracks[1], tracks[2]], into: tracks[0], request: "{}", source: "test")
        _ = try store.merge(.album, from: [albums[1]], into: albums[0], request: "{}", source: "test")
        try Self.expectEveryRollupRecomputed(store, "tracks and albums merged")
        _ = try store.undoCuration(id: edit.id)
        try Self.expectEveryRollupRecomputed(store, "an edit undone")
        // The rebuild: the same history in another time zone's days.
        try store.close()
        open = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "America/New_York")!)
        #expect(try open.rollupTimeZone() == "America/New_York")
        try Self.expectEveryRollupRecomputed(open, "rebuilt for another zone")
    }

    /// Each declared rollup's rows as the bulk import leaves them, against the triggers'
    /// for the same plays: bit for bit where the import adds play by play
    /// (`Rollup.Batch.eachPlay`), within rounding where it adds a batch's sums to a stored row.
    @Test func theBulkImportWritesEveryDeclaredRollupAsTheTriggersDo() throws {
        let dir = try TemporaryDirectory()
        let zone = TimeZone(identifier: "Europe/Berlin")!
        let bulk = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? bulk.close(); try? reference.close() }
        let all = ImportStoreTests.listens(count: 2500, seed: 3)
        for store in [bulk, reference] { try store.logThroughTriggers(all.prefix(400)) }
        let session = ListenImportSession(store: bulk, source: "import:test")
        for start in stride(from: 400, to: all.count, by: 600) {
            _ = try session.insert(Array(all[start..<min(start + 600, all.count)]))
        }
        try reference.logThroughTriggers(all.dropFirst(400))
        // Ids may differ between the two stores: tracks, artists, albums and genres by their names.
        let names = ["track_id": "(SELECT title || '/' || artist FROM tracks WHERE id = track_id)",
                     "artist_id": "(SELECT name FROM artists WHERE id = artist_id)",
                     "album_id": "(SELECT title || '/' || IFNULL(artist, '') FROM albums WHERE id = album_id)",
                     "genre_id": "(SELECT name FROM genres WHERE id = genre_id)"]
        for rollup in Rollups.all {
            let sql = "SELECT \(rollup.keys.map { names[$0] ?? $0 }.joined(separator: ", ")), \(rollup.measureColumns) FROM \(rollup.table)"
            func dump(_ store: Store) throws -> [String: [DatabaseValue]] {
                try store.read { db in
                    try Row.fetchAll(db, sql: sql).reduce(into: [:]) { out, row in
                        let values = Array(row.databaseValues)
                        out[values.prefix(rollup.keys.count).map(\.description).joined(separator: " ")] = Array(values.dropFirst(rollup.keys.count))
                    }
                }
            }
            let imported = try dump(bulk), expected = try dump(reference)
            #expect(!expected.isEmpty && imported.keys.sorted() == expected.keys.sorted(), "\(rollup.table)'s keys")
            for (key, values) in expected {
                let found = imported[key] ?? []
                let same = found.count == values.count && zip(found, values).allSatisfy { a, b in
                    guard case .double(let x) = a.storage, case .double(let y) = b.storage else { return a == b }
                    return rollup.batch == .eachPlay ? x.bitPattern == y.bitPattern : abs(x - y) <= 1e-6 * max(1, abs(y))
                }
                #expect(same, "\(rollup.table) \(key): \(found) imported, \(values) through the triggers")
            }
        }
    }

    /// Every `rollup_…` table is declared (or said here why not), every declared one exists,
    /// and the triggers on `plays` are the declarations': made again at open only when they
    /// differ.
    @Test func everyRollupIsDeclaredAndTheTriggersAndIndexesAreTheDeclarations() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let (tables, triggers) = try store.read { db in
            (Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rollup\\_%' ESCAPE '\\'")),
             try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'plays' ORDER BY name")
                .map { "\($0[0] as String)\n\($0[1] as String)" })
        }
        #expect(tables.subtracting(Self.notRollups) == Set(Rollups.all.map(\.table)))
        #expect(Set(Rollups.all.map(\.table)).count == Rollups.all.count, "a table declared twice")
        #expect(triggers == RollupTriggers.all.map { "\($0.name)\n\($0.sql)" }.sorted())
        // The orders charts read them in (`Rollup.Order`): every rollup index is a declared
        // one, as declared, heads and all.
        let indexes = try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name LIKE 'rollup\\_%' ESCAPE '\\'
                """).map { "\($0[0] as String)\n\($0[1] as String)" }
        }
        #expect(Set(indexes) == Set(Rollups.all.flatMap(\.indexes).map { "\($0.name)\n\($0.sql)" }))
        #expect(indexes.count == Rollups.all.flatMap(\.indexes).count)
        #expect(try store.write { db in try RollupTriggers.sync(in: db) } == [], "an unchanged database keeps its triggers")
        // A trigger left as an older version made it is made again.
        try store.write { db in
            try db.execute(sql: "DROP TRIGGER plays_entity_rollup_delete; CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN SELECT 1; END")
        }
        #expect(try store.write { db in try RollupTriggers.sync(in: db) } == ["plays_entity_rollup_delete"])
    }
}
