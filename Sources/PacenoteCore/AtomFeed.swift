import Foundation

/// An Atom feed (RFC 4287), the part of it songs of the day use: what `/sotd.atom` writes
/// and what the friends' poller reads. Pure: bytes in, values out.
///
/// Written: the feed's id, title, author, `updated` and self link; per entry its id, title
/// ("Title — Artist"), the share page (`rel="alternate"`), the cover (`rel="enclosure"` and
/// Media RSS's `media:thumbnail`), `published` (the day: `SongOfTheDay.publicStamp`; older
/// Pacenotes wrote the start of the day in the owner's zone, which is read the same),
/// `updated` and an optional summary (the note of a pinned song).
///
/// Read: the same, tolerantly — prefixed or default namespace, or none at all; relative
/// links resolved against `xml:base` and the feed's own address; text in CDATA or escaped;
/// only the first `maxEntries` entries; each text cut at `maxText` characters and stripped
/// of control characters. Anything that is not an Atom `<feed>` is a `Problem`.
public struct AtomFeed: Equatable, Sendable {
    public static let namespace = "http://www.w3.org/2005/Atom"
    public static let mediaNamespace = "http://search.yahoo.com/mrss/"
    public static let maxEntries = 100
    public static let maxText = 500
    public static let maxURL = 2048

    public var id: String
    public var title: String
    public var author: String?
    public var updated: RFC3339?
    /// The feed's own address (`rel="self"`).
    public var selfLink: String?
    public var entries: [Entry]

    public struct Entry: Equatable, Sendable {
        public var id: String
        public var title: String
        /// `rel="alternate"` (or a link without `rel`): the share page.
        public var link: String?
        /// `rel="enclosure"` of an image type (or without a type), else `media:thumbnail`.
        public var cover: String?
        /// The cover's media type as the feed states it (`image/png`, or `image/*` when it
        /// is a picture of a type only the server that has it knows).
        public var coverType: String?
        public var published: RFC3339?
        public var updated: RFC3339?
        public var summary: String?

        public init(id: String, title: String, link: String? = nil, cover: String? = nil, coverType: String? = nil,
                    published: RFC3339? = nil, updated: RFC3339? = nil, summary: String? = nil) {
            self.id = id
            self.title = title
            self.link = link
            self.cover = cover
            self.coverType = coverType
            self.published = published
            self.updated = updated
            self.summary = summary
        }

        /// The day the entry is about, as its author wrote it: `published`'s date in its own
        /// offset, else `updated`'s.
        public var day: String? { (published ?? updated)?.localDay }
    }

    public init(id: String, title: String, author: String? = nil, updated: RFC3339? = nil, selfLink: String? = nil,
                entries: [Entry] = []) {
        self.id = id
        self.title = title
        self.author = author
        self.updated = updated
        self.selfLink = selfLink
        self.entries = entries
    }

    /// Why bytes are not a feed Pacenote can read.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    // MARK: Reading

    /// Reads a feed. `address`: where it was fetched from, for relative links.
    public static func parse(_ bytes: [UInt8], address: String? = nil) throws(Problem) -> AtomFeed {
        let root: XMLText.Element
        do { root = try XMLText.parse(bytes) } catch {
            // Most web pages are not well-formed XML: say what it is rather than where it broke.
            if looksLikeHTML(bytes) { throw Problem("not an Atom feed (an HTML page)") }
            throw Problem("not XML: \(error)")
        }
        guard root.name == "feed", root.namespace == namespace || root.namespace.isEmpty else {
            let what = root.name == "html" ? "an HTML page" : root.name == "rss" ? "an RSS feed" : "<\(root.name)>"
            throw Problem("not an Atom feed (\(what))")
        }
        let ns = root.namespace
        let base = resolve(root.attributes["xml:base"], against: address) ?? address
        let feedTitle = root.child(ns, "title").map { clean($0.text) } ?? ""
        let author = root.child(ns, "author")?.child(ns, "name").map { clean($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
        var feed = AtomFeed(
            id: clean(root.child(ns, "id")?.text ?? "", limit: maxURL),
            title: feedTitle,
            author: author,
            updated: root.child(ns, "updated").flatMap { RFC3339.parse($0.text) },
            selfLink: root.children(ns, "link").first { $0.attributes["rel"] == "self" }
                .flatMap { resolve($0.attributes["href"], against: base) })
        for element in root.children(ns, "entry").prefix(maxEntries) {
            let entryBase = resolve(element.attributes["xml:base"], against: base) ?? base
            let links = element.children(ns, "link")
            let alternate = links.first { ($0.attributes["rel"] ?? "alternate") == "alternate" }
            let enclosure = links.first {
                $0.attributes["rel"] == "enclosure" && ($0.attributes["type"].map { $0.hasPrefix("image/") } ?? true)
            }
            let thumbnail = element.child(mediaNamespace, "thumbnail")?.attributes["url"]
            let title = clean(element.child(ns, "title")?.text ?? "")
            let link = resolve(alternate?.attributes["href"], against: entryBase)
            // An entry must be told apart from the others: its id, else its link.
            let id = clean(element.child(ns, "id")?.text ?? "", limit: maxURL)
            guard let key = id.isEmpty ? link : id, !title.isEmpty else { continue }
            let summary = element.child(ns, "summary").map { clean($0.text) }.flatMap { $0.isEmpty ? nil : $0 }
            feed.entries.append(Entry(
                id: key, title: title, link: link,
                cover: resolve(enclosure?.attributes["href"], against: entryBase) ?? resolve(thumbnail, against: entryBase),
                coverType: enclosure?.attributes["type"].map { clean($0, limit: 100) },
                published: element.child(ns, "published").flatMap { RFC3339.parse($0.text) },
                updated: element.child(ns, "updated").flatMap { RFC3339.parse($0.text) },
                summary: summary))
        }
        return feed
    }

    /// Whether a document starts as an HTML page does (`<!doctype html`, `<html`).
    static func looksLikeHTML(_ bytes: [UInt8]) -> Bool {
        let start = String(decoding: bytes.prefix(512), as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }.lowercased()
        return start.hasPrefix("<!doctype html") || start.hasPrefix("<html")
    }

    /// Text as it may be shown: control characters dropped, white space runs made one
    /// space, at most `limit` characters.
    static func clean(_ text: String, limit: Int = maxText) -> String {
        var out = ""
        var space = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                space = !out.isEmpty
                continue
            }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                continue
            }
            if space { out.unicodeScalars.append(" ") }
            space = false
            out.unicodeScalars.append(scalar)
        }
        return out.count > limit ? String(out.prefix(limit)) : out
    }

    /// An absolute http(s) address for `href`, resolved against `base` when relative; nil
    /// for anything else (`javascript:`, `data:`, a bare name without a base, an overlong one).
    public static func resolve(_ href: String?, against base: String?) -> String? {
        guard let href = href.map({ clean($0, limit: maxURL + 1) }), !href.isEmpty, href.count <= maxURL else { return nil }
        let url: URL?
        if let base, let baseURL = URL(string: base) { url = URL(string: href, relativeTo: baseURL) } else { url = URL(string: href) }
        guard let absolute = url?.absoluteURL, let scheme = absolute.scheme?.lowercased(), scheme == "http" || scheme == "https",
              absolute.host?.isEmpty == false else { return nil }
        let text = absolute.absoluteString
        return text.count <= maxURL ? text : nil
    }

    // MARK: Writing

    /// The feed as an Atom document, UTF-8.
    public func xml() -> [UInt8] {
        func e(_ s: String) -> String { XMLText.escaped(s) }
        func a(_ s: String) -> String { XMLText.escaped(s, attribute: true) }
        var out = """
            <?xml version="1.0" encoding="utf-8"?>
            <feed xmlns="\(Self.namespace)" xmlns:media="\(Self.mediaNamespace)">
              <id>\(e(id))</id>
              <title>\(e(title))</title>

            """
        if let author { out += "  <author><name>\(e(author))</name></author>\n" }
        out += "  <updated>\((updated ?? RFC3339(date: Date(timeIntervalSince1970: 0))).text)</updated>\n"
        if let selfLink { out += "  <link rel=\"self\" type=\"application/atom+xml\" href=\"\(a(selfLink))\"/>\n" }
        out += "  <generator version=\"\(a(PacenoteVersion.current))\">Pacenote</generator>\n"
        for entry in entries {
            out += "  <entry>\n"
            out += "    <id>\(e(entry.id))</id>\n"
            out += "    <title>\(e(entry.title))</title>\n"
            if let link = entry.link { out += "    <link rel=\"alternate\" type=\"text/html\" href=\"\(a(link))\"/>\n" }
            if let cover = entry.cover {
                let type = entry.coverType.map { " type=\"\(a($0))\"" } ?? ""
                out += "    <link rel=\"enclosure\"\(type) href=\"\(a(cover))\"/>\n"
                out += "    <media:thumbnail url=\"\(a(cover))\"/>\n"
            }
            if let published = entry.published { out += "    <published>\(published.text)</published>\n" }
            out += "    <updated>\((entry.updated ?? entry.published ?? RFC3339(date: Date(timeIntervalSince1970: 0))).text)</updated>\n"
            if let summary = entry.summary { out += "    <summary>\(e(summary))</summary>\n" }
            out += "  </entry>\n"
        }
        out += "</feed>\n"
        return Array(out.utf8)
    }
}
