import Foundation
import PacenoteCore
import PacenoteStore

/// `/sotd.atom`: the songs of the last days as an Atom feed (RFC 4287), public like the share
/// pages it links to and what other Pacenotes follow (`[[friends]]`). Each day's entry is
/// its share page (`id` and `rel="alternate"`), the song as "Title — Artist", its cover
/// (`rel="enclosure"`, `media:thumbnail`), `published` and `updated` as days and a pinned
/// song's note. Nothing else of the history: no play counts, no listening time, no heart
/// rate, and no time of day or time zone (issue 51, point 3): `published` is the entry's
/// day written as midnight UTC (`2026-11-26T00:00:00Z`: the owner's date, not an instant),
/// `updated` the same for the day its pin was set when that is later, and the feed's
/// `updated` and `Last-Modified` the newest of those. A play changes none of them; a
/// change of the day's song changes the body, so its ETag.
extension API {
    /// How many days the feed lists (only days that have a song).
    static let feedDays = 30

    func sotdFeed(_ request: HTTPRequest) throws -> HTTPResponse {
        let feed = try sotdAtomFeed(request)
        let updated = feed.updated ?? RFC3339(date: Date(timeIntervalSince1970: 0))
        let lastModified = HTTPDate.string(updated.date)
        var headers: [(String, String)] = [
            ("Content-Type", "application/atom+xml; charset=utf-8"),
            ("Last-Modified", lastModified),
            ("X-Content-Type-Options", "nosniff"),
            // Shared caches may keep it briefly only when its links do not come from the Host.
            ("Cache-Control", context.publicURL != nil ? "public, max-age=300" : "no-cache"),
        ]
        // If-None-Match is answered by the server from the body's ETag; If-Modified-Since
        // counts only without it (RFC 9110 §13.2.2), and only once the day it names is over
        // here: until then today's song may still change under the same date.
        if request.header("If-None-Match") == nil, let since = request.header("If-Modified-Since").flatMap(HTTPDate.parse),
           updated.date.timeIntervalSince1970 <= since.timeIntervalSince1970, updated.localDay < localTime.day(of: context.clock.now()) {
            headers.removeAll { $0.0 == "Content-Type" }
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: feed.xml())
    }

    func sotdAtomFeed(_ request: HTTPRequest) throws -> AtomFeed {
        let store = context.store
        let days = try store.recentSOTDDays(limit: Self.feedDays)
        var choices: [String: SongOfTheDay.Choice] = [:]
        if let newest = days.first?.day, let oldest = days.last?.day {
            let candidates = try store.sotdCandidates(fromDay: oldest, toDay: newest)
            let pins = try store.sotdPins(fromDay: oldest, toDay: newest)
            for (day, _) in days { choices[day] = SongOfTheDay.choose(candidates[day] ?? [], pin: pins[day]) }
        }
        let tracks = try store.tracks(ids: Array(Set(choices.values.map(\.trackID))))
        let selfURL = absoluteURL("/sotd.atom", request)
        let host = URL(string: selfURL)?.host ?? "Pacenote"
        var feed = AtomFeed(id: selfURL, title: "Songs of the day", author: host, selfLink: selfURL)
        for (day, pinnedAt) in days {
            guard let choice = choices[day], let track = tracks[choice.trackID], let published = SongOfTheDay.publicStamp(day: day) else { continue }
            let changed = SongOfTheDay.publicChangeDay(day: day, pinnedOn: pinnedAt.map(localTime.day(of:)))
            let share = absoluteURL("/sotd/\(day)", request)
            feed.entries.append(AtomFeed.Entry(
                id: share, title: "\(track.title) — \(track.artist ?? "Unknown artist")", link: share,
                cover: absoluteURL(sotdCoverPath(day, track, png: true), request), coverType: coverType(track),
                published: published, updated: SongOfTheDay.publicStamp(day: changed) ?? published, summary: choice.note))
        }
        // The feed changed when its newest entry did; an empty feed, today.
        feed.updated = feed.entries.compactMap(\.updated).max { $0.date < $1.date }
            ?? SongOfTheDay.publicStamp(day: localTime.day(of: context.clock.now())) ?? RFC3339(date: Date(timeIntervalSince1970: 0))
        return feed
    }

    /// What `cover.png` answers for the track: the drawn tile (PNG) for a play that no file
    /// of MPD's library stands for (an import, a scrobble, a stream); for a file, MPD's picture
    /// when it has one (PNG or JPEG, known only once read, which a feed must not wait for).
    func coverType(_ track: Track) -> String {
        guard let uri = track.uri, !uri.contains("://") else { return "image/png" }
        return "image/*"
    }

    /// `<link rel="alternate">` naming the feed, for a page's head: feed readers and other
    /// Pacenotes find it from a share page's address.
    func feedLink(_ request: HTTPRequest) -> Node {
        .el("link", ["rel": "alternate", "type": "application/atom+xml", "title": "Songs of the day",
                     "href": absoluteURL("/sotd.atom", request)])
    }
}
