import Foundation

/// The recommender's normalised "artist + title": stricter than `MatchKey`, because "not what
/// they just heard" must also catch another version of the same song. Folds case, accents and
/// width; drops featured credits ("feat.", "ft.", "featuring", "with" in brackets) and version
/// suffixes in brackets or after " - " ("Remix", "Radio Edit", "Remastered 2011", "Live",
/// "Extended Mix", "Single Version", …); keeps only the first of several artists.
public enum SongKey {
    public static func make(artist: String?, title: String) -> String {
        artistKey(artist) + "\u{1F}" + titleKey(title)
    }

    /// A key as 64 bits (FNV-1a), for interning without keeping the text: two songs of a
    /// 100k-track library share one with a chance of about 1 in 4 billion.
    public static func hash(_ key: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    /// The primary artist, folded: "The Weeknd feat. Daft Punk" → "weeknd".
    public static func artistKey(_ artist: String?) -> String {
        var text = fold(artist ?? "")
        for separator in [" feat. ", " feat ", " ft. ", " ft ", " featuring ", " & ", " x ", " vs. ", " vs ", " with ", ", ", " and "] {
            if let range = text.range(of: separator) { text = String(text[..<range.lowerBound]) }
        }
        return MatchKey.fold(text, dropArticle: true)
    }

    public static func titleKey(_ title: String) -> String {
        var text = fold(title)
        // Bracketed parts that are credits or versions: "(feat. X)", "[Radio Edit]", "(Remastered 2011)".
        text = removeBracketed(text) { part in isVersion(part) || isCredit(part) }
        // " - Radio Edit", " - Remastered 2011", " - Live at Wembley".
        if let dash = text.range(of: " - ", options: .backwards),
           isVersion(String(text[dash.upperBound...])) {
            text = String(text[..<dash.lowerBound])
        }
        // A trailing credit without brackets: "Song feat. X".
        for marker in [" feat. ", " feat ", " ft. ", " ft ", " featuring "] {
            if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) }
        }
        return MatchKey.fold(text, dropArticle: false)
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    static let versionWords = [
        "remix", "mix", "edit", "remaster", "remastered", "version", "live", "mono", "stereo",
        "demo", "acoustic", "instrumental", "extended", "original", "radio", "club", "dub",
        "rework", "bootleg", "single", "album", "deluxe", "explicit", "clean", "vip", "re-edit",
    ]

    static func isVersion(_ part: String) -> Bool {
        let words = part.split(whereSeparator: { !$0.isLetter && $0 != "-" }).map(String.init)
        return words.contains { versionWords.contains($0) }
    }

    static func isCredit(_ part: String) -> Bool {
        let trimmed = part.trimmingCharacters(in: .whitespaces)
        return ["feat.", "feat ", "ft.", "ft ", "featuring ", "with ", "prod. ", "prod "].contains { trimmed.hasPrefix($0) }
    }

    /// Removes "(…)" and "[…]" groups whose inside satisfies `drop`.
    static func removeBracketed(_ text: String, drop: (String) -> Bool) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(where: { $0 == "(" || $0 == "[" }) {
            let close: Character = rest[open] == "(" ? ")" : "]"
            guard let end = rest[open...].firstIndex(of: close) else { break }
            let inside = String(rest[rest.index(after: open)..<end])
            out += rest[..<open]
            if !drop(inside) { out += rest[open...end] }
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}
