import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// `/friends`: everyone followed with their newest song of the day (today's, or the last
/// one seen, with its day), when their feed was last checked and how it answered; forms to
/// follow someone and to stop. And the dashboard's "Friends today".
///
/// A song links to the friend's own share page. Its cover is the copy the poller made
/// (`/friends/covers/{id}`): the site's Content-Security-Policy allows only its own
/// pictures, a visitor's browser never asks the friend's server (which would learn who
/// looks, and when), and the cover still shows while that server is down.
extension API {
    func friendsPage(_ request: HTTPRequest, mayWrite: Bool, notice: String? = nil, status: Int = 200) throws -> HTTPResponse {
        let friends = try context.store.friendsWithLatestSong()
        let today = localTime.day(of: context.clock.now())
        let feed = absoluteURL("/sotd.atom", request)
        let f = format
        return html(title: "Friends", request: request, nav: "friends", status: status, head: [feedLink(request)]) {
            Node.el("h1") { "Friends" }
            Node.el("p", ["class": "muted"]) {
                "The songs of the day of the people you follow, from their Pacenote's feed, checked at most every 15 minutes. "
                "Yours is "
                Node.el("a", ["href": feed, "data-own-feed": ""]) { feed }
                ": give it (or the address of one of your share pages) to a friend."
            }
            if let notice { Node.el("p", ["class": "notice", "role": "status"]) { notice } }
            if friends.isEmpty { Node.el("p", ["class": "card muted"]) { "You follow no one yet." } }
            Node.el("ul", ["class": "plain friends"]) {
                for (friend, song) in friends {
                    Node.el("li", ["class": "card friend", "data-friend-id": friend.id.map(String.init)]) {
                        friendSongView(friend, song, today: today, f, large: true)
                        Node.el("p", ["class": "muted small friend-status"]) {
                            friendStatus(friend, f)
                            if friend.origin == .config { Node.el("span", ["class": "badge"]) { "from the configuration" } }
                        }
                        if mayWrite, friend.origin == .site, let id = friend.id {
                            Node.el("form", ["method": "post", "action": url("/friends"), "class": "inline"]) {
                                Node.el("input", ["type": "hidden", "name": "action", "value": "delete"])
                                Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
                                Node.el("button", ["type": "submit", "class": "small secondary"]) { "Stop following" }
                            }
                        }
                    }
                }
            }
            if mayWrite {
                Node.el("section", ["class": "card", "aria-labelledby": "follow-h"]) {
                    Node.el("h2", ["id": "follow-h"]) { "Follow someone" }
                    Node.el("form", ["method": "post", "action": url("/friends"), "class": "search"]) {
                        Node.el("input", ["type": "hidden", "name": "action", "value": "add"])
                        Node.el("label", ["for": "friend-name"]) { "Name" }
                        Node.el("input", ["id": "friend-name", "name": "name", "maxlength": String(Friend.maxName), "placeholder": "Sam"])
                        Node.el("label", ["for": "friend-url"]) { "Feed or share page" }
                        Node.el("input", ["id": "friend-url", "name": "url", "type": "url", "required": "", "maxlength": String(AtomFeed.maxURL),
                                          "placeholder": "https://sam.example.org/sotd.atom"])
                        Node.el("button", ["type": "submit"]) { "Follow" }
                    }
                    Node.el("p", ["class": "muted small"]) {
                        "A Pacenote's feed is at /sotd.atom; the address of any of its share pages works too. "
                        "Friends in the configuration file ([[friends]]) are changed there."
                    }
                }
            } else {
                Node.el("p", ["class": "muted small"]) {
                    Node.el("a", ["href": url("/login?next=" + URLText.component("/friends"))]) { "Log in" }
                    " to follow someone."
                }
            }
        }
    }

    /// A friend's song: cover, name and day, the song linking to their share page, the note.
    func friendSongView(_ friend: Friend, _ song: FriendSong?, today: String, _ f: SiteFormat, large: Bool) -> Node {
        Node.el("div", ["class": "friend-song"]) {
            Node.el("img", ["class": large ? "cover small" : "cover tiny", "src": song.flatMap(friendCoverPath) ?? url("/static/cover.svg"),
                            "alt": "", "width": large ? "64" : "40", "height": large ? "64" : "40", "loading": "lazy"])
            Node.el("div") {
                Node.el("p", ["class": "eyebrow"]) {
                    Node.el("span", ["class": "friend-name"]) { friend.name }
                    if let day = song?.day { " · " + dayLabel(day, today: today, f) }
                }
                if let song {
                    Node.el("p", ["class": "friend-title"]) {
                        if let link = song.link {
                            Node.el("a", ["href": link, "rel": "external noopener noreferrer", "data-friend-link": ""]) { song.title }
                        } else {
                            Node.el("strong") { song.title }
                        }
                        if let artist = song.artist { Node.el("span", ["class": "by"]) { " — " + artist } }
                    }
                    if large, let note = song.note { Node.el("blockquote", ["class": "note"]) { note } }
                } else {
                    Node.el("p", ["class": "muted"]) { friend.lastPolledAt == nil ? "Not checked yet." : "No song of the day yet." }
                }
            }
        }
    }

    /// "Today", "Yesterday", else the day written out.
    func dayLabel(_ day: String, today: String, _ f: SiteFormat) -> String {
        if day == today { return "Today" }
        if let t = CivilDate.days(of: today), let d = CivilDate.days(of: day) {
            if d == t - 1 { return "Yesterday" }
            if d == t + 1 { return "Tomorrow" }  // a friend further east, already in our tomorrow
        }
        return f.day(day)
    }

    /// When the feed was last checked, and what went wrong if it did.
    func friendStatus(_ friend: Friend, _ f: SiteFormat) -> Node {
        Node.group {
            if let polled = friend.lastPolledAt {
                Node.el("span", ["data-last-checked": ISO8601.string(polled)]) {
                    "Last checked " + f.day(localTime.day(of: polled)) + " " + f.time(polled)
                }
            } else {
                Node.el("span") { "Not checked yet" }
            }
            if let error = friend.lastError {
                Node.el("span", ["class": "friend-error", "data-friend-error": ""]) {
                    " · could not be read: " + error + (friend.lastOKAt.map { ". Last read " + f.day(localTime.day(of: $0)) + " " + f.time($0) + "." } ?? ".")
                }
            }
        }
    }

    /// The dashboard's card: friends' songs of today (and of yesterday: their day may be
    /// behind ours), the last seen kept while a friend is down.
    func friendsToday(_ friends: [(friend: Friend, song: FriendSong?)], today: String) -> Node {
        let f = format
        let yesterday = CivilDate.days(of: today).map { n -> String in
            let c = CivilDate.civil(days: n - 1)
            return LocalTime.format(year: c.year, month: c.month, day: c.day)
        } ?? today
        let recent = friends.filter { ($0.song?.day ?? "") >= yesterday }
        return Node.el("section", ["class": "card friends-today", "aria-labelledby": "friends-h"]) {
            Node.el("h2", ["id": "friends-h"]) { "Friends today" }
            if friends.isEmpty {
                Node.el("p", ["class": "muted"]) {
                    "Follow your friends' songs of the day on "
                    Node.el("a", ["href": url("/friends")]) { "Friends" }
                    "."
                }
            } else if recent.isEmpty {
                Node.el("p", ["class": "muted", "data-friends-empty": ""]) { "No songs of the day from friends yet today." }
            }
            Node.el("ul", ["class": "plain friend-list"]) {
                for (friend, song) in recent {
                    Node.el("li", ["data-friend-id": friend.id.map(String.init)]) {
                        friendSongView(friend, song, today: today, f, large: false)
                        // The last song seen, while their server does not answer.
                        if friend.lastError != nil {
                            Node.el("p", ["class": "muted small friend-offline", "data-friend-offline": ""]) {
                                "Their Pacenote is not answering" + (friend.lastOKAt.map { "; last read at " + f.time($0) } ?? "") + "."
                            }
                        }
                    }
                }
            }
            if !friends.isEmpty { Node.el("p", ["class": "muted small"]) { Node.el("a", ["href": url("/friends")]) { "All friends" } } }
        }
    }

    /// The forms of `/friends`: follow, stop following. Each answers with the page and a notice.
    func friendsForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let field = { (name: String) in Self.formField(name, in: request.body) }
        switch field("action") ?? "" {
        case "add":
            let friend: Friend
            do {
                friend = try context.operations.addFriend(name: field("name"), url: field("url") ?? "")
            } catch let error as OperationError {
                // Said on the page itself, where the form is to try again.
                return try friendsPage(request, mayWrite: true, notice: "Not followed: \(error.message).",
                                       status: error.kind == .conflict ? 409 : 400)
            }
            return try friendsPage(request, mayWrite: true, notice: "Following \(friend.name): their song of the day shows here once their feed is read.")
        case "delete":
            guard let id = field("id").flatMap({ Int64($0) }) else { throw APIError.badRequest("say whom", code: "invalid_friend") }
            let friend = try context.operations.deleteFriend(id: id)
            return try friendsPage(request, mayWrite: true, notice: "No longer following \(friend.name).")
        default:
            throw APIError.badRequest("unknown action", code: "invalid_action")
        }
    }

    /// `/friends/covers/ID`: the copy of a friend's song's cover (its type told by its bytes
    /// when it was saved).
    func friendCover(_ songID: Int64) throws -> HTTPResponse {
        guard let cover = try context.store.friendCover(songID: songID) else { throw APIError.notFound("no cover \(songID)") }
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", cover.type), ("Cache-Control", "private, max-age=86400"),
            ("Content-Security-Policy", "default-src 'none'"), ("X-Content-Type-Options", "nosniff"),
        ], body: cover.bytes)
    }
}
