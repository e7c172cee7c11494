import Foundation

/// The site's search as words, outside the full-text index: what SQLite's FTS5 `unicode61`
/// tokenizer with `remove_diacritics 2` makes of a text (letters and digits, case and accents
/// folded), and the search's rule — every word of the query begins a word of the text. The
/// index finds tracks; this tells which of their artists' names the search itself matches
/// (a track "Jay-Z feat. Beyoncé" matches "beyon", its artist Jay-Z does not).
public enum SearchWords {
    /// The words of `text`, folded. ASCII text (most names) is only lowered: Foundation's
    /// folding costs microseconds a call, and the search calls this for every artist and album.
    public static func words(_ text: String) -> [Substring] {
        let folded = text.utf8.allSatisfy { $0 < 0x80 }
            ? text.lowercased()
            : text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
        return folded.split(whereSeparator: { !($0.isLetter || $0.isNumber) })
    }

    /// At most this many words of a search count (the rest are left out everywhere).
    public static let most = 16

    /// The words a search `text` counts, as the user wrote them (the index folds them itself).
    public static func searched(_ text: String) -> [Substring] {
        Array(text.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).prefix(most))
    }

    /// Whether each word of `query` begins a word of `text` (an empty query matches).
    public static func matches(_ text: String, query: String) -> Bool {
        matches(text, words: words(query))
    }

    /// The same with the query's words folded already (`words(query)`, once for many texts).
    /// Code points are compared, as the index does: a vowel sign folding leaves (Devanagari,
    /// Thai) ends a query word's last character without ending the match.
    public static func matches(_ text: String, words wanted: [Substring]) -> Bool {
        guard !wanted.isEmpty else { return true }
        let have = words(text)
        return wanted.allSatisfy { word in have.contains { $0.unicodeScalars.starts(with: word.unicodeScalars) } }
    }
}
