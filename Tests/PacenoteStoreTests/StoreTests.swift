import Foundation
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
        #expect(try store.libraryIndex(player: "default") == ["Artist/Album/01 Run.flac": 1_763_769_000_000])
        // The play that was in progress resumes.
        let open = try #require(try store.openPlay(player: "default"))
        #expect(open.song.uri == "Artist/Album/01 Run.flac")
        #expect(open.playedSeconds == 12.5 && open.isPlaying && open.songID == 7)
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
