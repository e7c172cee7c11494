import Foundation

/// Someone whose songs of the day this Pacenote follows: another instance's `/sotd.atom`
/// (or any Atom feed), named here, from the configuration's `[[friends]]` or added on the
/// site; with what the poller last learnt about the feed.
public struct Friend: Equatable, Sendable {
    public enum Origin: String, CaseIterable, Sendable {
        /// A `[[friends]]` table: put in place at each start, not removable on the site.
        case config
        case site
    }

    public var id: Int64?
    public var name: String
    /// The address as given: a feed, or a page that names its feed (`<link rel="alternate">`).
    public var url: String
    public var origin: Origin
    /// The feed's address when `url` led to it (a share page's link, a permanent redirect).
    public var feedURL: String?
    public var etag: String?
    public var lastModified: String?
    public var lastPolledAt: Date?
    public var lastOKAt: Date?
    public var lastError: String?
    /// Polls that failed in a row (the backoff grows with them).
    public var failures: Int
    public var nextPollAt: Date?

    public init(id: Int64? = nil, name: String, url: String, origin: Origin, feedURL: String? = nil, etag: String? = nil,
                lastModified: String? = nil, lastPolledAt: Date? = nil, lastOKAt: Date? = nil, lastError: String? = nil,
                failures: Int = 0, nextPollAt: Date? = nil) {
        self.id = id
        self.name = name
        self.url = url
        self.origin = origin
        self.feedURL = feedURL
        self.etag = etag
        self.lastModified = lastModified
        self.lastPolledAt = lastPolledAt
        self.lastOKAt = lastOKAt
        self.lastError = lastError
        self.failures = failures
        self.nextPollAt = nextPollAt
    }

    /// Where the poller asks: the feed found from `url`, else `url`.
    public var pollURL: String { feedURL ?? url }

    public static let maxName = 100
    /// At most this many friends: each is polled.
    public static let maxFriends = 200

    /// What is wrong with a friend's name and address, or nil.
    public static func problem(name: String, url: String) -> (field: String, message: String)? {
        if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return ("name", "a name is needed") }
        if name.count > maxName { return ("name", "at most \(maxName) characters") }
        if let problem = urlProblem(url) { return ("url", problem) }
        return nil
    }

    /// An address the poller may fetch: http or https, a host, no user name or password (it
    /// is shown on the site), at most 2,048 characters.
    public static func urlProblem(_ text: String) -> String? {
        guard text.count <= AtomFeed.maxURL else { return "at most \(AtomFeed.maxURL) characters" }
        guard !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }),
              let url = URL(string: text), let scheme = url.scheme?.lowercased() else { return "not a URL" }
        guard scheme == "http" || scheme == "https" else { return "an http:// or https:// address" }
        guard let host = url.host, !host.isEmpty else { return "an address with a host" }
        guard url.user == nil, url.password == nil else { return "no user name or password in the address" }
        return nil
    }

    /// A name for an address given without one: its host.
    public static func defaultName(for url: String) -> String {
        URL(string: url)?.host ?? url
    }
}

/// A friend's song of one day, as their feed gave it.
public struct FriendSong: Equatable, Sendable {
    /// The row's id here (its cover's address names it).
    public var id: Int64?
    public var friendID: Int64
    /// The feed entry's id: the same day's entry is replaced when the song changes.
    public var entryID: String
    /// The friend's local day, `YYYY-MM-DD`, when the feed says.
    public var day: String?
    public var title: String
    public var artist: String?
    /// The friend's share page.
    public var link: String?
    public var coverURL: String?
    public var note: String?
    public var updatedAt: Date?
    /// Whether a copy of the cover is kept here.
    public var hasCover: Bool

    public init(id: Int64? = nil, friendID: Int64, entryID: String, day: String?, title: String, artist: String?,
                link: String?, coverURL: String?, note: String? = nil, updatedAt: Date?, hasCover: Bool = false) {
        self.id = id
        self.friendID = friendID
        self.entryID = entryID
        self.day = day
        self.title = title
        self.artist = artist
        self.link = link
        self.coverURL = coverURL
        self.note = note
        self.updatedAt = updatedAt
        self.hasCover = hasCover
    }

    /// An entry of a friend's feed: its title split into song and artist at the last
    /// " — " (what `/sotd.atom` writes), else the whole title.
    public init(friendID: Int64, entry: AtomFeed.Entry) {
        var title = entry.title, artist: String?
        if let range = entry.title.range(of: " — ", options: .backwards) {
            let (t, a) = (String(entry.title[..<range.lowerBound]), String(entry.title[range.upperBound...]))
            if !t.isEmpty && !a.isEmpty { (title, artist) = (t, a) }
        }
        self.init(friendID: friendID, entryID: entry.id, day: entry.day, title: title, artist: artist, link: entry.link,
                  coverURL: entry.cover, note: entry.summary, updatedAt: (entry.updated ?? entry.published)?.date)
    }
}

/// When a friend's feed is asked again: politeness as rules.
public enum FriendPolling {
    /// At most every 15 minutes: a song of the day changes a few times a day at most.
    public static let interval: Double = 15 * 60
    /// The longest wait after errors in a row.
    public static let maxBackoff: Double = 6 * 3600
    /// The whole exchange's limit, and the largest feed read (30 entries are ~10 KiB).
    public static let timeout: Double = 10
    public static let maxFeedBytes = 1 << 20
    /// A cover copied from a friend (a song of the day's picture is well under this).
    public static let maxCoverBytes = 2 << 20
    /// Redirects followed per poll.
    public static let maxRedirects = 3

    /// The next poll after one at `now`: `interval` after a success (or a 304); after the
    /// `failures`-th error in a row, `interval` doubled per earlier error, at most
    /// `maxBackoff`; never sooner than a `Retry-After` the server sent (429, 503).
    public static func next(after now: Date, interval: Double = interval, failures: Int, retryAfter: Double? = nil) -> Date {
        var wait = interval
        if failures > 0 { wait = min(interval * pow(2, Double(min(failures - 1, 30))), max(maxBackoff, interval)) }
        if let retryAfter, retryAfter > wait { wait = min(retryAfter, 24 * 3600) }
        return now.addingTimeInterval(wait)
    }

    /// A `Retry-After` header in seconds: delta-seconds, or an HTTP-date (RFC 9110 §10.2.3).
    public static func retryAfter(_ header: String?, now: Date) -> Double? {
        guard let text = header?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        if let seconds = Double(text), seconds >= 0 { return seconds }
        return HTTPDate.parse(text).map { max(0, $0.timeIntervalSince(now)) }
    }
}
