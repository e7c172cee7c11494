import PacenoteCore
import Testing

@Suite struct EntityKeyTests {
    @Test func artistsFoldCaseAndWhiteSpaceOnly() {
        #expect(EntityKey.artist("Daft Punk") == EntityKey.artist("  DAFT\tpunk "))
        #expect(EntityKey.artist("Beyoncé") != EntityKey.artist("Beyonce"))
        #expect(EntityKey.artist("ÉLAN") == EntityKey.artist("élan"))
        #expect(EntityKey.artist("AC/DC") != EntityKey.artist("ACDC"))
    }

    @Test func anAlbumIsItsReleaseElseItsTitleWithItsAlbumArtist() {
        func album(_ title: String?, artist: String? = nil, albumArtist: String? = nil, release: String? = nil,
                   listed: [String]? = nil) -> AlbumIdentity? {
            Track(title: "t", artist: artist, album: title, albumArtist: albumArtist, musicBrainz: MusicBrainzIDs(release: release),
                  listedCredit: listed.flatMap { ArtistCredit(listed: $0) }).albumIdentity
        }
        #expect(album(nil, artist: "A") == nil)
        #expect(album("  ", artist: "A") == nil)
        #expect(album("Greatest Hits", albumArtist: "Queen")?.key != album("Greatest Hits", albumArtist: "ABBA")?.key)
        #expect(album("Greatest Hits", albumArtist: "Queen")?.key == album("GREATEST  HITS", artist: "Freddie", albumArtist: "queen")?.key)
        // Without an album artist: the primary artist, split on featuring markers only.
        #expect(album("Record", artist: "Band feat. Guest")?.key == album("Record", artist: "Band")?.key)
        #expect(album("Record", artist: "Band feat. Guest")?.artist == "Band")
        #expect(album("Bridge", artist: "Simon & Garfunkel")?.artist == "Simon & Garfunkel")
        #expect(album("Duets", artist: "A & B", listed: ["A", "B"])?.key == album("Duets", artist: "A")?.key)
        // A release id decides, over spelling and artist.
        #expect(album("Live", artist: "Band", release: "r1")?.key != album("Live", artist: "Band", release: "r2")?.key)
        #expect(album("Live", artist: "Band", release: "r1")?.key == album("Live!", artist: "Other", release: "R1")?.key)
        #expect(album("Live", artist: "Band", release: "r1")?.release == "r1")
        #expect(album(" Live ", albumArtist: "Band")?.title == "Live")
    }
}
