import Foundation
import PacenoteCore
import Testing

/// The live functions that shipped migrations still call, pinned: v5 splits credits with
/// `Track.credit(separators: [])` (`ArtistCredit.parse`), v6 keys artists and albums with
/// `EntityKey.artist` and `Track.albumIdentity`, v30 splits and keys genres with
/// `GenreTags.split` and `EntityKey.genre`. Those migrations keep the calls (a frozen
/// copy would duplicate the live code, and the keys must stay the ones live code finds rows
/// by: their files say why); so their outputs are recorded here, and a change to any of
/// them fails this test. Then the migration that calls it needs the old function frozen
/// into its file first (or, for the keys, a migration that keys every row again), and only
/// then the golden is recorded again: `PACENOTE_WRITE_GOLDEN=1 swift test --filter FrozenFunctionTests`.
@Suite struct FrozenFunctionTests {
    /// Credit texts and titles as old databases hold them.
    static let credits: [(artist: String, title: String, mbid: String?)] = [
        ("Artist", "Run", nil), ("Artist feat. Guest", "Walk", nil), ("Artist ft. Guest", "Walk", nil),
        ("Artist featuring Guest & Other", "Walk", nil), ("Artist Feat Guest", "Walk", nil), ("Artist (feat. Guest)", "Walk", nil),
        ("Radio", "Radio Song (feat. C)", nil), ("Radio", "Radio Song [ft. C & D]", nil), ("Radio", "Song feat. E", nil),
        ("A & B", "Together", nil), ("A and B", "Together", nil), ("A x B", "Together", nil), ("A vs. B", "Together", nil),
        ("A, B", "Together", nil), ("Ann, Bob", "Duet", nil), ("A / B", "Together", nil), ("A; B", "Together", nil),
        ("Simon & Garfunkel", "The Boxer", "5d02f264-e225-41ff-83f7-d9b1f0b1874a"), ("DAFT  Punk", "Sprint", "056e4f3e-d505-4dad-8ec1-d04f521cbb56"),
        ("Beyoncé feat. JAY-Z", "Drunk in Love", nil), ("  Spaced  Out  ", "Title", nil), ("Björk", "Jóga", nil),
        ("Feat. Someone", "Odd", nil), ("Artist feat.", "Trailing", nil), ("", "Empty", nil), ("Ünïcödé FEAT. Ωmega", "Greek", nil),
        ("The The", "This Is the Day", nil), ("AC/DC", "Thunderstruck", nil), ("Earth, Wind & Fire", "September", nil),
        ("Tyler, The Creator", "See You Again (feat. Kali Uchis)", nil), ("Artist with Guest", "Together", nil),
    ]

    /// Artist names and album parts (title, album artist, credit text, release, listed artist).
    static let names = ["Daft Punk", "DAFT  PUNK", " daft\tpunk ", "Beyoncé", "BEYONCÉ", "Ω", "ǅemal", "İstanbul", "Straße", "ﬁve",
                        "A\u{00A0}B", "x\u{2003}y", "", "   ", "Sigur Rós", "MØ", "123", "a\nb"]
    static let albums: [(String, String?, String?, String?, String?)] = [
        ("Album", "Artist", "Artist", nil, nil), ("Album", nil, "Artist feat. Guest", nil, nil), ("Greatest Hits", nil, "Other Artist", nil, nil),
        ("Greatest  HITS", nil, "other artist", nil, nil), ("Discovery", nil, "Daft Punk", "MBREL-1", nil), ("Discovery", nil, "Daft Punk", "  ", nil),
        ("  ", "Artist", "Artist", nil, nil), ("Joint", nil, "A & B", nil, nil), ("Pair", nil, "Ann, Bob", nil, "Ann"),
        ("Solo", "Beyoncé", "Beyoncé", nil, nil), ("Live", nil, nil, nil, nil), ("Live", "  ", "Band (feat. X)", nil, nil),
    ]

    static func lines() -> [String] {
        var out: [String] = []
        for c in credits {
            let credit = Track(title: c.title, artist: c.artist, musicBrainz: MusicBrainzIDs(artist: c.mbid)).credit(separators: [])
            let shown = credit.map { credit in
                credit.artists.map { "\($0.name)/\($0.role.rawValue)/\($0.mbid ?? "-")" }.joined(separator: " + ") + (credit.listed ? " listed" : "")
            } ?? "none"
            out.append("credit \(c.artist.debugDescription) \(c.title.debugDescription) \(c.mbid ?? "-") => \(shown)")
        }
        for name in names { out.append("artist \(name.debugDescription) => \(EntityKey.artist(name).debugDescription)") }
        for a in albums {
            let track = Track(title: "T", artist: a.2, album: a.0, albumArtist: a.1, musicBrainz: MusicBrainzIDs(release: a.3),
                              listedCredit: a.4.flatMap { ArtistCredit(listed: [$0]) })
            let shown = track.albumIdentity.map {
                "\($0.key.debugDescription) \($0.title.debugDescription) \(($0.artist ?? "-").debugDescription) \($0.release ?? "-")"
            } ?? "none"
            out.append("album \(a.0.debugDescription) \((a.1 ?? "-").debugDescription) \((a.2 ?? "-").debugDescription) \(a.3 ?? "-") \(a.4 ?? "-") => \(shown)")
        }
        // v30 files tracks under `GenreTags.split` of their genre text, keyed by `EntityKey.genre`.
        for text in genres {
            out.append("genres \(text.debugDescription) => " + GenreTags.split(text).map { "\($0.debugDescription)/\(EntityKey.genre($0).debugDescription)" }
                .joined(separator: " + "))
        }
        return out
    }

    /// Genre texts as old databases hold them (MPD's first `Genre` value, or one text).
    static let genres = ["Rock", "Drum & Bass; Jungle", "Rock/Pop", "Rock / Pop", "Electronic, Techno", "Ambient|Drone", "R&B",
                         "Hip-Hop", "  DRUM  &  bass ; drum & bass", ";;", "", "   ", "Électro", "Musique concrète/ÉLECTRO"]

    @Test func theFunctionsOldMigrationsCallGiveWhatTheyGaveWhenRecorded() throws {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/frozen-functions.golden")
        let now = Self.lines()
        if ProcessInfo.processInfo.environment["PACENOTE_WRITE_GOLDEN"] == "1" {
            try (now.joined(separator: "\n") + "\n").write(to: golden, atomically: true, encoding: .utf8)
        }
        let recorded = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(recorded.count == now.count, "the recorded inputs")
        for (want, got) in zip(recorded, now) { #expect(got == want) }
    }
}
