@testable import PacenoteCore
import Testing

@Suite struct EntityKeyTests {
    @Test func artistsFoldCaseAndWhiteSpaceOnly() {
        #expect(EntityKey.artist("Daft Punk") == EntityKey.artist("  DAFT\tpunk "))
        #expect(EntityKey.artist("Beyoncé") != EntityKey.artist("Beyonce"))
        #expect(EntityKey.artist("ÉLAN") == EntityKey.artist("élan"))
        #expect(EntityKey.artist("AC/DC") != EntityKey.artist("ACDC"))
    }

    /// ASCII text is folded byte by byte (`EntityKey.asciiFold`): the same key as the
    /// Characters' way, for every kind of ASCII text — spaces of every sort at either end
    /// and in runs, capitals, controls, punctuation.
    @Test func asciiTextFoldsAsCharactersDo() {
        let alphabet = Array(" \t\n\r\u{0B}\u{0C}\u{1F}\u{00}aZqM09&.-/(")
        var generator = SystemRandomNumberGenerator()
        var cases = ["", " ", "  ", "a", "A", " a", "a ", "a  b", "a\tb", "a\r\nb", "Daft Punk", "daft punk", "\u{1C}x\u{1D}"]
        for _ in 0..<5_000 {
            cases.append(String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for text in cases {
            #expect(EntityKey.fold(text) == EntityKey.foldedByCharacters(text), "\(Array(text.utf8))")
        }
        // Text that is its own key is given back as it is; other text is not ASCII's to fold.
        var plain = "daft punk"
        #expect(plain.withUTF8 { EntityKey.asciiFold($0) } == .some(nil))
        var accented = "Beyoncé"
        #expect(accented.withUTF8 { EntityKey.asciiFold($0) } == nil)
        #expect(EntityKey.fold("  BEYONCÉ \t Knowles ") == "beyoncé knowles")
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
