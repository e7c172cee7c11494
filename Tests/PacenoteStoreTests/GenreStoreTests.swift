import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// Genres in the store (v30): tracks filed under the genres of their genre text, charts of
/// genres against a recomputation from the plays, a re-tagged file moving its plays, merges
/// and their undo, and genres per heart-rate zone.
@Suite struct GenreStoreTests {
    static let utc = TimeZone(identifier: "UTC")!

    static func play(_ store: Store, _ track: Int64, at seconds: Double, counted: Bool = true, zone: Zone? = nil) throws {
        try store.insertPlay(Play(trackID: track, startedAt: Date(timeIntervalSince1970: seconds),
                                  endedAt: Date(timeIntervalSince1970: seconds + 200), playedSeconds: 200, counted: counted,
                                  source: "mpd", zone: zone))
    }

    static func chart(_ store: Store) throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try store.topGenres(fromDay: "0000-01-01", toDay: "9999-12-31", limit: 100).map { ($0.genre!, $0.plays) })
    }

    /// The same chart from the plays and links.
    static func recomputed(_ store: Store) throws -> [String: Int] {
        try store.read { db in
            Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: """
                SELECT g.name, SUM(p.counted) FROM plays p JOIN track_genres tg ON tg.track_id = p.track_id JOIN genres g ON g.id = tg.genre_id
                GROUP BY g.id HAVING SUM(p.counted) > 0
                """).map { ($0[0] as String, $0[1] as Int) })
        }
    }

    @Test func aTrackIsFiledUnderEachGenreOnceAndCaseVariantsAreOne() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X", genre: "Drum & Bass; Jungle; drum & bass"))
        let b = try store.saveTrack(Track(uri: "b.flac", title: "B", artist: "X", genre: "DRUM & BASS"))
        let c = try store.saveTrack(Track(uri: "c.flac", title: "C", artist: "Y", genre: "Rock/Pop"))
        _ = try store.saveTrack(Track(uri: "d.flac", title: "D", artist: "Y", genre: " ; "))
        #expect(try store.genres(trackID: a).map(\.name) == ["Drum & Bass", "Jungle"])
        #expect(try store.genres(trackID: b).map(\.name) == ["Drum & Bass"])
        #expect(try store.genres(trackID: c).map(\.name) == ["Rock", "Pop"])
        #expect(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM genres") } == 4)
        #expect(try store.genre(named: "drum  &  bass")?.name == "Drum & Bass")
        for (i, track) in [a, a, b, c].enumerated() { try Self.play(store, track, at: 1_760_000_000 + Double(i) * 1000) }
        try Self.play(store, b, at: 1_760_100_000, counted: false)
        #expect(try Self.chart(store) == ["Drum & Bass": 3, "Jungle": 2, "Rock": 1, "Pop": 1])
        #expect(try Self.chart(store) == (try Self.recomputed(store)))
        // Ranked as the other charts: plays, then time, then name.
        #expect(try store.topGenres(fromDay: "0000-01-01", toDay: "9999-12-31", limit: 2).map(\.genre) == ["Drum & Bass", "Jungle"])
        // Re-tagged, a file takes its plays to its new genres.
        try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X", genre: "Jungle"))
        #expect(try Self.chart(store) == ["Drum & Bass": 1, "Jungle": 2, "Rock": 1, "Pop": 1])
        #expect(try Self.chart(store) == (try Self.recomputed(store)))
        // Untagged, it leaves them.
        try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X"))
        #expect(try Self.chart(store) == ["Drum & Bass": 1, "Rock": 1, "Pop": 1])
        // A day's range (the day rollups) and a month's agree with all time here.
        let day = try store.topGenres(fromDay: "2025-10-09", toDay: "2025-10-09", limit: 10)
        #expect(Dictionary(uniqueKeysWithValues: day.map { ($0.genre!, $0.plays) }) == (try Self.chart(store)))
    }

    @Test func aMergeOfGenresMovesThePlaysAndAnUndoBringsThemBack() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X", genre: "Drum & Bass; Jungle"))
        let b = try store.saveTrack(Track(uri: "b.flac", title: "B", artist: "X", genre: "Jungle"))
        try Self.play(store, a, at: 1_760_000_000)
        try Self.play(store, b, at: 1_760_001_000)
        try Self.play(store, b, at: 1_760_002_000)
        let before = try Self.chart(store)
        #expect(before == ["Drum & Bass": 1, "Jungle": 3])
        let dnb = try #require(try store.genre(named: "Drum & Bass")), jungle = try #require(try store.genre(named: "jungle"))
        #expect(try store.mergeCandidates(.genre, named: "JUNGLE").map(\.id) == [jungle.id])
        let entry = try store.merge(.genre, from: [jungle.id], into: dnb.id, request: "{}", source: "test")
        // The track under both keeps one link; its play counts once.
        #expect(try Self.chart(store) == ["Drum & Bass": 3])
        #expect(try Self.chart(store) == (try Self.recomputed(store)))
        #expect(try store.genres(trackID: a).map(\.name) == ["Drum & Bass"])
        // A later file tagged with the merged name lands on the kept genre.
        let c = try store.saveTrack(Track(uri: "c.flac", title: "C", artist: "Z", genre: "Jungle"))
        #expect(try store.genres(trackID: c).map(\.id) == [dnb.id])
        #expect(try store.genre(named: "Jungle")?.id == dnb.id)
        _ = try store.undoCuration(id: entry.id)
        #expect(try Self.chart(store) == before)
        #expect(try Self.chart(store) == (try Self.recomputed(store)))
        #expect(try store.genres(trackID: a).map(\.name) == ["Drum & Bass", "Jungle"])
    }

    @Test func eachZonesPlaysByGenre() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.utc)
        defer { try? store.close() }
        let dnb = try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X", genre: "Drum and Bass"))
        let both = try store.saveTrack(Track(uri: "b.flac", title: "B", artist: "X", genre: "Drum and Bass; Jungle"))
        let rock = try store.saveTrack(Track(uri: "c.flac", title: "C", artist: "Y", genre: "Rock"))
        let none = try store.saveTrack(Track(uri: "d.flac", title: "D", artist: "Y"))
        var at = 1_760_000_000.0
        func play(_ track: Int64, _ zone: Zone?, counted: Bool = true) throws {
            try Self.play(store, track, at: at, counted: counted, zone: zone)
            at += 300
        }
        // Z4: ten counted plays, six of drum and bass (one of them jungle too), a skip.
        for _ in 0..<5 { try play(dnb, .z4) }
        try play(both, .z4)
        for _ in 0..<3 { try play(rock, .z4) }
        try play(none, .z4)
        try play(dnb, .z4, counted: false)
        // Z2: two rock plays; and plays without a zone, which no zone counts.
        try play(rock, .z2)
        try play(rock, .z2)
        try play(dnb, nil)
        let zones = try store.genresByZone(fromDay: "0000-01-01", toDay: "9999-12-31", limit: 5)
        #expect(zones.map(\.zone) == [2, 4])
        #expect(zones[0].plays == 2 && zones[0].genres.map(\.genre) == ["Rock"] && zones[0].share(zones[0].genres[0]) == 1)
        let z4 = zones[1]
        #expect(z4.plays == 10)
        #expect(z4.genres.map { "\($0.genre!) \($0.plays)" } == ["Drum and Bass 6", "Rock 3", "Jungle 1"])
        #expect(z4.share(z4.genres[0]) == 0.6)
        #expect(try store.genresByZone(fromDay: "0000-01-01", toDay: "9999-12-31", limit: 1)[1].genres.count == 1)
        #expect(try store.genresByZone(fromDay: "2000-01-01", toDay: "2000-01-02", limit: 5).isEmpty)
    }

    @Test func theRecommenderFindsTracksByThePreferredGenresKeys() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: Self.utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a.flac", title: "A", artist: "X", genre: "Techno; Drum & Bass"))
        let b = try store.saveTrack(Track(uri: "b.flac", title: "B", artist: "X", genre: "Jungle"))
        _ = try store.saveTrack(Track(uri: "c.flac", title: "C", artist: "X", genre: "Rock"))
        #expect(try store.tracks(withGenreKeys: [EntityKey.genre("drum & BASS"), EntityKey.genre("jungle")]) == [a: "Drum & Bass", b: "Jungle"])
        #expect(try store.tracks(withGenreKeys: []).isEmpty)
        // A merged genre's name finds the kept one's tracks.
        let jungle = try #require(try store.genre(named: "Jungle")), techno = try #require(try store.genre(named: "Techno"))
        _ = try store.merge(.genre, from: [jungle.id], into: techno.id, request: "{}", source: "test")
        #expect(try store.tracks(withGenreKeys: [EntityKey.genre("jungle")]) == [a: "Techno", b: "Techno"])
    }
}
