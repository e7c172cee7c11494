import Foundation
import Testing
@testable import PacenoteCore

/// Song and match keys are made without Foundation for ASCII text (folding, substring
/// searches, letters and digits): the keys must be what Foundation made, for every ASCII
/// character and for names with credits, versions, accents and full-width letters.
@Suite struct FoldingTests {
    /// The keys as they were made with Foundation alone: the reference.
    enum Reference {
        static func fold(_ text: String) -> String { SongKey.foldedByFoundation(text) }

        static func matchFold(_ text: String, dropArticle: Bool) -> String {
            var out = ""
            var pendingSpace = false
            for scalar in fold(text).unicodeScalars {
                if CharacterSet.alphanumerics.contains(scalar) {
                    if pendingSpace && !out.isEmpty { out.append(" ") }
                    pendingSpace = false
                    out.unicodeScalars.append(scalar)
                } else {
                    pendingSpace = true
                }
            }
            if dropArticle, out.hasPrefix("the "), out.count > 4 { out.removeFirst(4) }
            return out
        }

        static func artistKey(_ artist: String?) -> String {
            var text = fold(artist ?? "")
            for separator in [" feat. ", " feat ", " ft. ", " ft ", " featuring ", " & ", " x ", " vs. ", " vs ", " with ", ", ", " and "] {
                if let range = text.range(of: separator) { text = String(text[..<range.lowerBound]) }
            }
            return matchFold(text, dropArticle: true)
        }

        static func titleKey(_ title: String) -> String {
            var text = fold(title)
            text = SongKey.removeBracketed(text) { part in SongKey.isVersion(part) || SongKey.isCredit(part) }
            if let dash = text.range(of: " - ", options: .backwards), SongKey.isVersion(String(text[dash.upperBound...])) {
                text = String(text[..<dash.lowerBound])
            }
            for marker in [" feat. ", " feat ", " ft. ", " ft ", " featuring "] {
                if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) }
            }
            return matchFold(text, dropArticle: false)
        }
    }

    @Test func asciiFoldsAsFoundationFoldsIt() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let text = String(decoding: (0..<Int.random(in: 0...24, using: &rng)).map { _ in UInt8.random(in: 0...127, using: &rng) },
                              as: UTF8.self)
            #expect(SongKey.fold(text) == Reference.fold(text), "\(Array(text.utf8))")
            #expect(MatchKey.fold(text, dropArticle: true) == Reference.matchFold(text, dropArticle: true), "\(Array(text.utf8))")
        }
        let every = String(decoding: Array(0...127) as [UInt8], as: UTF8.self)
        #expect(SongKey.fold(every) == Reference.fold(every))
        #expect(MatchKey.fold(every, dropArticle: false) == Reference.matchFold(every, dropArticle: false))
    }

    @Test func songKeysAreFoundationsForNamesWithCreditsVersionsAndAccents() {
        let artists = ["The Weeknd feat. Daft Punk", "AC/DC", "Simon & Garfunkel", "Beyoncé", "ＡＢＣ", "Jay-Z x Kanye West",
                       "Run-D.M.C. vs. Aerosmith", "Crosby, Stills and Nash", "The The", "Ólafur Arnalds with Nils Frahm",
                       "Sigur Rós", "  ", "", "MØ ft. Diplo", "Guns N' Roses", "the xx", "Tiësto featuring Sevenn"]
        let titles = ["Song (feat. X)", "Song [Radio Edit]", "Song - Remastered 2011", "Song - Live at Wembley", "Song feat. Y",
                      "Café del Mar (Energy 52 Remix)", "Ｆｕｌｌ Ｗｉｄｔｈ", "A - B - Extended Mix", "Hello (Is It Me)", "Mr. Brightside",
                      "Déjà Vu [Explicit]", "No - Name", "(Intro)", "Song (prod. Z) - Single Version", "Ünïcödé ft Ä"]
        var rng = SystemRandomNumberGenerator()
        var names = artists + titles
        let pieces = [" feat. ", " & ", " x ", " - ", " (Remix)", " [Live]", "Ab", "é", "e\u{301}", " &\u{301} ", "The ", " vs ", ", ", "ＸＹ", " and ", "-"]
        for _ in 0..<2_000 {
            names.append((0..<Int.random(in: 1...6, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined())
        }
        for name in names {
            #expect(SongKey.artistKey(name) == Reference.artistKey(name), "\(name)")
            #expect(SongKey.titleKey(name) == Reference.titleKey(name), "\(name)")
            #expect(MatchKey.make(artist: name, title: name) == Reference.matchFold(name, dropArticle: true) + "\u{1F}"
                    + Reference.matchFold(name, dropArticle: false), "\(name)")
        }
    }
}
