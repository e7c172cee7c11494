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
        let songs: [(uri: String, title: String, artist: String, album: String, albumArtist: String)] = [
            ("halo.flac", "Halo", "Beyoncé", "I Am… Sasha Fierce", "Beyoncé"),
            ("crazy.flac", "Crazy in Love", "Jay-Z feat. Beyoncé", "Dangerously in Love", "Beyoncé"),
            ("bells.flac", "Hells Bells", "AC/DC", "Back in Black", "AC/DC"),
            ("black.flac", "Back in Black", "AC/DC", "Back in Black", "AC/DC"),
            // A guest credited in the title only, on a compilation; a name with no word in it.
            ("duet.flac", "Milkshake (feat. Kelis)", "Host", "Now 99", "Various Artists"),
            ("bang.flac", "Me and Giuliani", "!!!", "Myth Takes", "!!!"),
        ]
        _ = try store.applyLibrary(player: "default", changed: songs.map {
            SongInfo(uri: $0.uri, tags: ["Title": $0.title, "Artist": $0.artist, "Album": $0.album, "AlbumArtist": $0.albumArtist],
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
        r = try found("hal\u{0}o")
        #expect(r.tracks.isEmpty && r.artists.isEmpty, "a NUL splits words, never cuts the query short")
        r = try found("hal\u{0}")
        #expect(r.tracks == ["Halo"])
        r = try found(Array(repeating: "beyon", count: SearchWords.most).joined(separator: " ") + " zzz")
        #expect(r.artists == ["Beyoncé"] && r.tracks.count == 2, "past the 16th word nothing counts, for artists as for tracks")
        r = try found("various")
        #expect(r.albums == ["Now 99"] && r.tracks.isEmpty, "a compilation by its album artist")
        r = try found("kelis")
        #expect(r.artists == ["Kelis"] && r.tracks == ["Milkshake (feat. Kelis)"], "a guest named in a title only: \(r)")
    }

    @Test func theArtistListNarrowsTheSameWay() throws {
        let dir = try TemporaryDirectory()
        let (store, _) = try Self.store(dir)
        defer { try? store.close() }
        func names(_ q: String?, limit: Int = 10, offset: Int = 0) throws -> [String] {
            try store.libraryArtists(search: q, limit: limit, offset: offset).map(\.name)
        }
        #expect(try names(nil) == ["!!!", "AC/DC", "Beyoncé", "Host", "Jay-Z", "Kelis"])
        #expect(try names(nil, limit: 2, offset: 2) == ["Beyoncé", "Host"], "paged")
        #expect(try names("bey") == ["Beyoncé"])
        #expect(try names("z") == ["Jay-Z"])
        #expect(try names("a%") == ["AC/DC"], "no LIKE wildcard: Jay-Z has an a, no word starting with one")
        #expect(try names("!!!") == ["!!!"], "a name with no word is found by its text")
        #expect(try names(" \n ") == names(nil), "a blank search narrows nothing")
        let beyonce = try #require(try store.libraryArtists(search: "beyoncé", limit: 10, offset: 0).first)
        #expect(beyonce.tracks == 2, "her own song and the one she is featured on")
        // A merged name finds the artist it was merged into.
        let kept = try #require(try store.artist(named: "Beyoncé")?.id), alias = try #require(try store.artist(named: "Host")?.id)
        _ = try store.merge(.artist, from: [alias], into: kept, request: "{}", source: "test")
        #expect(try names("host") == ["Beyoncé"], "by the alias")
        #expect(try names(nil).contains("Host") == false)
    }
}
