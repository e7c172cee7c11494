import Foundation
import PacenoteCore
import PacenoteStore

/// A picture for a cover: its bytes and media type.
public struct CoverImage: Sendable {
    public var bytes: [UInt8]
    public var contentType: String
    public init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
    }
}

/// The site's pages: server-rendered HTML built from `Node`s, CSS and a little JavaScript
/// from Public/static, no build step. Every page works without JavaScript; the dashboard
/// updates itself from `/api/v1/events` when it runs.
extension API {
    /// An address people guess for a page that has another (`/corrections` for
    /// `/curation`): a redirect to it.
    func moved(_ path: String) -> HTTPResponse {
        HTTPResponse(status: 301, headers: [("Location", url(path)), ("Cache-Control", "no-store")])
    }

    /// Private pages send a visitor from outside the trusted networks to the login form.
    func loginRedirect(_ request: HTTPRequest) -> HTTPResponse {
        var next = request.path
        let query = request.query.sorted { $0.key < $1.key }.map { "\(URLText.component($0.key))=\(URLText.component($0.value))" }
        if !query.isEmpty { next += "?" + query.joined(separator: "&") }
        return HTTPResponse(status: 303, headers: [
            ("Location", context.basePath + "/login?next=" + URLText.component(next)),
            ("Cache-Control", "no-store"),
        ])
    }

    func errorPage(_ error: APIError, _ request: HTTPRequest, mayReadPrivate: Bool) -> HTTPResponse {
        if error.status >= 500 { logServerError(error, request) }
        let heading: String
        switch error.status {
        case 404: heading = "Not found"
        case 400: heading = "That did not work"
        case 401, 403: heading = "Not allowed"
        default: heading = "Something went wrong"
        }
        var response = html(title: heading, request: request, nav: mayReadPrivate ? "" : nil, status: error.status) {
            Node.el("section", ["class": "card error"]) {
                Node.el("h1") { heading }
                // The database's or the server's own words stay in the log, not on a page.
                Node.el("p") { error.status >= 500 ? "The server could not answer this time. Try again in a moment." : error.message }
                // A stranger's error page links nowhere private (issue 52, row 12).
                Node.el("p") {
                    mayReadPrivate ? Node.el("a", ["href": url("/")]) { "Back to the dashboard" }
                                   : Node.el("a", ["href": url("/login")]) { "Log in" }
                }
            }
        }
        if case .methodNotAllowed(let allowed) = error.kind { response.headers.append(("Allow", allowed.joined(separator: ", "))) }
        return response
    }

    // MARK: Layout

    func url(_ path: String) -> String { context.basePath + path }

    /// The site's absolute address, for OpenGraph tags: the configured public URL, else the
    /// address the browser used (Host; the scheme from a trusted proxy's X-Forwarded-Proto).
    func absoluteURL(_ path: String, _ request: HTTPRequest) -> String {
        if let base = context.publicURL { return base + path }
        // A Host that is not host[:port] (or [v6]:port) is not used: it would only break the link.
        let sent = request.header("Host") ?? ""
        let host = !sent.isEmpty && sent.count <= 255
            && sent.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || ".-:[]".unicodeScalars.contains($0)) })
            ? sent : "localhost"
        var scheme = "http"
        if Authorization.isFromTrustedProxy(request, proxies: context.trustedProxies),
           let first = request.header("X-Forwarded-Proto")?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces),
           first == "https" || first == "http" {
            scheme = first
        }
        return "\(scheme)://\(host)\(url(path))"
    }

    /// A whole page: `nav` names the current section, or is nil for a page that shows no
    /// way into the private parts (the public share page to a stranger).
    func html(title: String, request: HTTPRequest, nav: String?, status: Int = 200, head: [Node] = [],
              live: Bool = false, @Markup _ content: () -> [Node]) -> HTTPResponse {
        let sections: [(String, String, String)] = [
            ("dashboard", "/", "Now"), ("history", "/history", "History"), ("stats", "/stats", "Stats"),
            ("library", "/library", "Library"), ("sotd", "/sotd", "Song of the day"), ("friends", "/friends", "Friends"), ("workouts", "/workouts", "Workouts"),
            ("curation", "/curation", "Corrections"), ("rules", "/rules", "Rules"),
        ]
        let loggedIn = Sessions.cookie(in: request).map { context.sessions.isValid($0, key: context.currentKey()) } ?? false
        // The display time zone only for the live page's script (times it adds as plays come):
        // public pages must not tell strangers where the owner is (issue 51, point 3).
        let document = Node.el("html", ["lang": "en", "data-base": context.basePath, "data-tz": live ? context.timeZone.identifier : nil]) {
            Node.el("head") {
                Node.el("meta", ["charset": "utf-8"])
                Node.el("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
                Node.el("meta", ["name": "color-scheme", "content": "light dark"])
                Node.el("title") { title + " · Pacenote" }
                Node.el("link", ["rel": "stylesheet", "href": url("/static/site.css")])
                Node.el("link", ["rel": "icon", "href": url("/favicon.svg"), "type": "image/svg+xml"])
                head
                if live { Node.el("script", ["src": url("/static/live.js"), "defer": ""]) }
            }
            Node.el("body", ["data-live": live ? "1" : nil]) {
                Node.el("header", ["class": "top"]) {
                    // The public frame (no `nav`) links nowhere private: a stranger's `/` is the login form.
                    if nav == nil { Node.el("span", ["class": "brand"]) { "♪ Pacenote" } } else {
                        Node.el("a", ["class": "brand", "href": url("/")]) { "♪ Pacenote" }
                    }
                    if let nav {
                        Node.el("nav", ["aria-label": "Sections"]) {
                            for (key, path, label) in sections {
                                Node.el("a", ["href": url(path), "aria-current": key == nav ? "page" : nil]) { label }
                            }
                        }
                        if loggedIn {
                            Node.el("form", ["method": "post", "action": url("/logout"), "class": "inline"]) {
                                Node.el("button", ["type": "submit", "class": "link"]) { "Log out" }
                            }
                        } else {
                            Node.el("a", ["class": "login", "href": url("/login?next=" + URLText.component(request.path))]) { "Log in" }
                        }
                    }
                }
                Node.el("main") { content() }
                Node.el("footer") {
                    Node.el("span") { "Pacenote \(context.version)" }
                    if nav != nil { Node.el("a", ["href": url("/submissions"), "aria-current": nav == "submissions" ? "page" : nil]) { "Submissions" } }
                    if live { Node.el("span", ["class": "live-status", "data-live-status": ""]) { "live updates off" } }
                }
            }
        }
        var body = Array("<!doctype html>\n".utf8)
        body.reserveCapacity(16 * 1024)
        document.render(into: &body)
        return HTTPResponse(status: status, headers: Self.pageHeaders, body: body)
    }

    /// No inline script or style anywhere: the policy forbids both, so an injected tag
    /// could not run even if escaping ever failed.
    static let pageHeaders: [(String, String)] = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Content-Security-Policy",
         "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "same-origin"),
        ("Cache-Control", "no-cache"),
    ]

    // MARK: Pieces shared by the pages

    func coverURL(_ track: Track?) -> String {
        guard let id = track?.id else { return url("/static/cover.svg") }
        return url("/covers/\(id)")
    }

    func trackLink(_ track: Track) -> Node {
        guard let id = track.id else { return .text(track.title) }
        return .el("a", ["href": url("/tracks/\(id)")]) { track.title }
    }

    /// A link to an artist's page: by id when known, else by name (`/artist?name=`
    /// redirects to the credited artist's page).
    func artistLink(_ artist: String?, id: Int64? = nil) -> Node {
        guard let artist, !artist.isEmpty else { return .el("span", ["class": "muted"]) { "Unknown artist" } }
        return .el("a", ["href": url(id.map { "/artists/\($0)" } ?? "/artist?name=" + URLText.component(artist))]) { artist }
    }

    func albumLink(_ album: String?, id: Int64?) -> Node {
        guard let album, !album.isEmpty else { return .text("Unknown album") }
        guard let id else { return .text(album) }
        return .el("a", ["href": url("/albums/\(id)")]) { album }
    }

    func zoneBadge(_ zone: Zone?) -> Node {
        guard let zone else { return .empty }
        return .el("span", ["class": "zone z\(zone.rawValue)", "title": "Heart-rate zone \(zone.rawValue)"]) { "Z\(zone.rawValue)" }
    }

    var format: SiteFormat { SiteFormat(timeZone: context.timeZone) }
}

/// Dates and durations as the pages write them, in the display time zone.
struct SiteFormat {
    let calendar: Calendar

    init(timeZone: TimeZone) {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = timeZone
        calendar = c
    }

    static let weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    func time(_ date: Date) -> String {
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", c.hour!, c.minute!)
    }

    /// "Sunday 22 November 2026" for a `YYYY-MM-DD` local day.
    func day(_ day: String) -> String {
        let parts = day.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return day }
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        guard let date = utc.date(from: DateComponents(year: parts[0], month: parts[1], day: parts[2])) else { return day }
        let weekday = utc.component(.weekday, from: date)
        return "\(Self.weekdays[weekday - 1]) \(parts[2]) \(Self.months[parts[1] - 1]) \(parts[0])"
    }

    func month(_ month: String) -> String {
        let parts = month.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, (1...12).contains(parts[1]) else { return month }
        return "\(Self.months[parts[1] - 1]) \(parts[0])"
    }

    /// 3:25 for a song.
    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// "12 h 5 min" for listening time.
    static func span(_ seconds: Double) -> String {
        if seconds < 59.5 { return "\(Int(max(0, seconds).rounded())) s" }
        let minutes = Int((seconds / 60).rounded())
        if minutes < 60 { return "\(minutes) min" }
        return minutes % 60 == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(minutes % 60) min"
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
