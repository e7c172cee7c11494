import Foundation

/// Who a track is credited to: its artists in order, each primary or featured, with a
/// MusicBrainz id when the source gave one.
///
/// Two ways in: a source that lists its artists one by one (MPD's multi-valued `Artist`
/// tags, a ListenBrainz payload's `artist_names`, Maloja's `artists`) is taken as listed;
/// credit text (`A feat. B`, `Song (with C)`) is split by `parse`. Text is split only on
/// markers that cannot be part of a name (`feat.`, `ft.`, `featuring`, `(with …)`) unless
/// the user configured more separators (`[credits] separators`): "Simon & Garfunkel" is one
/// artist by default. The text as received is stored as it is (`tracks.artist`); the names go
/// to `track_artists`, which every artist chart reads.
public struct ArtistCredit: Equatable, Sendable {
    public enum Role: String, Sendable { case primary, featured }

    public struct Artist: Equatable, Sendable {
        public var name: String
        public var role: Role
        public var mbid: String?

        public init(name: String, role: Role, mbid: String? = nil) {
            self.name = name
            self.role = role
            self.mbid = mbid
        }
    }

    public var artists: [Artist]
    /// True when the source listed the artists (never re-split when separators change).
    public var listed: Bool

    public init(artists: [Artist], listed: Bool) {
        self.artists = artists
        self.listed = listed
    }

    /// A credit parsed from text: one primary artist and the featured ones.
    public init(primary: String, featured: [String] = []) {
        self.init(artists: [Artist(name: primary, role: .primary)] + featured.map { Artist(name: $0, role: .featured) },
                  listed: false)
    }

    /// Artists as a source listed them, all primary, each with its MusicBrainz id when the
    /// ids come one per name; names repeated (in any case) are left out.
    public init?(listed names: [String], mbids: [String] = []) {
        var seen: Set<String> = []
        var artists: [Artist] = []
        let ids = mbids.count == names.count ? mbids : []
        for (i, raw) in names.enumerated() {
            let name = raw.trimmingWhitespace()
            guard !name.isEmpty, seen.insert(EntityKey.artist(name)).inserted else { continue }
            artists.append(Artist(name: name, role: .primary, mbid: ids.isEmpty ? nil : ids[i].trimmingWhitespace().nilIfEmpty))
        }
        guard !artists.isEmpty else { return nil }
        self.init(artists: artists, listed: true)
    }

    public var primary: String { artists.first?.name ?? "" }
    public var featured: [String] { artists.filter { $0.role == .featured }.map(\.name) }
    public var names: [String] { artists.map(\.name) }

    /// The separators a user may add to the featuring markers (`[credits] separators`).
    public static let configurableSeparators = ["&", ",", "x", ";", "/", "+", "and", "with", "vs."]

    /// The words that introduce a featured artist, with the spaces around them.
    static let markers = [" featuring ", " feat. ", " feat ", " ft. ", " ft ", " (feat. ", " (ft. ", " (featuring ",
                          " [feat. ", " [ft. ", " [featuring ", " (with ", " [with "]

    /// Splits credit text. `separators`: more separators (from `configurableSeparators`)
    /// that split artist names — in the artist text and after a featuring marker.
    public static func parse(artist: String, title: String, separators: [String] = []) -> ArtistCredit {
        var primaryText = artist.trimmingWhitespace()
        var featured: [String] = []
        if let (before, after) = split(primaryText) {
            primaryText = before
            featured += names(in: after, separators: separators)
        }
        if let (_, after) = split(" " + title) {
            featured += names(in: after, separators: separators)
        }
        let primaries = names(in: primaryText, separators: separators)
        var seen: Set<String> = []
        let lead = (primaries.isEmpty ? [primaryText] : primaries).filter { seen.insert(EntityKey.artist($0)).inserted }
        featured = featured.filter { !$0.isEmpty && seen.insert(EntityKey.artist($0)).inserted }
        return ArtistCredit(artists: lead.map { Artist(name: $0, role: .primary) } + featured.map { Artist(name: $0, role: .featured) },
                            listed: false)
    }

    /// The text before the first featuring marker and the text after it (without a closing bracket).
    static func split(_ text: String) -> (String, String)? {
        // Most credits name no guest: a pass over the bytes rules the markers out before
        // thirteen case-insensitive searches (which were an eighth of a wide import's time).
        guard mayHoldMarker(text) else { return nil }
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

    /// Whether `text` may contain a marker: `fe`, `ft` or `wi` in any ASCII case (every marker
    /// holds one), or any non-ASCII character (which the full, Unicode case-insensitive search
    /// then judges).
    static func mayHoldMarker(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            if bytes.contains(where: { $0 >= 0x80 }) { return true }
            guard bytes.count >= 2 else { return false }
            for i in 0..<(bytes.count - 1) {
                let a = bytes[i] | 0x20, b = bytes[i + 1] | 0x20
                if a == UInt8(ascii: "f"), b == UInt8(ascii: "t") || b == UInt8(ascii: "e") { return true }
                if a == UInt8(ascii: "w"), b == UInt8(ascii: "i") { return true }
            }
            return false
        }
    }

    /// `text` cut at each separator: a word (`x`, `and`) only with spaces around it, a sign
    /// (`&`, `,`, `/`) wherever it stands.
    static func names(in text: String, separators: [String]) -> [String] {
        var parts = [text]
        for separator in separators {
            let word = separator.first?.isLetter == true
            let cut = word ? " \(separator) " : separator
            parts = parts.flatMap { part -> [String] in
                word ? part.components(separatedByCaseInsensitive: cut) : part.components(separatedBy: cut)
            }
        }
        return parts.map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// Reads `[credits] separators` values: each one of `configurableSeparators`.
    public static func validSeparators(_ values: [String]) -> Result<[String], SeparatorError> {
        var out: [String] = []
        for value in values {
            let v = value.trimmingWhitespace().lowercased()
            guard configurableSeparators.contains(v) else { return .failure(SeparatorError(value: value)) }
            if !out.contains(v) { out.append(v) }
        }
        return .success(out)
    }

    public struct SeparatorError: Error, Equatable, Sendable, CustomStringConvertible {
        public var value: String
        public var description: String {
            "'\(value)' is not a separator Pacenote splits on; use some of: \(ArtistCredit.configurableSeparators.map { "\"\($0)\"" }.joined(separator: ", "))"
        }
    }
}

extension String {
    func components(separatedByCaseInsensitive separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let r = rest.range(of: separator, options: .caseInsensitive) {
            parts.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
