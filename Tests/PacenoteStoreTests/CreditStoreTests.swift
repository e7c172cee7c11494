import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

private let zone = TimeZone(identifier: "Europe/Berlin")!

/// Artist credits and MusicBrainz identity in the store: charts read the credits, a
/// change of separators re-splits exactly what its preview showed, and a recording id
/// decides which track a listen is.
@Suite struct CreditStoreTests {
    static func play(_ store: Store, _ track: Track, at seconds: Double, played: Double = 200) throws -> Int64 {
        let id = try store.saveTrack(track)
        _ = try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: seconds),
                                      endedAt: Date(timeIntervalSince1970: seconds + played), playedSeconds: played,
                                      counted: true, source: "mpd"))
        return id
    }

    /// Every artist chart, recomputed from the plays and the credits alone.
    static func artistChartFromPlays(_ store: Store) throws -> [String: Int] {
        try store.read { db in
            var out: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT a.name, SUM(p.counted) FROM plays p JOIN track_artists a ON a.track_id = p.track_id
                GROUP BY a.name COLLATE NOCASE HAVING SUM(p.counted) > 0
                """) { out[row[0]] = row[1] }
            return out
        }
    }

    static func chart(_ store: Store, from: String = "0000-01-01", to: String = "9999-12-31") throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try store.topArtists(fromDay: from, toDay: to, limit: 1000).map { ($0.artist!, $0.plays) })
    }

    @Test func aPlayCountsForEveryCreditedArtistTotalsOnce() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        // Two Artist tags and an AlbumArtist, as MPD reports them.
        let song = SongInfo(uri: "two.flac", tags: ["Artist": "A", "AlbumArtist": "AA", "Album": "Al", "Title": "Two"],
                            multiTags: ["Artist": ["A", "B"]])
        _ = try Self.play(store, song.track, at: 1_700_000_000)
        _ = try Self.play(store, Track(uri: "x.flac", title: "Solo", artist: "A", album: "Al", albumArtist: "AA"), at: 1_700_000_500)
        let featured = try Self.play(store, Track(title: "Song (feat. C)", artist: "D"), at: 1_700_001_000)
        _ = try Self.play(store, Track(title: "The Boxer", artist: "Simon & Garfunkel"), at: 1_700_002_000)

        #expect(try Self.chart(store) == ["A": 2, "B": 1, "C": 1, "D": 1, "Simon & Garfunkel": 1])
        #expect(try Self.chart(store) == (try Self.artistChartFromPlays(store)))
        #expect(try Self.chart(store, from: "2023-11-14", to: "2023-11-14") == ["A": 2, "B": 1, "C": 1, "D": 1, "Simon & Garfunkel": 1])
        #expect(try store.totals(fromDay: "0000-01-01", toDay: "9999-12-31").plays == 4)
        #expect(try store.topAlbums(fromDay: "0000-01-01", toDay: "9999-12-31", limit: 10).map(\.plays) == [2])
        // Artists by name (case folded) are entities with ids.
        let b = try #require(try store.artist(named: "b"))
        #expect(b.name == "B")
        #expect(try store.artistSummary(id: b.id).plays == 1)
        let c = try #require(try store.artist(named: "C")), d = try #require(try store.artist(named: "D"))
        let cTracks = try store.topTracks(artistID: c.id, limit: 10)
        #expect(cTracks.map(\.track?.id) == [featured] && cTracks.map(\.featured) == [true])
        #expect(try store.topTracks(artistID: d.id, limit: 10).map(\.featured) == [false])
        // The text as received is kept.
        #expect(try store.track(id: featured)?.artist == "D")
    }

    @Test func theSeparatorPreviewIsExactlyWhatApplyingChanges() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        _ = try Self.play(store, Track(title: "The Boxer", artist: "Simon & Garfunkel"), at: 1_700_000_000)
        _ = try Self.play(store, Track(title: "Ohio", artist: "Crosby, Stills, Nash & Young"), at: 1_700_001_000)
        _ = try Self.play(store, Track(title: "Get Lucky", artist: "Daft Punk feat. Pharrell Williams"), at: 1_700_002_000)
        let listed = try Self.play(store, Track(title: "Duet", artist: "E & F", listedCredit: ArtistCredit(listed: ["E & F"])),
                                   at: 1_700_003_000)
        #expect(try store.creditSeparators() == [])
        let preview = try store.creditChanges(separators: ["&"])
        #expect(preview.map(\.after) == [["Simon", "Garfunkel"], ["Crosby, Stills, Nash", "Young"]])
        #expect(preview.map(\.before) == [["Simon & Garfunkel"], ["Crosby, Stills, Nash & Young"]])
        let applied = try store.applyCreditSeparators(["&"])
        #expect(applied == preview)
        #expect(try store.creditSeparators() == ["&"])
        #expect(try store.creditChanges(separators: ["&"]).isEmpty)
        #expect(try store.credit(trackID: listed)?.names == ["E & F"])  // listed: never re-split
        #expect(try Self.chart(store) == (try Self.artistChartFromPlays(store)))
        #expect(try Self.chart(store)["Garfunkel"] == 1)
        // New tracks are split the same way; going back restores the old credits.
        let later = try Self.play(store, Track(title: "Mrs. Robinson", artist: "Simon & Garfunkel"), at: 1_700_004_000)
        #expect(try store.credit(trackID: later)?.names == ["Simon", "Garfunkel"])
        #expect(try store.applyCreditSeparators([]).count == 3)
        #expect(try Self.chart(store)["Simon & Garfunkel"] == 2)
    }

    @Test func aRecordingIDDecidesWhichTrackAListenIs() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: zone)
        defer { try? store.close() }
        let one = try store.saveTrack(Track(title: "Intro", artist: "Band", musicBrainz: MusicBrainzIDs(recording: "r1")))
        let two = try store.saveTrack(Track(title: "Intro", artist: "Band", musicBrainz: MusicBrainzIDs(recording: "r2")))
        #expect(one != two)
        #expect(try store.saveTrack(Track(title: "INTRO (Live)", artist: "The Band", musicBrainz: MusicBrainzIDs(recording: "r1"))) == one)
        #expect(try store.saveTrack(Track(title: "Intro", artist: "Band")) == one)
        // The bulk import: the same, and re-importing finds every play again.
        let listens = [
            ImportedListen(track: Track(title: "Intro", artist: "Band", musicBrainz: MusicBrainzIDs(recording: "r2")), startedAtMs: 1_700_000_000_000, playedSeconds: 60),
            ImportedListen(track: Track(title: "Intro", artist: "Band", musicBrainz: MusicBrainzIDs(recording: "r3")), startedAtMs: 1_700_000_000_000, playedSeconds: 60),
            ImportedListen(track: Track(title: "Intro!", artist: "band", musicBrainz: MusicBrainzIDs(recording: "r1")), startedAtMs: 1_700_000_000_000, playedSeconds: 60),
        ]
        #expect(try ListenImportSession(store: store, source: "import:test").insert(listens) == (3, 0))
        #expect(try ListenImportSession(store: store, source: "import:test").insert(listens) == (0, 3))
        let plays = try store.recentPlays(limit: 10)
        #expect(Set(plays.map(\.track.musicBrainz.recording)) == ["r1", "r2", "r3"])
        #expect(plays.first { $0.track.musicBrainz.recording == "r1" }?.track.id == one)
        #expect(plays.first { $0.track.musicBrainz.recording == "r2" }?.track.id == two)
    }
}
