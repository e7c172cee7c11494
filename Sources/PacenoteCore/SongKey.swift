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
            if let range = firstRange(of: separator, in: text) { text = String(text[..<range.lowerBound]) }
        }
        return MatchKey.fold(text, dropArticle: true)
    }

    public static func titleKey(_ title: String) -> String {
        var text = fold(title)
        // Bracketed parts that are credits or versions: "(feat. X)", "[Radio Edit]", "(Remastered 2011)".
        text = removeBracketed(text) { part in isVersion(part) || isCredit(part) }
        // " - Radio Edit", " - Remastered 2011", " - Live at Wembley".
        if let dash = firstRange(of: " - ", in: text, last: true),
           isVersion(String(text[dash.upperBound...])) {
            text = String(text[..<dash.lowerBound])
        }
        // A trailing credit without brackets: "Song feat. X".
        for marker in [" feat. ", " feat ", " ft. ", " ft ", " featuring "] {
            if let range = firstRange(of: marker, in: text) { text = String(text[..<range.lowerBound]) }
        }
        return MatchKey.fold(text, dropArticle: false)
    }

    /// Case, accents and width folded. ASCII text only has its capitals lowered, which is
    /// what Foundation's folding does to it (`foldedByFoundation`; `FoldingTests` compares
    /// them), without its cost: making the keys of 150k tracks took 2 s, most of it here and
    /// in Foundation's substring searches (now the standard library's).
    static func fold(_ text: String) -> String {
        var ascii = true
        var capitals = false
        for byte in text.utf8 {
            if byte >= 0x80 { ascii = false; break }
            if byte >= 0x41, byte <= 0x5A { capitals = true }
        }
        guard ascii else { return foldedByFoundation(text) }
        guard capitals else { return text }
        return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Where the ASCII `needle` occurs in `text` (the first or the last time), byte for byte:
    /// what Foundation's `range(of:)` finds in folded text, at a fraction of its cost.
    static func firstRange(of needle: String, in text: String, last: Bool = false) -> Range<String.Index>? {
        let utf8 = text.utf8
        let pattern = Array(needle.utf8)
        let found = utf8.withContiguousStorageIfAvailable { start(of: pattern, in: $0, last: last) }
            ?? Array(utf8).withUnsafeBufferPointer { start(of: pattern, in: $0, last: last) }
        guard let found else { return nil }
        let lower = utf8.index(utf8.startIndex, offsetBy: found)
        return lower..<utf8.index(lower, offsetBy: pattern.count)
    }

    private static func start(of pattern: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, last: Bool) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return nil }
        let starts = last ? stride(from: bytes.count - pattern.count, through: 0, by: -1)
                          : stride(from: 0, through: bytes.count - pattern.count, by: 1)
        for at in starts where bytes[at] == pattern[0] {
            var j = 1
            while j < pattern.count, bytes[at + j] == pattern[j] { j += 1 }
            if j == pattern.count { return at }
        }
        return nil
    }

    static func foldedByFoundation(_ text: String) -> String {
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

