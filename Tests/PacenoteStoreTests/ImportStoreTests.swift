import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// A count two threads share.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func add() { lock.withLock { count += 1 } }
}

@Suite struct ImportStoreTests {
    /// Listens with awkward seconds (sums that depend on the order of addition), over
    /// days, hours, a DST change and a few tracks, some repeated back to back.
    static func listens(count: Int, seed: UInt64 = 42) -> [ImportedListen] {
        var state = seed
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var at: Int64 = 1_711_800_000_000  // 2024-03-30, the night before DST in Berlin
        return (0..<count).map { i in
            let n = random(7)
            let played = Double(random(400_000)) / 1000 + 0.1
            at += Int64(played * 1000) + Int64(random(4_000_000))
            let track = Track(title: "Song \(n)" + (n == 3 ? " (feat. Guest)" : ""), artist: n == 5 ? "Björk feat. Someone" : "Artist \(n % 3)",
                              album: n == 2 ? nil : "Album", genre: n % 3 == 0 ? "Electronic; Techno" : n == 4 ? "electronic" : nil,
                              durationSeconds: 200)
            return ImportedListen(track: track, startedAtMs: at, playedSeconds: played, counted: random(5) != 0, player: i % 2 == 0 ? "phone" : nil)
        }
    }

    /// A month's stored rows get their first half's plays and seconds added as the trigger
    /// adds them (v20), on each of the import's ways to a stored row: a batch across 15/16
    /// May of a few plays a track (one upsert with its addends), a long one of many (the row
    /// read, the plays added one by one), and single plays.
    @Test func monthHalvesOfStoredRowsAreThoseOfTheTrigger() throws {
        let dir = try TemporaryDirectory()
        let bulk = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? bulk.close(); try? reference.close() }
        // May 2024, a play every 2.5 hours or so, seven songs.
        var state: UInt64 = 20
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var at: Int64 = 1_714_521_600_000  // 2024-05-01 00:00 UTC
        let all = (0..<300).map { _ in
            let n = random(7), played = Double(random(400_000)) / 1000 + 0.1
            at += Int64(random(18_000_000))
            return ImportedListen(track: Track(title: "Song \(n)", artist: "Artist \(n % 3)", album: "Album \(n % 2)"),
                                  startedAtMs: at, playedSeconds: played, counted: random(5) != 0, player: nil)
        }
        let local = LocalTime(timeZone: zone)
        let day = { (l: ImportedListen) in local.day(of: Date(timeIntervalSince1970: Double(l.startedAtMs) / 1000)) }
        let middle = try #require(all.firstIndex { day($0) >= "2024-05-16" })
        #expect(day(all[0]) < "2024-05-03" && day(all[299]) > "2024-05-28")
        for store in [bulk, reference] { try store.logThroughTriggers(all.prefix(20)) }
        let session = ListenImportSession(store: bulk, source: "import:test")
        var imported = 0
        for (from, to) in [(20, middle - 14), (middle - 14, middle + 14), (middle + 14, middle + 15), (middle + 15, 300)] {
            #expect(from < to)
            imported += try session.insert(Array(all[from..<to])).imported
        }
        #expect(imported == 280)
        try reference.logThroughTriggers(all.dropFirst(20))
        // Every song's May row has counted plays in both halves.
        let both = try bulk.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_month_track WHERE month = '2024-05' AND first_half_plays > 0 AND first_half_plays < plays")
        }
        #expect(both == 7)
        #expect(try bulk.rollupDump() == (try reference.rollupDump()))
        // The artists' and albums' rows (stored ones get each batch's sums: equal within rounding).
        try EntityRollupTests.expectExact(bulk, "May imported in batches")
    }

    @Test func bulkRollupsAreExactlyThoseOfTheTrigger() throws {
        let dir = try TemporaryDirectory()
        let bulk = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? bulk.close(); try? reference.close() }
        let all = Self.listens(count: 3000)
        // Some plays first through the trigger in both, so that the bulk path adds to stored sums.
        for store in [bulk, reference] { try store.logThroughTriggers(all.prefix(500)) }
        let session = ListenImportSession(store: bulk, source: "import:test")
        var imported = 0
        for start in stride(from: 500, to: all.count, by: 700) {
            imported += try session.insert(Array(all[start..<min(start + 700, all.count)])).imported
        }
        #expect(imported == 2500)
        try reference.logThroughTriggers(all.dropFirst(500))
        let bulkRollups = try bulk.rollupDump()
        #expect(bulkRollups.count > 100)
        #expect(bulkRollups == (try reference.rollupDump()))
        #expect(try bulk.playDump() == (try reference.playDump()))
        // Artist charts (a play once per credited artist: "Björk feat. Someone", "(feat. Guest)")
        // equal their recomputation from the plays and credits, over all time, a year and days.
        for (from, to) in [("0000-01-01", "9999-12-31"), ("2024-01-01", "2024-12-31"), ("2024-03-30", "2024-04-02")] {
            let chart = try CreditStoreTests.chart(bulk, from: from, to: to)
            #expect(chart == (try CreditStoreTests.chart(reference, from: from, to: to)))
            if from == "0000-01-01" {
                #expect(chart == (try CreditStoreTests.artistChartFromPlays(bulk)))
                #expect(chart["Guest"] ?? 0 > 0 && chart["Someone"] ?? 0 > 0)
            }
        }
        // The trigger is back: a play stored afterwards reaches the rollups.
        let before = try bulk.dailyTotals(from: "2030-01-01", to: "2030-01-01")
        #expect(before.isEmpty)
        let id = try bulk.saveTrack(Track(title: "Later", artist: "Someone"))
        try bulk.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: 1_893_492_000), endedAt: Date(timeIntervalSince1970: 1_893_492_100),
                                 playedSeconds: 100, counted: true, source: "mpd"))
        #expect(try bulk.dailyTotals(from: "2030-01-01", to: "2030-01-01").first?.plays == 1)
    }

    /// The artist, album and period rollups are summed on a thread of their own and handed
    /// to the writer in blocks (`RowPipe`): a transaction whose tables take several blocks
    /// each ends with the rows the trigger writes a play at a time, bit for bit.
    @Test func entityRollupsOfManyBlocksAreThoseOfTheTriggerBitForBit() throws {
        let dir = try TemporaryDirectory()
        let bulk = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? bulk.close(); try? reference.close() }
        // More artists and albums than a block holds (over a few weeks), some played again,
        // awkward seconds.
        let artists = RowPipe.rowsPerBlock * 2 + 300
        var state: UInt64 = 11
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var at: Int64 = 1_711_800_000_000
        let all: [ImportedListen] = (0..<(artists + 1500)).map { i in
            let n = i < artists ? i : random(artists)
            let played = Double(random(400_000)) / 1000 + 0.1
            at += Int64(played * 1000) + Int64(random(20_000))
            let track = Track(title: "Song \(n)", artist: n % 7 == 0 ? "Artist \(n) feat. Guest \(n % 50)" : "Artist \(n)",
                              album: n % 5 == 0 ? nil : "Album \(n / 2)", durationSeconds: 200)
            return ImportedListen(track: track, startedAtMs: at, playedSeconds: played, counted: random(6) != 0)
        }
        // Into an empty store: each key's sum is then added up a play at a time in both (a
        // stored row would get the transaction's sum added whole, equal to within a rounding).
        #expect(try ListenImportSession(store: bulk, source: "import:test").insert(all).imported == all.count)
        try reference.logThroughTriggers(all)
        let dump = try bulk.entityRollupDump()
        #expect(dump.filter { $0.hasPrefix("rollup_day_artist ") }.count > 2 * RowPipe.rowsPerBlock)
        #expect(dump.filter { $0.hasPrefix("rollup_album_total ") }.count > RowPipe.rowsPerBlock)
        #expect(dump == (try reference.entityRollupDump()))
    }

    /// Without a thread to sum on (none could be started), the writer sums first, then
    /// writes: the same rows.
    @Test func withoutAThreadTheRollupsAreSummedFirstAndTheSame() throws {
        let dir = try TemporaryDirectory()
        let bulk = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? bulk.close(); try? reference.close() }
        let all = Self.listens(count: 2000, seed: 5)
        let imported = try ImportEntityRollups.$refusesThreads.withValue(true) { () throws -> Int in
            #expect(!ImportEntityRollups.startThread {})
            return try ListenImportSession(store: bulk, source: "import:test").insert(all).imported
        }
        #expect(imported == all.count)
        try reference.logThroughTriggers(all)
        #expect(try bulk.entityRollupDump().count > 100)
        #expect(try bulk.entityRollupDump() == (try reference.entityRollupDump()))
    }

    /// The summing thread waits while the writer is behind, hands its blocks on in order, and
    /// stops when the writer gives up (a write failed) instead of waiting for ever.
    @Test func theRowPipeKeepsOrderWaitsAndStopsWhenTheWriterGivesUp() throws {
        let table = ImportEntityRollups.Table(number: 0, name: "t", keys: ["k"])
        let pipe = RowPipe()
        defer { pipe.cancel() }
        let finished = DispatchSemaphore(value: 0)
        let handed = Counter()
        #expect(ImportEntityRollups.startThread {
            for n in 0..<1000 {
                guard pipe.put(RowPipe.Block(table: table, values: [.int(Int64(n))])) else { break }
                handed.add()
            }
            pipe.end()
            finished.signal()
        })
        for n in 0..<10 {
            let block = try #require(pipe.take(), "block \(n)")
            guard case .int(let value)? = block.values.first else { Issue.record("block \(n) holds no number"); return }
            #expect(value == Int64(n))
        }
        // Not taken: the thread fills the pipe and waits there (however slow this machine is).
        let deadline = Date().addingTimeInterval(20)
        while handed.value < 10 + pipe.capacity && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(handed.value == 10 + pipe.capacity)
        // And it stays there: an absence, so a short wait (a blocked put says nothing to wait on).
        Thread.sleep(forTimeInterval: 0.1)
        #expect(handed.value == 10 + pipe.capacity)
        // The writer gives up: the thread stops at once.
        pipe.cancel()
        try #require(finished.wait(timeout: .now() + 20) == .success)
        #expect(handed.value == 10 + pipe.capacity)
        #expect(pipe.isCancelled)
        // What was handed before the cancel is still there; then the end.
        var rest = 0
        while pipe.take() != nil { rest += 1 }
        #expect(rest == pipe.capacity)
    }

    /// A rollup write that fails while the summing thread waits for room ends the import
    /// with SQLite's error, at once, and the transaction leaves nothing behind.
    @Test func aFailedRollupWriteStopsTheSummingAndWritesNothing() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        defer { try? store.close() }
        try store.logThroughTriggers(Self.listens(count: 20))
        try store.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON rollup_month_artist BEGIN SELECT RAISE(ABORT, 'no room for this row'); END")
        }
        // Many artists: the tables before the month's fill the pipe, which waits for the writer.
        var at: Int64 = 1_711_800_000_000
        let many: [ImportedListen] = (0..<(RowPipe.rowsPerBlock * 3)).map { n in
            at += 200_000
            return ImportedListen(track: Track(title: "Song \(n)", artist: "Artist \(n)", album: "Album \(n)", durationSeconds: 200),
                                  startedAtMs: at, playedSeconds: 180, counted: true)
        }
        func trackCount() throws -> Int? { try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks") } }
        let before = try store.rollupDump(), plays = try store.playDump(), tracks = try trackCount()
        let began = Date()
        do {
            _ = try ListenImportSession(store: store, source: "import:test").insert(many)
            Issue.record("the import went through")
        } catch {
            #expect("\(error)".contains("no room for this row"))
        }
        #expect(Date().timeIntervalSince(began) < 60)
        #expect(try store.rollupDump() == before)
        #expect(try store.playDump() == plays)
        #expect(try trackCount() == tracks)
    }

    /// A transaction of several batches (as `pacenote import` stores a file: chunks from the
    /// reader, `--batch-size` plays to a transaction) gives the trigger's track rollups bit
    /// for bit, and artist, album and period rollups equal to a recomputation from the plays.
    @Test func severalBatchesInOneTransactionGiveTheTriggersRollups() throws {
        let dir = try TemporaryDirectory()
        let bulk = try Store.open(path: dir.file("bulk.sqlite"), timeZone: zone)
        let reference = try Store.open(path: dir.file("ref.sqlite"), timeZone: zone)
        defer { try? bulk.close(); try? reference.close() }
        let all = Self.listens(count: 4000, seed: 7)
        try bulk.logThroughTriggers(all.prefix(400))
        let session = ListenImportSession(store: bulk, source: "import:test")
        defer { session.finish() }
        var batcher = ImportBatcher(separators: session.separators)
        var batches: [ImportBatch] = []
        for start in stride(from: 400, to: all.count, by: 250) {
            for l in all[start..<min(start + 250, all.count)] { batcher.add(l) }
            batches.append(batcher.take())
        }
        // Transactions of 4, 5 and the rest of the batches, with an empty batch among them.
        var imported = 0, transactions = 0
        var queue = batches[...]
        for size in [4, 5, batches.count] where !queue.isEmpty {
            var taken = 0
            imported += try session.insert {
                guard taken < size else { return nil }
                taken += 1
                return taken == 2 ? ImportBatch() : queue.popFirst()
            }.imported
            transactions += 1
        }
        #expect(transactions == 3)
        #expect(imported == 3600)
        try reference.logThroughTriggers(all)
        #expect(try bulk.rollupDump().count > 100)
        #expect(try bulk.rollupDump() == (try reference.rollupDump()))
        #expect(try bulk.playDump() == (try reference.playDump()))
        try EntityRollupTests.expectExact(bulk, "several batches to a transaction")
        // The triggers are back after each transaction: a later play reaches the rollups.
        let id = try bulk.saveTrack(Track(title: "Later", artist: "Someone"))
        try bulk.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: 1_893_492_000), endedAt: Date(timeIntervalSince1970: 1_893_492_100),
                                 playedSeconds: 100, counted: true, source: "mpd"))
        #expect(try bulk.dailyTotals(from: "2030-01-01", to: "2030-01-01").first?.plays == 1)
        try EntityRollupTests.expectExact(bulk, "a play after the import")
    }

    /// During an import the writer does not checkpoint (`WALCheckpointer` does, beside it):
    /// once the import has finished, every committed page is in the database file and the
    /// writer checkpoints by itself again.
    @Test func theImportsCheckpointsRunBesideTheWriterAndItsOwnComeBack() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test")
        // A slow copy: each transaction would otherwise begin while the last one's pages are
        // still being copied, and the WAL would grow.
        session.checkpointer.delayForTests = 0.1
        let all = Self.listens(count: 3000, seed: 11)
        var walSizes: [Int] = []
        for start in stride(from: 0, to: all.count, by: 500) {
            _ = try session.insert(Array(all[start..<(start + 500)]))
            let automatic = try store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
            #expect(automatic == 0)
            walSizes.append(try FileManager.default.attributesOfItem(atPath: dir.file("p.sqlite-wal"))[.size] as? Int ?? -1)
        }
        // Each transaction began with the last one's pages copied, so it wrote the WAL from its
        // start again: the file is as long as the longest transaction, not as all six.
        #expect(walSizes[0] > 0)
        #expect(walSizes.last! * 2 < walSizes[0] * 3, "the WAL grew with every transaction: \(walSizes)")
        // The import's checkpointer copied the log whole after every commit (no reader in the way).
        session.checkpointer.caughtUp()
        #expect(session.checkpointer.completed == 6)
        session.finish()
        let automatic = try store.pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(automatic == ListenImportSession.autocheckpointPages)
        let written = try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM plays") }
        #expect(written == 3000)
    }

    @Test func importingAgainAddsNothingAndDuplicatesAreRecognised() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        // A play MPD logged (milliseconds) and the same one from a ListenBrainz export (seconds).
        let mpdTrack = try store.saveTrack(Track(uri: "Dool/Vantablack.flac", title: "Vantablack", artist: "Dool", durationSeconds: 215))
        try store.insertPlay(Play(trackID: mpdTrack, startedAt: Date(timeIntervalSince1970: 1_700_000_000.456),
                                  endedAt: Date(timeIntervalSince1970: 1_700_000_215.456), playedSeconds: 215, counted: true, source: "mpd"))
        let exported = Track(title: "Vantablack", artist: "DOOL", durationSeconds: 215)
        let listens = [
            ImportedListen(track: exported, startedAtMs: 1_700_000_000_000, playedSeconds: 215),  // the MPD play
            ImportedListen(track: exported, startedAtMs: 1_700_000_215_000, playedSeconds: 215),  // played again right after: kept
            ImportedListen(track: exported, startedAtMs: 1_700_000_215_000, playedSeconds: 215),  // a duplicate row
            ImportedListen(track: Track(title: "Song (feat. C)", artist: "A feat. B"), startedAtMs: 1_700_001_000_000, playedSeconds: 180),
        ]
        let session = ListenImportSession(store: store, source: "import:listenbrainz")
        let first = try session.insert(listens)
        #expect(first.imported == 2 && first.duplicates == 2)
        let again = try ListenImportSession(store: store, source: "import:listenbrainz").insert(listens)
        #expect(again.imported == 0 && again.duplicates == 4)
        #expect(try store.counts() == StoreCounts(plays: 3, tracks: 2))
        let plays = try store.recentPlays(limit: 10)
        #expect(plays.map(\.track.id) == [plays[0].track.id, mpdTrack, mpdTrack])  // the library track gets the import
        #expect(try store.credit(trackID: try #require(plays[0].track.id)) == ArtistCredit(primary: "A", featured: ["B", "C"]))
        #expect(plays[0].track.artist == "A feat. B" && plays[0].track.title == "Song (feat. C)")
        #expect(plays[0].play.source == "import:listenbrainz")
    }
}

extension ImportStoreTests {
    @Test func aMinutePrecisionScrobbleMeetsThePlayMPDLogged() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        let id = try store.saveTrack(Track(uri: "a.flac", title: "Jóga", artist: "Björk", durationSeconds: 305))
        try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: 1_612_101_821.25),
                                  endedAt: Date(timeIntervalSince1970: 1_612_102_126.25), playedSeconds: 305, counted: true, source: "mpd"))
        var scrobble = ImportedListen(track: Track(title: "Joga", artist: "Bjork"), startedAtMs: 1_612_101_780_000, playedSeconds: 0)
        scrobble.startPrecisionMs = 60_000  // "31 Jan 2021 14:03"
        var again = ImportedListen(track: scrobble.track, startedAtMs: 1_612_102_086_000, playedSeconds: 0)  // the next play, right after
        again.startPrecisionMs = 60_000
        let result = try ListenImportSession(store: store, source: "import:lastfm").insert([scrobble, again])
        #expect(result.imported == 1 && result.duplicates == 1)
    }
}

extension ImportStoreTests {
    /// The bulk path drops the search index's trigger and foreign-key checks for its
    /// transaction: afterwards the imported tracks are found by search, the index and the
    /// references are whole, and both triggers and the checks are back.
    @Test func importedTracksAreSearchableAndTheSchemaIsWhole() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test")
        var batcher = ImportBatcher()
        for (i, listen) in Self.listens(count: 400).enumerated() {
            batcher.add(listen)
            if i % 150 == 149 { _ = try session.insert(batcher.take()) }
        }
        _ = try session.insert(batcher.take())
        try store.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks_fts WHERE tracks_fts MATCH 'bjork'") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks_fts WHERE tracks_fts MATCH 'song'") == 7)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
            #expect(triggers.contains("plays_rollup_insert") && triggers.contains("tracks_fts_insert"))
        }
        let foreignKeys = try store.pool.write { db in
            try db.execute(sql: "INSERT INTO tracks_fts (tracks_fts) VALUES ('integrity-check')")  // throws when not
            return try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
        }
        #expect(foreignKeys == 1)
        // A track saved afterwards is indexed by the trigger again.
        _ = try store.saveTrack(Track(title: "Hyperballad", artist: "Someone"))
        let found = try store.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks_fts WHERE tracks_fts MATCH 'hyperballad'")
        }
        #expect(found == 1)
    }
}

extension Store {
    /// Stores listens one at a time the way the watcher does (`saveTrack`, `insertPlay`):
    /// through the rollup triggers, the reference the bulk path is held to.
    func logThroughTriggers(_ listens: some Sequence<ImportedListen>) throws {
        for l in listens {
            let id = try saveTrack(l.track)
            try insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: Double(l.startedAtMs) / 1000),
                                endedAt: Date(timeIntervalSince1970: Double(l.endedAtMs) / 1000), playedSeconds: l.playedSeconds,
                                counted: l.counted, source: "import:test", player: l.player))
        }
    }

    /// Every artist, album, period and hour rollup row, by the artist's name and the album's
    /// title (ids may differ between two stores), with the exact bits of its seconds.
    func entityRollupDump() throws -> [String] {
        try read { db in
            var out: [String] = []
            for table in ["rollup_artist_total", "rollup_year_artist", "rollup_month_artist", "rollup_day_artist",
                          "rollup_album_total", "rollup_year_album", "rollup_month_album", "rollup_day_album",
                          "rollup_year_total", "rollup_month_total", "rollup_day_total", "rollup_year_hour"] {
                let key = table.contains("_artist") ? "(SELECT name FROM artists WHERE id = artist_id)"
                    : table.contains("_album") ? "(SELECT title || '/' || IFNULL(artist, '') FROM albums WHERE id = album_id)" : "''"
                let period = ["year", "month", "day"].first { table.hasPrefix("rollup_\($0)_") } ?? "''"
                let hour = table == "rollup_year_hour" ? "hour" : "''"
                // A month's rows of artists and albums hold its first half too (v20).
                let halves = table == "rollup_month_artist" || table == "rollup_month_album" ? "first_half_plays, first_half_played_s" : "0, 0.0"
                for row in try Row.fetchAll(db, sql: "SELECT \(period), \(key), \(hour), plays, skips, played_s, \(halves) FROM \(table)") {
                    let played: Double = row[5], firstHalf: Double = row[7]
                    out.append("\(table) \(row[0] as DatabaseValue) \(row[1] as DatabaseValue) \(row[2] as DatabaseValue) \(row[3] as Int) \(row[4] as Int) \(played.bitPattern)"
                               + " \(row[6] as Int) \(firstHalf.bitPattern)")
                }
            }
            return out.sorted()
        }
    }

    /// Every rollup row, with the exact bits of its seconds.
    func rollupDump() throws -> [String] {
        try read { db in
            var out: [String] = []
            for (table, keys) in Schema.trackRollups {
                let columns = keys.map(\.column).joined(separator: ", ")
                // The month's rows hold its first half too (v20).
                let halves = keys[0].column == "month" ? "first_half_plays, first_half_played_s" : "0 AS first_half_plays, 0.0 AS first_half_played_s"
                let rows = try Row.fetchAll(db, sql: "SELECT \(columns), plays, skips, played_s, \(halves) FROM \(table) ORDER BY \(columns)")
                out += rows.map { row in
                    let played: Double = row["played_s"], firstHalf: Double = row["first_half_played_s"]
                    return "\(table) \(keys.map { "\(row[$0.column] as DatabaseValue)" }.joined(separator: " ")) \(row["plays"] as Int) \(row["skips"] as Int) \(played.bitPattern)"
                        + " \(row["first_half_plays"] as Int) \(firstHalf.bitPattern)"
                }
            }
            return out
        }
    }

    func playDump() throws -> [String] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, local_day, local_hour FROM plays
                ORDER BY started_at_ms, track_id
                """).map { "\($0)" }
        }
    }
}

extension ImportStoreTests {
    /// Random listens of a few tracks — clustered, some with minute-precision starts, files in
    /// and out of time order, imported in several sessions and batches — keep exactly the
    /// plays a listen-by-listen reading of the duplicate rule keeps: a listen is a duplicate
    /// when a kept play of its track starts within `DuplicatePlay`'s window of it.
    @Test func randomImportsKeepWhatTheDuplicateRuleKeeps() throws {
        for seed in 1...12 as ClosedRange<UInt64> {
            var state = seed &* 0x9E3779B97F4A7C15
            func random(_ n: Int) -> Int {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Int((state >> 33) % UInt64(n))
            }
            let dir = try TemporaryDirectory()
            let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
            defer { try? store.close() }
            let base: Int64 = 1_700_000_000_000
            var listens: [(title: String, start: Int64, precision: Int64)] = []
            for _ in 0..<400 {
                let title = "Song \(random(5))"
                // Clusters: most starts near one of a few moments, a few seconds apart.
                var start = base + Int64(random(12)) * 120_000 + Int64(random(40_000))
                var precision: Int64 = 1000
                if random(4) == 0 {
                    precision = 60_000
                    start -= start % 60_000
                } else {
                    start -= start % 1000
                }
                listens.append((title, start, precision))
            }
            if random(2) == 0 { listens.sort { $0.start < $1.start } }
            // The rule, listen by listen in the order they are imported.
            var kept: [String: [Int64]] = [:]
            var expected: [(imported: Int, duplicates: Int)] = []
            var calls: [[Int]] = []
            var i = 0
            while i < listens.count {
                let n = min(listens.count - i, 1 + random(120))
                calls.append(Array(i..<i + n))
                i += n
            }
            for call in calls {
                var result = (imported: 0, duplicates: 0)
                for k in call {
                    let l = listens[k]
                    let low = l.start - DuplicatePlay.windowMs, high = l.start + l.precision - 1 + DuplicatePlay.windowMs
                    if kept[l.title, default: []].contains(where: { $0 >= low && $0 <= high }) {
                        result.duplicates += 1
                    } else {
                        kept[l.title, default: []].append(l.start)
                        result.imported += 1
                    }
                }
                expected.append(result)
            }
            // The importer: a new session now and then (what it knew goes; the stored plays stay).
            var session = ListenImportSession(store: store, source: "import:test")
            for (c, call) in calls.enumerated() {
                if random(3) == 0 { session = ListenImportSession(store: store, source: "import:test") }
                let batch = call.map { k -> ImportedListen in
                    var listen = ImportedListen(track: Track(title: listens[k].title, artist: "Band"), startedAtMs: listens[k].start,
                                                playedSeconds: 100)
                    listen.startPrecisionMs = listens[k].precision
                    return listen
                }
                let got = try session.insert(batch)
                #expect(got.imported == expected[c].imported && got.duplicates == expected[c].duplicates,
                        "seed \(seed), call \(c): \(got) against \(expected[c])")
            }
            let stored = try store.read { db in
                try Row.fetchAll(db, sql: "SELECT t.title, p.started_at_ms FROM plays p JOIN tracks t ON t.id = p.track_id")
                    .map { "\($0[0] as String) \($0[1] as Int64)" }.sorted()
            }
            #expect(stored == kept.flatMap { title, starts in starts.map { "\(title) \($0)" } }.sorted(), "seed \(seed)")
            // Both kinds in every history: the rule was put to work.
            #expect(expected.reduce(0) { $0 + $1.duplicates } > 50 && stored.count > 50, "seed \(seed)")
        }
    }
}

extension ImportStoreTests {
    /// Listens whose texts are one track's in the store's eyes in every way it has: spellings
    /// of one match key ("The Band"/"band", "Song!"/"song"), a recording id under two
    /// spellings, two recordings of one match key, and listens with and without one.
    static func trickyIdentities(count: Int, seed: UInt64) -> [ImportedListen] {
        var state = seed &* 0x9E3779B97F4A7C15
        func random(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let artists = ["The Band", "band", "BAND", "Other", "The Other"]
        let titles = ["Song", "song!", "Song ", "Tune", "tune"]
        let recordings: [String?] = [nil, nil, nil, "r-1", "r-2", "r-3"]
        return (0..<count).map { i in
            // Now and then a song heard once: something new to look up late in the import.
            let title = i % 40 == 39 ? "Only \(i)" : titles[random(titles.count)]
            var track = Track(title: title, artist: artists[random(artists.count)], album: "A \(random(3))")
            track.musicBrainz.recording = recordings[random(recordings.count)]
            return ImportedListen(track: track, startedAtMs: 1_700_000_000_000 + Int64(i) * 600_000, playedSeconds: 100)
        }
    }

    /// Each play's track, by its text (ids differ between stores), in time order.
    static func tracksOfPlays(_ store: Store) throws -> [String] {
        try store.read { db in
            try Row.fetchAll(db, sql: """
                SELECT t.artist, t.title, t.mb_recording_id FROM plays p JOIN tracks t ON t.id = p.track_id
                WHERE p.source = 'import:test' ORDER BY p.started_at_ms
                """).map { "\($0[0] as String? ?? "-")/\($0[1] as String)/\($0[2] as String? ?? "-")" }
        }
    }

    /// A key never stored (left out of its batch) changes nothing for the keys after it:
    /// which track a key is, the store decides as it meets it, without asking when no
    /// track it met can be that one.
    @Test func aKeyLeftOutOfItsBatchChangesNothingAfterIt() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        let session = ListenImportSession(store: store, source: "import:test")
        var batcher = session.makeBatcher()
        for (i, artist) in ["The Band", "Band", "BAND"].enumerated() {
            batcher.add(ImportedListen(track: Track(title: "Song", artist: artist), startedAtMs: 1_700_000_000_000 + Int64(i) * 600_000,
                                       playedSeconds: 100))
        }
        var batch = batcher.take()
        #expect(batch.tracks.count == 3)
        batch.tracks.removeFirst()
        batch.plays.removeAll { $0.key == 0 }
        #expect(try session.insert(batch).imported == 2)
        // "Band" new without asking; "BAND" where "Band" went, by the identity the session met.
        #expect(session.trackLookUps == 0)
        #expect(try Self.tracksOfPlays(store) == ["Band/Song/-", "Band/Song/-"])
    }

    /// An import into a database without tracks adds a new identity without asking the store
    /// when no track it added can be that one (a match key or recording not met), asks it
    /// otherwise, and finds exactly the tracks the store's look-up finds. Once anything else
    /// is committed — through another connection or this one — it looks every one up again.
    @Test func aFirstImportFindsItsOwnTracksAsTheLookUpDoes() throws {
        for seed in 1...8 as ClosedRange<UInt64> {
            let listens = Self.trickyIdentities(count: 300, seed: seed)
            let calls = stride(from: 0, to: listens.count, by: 50).map { Array(listens[$0..<min($0 + 50, listens.count)]) }
            let unrelated = Track(title: "Elsewhere", artist: "Nobody")

            // Looked up: a track is stored before the import begins.
            let dir = try TemporaryDirectory()
            let lookedUp = try Store.open(path: dir.file("a.sqlite"), timeZone: zone)
            defer { try? lookedUp.close() }
            try lookedUp.saveTrack(unrelated)
            let first = ListenImportSession(store: lookedUp, source: "import:test")
            for call in calls { _ = try first.insert(call) }
            #expect(first.trackLookUps > 0)
            let expected = try Self.tracksOfPlays(lookedUp)

            // Known: an empty database, one transaction per call.
            let known = try Store.open(path: dir.file("b.sqlite"), timeZone: zone)
            defer { try? known.close() }
            let second = ListenImportSession(store: known, source: "import:test")
            for call in calls { _ = try second.insert(call) }
            #expect(second.trackLookUps < first.trackLookUps, "seed \(seed)")
            let got = try Self.tracksOfPlays(known)
            #expect(got == expected, "seed \(seed): \(zip(got, expected).enumerated().filter { $0.element.0 != $0.element.1 }.prefix(3).map { "\($0.offset) \(listens[$0.offset].track.artist!)/\(listens[$0.offset].track.title)/\(listens[$0.offset].track.musicBrainz.recording ?? "-") \($0.element)" })")
            try known.read { db in try #expect(String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok") }
            #expect(try known.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks") }
                    == lookedUp.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks") }.map { $0 - 1 })

            // Something else committed halfway: by another connection, or through this one.
            for other in [true, false] {
                let path = dir.file("c-\(other).sqlite")
                let store = try Store.open(path: path, timeZone: zone)
                defer { try? store.close() }
                let session = ListenImportSession(store: store, source: "import:test")
                for (i, call) in calls.enumerated() {
                    if i == 3 {
                        if other {
                            let elsewhere = try Store.open(path: path, timeZone: zone)
                            try elsewhere.saveTrack(unrelated)
                            try elsewhere.close()
                        } else {
                            try store.saveTrack(unrelated)
                        }
                    }
                    _ = try session.insert(call)
                }
                #expect(session.trackLookUps > second.trackLookUps, "seed \(seed), other connection: \(other)")
                #expect(try Self.tracksOfPlays(store) == expected, "seed \(seed), other connection: \(other)")
            }
        }
    }
}
