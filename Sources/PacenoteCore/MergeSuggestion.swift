/// Likely duplicates to merge: tracks, artists or albums whose names differ only by case,
/// accents, a leading "The", "&"/"+"/"and", a featured credit's place, or a version
/// suffix ("Remastered 2011", "Deluxe Edition"). The one with the most plays is suggested
/// as the one to keep.
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

    /// Groups `items` by `key`; every group of two or more is a suggestion, the most played
    /// first (then the lowest id). Suggestions come most played first, at most `limit`.
    public static func group(_ kind: MergeKind, _ items: [(name: Name, key: String)], limit: Int) -> [MergeSuggestion] {
        var groups: [String: [Name]] = [:]
        for item in items where !item.key.isEmpty && item.key != "\u{1F}" { groups[item.key, default: []].append(item.name) }
        var out: [MergeSuggestion] = []
        for (_, names) in groups where names.count > 1 {
            let sorted = names.sorted { ($0.plays, -$0.id) > ($1.plays, -$1.id) }
            out.append(MergeSuggestion(kind: kind, reason: reason(sorted.map(\.name)), into: sorted[0].id,
                                       from: sorted.dropFirst().map(\.id), names: sorted))
        }
        out.sort { ($0.names.map(\.plays).reduce(0, +), -$0.into) > ($1.names.map(\.plays).reduce(0, +), -$1.into) }
        return Array(out.prefix(limit))
    }

    /// How two spellings differ, in a few words.
    static func reason(_ names: [String]) -> String {
        let lowered = Set(names.map { $0.lowercased() })
        if lowered.count == 1 { return "case" }
        let folded = Set(names.map { SongKey.fold($0) })
        if folded.count == 1 { return "accents" }
        if Set(names.map { MatchKey.fold($0, dropArticle: true) }).count == 1 { return "punctuation or “The”" }
        if Set(names.map(artistKey)).count == 1 { return "“&”, “+” or “and”" }
        return "spelling, credits or version"
    }
}
