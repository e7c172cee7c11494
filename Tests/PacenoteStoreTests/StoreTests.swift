import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let utc = TimeZone(identifier: "UTC")!

/// The schema as SQLite reports it: every table, index and trigger with its SQL.
private func schema(_ path: String) throws -> String {
    try run(try Tools.require("sqlite3"), [path, "SELECT type, name, sql FROM sqlite_master ORDER BY name"]).stdout
}

@Suite struct MigrationTests {
    @Test func migratingTwiceChangesNothing() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        let first = try Store.open(path: path, timeZone: utc)
        let applied = try first.appliedMigrations()
        #expect(applied == Store.knownMigrations)
        try first.migrate()
        #expect(try first.appliedMigrations() == applied)
        try first.close()
        let before = try schema(path)
        let second = try Store.open(path: path, timeZone: utc)
        #expect(try second.appliedMigrations() == applied)
        try second.close()
        #expect(try schema(path) == before)
        #expect(before.contains("CREATE TABLE plays"))
    }

    /// A new database is made of 8 KiB pages (set before its first write); one made with
    /// another size keeps it, and opens and migrates as before.
    @Test func aNewDatabaseHasEightKiBPagesAndAnOldOneKeepsItsOwn() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        try Store.open(path: path, timeZone: utc).close()
        #expect(try run(try Tools.require("sqlite3"), [path, "PRAGMA page_size"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "8192")
        let fixture = try #require(Bundle.module.path(forResource: "v1", ofType: "sqlite", inDirectory: "Fixtures"))
        let old = dir.file("v1.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: old)
        let store = try Store.open(path: old, timeZone: utc)
        #expect(try store.counts() == StoreCounts(plays: 3, tracks: 2))
        try store.close()
        #expect(try run(try Tools.require("sqlite3"), [old, "PRAGMA page_size"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "4096")
    }

    /// v19 changes the tracks' check of `bpm_source` in place: an old database's table reads
    /// as a new one's, the rule is the same (a source only with a BPM, one of five), and no
    /// temporary B-tree is built to check a stored track any more.
    @Test func theTracksSourceCheckIsChangedInPlaceAndKeepsItsRule() throws {
        let fixture = try #require(Bundle.module.path(forResource: "v1", ofType: "sqlite", inDirectory: "Fixtures"))
        let dir = try TemporaryDirectory()
        let (old, new) = (dir.file("v1.sqlite"), dir.file("new.sqlite"))
        try FileManager.default.copyItem(atPath: fixture, toPath: old)
        #expect(try run(try Tools.require("sqlite3"), [old, "SELECT sql FROM sqlite_master WHERE name = 'tracks'"]).stdout.contains(Schema.v18SourceCheck))
        try Store.open(path: new, timeZone: utc).close()
        let store = try Store.open(path: old, timeZone: utc)
        defer { try? store.close() }
        let tracksSQL = "SELECT sql FROM sqlite_master WHERE name = 'tracks'"
        let migrated = try run(try Tools.require("sqlite3"), [old, tracksSQL]).stdout
        #expect(migrated == (try run(try Tools.require("sqlite3"), [new, tracksSQL]).stdout))
        #expect(migrated.contains(Schema.v19SourceCheck) && !migrated.contains(Schema.v18SourceCheck))
        #expect(try run(try Tools.require("sqlite3"), [old, "PRAGMA integrity_check"]).stdout == "ok\n")
        let insert = """
            INSERT INTO tracks (title, match_key, first_seen_at_ms, updated_at_ms, bpm, bpm_source) VALUES ('t', 'k', 0, 0, ?, ?)
            """
        try store.write { db in
            for source in ["tag", "sticker", "analysis", "manual", "import"] { try db.execute(sql: insert, arguments: [120, source]) }
            try db.execute(sql: insert, arguments: [nil, nil])
            #expect(throws: (any Error).self) { try db.execute(sql: insert, arguments: [120, "guess"]) }
            #expect(throws: (any Error).self) { try db.execute(sql: insert, arguments: [nil, "tag"]) }
        }
        // Compiled by a connection of its own, which reads the schema as the file has it.
        let program = try run(try Tools.require("sqlite3"), [old, "EXPLAIN " + insert.replacingOccurrences(of: "?, ?", with: "120, 'tag'")]).stdout
        #expect(program.contains(" Insert ") && !program.contains("OpenEphemeral"))
    }

    @Test func aVersion1DatabaseOpensAndKeepsItsData() throws {
        let fixture = try #require(Bundle.module.path(forResource: "v1", ofType: "sqlite", inDirectory: "Fixtures"))
        let dir = try TemporaryDirectory()
        let path = dir.file("v1.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        let store = try Store.open(path: path, timeZone: utc)
        defer { try? store.close() }
        #expect(try store.appliedMigrations() == Store.knownMigrations)
        #expect(try store.counts() == StoreCounts(plays: 3, tracks: 2))
        let plays = try store.recentPlays(limit: 10)
        #expect(plays.map(\.track.title) == ["Imported Song", "Run", "Run"])
        #expect(plays[1].play.counted == false)
        #expect(plays[2].play.zone == .z3)
        #expect(plays[2].track.bpm == BPM(value: 128, source: .tag, confidence: 1))
        let totals = try store.dailyTotals(from: "2025-11-22", to: "2025-11-22")
        #expect(totals.count == 1)
        #expect(totals.first?.plays == 2)
        #expect(totals.first?.skips == 1)
        #expect(try store.isInLibrary(uri: "Artist/Album/01 Run.flac") == true)
        // Known, and to be read again at the next mirror (v6: several Artist tags are read now).
        #expect(try store.libraryIndex(player: "default") == ["Artist/Album/01 Run.flac": -1])
        // The play that was in progress resumes.
        let open = try #require(try store.openPlay(player: "default"))
        #expect(open.song.uri == "Artist/Album/01 Run.flac")
        #expect(open.playedSeconds == 12.5 && open.isPlaying && open.songID == 7)
        // v6 filed the old tracks under artists and albums.
        let artist = try #require(try store.artist(named: "Artist"))
        #expect(try store.artist(named: "Other Artist") != nil)
        let albumID = try #require(plays[1].track.albumID)
        let album = try #require(try store.album(id: albumID))
        #expect(album.title == "Album" && album.artist == "Artist" && album.artistID == artist.id)
        #expect(plays[0].track.albumID == nil)  // no album tag, no album
        #expect(try store.artistSummary(id: artist.id).plays == 1)
    }

    @Test func aDatabaseFromANewerVersionIsRefused() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        try Store.open(path: path, timeZone: utc).close()
        try run(try Tools.require("sqlite3"), [path, "INSERT INTO grdb_migrations VALUES ('v9.future')"])
        #expect(throws: StoreError.newerSchema(path: path, unknownMigrations: ["v9.future"])) {
            try Store.open(path: path, timeZone: utc)
        }
    }

    @Test func unusablePathsAreClearErrors() throws {
        let dir = try TemporaryDirectory()
        #expect(throws: StoreError.cannotOpen(path: dir.file("missing/p.sqlite"), reason: "directory \(dir.file("missing")) does not exist")) {
            try Store.open(path: dir.file("missing/p.sqlite"), timeZone: utc)
        }
        #expect(throws: StoreError.cannotOpen(path: dir.path, reason: "it is a directory")) {
            try Store.open(path: dir.path, timeZone: utc)
        }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: dir.file("junk.sqlite")))
        #expect {
            try Store.open(path: dir.file("junk.sqlite"), timeZone: utc)
        } throws: { error in
            if case .cannotOpen(_, let reason) = error as? StoreError { return reason.contains("not a database") }
            return false
        }
    }
}

@Suite struct PlayAndRollupTests {
    private func play(_ trackID: Int64, at seconds: Double, played: Double, counted: Bool = true) -> Play {
        Play(trackID: trackID, startedAt: Date(timeIntervalSince1970: seconds),
             endedAt: Date(timeIntervalSince1970: seconds + played), playedSeconds: played,
             counted: counted, source: "mpd", player: "default")
    }

    /// "On this day": each day's most played track — more seconds break a tie in plays, the
    /// track added first a tie in both; skips do not count, days without plays are left out.
    @Test func theTopTrackOfEachDayIsItsMostPlayed() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let ids = try ["A", "B", "C"].map { try store.saveTrack(Track(title: $0, artist: "X")) }
        let day1 = 1_704_067_200.0  // 2024-01-01T00:00Z
        let day2 = day1 + 86_400, day3 = day2 + 86_400
        // Day 1: B twice, A once. Day 2: A and B once each, B longer. Day 3: C and B once
        // each, same length, and A skipped three times. 2024-01-04: nothing.
        for (track, at, played, counted) in [(1, day1, 100.0, true), (1, day1 + 600, 100, true), (0, day1 + 1200, 300, true),
                                             (0, day2, 100, true), (1, day2 + 600, 150, true),
                                             (2, day3, 100, true), (1, day3 + 600, 100, true),
                                             (0, day3 + 1200, 10, false), (0, day3 + 1800, 10, false), (0, day3 + 2400, 10, false)] {
            _ = try store.insertPlay(play(ids[track], at: at, played: played, counted: counted))
        }
        let tops = try store.topTrackOfDays(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"])
        #expect(tops.map(\.day) == ["2024-01-01", "2024-01-02", "2024-01-03"])
        #expect(tops.map(\.track.title) == ["B", "B", "B"])
        #expect(tops.map(\.plays) == [2, 1, 1])
        #expect(try store.topTrackOfDays([]).isEmpty)
    }

    @Test func theSameListenIsStoredOnce() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let id = try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X"))
        #expect(try store.insertPlay(play(id, at: 1_000_000, played: 100)) != nil)
        #expect(try store.insertPlay(play(id, at: 1_000_000, played: 100)) == nil)
        #expect(try store.counts().plays == 1)
    }

    @Test func savingATrackAgainUpdatesItAndKeepsAHandSetBPM() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let id = try store.saveTrack(Track(uri: "a.flac", title: "A", bpm: BPM(value: 90, source: .manual)))
        let again = try store.saveTrack(Track(uri: "a.flac", title: "A (retagged)"))
        #expect(again == id)
        let track = try #require(try store.track(id: id))
        #expect(track.title == "A (retagged)")
        #expect(track.bpm == BPM(value: 90, source: .manual))
        let imported = try store.saveTrack(Track(title: "Song", artist: "The Band"))
        #expect(try store.saveTrack(Track(title: "song", artist: "Band")) == imported)
    }

    @Test func rollupsFollowInsertsUpdatesAndDeletes() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        let store = try Store.open(path: path, timeZone: utc)
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A"))
        // 2026-01-01T23:30Z and 2026-01-02T00:30Z: different UTC days.
        try store.insertPlay(play(a, at: 1_767_310_200, played: 200))
        try store.insertPlay(play(a, at: 1_767_313_800, played: 20, counted: false))
        var totals = try store.dailyTotals(from: "2026-01-01", to: "2026-01-02")
        #expect(totals.map(\.day) == ["2026-01-01", "2026-01-02"])
        #expect(totals.map(\.plays) == [1, 0])
        #expect(totals.map(\.skips) == [0, 1])
        try run(try Tools.require("sqlite3"), [path, "UPDATE plays SET counted = 1, played_s = 180 WHERE played_s = 20"])
        totals = try store.dailyTotals(from: "2026-01-01", to: "2026-01-02")
        #expect(totals.map(\.plays) == [1, 1])
        #expect(totals.map(\.seconds) == [200, 180])
        try run(try Tools.require("sqlite3"), [path, "DELETE FROM plays WHERE played_s = 200"])
        totals = try store.dailyTotals(from: "2026-01-01", to: "2026-01-02")
        #expect(totals.map(\.day) == ["2026-01-02"])
        try store.close()

        // Opened with another display zone, the two plays fall on the same local day.
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        try run(try Tools.require("sqlite3"), [path, "INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour) VALUES (\(a), 1767310200000, 1767310400000, 200, 1, 'mpd', '2026-01-01', 23)"])
        let reopened = try Store.open(path: path, timeZone: tokyo)
        defer { try? reopened.close() }
        #expect(try reopened.rollupTimeZone() == "Asia/Tokyo")
        totals = try reopened.dailyTotals(from: "2026-01-01", to: "2026-01-03")
        #expect(totals.map(\.day) == ["2026-01-02"])
        #expect(totals.map(\.plays) == [2])
        #expect(totals.map(\.seconds) == [380])
    }

    /// Two names of UTC are one zone: a database logged under TZ=UTC (Foundation's "GMT")
    /// and opened by a service in the system's zone ("Etc/UTC") keeps its rollups as they
    /// are (rebuilding them took minutes at millions of plays); another zone rebuilds them.
    @Test func namesOfUTCAreOneZone() throws {
        #expect(Store.sameZone("GMT", TimeZone(identifier: "Etc/UTC")!))
        #expect(Store.sameZone("Etc/UTC", TimeZone(identifier: "UTC")!))
        #expect(Store.sameZone("Asia/Tokyo", TimeZone(identifier: "Asia/Tokyo")!))
        #expect(!Store.sameZone("GMT", TimeZone(identifier: "Europe/London")!))
        #expect(!Store.sameZone("Europe/London", TimeZone(identifier: "Etc/UTC")!))
        #expect(!Store.sameZone("Etc/GMT-3", TimeZone(identifier: "Europe/Moscow")!))

        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store = try Store.open(path: path, timeZone: TimeZone(identifier: "GMT")!)
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A"))
        // 2026-06-30T23:30Z: 1 July in London (summer time).
        try store.insertPlay(play(a, at: 1_782_862_200, played: 200))
        #expect(try store.rollupTimeZone() == "GMT")
        try store.close()
        store = try Store.open(path: path, timeZone: TimeZone(identifier: "Etc/UTC")!)
        #expect(try store.rollupTimeZone() == "GMT")
        #expect(try store.dailyTotals(from: "2026-06-01", to: "2026-07-31").map(\.day) == ["2026-06-30"])
        try store.close()
        store = try Store.open(path: path, timeZone: TimeZone(identifier: "Europe/London")!)
        defer { try? store.close() }
        #expect(try store.rollupTimeZone() == "Europe/London")
        #expect(try store.dailyTotals(from: "2026-06-01", to: "2026-07-31").map(\.day) == ["2026-07-01"])
    }
}

@Suite struct LibraryMirrorStoreTests {
    @Test func eachPlayerHasItsOwnLibrary() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let shared = SongInfo(uri: "shared.flac", tags: ["Title": "Shared"], lastModified: 100)
        let kitchenOnly = SongInfo(uri: "kitchen.flac", tags: ["Title": "Kitchen"], lastModified: 100)
        try store.applyLibrary(player: "kitchen", changed: [shared, kitchenOnly], removed: [], stickers: ["kitchen.flac": 90])
        try store.applyLibrary(player: "studio", changed: [shared], removed: [], stickers: [:])
        #expect(try store.libraryIndex(player: "kitchen") == ["shared.flac": -1, "kitchen.flac": -1])
        #expect(try store.libraryIndex(player: "studio") == ["shared.flac": -1])
        // The studio's empty sticker list does not clear the kitchen's stickers.
        #expect(try store.track(uri: "kitchen.flac")?.bpm == BPM(value: 90, source: .sticker))
        // Tags read: the files are mirrored as of their Last-Modified.
        #expect(try store.applyTagBPM(player: "kitchen", [("shared.flac", 100_000, 120), ("kitchen.flac", 100_000, nil)]) == 1)
        #expect(try store.libraryIndex(player: "kitchen") == ["shared.flac": 100_000, "kitchen.flac": 100_000])
        #expect(try store.track(uri: "shared.flac")?.bpm == BPM(value: 120, source: .tag, confidence: 1))
        #expect(try store.track(uri: "kitchen.flac")?.bpm == BPM(value: 90, source: .sticker))
        // Gone from the kitchen, still in the studio: still in the library.
        try store.applyLibrary(player: "kitchen", changed: [], removed: ["shared.flac", "kitchen.flac"], stickers: nil)
        #expect(try store.isInLibrary(uri: "shared.flac") == true)
        #expect(try store.isInLibrary(uri: "kitchen.flac") == false)
        #expect(try store.track(uri: "kitchen.flac") != nil)
    }
}

@Suite struct SongOfTheDayStoreTests {
    private func play(_ trackID: Int64, at seconds: Double, played: Double, counted: Bool = true) -> Play {
        Play(trackID: trackID, startedAt: Date(timeIntervalSince1970: seconds),
             endedAt: Date(timeIntervalSince1970: seconds + played), playedSeconds: played,
             counted: counted, source: "mpd", player: "default")
    }

    private func song(_ store: Store, _ day: String) throws -> SongOfTheDay.Choice? {
        SongOfTheDay.choose(try store.sotdCandidates(day: day), pin: try store.sotdPin(day: day))
    }

    @Test func tiesGoToMoreSecondsThenToTheEarliestFirstPlay() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A"))
        let b = try store.saveTrack(Track(uri: "b.flac", title: "B"))
        let c = try store.saveTrack(Track(uri: "c.flac", title: "C"))
        let day = 1_767_225_600.0  // 2026-01-01T00:00Z
        // A and B: two counted plays each; B has more seconds (a skip's seconds count too).
        try store.insertPlay(play(a, at: day + 100, played: 200))
        try store.insertPlay(play(a, at: day + 400, played: 200))
        try store.insertPlay(play(b, at: day + 700, played: 200))
        try store.insertPlay(play(b, at: day + 1000, played: 200))
        try store.insertPlay(play(b, at: day + 1300, played: 10, counted: false))
        // C: more skips than anyone, but only one counted play.
        for i in 0..<5 { try store.insertPlay(play(c, at: day + 2000 + Double(i) * 100, played: 20, counted: false)) }
        try store.insertPlay(play(c, at: day + 3000, played: 200))
        #expect(try song(store, "2026-01-01")?.trackID == b)
        // Equal plays and seconds: the one first played earliest.
        try store.insertPlay(play(a, at: day + 5000, played: 10, counted: false))
        #expect(try song(store, "2026-01-01")?.trackID == a)
        // The month view agrees with the single day.
        let month = try store.sotdCandidates(fromDay: "2026-01-01", toDay: "2026-01-31")
        #expect(SongOfTheDay.choose(month["2026-01-01"] ?? [], pin: nil)?.trackID == a)
        #expect(try store.sotdCandidates(day: "2026-01-02").isEmpty)
    }

    /// A local day's first and last minutes belong to it in the zones furthest from UTC
    /// (the candidates are found through the plays' start times, with 14 hours of slack).
    @Test func aDayIsWholeInTheZonesFurthestFromUTC() throws {
        for (zone, offset) in [("Pacific/Kiritimati", 14.0 * 3600), ("Etc/GMT+12", -12.0 * 3600)] {
            let dir = try TemporaryDirectory()
            let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: zone)!)
            defer { try? store.close() }
            let a = try store.saveTrack(Track(uri: "a.flac", title: "A"))
            let b = try store.saveTrack(Track(uri: "b.flac", title: "B"))
            let localMidnight = 1_767_225_600.0 - offset  // 2026-01-01T00:00 in that zone
            try store.insertPlay(play(a, at: localMidnight + 60, played: 200))          // 00:01
            try store.insertPlay(play(b, at: localMidnight + 86_400 - 300, played: 200)) // 23:55
            try store.insertPlay(play(b, at: localMidnight + 86_400 + 60, played: 200)) // the next day
            let candidates = try store.sotdCandidates(day: "2026-01-01")
            #expect(Set(candidates.map(\.trackID)) == [a, b], "\(zone)")
            #expect(candidates.map(\.plays).reduce(0, +) == 2, "\(zone)")
            #expect(try store.sotdCandidates(day: "2026-01-02").map(\.plays) == [1], "\(zone)")
        }
    }

    @Test func aPinWinsUntilItIsRemoved() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A"))
        let b = try store.saveTrack(Track(uri: "b.flac", title: "B"))
        try store.insertPlay(play(a, at: 1_767_225_700, played: 200))
        #expect(try store.pinSOTD(day: "2026-01-01", trackID: b, note: "for Sam"))
        #expect(try song(store, "2026-01-01") == SongOfTheDay.Choice(trackID: b, pinned: true, note: "for Sam"))
        #expect(try store.pinSOTD(day: "2026-01-01", trackID: 999, note: nil) == false)
        #expect(try store.unpinSOTD(day: "2026-01-01"))
        #expect(try song(store, "2026-01-01") == SongOfTheDay.Choice(trackID: a, pinned: false, note: nil))
        // A day with only a pin has a song too.
        try store.pinSOTD(day: "2026-02-02", trackID: b, note: nil)
        #expect(try store.sotdPins(fromDay: "2026-02-01", toDay: "2026-02-28")["2026-02-02"]?.trackID == b)
    }

    @Test func daysFollowTheDisplayZoneOnDaylightSavingChanges() throws {
        let dir = try TemporaryDirectory()
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: berlin)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A"))
        let b = try store.saveTrack(Track(uri: "b.flac", title: "B"))
        // 29 March 2026 has 23 hours in Berlin: 2026-03-28T23:00Z to 2026-03-29T22:00Z.
        try store.insertPlay(play(a, at: 1_774_740_600, played: 200))  // 28T23:30Z = 00:30 CET on the 29th
        try store.insertPlay(play(b, at: 1_774_821_540, played: 50))   // 29T21:59Z = 23:59 CEST on the 29th
        try store.insertPlay(play(b, at: 1_774_822_200, played: 200))  // 29T22:10Z = 00:10 on the 30th
        try store.insertPlay(play(b, at: 1_774_735_200, played: 200))  // 28T22:00Z = 23:00 on the 28th
        let day29 = try store.sotdCandidates(day: "2026-03-29")
        #expect(Set(day29.map(\.trackID)) == [a, b])
        #expect(try song(store, "2026-03-29")?.trackID == a)  // one play each; A played longer
        #expect(try store.sotdCandidates(day: "2026-03-30").map(\.trackID) == [b])
        #expect(try store.sotdCandidates(day: "2026-03-28").map(\.trackID) == [b])
        // 25 October 2026 has 25 hours: 2026-10-24T22:00Z to 2026-10-25T23:00Z.
        try store.insertPlay(play(a, at: 1_792_881_000, played: 100))  // 24T22:30Z = 00:30 CEST on the 25th
        try store.insertPlay(play(a, at: 1_792_967_400, played: 100))  // 25T22:30Z = 23:30 CET on the 25th
        try store.insertPlay(play(b, at: 1_792_971_000, played: 100))  // 25T23:30Z = 00:30 on the 26th
        #expect(try store.sotdCandidates(day: "2026-10-25").map(\.trackID) == [a])
        #expect(try store.sotdCandidates(day: "2026-10-25").first?.plays == 2)
        #expect(try store.sotdCandidates(day: "2026-10-26").map(\.trackID) == [b])
    }
}

@Suite struct HeartRateTaggingTests {
    /// Samples tag the plays they fall in — one that began hours before the first sample
    /// too — and only those, on a history whose other plays are far away.
    @Test func samplesTagThePlaysTheyOverlap() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let track = try store.saveTrack(Track(uri: "long.flac", title: "Long", artist: "A"))
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        func play(_ start: Double, _ seconds: Double) throws -> Int64 {
            try #require(try store.insertPlay(Play(trackID: track, startedAt: at.addingTimeInterval(start), endedAt: at.addingTimeInterval(start + seconds),
                                                   playedSeconds: seconds, counted: true, source: "mpd")))
        }
        let long = try play(-3 * 3600, 3 * 3600 + 60)  // a three-hour stream still on at the first sample
        let inside = try play(100, 200)
        let before = try play(-86_400 * 30, 200)        // a month earlier
        let after = try play(86_400, 200)
        try store.insertSamples((0..<400).map { HeartRateSample(at: at.addingTimeInterval(Double($0)), bpm: 120 + $0 % 20) }, source: "t")
        #expect(try store.tagPlays(from: at, to: at.addingTimeInterval(399)) { _, _ in .z3 }.count == 2)
        let zones = Dictionary(uniqueKeysWithValues: try store.recentPlays(limit: 10).map { ($0.play.id!, $0.play.zone) })
        #expect(zones[long] == .z3 && zones[inside] == .z3)
        #expect(zones[before] == Zone?.none && zones[after] == Zone?.none)
    }

    /// With no sample within a day of the span, nothing is read or tagged (every stored play
    /// asks); a sample late in a play that began nearly a day before the span still counts.
    @Test func aSpanWithNoSampleNearTagsNothingAndALongPlaysLateSampleStillCounts() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let track = try store.saveTrack(Track(uri: "stream", title: "Radio", artist: "A"))
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        let radio = try #require(try store.insertPlay(Play(trackID: track, startedAt: at.addingTimeInterval(-23 * 3600),
                                                           endedAt: at.addingTimeInterval(3600), playedSeconds: 24 * 3600,
                                                           counted: true, source: "mpd")))
        try store.insertSamples([HeartRateSample(at: at.addingTimeInterval(86_400 * 3), bpm: 150)], source: "t")
        #expect(try store.tagPlays(from: at, to: at.addingTimeInterval(60)) { _, _ in .z5 }.count == 0)
        #expect(try store.recentPlays(limit: 1).first?.play.zone == Zone?.none)
        // A sample half an hour after the span, while the day-long stream that overlaps the
        // span still played: it is the stream's.
        try store.insertSamples([HeartRateSample(at: at.addingTimeInterval(1800), bpm: 130)], source: "t")
        #expect(try store.tagPlays(from: at, to: at.addingTimeInterval(60)) { _, _ in .z3 }.count == 1)
        let tagged = try #require(try store.recentPlays(limit: 1).first?.play)
        #expect(tagged.id == radio && tagged.zone == .z3 && tagged.heartRateAverage == 130)
        // And one 22 hours before a span, early in the same stream: it counts too.
        try store.insertSamples([HeartRateSample(at: at.addingTimeInterval(-22 * 3600), bpm: 150)], source: "t")
        #expect(try store.tagPlays(from: at.addingTimeInterval(3000), to: at.addingTimeInterval(3060)) { _, _ in .z4 }.count == 1)
        let again = try #require(try store.recentPlays(limit: 1).first?.play)
        #expect(again.id == radio && again.zone == .z4 && again.heartRateAverage == 140)
    }
}

@Suite struct StoreErrorTests {
    /// A file error (a backup renamed into place, a restore) reads as its file and the
    /// system's words, not as Foundation's dump of the error.
    @Test func fileErrorsReadAsTheFileAndWhatWentWrong() {
        let missing = CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "/b/p.sqlite.partial",
                                                            NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOENT))])
        #expect(StoreError(missing, path: "/p.sqlite").description == "database error: /b/p.sqlite.partial: No such file or directory")
        #expect(StoreError(POSIXError(.ENOSPC), path: "/p.sqlite").description == "database error: No space left on device")
        #expect(!StoreError(CocoaError(.fileWriteNoPermission), path: "/p.sqlite").description.contains("Domain="))
    }
}
