import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// The year and month rollups' ranking indexes hold each period's head only (v18,
/// `RankingHeads`): a database of v17 gets them, an import's record of the indexes it set
/// aside gets their new statements, the charts read through them are exact on both sides of
/// the head's edge, and SQLite reads a head through its index.
@Suite struct RankingHeadsTests {
    /// The year and month rollups whose rankings hold heads, as declared (`Rollups.all`).
    static let headRollups = Rollups.all.filter {
        ($0.period == .year || $0.period == .month) && $0.orders.contains(.byPlays(head: RankingHeads.plays))
    }

    /// A rollup's two ranking indexes, as declared.
    static func rankings(_ rollup: Rollup) -> [(name: String, sql: String)] {
        rollup.indexes.filter { $0.name.hasSuffix("_top") || $0.name.hasSuffix("_by_time") }
    }

    /// The statements of the 12 head indexes, or of the 12 names, as `sqlite_master` has them.
    static func headIndexes(_ db: Database) throws -> [String: String] {
        var out: [String: String] = [:]
        for rollup in headRollups {
            for (name, _) in rankings(rollup) {
                if let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) {
                    out[name] = sql
                }
            }
        }
        return out
    }

    /// A database at v17 with plays on both sides of the heads' edges: tracks played three
    /// times, twice and once, each month, for 90 to 700 seconds a play, and a skip only.
    static func v17Database(_ path: String, setAside: Bool = false) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v17.day-entity-rollups")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('rollup_timezone', 'Europe/Berlin')")
            for artist in 1...4 {
                try db.execute(sql: "INSERT INTO artists (id, name, name_key, created_at_ms) VALUES (?, ?, ?, 0)",
                               arguments: [artist, "Artist \(artist)", "artist \(artist)"])
                try db.execute(sql: "INSERT INTO albums (id, title, artist, album_key, created_at_ms) VALUES (?, ?, ?, ?, 0)",
                               arguments: [artist, "Album \(artist)", "Artist \(artist)", "album \(artist)|artist \(artist)"])
            }
            for track in 1...12 {
                let artist = (track - 1) % 4 + 1
                try db.execute(sql: """
                    INSERT INTO tracks (id, uri, title, artist, album, match_key, first_seen_at_ms, updated_at_ms, album_id)
                    VALUES (?, NULL, ?, ?, ?, ?, 0, 0, ?)
                    """, arguments: [track, "Song \(track % 5)", "Artist \(artist)", "Album \(artist)", "k\(track)", artist])
                try db.execute(sql: "INSERT INTO track_artists (track_id, position, name, role, artist_id) VALUES (?, 0, ?, 'primary', ?)",
                               arguments: [track, "Artist \(artist)", artist])
            }
            var generator = ChartRNG(state: 18)
            // Each track's plays in a month: 0 to 3, some skipped; lengths that put a month's
            // or a year's time on either side of 600 s.
            for month in 1...14 {
                let year = month <= 12 ? 2024 : 2025
                let m = (month - 1) % 12 + 1
                for track in 1...12 {
                    for n in 0..<generator.next(4) {
                        let day = CivilDate.days(year: year, month: m, day: 1 + n * 9 + track % 7)
                        let at = Int64(day) * 86_400_000 + Int64(track) * 3_600_000
                        let seconds = [90.0, 200, 300, 599, 600, 700][generator.next(6)]
                        let counted = generator.next(6) > 0 ? 1 : 0
                        let local = LocalTime(timeZone: zone).day(of: Date(timeIntervalSince1970: Double(at) / 1000))
                        try db.execute(sql: """
                            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour)
                            VALUES (?, ?, ?, ?, ?, 'mpd', ?, 1)
                            """, arguments: [track, at, at + Int64(seconds * 1000), seconds, counted, local])
                    }
                }
            }
            // Skips only: a track of its own artist and album, 2,100 s in 2024 (in the heads by
            // time, not by plays) and 90 s in 2025.
            try db.execute(sql: """
                INSERT INTO artists (id, name, name_key, created_at_ms) VALUES (5, 'Skipper', 'skipper', 0);
                INSERT INTO albums (id, title, artist, album_key, created_at_ms) VALUES (5, 'Skipped', 'Skipper', 'skipped|skipper', 0);
                INSERT INTO tracks (id, uri, title, artist, album, match_key, first_seen_at_ms, updated_at_ms, album_id)
                  VALUES (13, NULL, 'Next', 'Skipper', 'Skipped', 'k13', 0, 0, 5);
                INSERT INTO track_artists (track_id, position, name, role, artist_id) VALUES (13, 0, 'Skipper', 'primary', 5);
                """)
            for (day, seconds) in [(CivilDate.days(year: 2024, month: 3, day: 12), 700.0), (CivilDate.days(year: 2024, month: 3, day: 13), 700),
                                   (CivilDate.days(year: 2024, month: 3, day: 14), 700), (CivilDate.days(year: 2025, month: 2, day: 3), 90)] {
                let at = Int64(day) * 86_400_000 + 43_200_000
                try db.execute(sql: """
                    INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour)
                    VALUES (13, ?, ?, ?, 0, 'mpd', ?, 13)
                    """, arguments: [at, at + Int64(seconds * 1000), seconds, LocalTime(timeZone: zone).day(of: Date(timeIntervalSince1970: Double(at) / 1000))])
            }
            if setAside {
                #expect(try DeferredIndexes.drop(in: db))
            }
        }
        try queue.close()
    }

    static let ranges = [("2024-01-01", "2024-12-31"), ("2025-01-01", "2025-12-31"), ("2024-03-01", "2024-03-31"),
                         ("2024-03-10", "2024-05-20"), ("2024-02-15", "2025-02-10"), ("0000-01-01", "9999-12-31")]

    @Test func aV17DatabaseGetsHeadIndexesAndChartsThemExactly() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v17.sqlite")
        try Self.v17Database(path)
        let store = try Store.open(path: path, timeZone: zone)
        defer { try? store.close() }
        let indexes = try store.read { db in try Self.headIndexes(db) }
        #expect(indexes.count == 16)
        #expect(Self.headRollups.count == 8)  // years and months of tracks, artists, albums and genres (v30)
        for rollup in Self.headRollups {
            let (table, period) = (rollup.table, rollup.period!.rawValue)
            #expect(indexes["\(table)_top"] == "CREATE INDEX \(table)_top ON \(table)(\(period), plays DESC, played_s DESC) WHERE plays >= 2")
            #expect(indexes["\(table)_by_time"] == "CREATE INDEX \(table)_by_time ON \(table)(\(period), played_s DESC, plays DESC) WHERE played_s >= 600")
        }
        // The data has rows on both sides of both edges.
        let sides = try store.read { db in
            try Row.fetchOne(db, sql: "SELECT SUM(plays >= 2), SUM(plays = 1), SUM(played_s >= 600), SUM(played_s < 600) FROM rollup_month_track")!
        }
        for i in 0..<4 { #expect((sides[i] as Int) > 5) }
        // And skip-only rows of years, one in the heads by time.
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_year_track WHERE plays = 0") } == 2)
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_year_artist WHERE plays = 0 AND played_s >= 600") } == 1)
        let fails = try RandomHistoryChartTests.checkAllPaths(store, "v18", ranges: Self.ranges, limits: [1, 2, 3, 5, 8, 13, 100])
        #expect(fails.isEmpty, "\(fails.prefix(20))")
        try EntityRollupTests.expectExact(store, "after v18")
        // A database v18 reached before it had the years' skip-only indexes counts a year's
        // chart without them.
        try store.pool.write { db in
            for rollup in Self.headRollups where rollup.period == .year { try db.execute(sql: "DROP INDEX \(rollup.table)_skipped") }
        }
        let without = try RandomHistoryChartTests.check(store, "without _skipped", ranges: Self.ranges.filter { $0.0.hasSuffix("-01-01") }, limits: [3])
        #expect(without.isEmpty, "\(without.prefix(20))")
    }

    /// An import that had set them aside when the new version opened: its record gets their
    /// new statements, and whoever builds them builds heads.
    @Test func indexesAnImportSetAsideAreRecordedAsHeads() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("v17.sqlite")
        try Self.v17Database(path, setAside: true)
        var store = try Store.open(path: path, timeZone: zone)
        // Recorded as this process's, which runs: not built at open.
        #expect(try store.read { db in try Self.headIndexes(db) }.isEmpty)
        let record = try #require(try DeferredIndexesTests.recorded(store))
        let lines = record.split(separator: "\n").map(String.init)
        for rollup in Self.headRollups {
            for (name, sql) in Self.rankings(rollup) {
                #expect(lines.filter { $0.hasPrefix("CREATE INDEX \(name) ON ") } == [sql])
            }
        }
        // The totals' are whole, as they were.
        #expect(lines.contains("CREATE INDEX rollup_track_total_top ON rollup_track_total(plays DESC, played_s DESC)"))
        // The tracks' own two are still recorded as they were.
        #expect(record.contains("CREATE INDEX tracks_artist ON tracks(artist COLLATE NOCASE)"))
        #expect(record.split(separator: "\n").count == 31)  // the owner and 30 indexes (with v21's day heads and v30's genres)
        // Its process gone: the next open builds them, as heads.
        store = try DeferredIndexesTests.reopenWithTheirProcessGone(store, path: path, timeZone: zone)
        defer { try? store.close() }
        #expect(try DeferredIndexesTests.recorded(store) == nil)
        let indexes = try store.read { db in try Self.headIndexes(db) }
        #expect(indexes.count == 16 && indexes.values.allSatisfy { $0.contains(" WHERE ") })
        let fails = try RandomHistoryChartTests.check(store, "built", ranges: Self.ranges, limits: [1, 3, 100])
        #expect(fails.isEmpty, "\(fails.prefix(20))")
    }

    /// A whole year's chart reads about `limit` rows of a long head, not all of it: SQLite
    /// seeks the index by the `limit`-th's bound (the first of the column's two bounds; by
    /// the head's own it stepped through every row of the head). Counted in SQLite's virtual
    /// machine steps, which follow the rows read.
    @Test func aYearsChartReadsAboutItsLengthOfALongHead() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        // 900 tracks played 2 to 31 times in 2024: a head of 900 rows each way (the walk
        // from the top is the rows as good as the limit-th on the leading key: ~30).
        var listens: [ImportedListen] = []
        for track in 0..<900 {
            for n in 0..<(2 + track % 30) {
                let at = Int64(1_704_153_600_000) + Int64(track) * 30_000_000 + Int64(n) * 600_000
                listens.append(ImportedListen(track: Track(title: "Song \(track)", artist: "Artist \(track % 40)", album: "Album \(track % 90)"),
                                              startedAtMs: at, playedSeconds: 200 + Double(track) * 0.37, counted: true, player: nil))
            }
        }
        let session = ListenImportSession(store: store, source: "import:test")
        _ = try session.insert(listens)
        session.finish()
        try store.read { db in
            for (entity, join, name) in [("track", "JOIN tracks t ON t.id = r.track_id", "t.title"),
                                         ("artist", "JOIN artists ar ON ar.id = r.artist_id", "ar.name"),
                                         ("album", "JOIN albums al ON al.id = r.album_id", "al.title")] {
                for order in ChartOrder.allCases {
                    // Twice: the second is the cached statement bound again, which SQLite must
                    // not prepare again (a parameter it compared with the index's condition).
                    for round in 0..<2 {
                        let statement = try Store.topStatement(.year("2024"), entity: entity, select: "r.\(entity)_id", join: join, name: name,
                                                               limit: 5, order: order, in: db)
                        var rows = 0
                        while try statement.step() { rows += 1 }
                        let steps = sqlite3_stmt_status(statement.handle, SQLITE_STMTSTATUS_VM_STEP, 1)
                        let prepared = sqlite3_stmt_status(statement.handle, SQLITE_STMTSTATUS_REPREPARE, 0)
                        #expect(rows >= 5 && steps < 1_000, "\(entity) \(order) round \(round): \(rows) rows in \(steps) steps")
                        #expect(prepared == 0, "\(entity) \(order) round \(round): prepared again \(prepared) times")
                    }
                }
            }
        }
    }

    /// SQLite reads a head through its index only when the query repeats the index's
    /// condition as a literal: the charts' queries do, and are read without a sort.
    @Test func aHeadIsReadThroughItsIndex() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        try store.read { db in
            for rollup in Self.headRollups {
                let (table, period) = (rollup.table, rollup.period!.rawValue)
                for order in ChartOrder.allCases {
                    let keys = order == .plays ? "plays DESC, played_s DESC" : "played_s DESC, plays DESC"
                    let plan = try Row.fetchAll(db, sql: """
                        EXPLAIN QUERY PLAN SELECT plays FROM \(table) WHERE \(period) = ? AND \(RankingHeads.head(order)) ORDER BY \(keys) LIMIT ?
                        """, arguments: ["2024", 10]).map { $0["detail"] as String }.joined(separator: "; ")
                    #expect(plan.contains("INDEX \(table)\(order == .plays ? "_top" : "_by_time")") && !plan.contains("TEMP B-TREE"), "\(table) \(order): \(plan)")
                }
                guard period == "year" else { continue }
                let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM \(table) r INDEXED BY \(table)_skipped WHERE r.year = ? AND r.plays <= 0",
                                            arguments: ["2024"]).map { $0["detail"] as String }.joined(separator: "; ")
                #expect(plan.contains("INDEX \(table)_skipped"), "\(table): \(plan)")
            }
        }
    }
}
