import Foundation

/// Normalised "artist + title" used to recognise one song across sources and spellings.
///
/// Folds case, accents and width, collapses white space and punctuation runs, and drops
/// a leading "The " from the artist. Featured credits and version suffixes ("Remix",
/// "Radio Edit") are left to the recommender's stricter normaliser, because here they
/// can name a genuinely different recording.
public enum MatchKey {
    public static func make(artist: String?, title: String) -> String {
        fold(artist ?? "", dropArticle: true) + "\u{1F}" + fold(title, dropArticle: false)
    }

    static func fold(_ text: String, dropArticle: Bool) -> String {
        let folded = SongKey.fold(text)
        var out = ""
        var pendingSpace = false
        for scalar in folded.unicodeScalars {
            // ASCII's alphanumerics are its letters and digits (and after folding, no capitals):
            // no look-up in Foundation's character set for them.
            let alphanumeric = scalar.isASCII
                ? (scalar.value >= 0x61 && scalar.value <= 0x7A) || (scalar.value >= 0x30 && scalar.value <= 0x39)
                : CharacterSet.alphanumerics.contains(scalar)
            if alphanumeric {
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
}
