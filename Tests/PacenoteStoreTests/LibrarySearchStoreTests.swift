import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The library's search (issue 57) on a real database: the full-text index the history's
/// search uses, over library tracks only — artists by their own name, albums by title and
/// artist, tracks anywhere, most played first.
@Suite struct LibrarySearchStoreTests {
    static let now = Date(timeIntervalSince1970: 1_767_225_600)

    static func store(_ dir: TemporaryDirectory) throws -> (Store, [String: Int64]) {
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        let songs: [(uri: String, title: String, artist: String, album: String)] = [
            ("halo.flac", "Halo", "Beyoncé", "I Am… Sasha Fierce"),
            ("crazy.flac", "Crazy in Love", "Jay-Z feat. Beyoncé", "Dangerously in Love"),
            ("bells.flac", "Hells Bells", "AC/DC", "Back in Black"),
            ("black.flac", "Back in Black", "AC/DC", "Back in Black"),
        ]
        _ = try store.applyLibrary(player: "default", changed: songs.map {
            SongInfo(uri: $0.uri, tags: ["Title": $0.title, "Artist": $0.artist, "Album": $0.album, "AlbumArtist": $0.artist],
                     durationSeconds: 200)
        }, removed: [], stickers: nil, now: now)
        var ids: [String: Int64] = [:]
        for song in songs { ids[song.title] = try #require(try store.track(uri: song.uri)?.id) }
        // A track out of the library (played once, elsewhere): never offered.
        ids["Halo (live)"] = try store.saveTrack(Track(title: "Halo (live)", artist: "Beyoncé", album: "I Am… Sasha Fierce"))
        for (title, times) in [("Back in Black", 3), ("Hells Bells", 1), ("Halo (live)", 5)] {
            for i in 0..<times {
                let start = now.addingTimeInterval(Double(-i - 1) * 3600)
                try store.insertPlay(Play(trackID: ids[title]!, startedAt: start, endedAt: start.addingTimeInterval(200),
                                          playedSeconds: 200, counted: true, source: "mpd"))
            }
        }
        return (store, ids)
    }

    @Test func artistsAlbumsAndTracksFromTheIndex() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try Self.store(dir)
        defer { try? store.close() }
        func found(_ q: String) throws -> (artists: [String], albums: [String], tracks: [String]) {
            let r = try store.librarySearch(q, limit: 50)
            return (r.artists.map(\.name), r.albums.map(\.name), r.tracks.compactMap(\.track?.title))
        }
        var r = try found("beyon")
        #expect(r.artists == ["Beyoncé"], "Jay-Z's credit matches, his name does not")
        #expect(r.albums == ["Dangerously in Love", "I Am… Sasha Fierce"], "the albums of her tracks")
        #expect(Set(r.tracks) == ["Halo", "Crazy in Love"], "the live Halo is not in the library")
        r = try found("BEYONCE")
        #expect(r.artists == ["Beyoncé"], "case and accents folded")
        r = try found("sasha")
        #expect(r.albums == ["I Am… Sasha Fierce"] && r.tracks == ["Halo"] && r.artists.isEmpty)
        r = try found("back black")
        #expect(r.albums == ["Back in Black"])
        #expect(r.tracks == ["Back in Black", "Hells Bells"], "most played first: \(r.tracks)")
        #expect(try store.librarySearch("back", limit: 1).tracks.count == 1, "the limit holds")
        r = try found("ac/dc")
        #expect(r.artists == ["AC/DC"] && r.tracks.count == 2)
        r = try found("jay")
        #expect(r.artists == ["Jay-Z"] && r.albums == ["Dangerously in Love"] && r.tracks == ["Crazy in Love"])
        r = try found("fierce beyonce")
        #expect(r.albums == ["I Am… Sasha Fierce"] && r.tracks == ["Halo"] && r.artists.isEmpty, "an album by its title and artist")
        r = try found("yonce")
        #expect(r.artists.isEmpty && r.tracks.isEmpty, "a word's start, not its middle")
        r = try found("… !! \"")
        #expect(r.artists.isEmpty && r.albums.isEmpty && r.tracks.isEmpty, "no word: nothing")
        r = try found("halo\" OR \"crazy")
        #expect(r.tracks.isEmpty, "FTS5's operators stay words: \(r.tracks)")
    }

    @Test func theArtistListNarrowsTheSameWay() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try Self.store(dir)
        defer { try? store.close() }
        #expect(try store.libraryArtists(search: nil, limit: 10, offset: 0).map(\.name) == ["AC/DC", "Beyoncé", "Jay-Z"])
        #expect(try store.libraryArtists(search: "bey", limit: 10, offset: 0).map(\.name) == ["Beyoncé"])
        #expect(try store.libraryArtists(search: "z", limit: 10, offset: 0).map(\.name) == ["Jay-Z"])
        #expect(try store.libraryArtists(search: "%", limit: 10, offset: 0).isEmpty, "no LIKE wildcard")
        let beyonce = try #require(try store.libraryArtists(search: "beyoncé", limit: 10, offset: 0).first)
        #expect(beyonce.tracks == 2, "her own song and the one she is featured on")
    }
}
