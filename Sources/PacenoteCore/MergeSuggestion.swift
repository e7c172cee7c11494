import Foundation

/// Likely duplicates to merge: tracks, artists or albums whose names differ only by case,
/// accents, a leading "The", "&"/"+"/"and", a featured credit's place, or a version
/// suffix ("Remastered 2011", "Deluxe Edition"). The one with the most plays is suggested
/// as the one to keep; with equal plays, the fuller spelling (`keepsBefore`). The site offers
/// every name as the keeper, so the suggestion is only the first button.
public struct MergeSuggestion: Equatable, Sendable {
    public struct Name: Equatable, Sendable {
        public var id: Int64
        public var name: String
        public var plays: Int64

        public init(id: Int64, name: String, plays: Int64) {
            self.id = id
            self.name = name
            self.plays = plays
        }
    }

    public var kind: MergeKind
    /// Why they look alike, for people.
    public var reason: String
    public var into: Int64
    public var from: [Int64]
    /// Every one of them, the one to keep first.
    public var names: [Name]

    /// The loose key an artist's name is compared by: "Beyoncé", "beyonce" and "BEYONCE"
    /// are one, and so are "Florence + the Machine" and "Florence and The Machine".
    public static func artistKey(_ name: String) -> String {
        var text = SongKey.fold(name)
        for joiner in [" & ", " + ", " and ", "&", "+"] { text = text.replacingOccurrences(of: joiner, with: " and ") }
        return MatchKey.fold(text, dropArticle: true).replacingOccurrences(of: " ", with: "")
    }

    /// A track's: its primary artist's and its title without credits or version suffixes.
    public static func trackKey(artist: String?, title: String) -> String {
        artistKey(SongKey.artistKey(artist)) + "\u{1F}" + SongKey.titleKey(title).replacingOccurrences(of: " ", with: "")
    }

    /// An album's: its artist's and its title without edition suffixes.
    public static func albumKey(artist: String?, title: String) -> String {
        artistKey(artist ?? "") + "\u{1F}" + SongKey.titleKey(title).replacingOccurrences(of: " ", with: "")
    }

    /// Groups `items` by `key`; every group of two or more is a suggestion, the one to keep
    /// first (`keepsBefore`). Suggestions come most played first, at most `limit`.
    public static func group(_ kind: MergeKind, _ items: [(name: Name, key: String)], limit: Int) -> [MergeSuggestion] {
        var groups: [String: [Name]] = [:]
        for item in items where !item.key.isEmpty && item.key != "\u{1F}" { groups[item.key, default: []].append(item.name) }
        var out: [MergeSuggestion] = []
        for (_, names) in groups where names.count > 1 {
            let sorted = names.sorted(by: keepsBefore)
            out.append(MergeSuggestion(kind: kind, reason: reason(sorted.map(\.name)), into: sorted[0].id,
                                       from: sorted.dropFirst().map(\.id), names: sorted))
        }
        out.sort { ($0.names.map(\.plays).reduce(0, +), -$0.into) > ($1.names.map(\.plays).reduce(0, +), -$1.into) }
        return Array(out.prefix(limit))
    }

    /// Which of two names a merge keeps by default: the one with more plays; with equal
    /// plays the fuller spelling — a leading "The" ("The Kinks" over "Kinks"), then more
    /// capitals ("Florence and the Machine" over "florence + the machine"), then more
    /// letters outside ASCII ("Beyoncé" over "Beyonce"), then the longer; then the older
    /// (lower id). Never arbitrary: the same names always give the same keeper.
    public static func keepsBefore(_ a: Name, _ b: Name) -> Bool {
        if a.plays != b.plays { return a.plays > b.plays }
        let fa = fullness(a.name), fb = fullness(b.name)
        if fa != fb { return fa.lexicographicallyPrecedes(fb, by: >) }
        return a.id < b.id
    }

    /// A name's fullness, compared element by element: leading "The", capitals, non-ASCII
    /// letters, length.
    static func fullness(_ name: String) -> [Int] {
        let scalars = name.unicodeScalars
        let article = name.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("the ") ? 1 : 0
        let capitals = scalars.count(where: { CharacterSet.uppercaseLetters.contains($0) })
        let accented = scalars.count(where: { !$0.isASCII && CharacterSet.letters.contains($0) })
        return [article, capitals, accented, name.count]
    }

    /// How spellings differ, in a few words: each difference that had to be folded away
    /// for them to meet, in this order — `case`, `accents`, `punctuation`, `“The”`,
    /// `“&”, “+” or “and”` — joined by "and"; `identical` when they are the same text (two
    /// albums of one title by artists merged since, say); else `spelling, credits or
    /// version` (what only the loose keys fold: featured credits, version suffixes).
    public static func reason(_ names: [String]) -> String {
        guard Set(names).count > 1 else { return "identical" }
        let steps: [(String, (String) -> String)] = [
            ("case", { $0.lowercased() }),
            ("accents", { SongKey.fold($0) }),
            ("punctuation", { MatchKey.fold($0, dropArticle: false) }),
            ("“The”", { MatchKey.fold($0, dropArticle: false).split(separator: " ").filter { $0 != "the" }.joined(separator: " ") }),
            ("“&”, “+” or “and”", { artistKey($0) }),
        ]
        var distinct = Set(names).count
        var found: [String] = []
        for (name, normalise) in steps {
            let count = Set(names.map(normalise)).count
            if count < distinct { found.append(name) }
            distinct = count
            if count == 1 { return found.joined(separator: " and ") }
        }
        return "spelling, credits or version"
    }
}
