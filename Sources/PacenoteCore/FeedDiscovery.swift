import Foundation

/// Finds the feed a page names: `<link rel="alternate" type="application/atom+xml" href>`
/// in its head (RSS autodiscovery, as browsers and feed readers do it), so a friend can be
/// followed by a share page's address.
public enum FeedDiscovery {
    public static func atomLink(inHTML bytes: [UInt8], address: String) -> String? {
        let text = String(decoding: bytes.prefix(256 * 1024), as: UTF8.self)
        var rest = text[...]
        while let open = rest.range(of: "<link", options: .caseInsensitive) {
            guard let close = rest[open.upperBound...].firstIndex(of: ">") else { return nil }
            let attributes = Self.attributes(String(rest[open.upperBound..<close]))
            rest = rest[close...]
            let rel = attributes["rel"]?.lowercased().split(separator: " ") ?? []
            guard rel.contains("alternate"), attributes["type"]?.lowercased() == "application/atom+xml" else { continue }
            if let href = AtomFeed.resolve(attributes["href"].map(decodeEntities), against: address) { return href }
        }
        return nil
    }

    /// `name="value"` pairs of a tag (quoted with " or ', or bare).
    static func attributes(_ tag: String) -> [String: String] {
        var out: [String: String] = [:]
        var chars = Array(tag)[...]
        while !chars.isEmpty {
            while let c = chars.first, c.isWhitespace || c == "/" { chars = chars.dropFirst() }
            let name = String(chars.prefix { !$0.isWhitespace && $0 != "=" && $0 != "/" }).lowercased()
            guard !name.isEmpty else { break }
            chars = chars.dropFirst(name.count)
            while let c = chars.first, c.isWhitespace { chars = chars.dropFirst() }
            guard chars.first == "=" else {
                out[name] = ""
                continue
            }
            chars = chars.dropFirst()
            while let c = chars.first, c.isWhitespace { chars = chars.dropFirst() }
            var value: String
            if let quote = chars.first, quote == "\"" || quote == "'" {
                chars = chars.dropFirst()
                value = String(chars.prefix { $0 != quote })
                chars = chars.dropFirst(value.count + 1)
            } else {
                value = String(chars.prefix { !$0.isWhitespace })
                chars = chars.dropFirst(value.count)
            }
            if out[name] == nil { out[name] = value }
        }
        return out
    }

    static func decodeEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
