import Foundation

/// Who a track is credited to: the primary artist and the featured ones, read from the
/// credit text as exporters and taggers write it — `A feat. B`, `A ft. B & C`, or a title
/// like `Song (feat. C)`. The original artist and title are stored as they are; the parsed
/// names go to `track_artists`, so that artist charts count a featured artist too
/// (Maloja's "multiple artists per track" idea).
public struct ArtistCredit: Equatable, Sendable {
    public var primary: String
    public var featured: [String]

    public init(primary: String, featured: [String] = []) {
        self.primary = primary
        self.featured = featured
    }

    /// The words that introduce a featured artist, with the spaces around them.
    static let markers = [" featuring ", " feat. ", " feat ", " ft. ", " ft ", " (feat. ", " (ft. ", " (featuring ",
                          " [feat. ", " [ft. ", " [featuring "]
    /// How several featured artists are joined. `&` and `and` are split only after a
    /// marker: "Simon & Garfunkel" as a primary artist stays one name.
    static let joiners = [", ", " & ", " and ", " x ", " + "]

    public static func parse(artist: String, title: String) -> ArtistCredit {
        var primary = artist.trimmingWhitespace()
        var featured: [String] = []
        if let (before, after) = split(primary) {
            primary = before
            featured += names(in: after)
        }
        if let (_, after) = split(" " + title) {
            featured += names(in: after)
        }
        var seen: Set<String> = [primary.lowercased()]
        featured = featured.filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
        return ArtistCredit(primary: primary, featured: featured)
    }

    /// The text before the first featuring marker and the text after it (without a closing bracket).
    static func split(_ text: String) -> (String, String)? {
        var best: Range<String.Index>?
        for marker in markers {
            if let r = text.range(of: marker, options: .caseInsensitive), best == nil || r.lowerBound < best!.lowerBound {
                best = r
            }
        }
        guard let range = best else { return nil }
        let before = String(text[..<range.lowerBound]).trimmingWhitespace()
        var after = Substring(text[range.upperBound...])
        if let close = after.firstIndex(where: { $0 == ")" || $0 == "]" }) { after = after[..<close] }
        let rest = String(after).trimmingWhitespace()
        return before.isEmpty || rest.isEmpty ? nil : (before, rest)
    }

    static func names(in text: String) -> [String] {
        var parts = [text]
        for joiner in joiners {
            parts = parts.flatMap { $0.components(separatedBy: joiner) }
        }
        return parts.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}
