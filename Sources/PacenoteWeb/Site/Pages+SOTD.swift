import Foundation
import Metrics
import PacenoteCore
import PacenoteStore
import Synchronization

extension API {
    func validDay(_ day: String) throws(APIError) -> String {
        guard day.count == 10, localTime.startOfDay(day) != nil else {
            throw APIError.notFound("'\(day)' is not a day (YYYY-MM-DD)")
        }
        return day
    }

    // MARK: /sotd/YYYY-MM-DD — the public share page

    /// What a friend sees: the song, its cover, how often it played that day and the note;
    /// OpenGraph and Twitter card tags for a chat app's preview. Nothing else of the history.
    func sotdSharePage(_ day: String, _ request: HTTPRequest, mayReadPrivate: Bool, mayWrite: Bool) throws -> HTTPResponse {
        let day = try validDay(day)
        guard let sotd = try songOfDay(day) else { throw APIError.notFound("No song of the day for \(format.day(day)): nothing was played.") }
        let f = format
        let artist = sotd.track.artist ?? "Unknown artist"
        let title = "\(sotd.track.title) — \(artist)"
        // How often it played, for a stranger only once the day is over: it would move with each play.
        let showPlays = mayReadPrivate || isOver(day)
        let description = "Song of the day for \(f.day(day))" + (showPlays ? ": played \(SiteFormat.plural(sotd.plays, "time"))" : "")
            + (sotd.note.map { ". “\($0)”" } ?? ".")
        let imageURL = absoluteURL(sotdCoverPath(day, sotd.track, png: true), request)
        let meta: [(String, String, String)] = [
            ("property", "og:type", "music.song"),
            ("property", "og:site_name", "Pacenote"),
            ("property", "og:title", title),
            ("property", "og:description", description),
            ("property", "og:image", imageURL),
            ("property", "og:url", absoluteURL("/sotd/\(day)", request)),
            ("name", "twitter:card", "summary_large_image"),
            ("name", "twitter:title", title),
            ("name", "twitter:description", description),
            ("name", "twitter:image", imageURL),
            ("name", "description", description),
        ]
        // The feed of the songs of the day: what a friend's Pacenote follows from this page's address.
        let head = meta.map { kind, name, content in
            Node.el("meta", attributes: [Attribute(name: kind, value: name), Attribute(name: "content", value: content)])
        } + [feedLink(request)]
        let candidates = mayWrite ? try context.store.sotdCandidates(day: day) : []
        let names = mayWrite ? try context.store.tracks(ids: candidates.map(\.trackID)) : [:]
        var response = html(title: "Song of the day: \(title)", request: request, nav: mayReadPrivate ? "sotd" : nil, head: head) {
            Node.el("article", ["class": "card share", "data-sotd-day": day]) {
                Node.el("img", ["class": "cover large", "src": url(sotdCoverPath(day, sotd.track)), "alt": "Cover of \(sotd.track.album ?? sotd.track.title)",
                                "width": "320", "height": "320"])
                Node.el("div") {
                    Node.el("p", ["class": "eyebrow"]) { "Song of the day · " + f.day(day) }
                    Node.el("h1", ["class": "sotd-title"]) { sotd.track.title }
                    Node.el("p", ["class": "sotd-artist"]) { artist }
                    if let album = sotd.track.album { Node.el("p", ["class": "muted"]) { album } }
                    if showPlays { Node.el("p", ["class": "sotd-plays"]) { "Played \(SiteFormat.plural(sotd.plays, "time")) that day" } }
                    if let note = sotd.note { Node.el("blockquote", ["class": "note"]) { note } }
                }
            }
            if mayWrite {
                Node.el("section", ["class": "card", "aria-labelledby": "pin-h"]) {
                    Node.el("h2", ["id": "pin-h"]) { "Choose the song of this day" }
                    Node.el("form", ["method": "post", "action": url("/sotd/\(day)")]) {
                        Node.el("label", ["for": "track"]) { "Song" }
                        Node.el("select", ["id": "track", "name": "track_id"]) {
                            for c in candidates.sorted(by: { $0.plays > $1.plays }) {
                                Node.el("option", ["value": String(c.trackID), "selected": c.trackID == sotd.track.id ? "" : nil]) {
                                    "\(names[c.trackID]?.title ?? "#\(c.trackID)") — \(names[c.trackID]?.artist ?? "") (\(c.plays))"
                                }
                            }
                        }
                        Node.el("label", ["for": "note"]) { "Note" }
                        Node.el("input", ["id": "note", "name": "note", "maxlength": "500", "value": sotd.note ?? ""])
                        Node.el("button", ["type": "submit", "name": "action", "value": "pin"]) { "Pin" }
                        if sotd.pinned { Node.el("button", ["type": "submit", "name": "action", "value": "unpin", "class": "secondary"]) { "Unpin" } }
                    }
                }
            }
        }
        // Shared caches may keep a stranger's copy briefly, but only when its links do not
        // come from the request's Host; what a logged-in visitor sees differs (Vary).
        if !mayReadPrivate && context.publicURL != nil {
            response.headers = response.headers.map { $0.0 == "Cache-Control" ? ($0.0, "public, max-age=300") : $0 }
        }
        response.headers.append(("Vary", "Cookie"))
        return response
    }

    /// `POST /sotd/DAY` from the page's form: pin (with a note) or unpin, then back to the page.
    func sotdForm(_ day: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let day = try validDay(day)
        let action = Self.formField("action", in: request.body) ?? "pin"
        if action == "unpin" {
            try context.operations.unpin(day: day)
        } else {
            guard let id = Self.formField("track_id", in: request.body).flatMap({ Int64($0) }), id > 0 else {
                throw APIError.badRequest("choose a song to pin", code: "invalid_track_id")
            }
            try context.operations.pin(day: day, trackID: id, note: Self.formField("note", in: request.body))
        }
        return HTTPResponse(status: 303, headers: [("Location", url("/sotd/\(day)")), ("Cache-Control", "no-store")])
    }

    // MARK: /sotd — the archive

    func sotdArchivePage(_ request: HTTPRequest) throws -> HTTPResponse {
        let today = localTime.day(of: context.clock.now())
        let month = request.query["month"] ?? String(today.prefix(7))
        let parts = month.split(separator: "-").compactMap { Int($0) }
        guard month.count == 7, parts.count == 2, (1...12).contains(parts[1]), localTime.startOfDay(month + "-01") != nil else {
            throw APIError.badRequest("month: YYYY-MM", code: "invalid_month")
        }
        let content = try pages.kept("sotd|\(month)|\(today)") { try sotdArchiveContent(year: parts[0], month: parts[1], today: today) }
        return html(title: "Songs of \(format.month(month))", request: request, nav: "sotd", head: [feedLink(request)]) { content }
    }

    func sotdArchiveContent(year: Int, month m: Int, today: String) throws -> Node {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let first = utc.date(from: DateComponents(year: year, month: m, day: 1))!
        let dayCount = utc.range(of: .day, in: .month, for: first)!.count
        // Weeks begin on `[site] week_starts`: the blank days before the 1st.
        let leading = localTime.weekStart.position(ofDay: CivilDate.days(year: year, month: m, day: 1))
        let prefix = String(format: "%04d-%02d", year, m)
        let candidates = try context.store.sotdCandidates(fromDay: prefix + "-01", toDay: prefix + "-31")
        let pins = try context.store.sotdPins(fromDay: prefix + "-01", toDay: prefix + "-31")
        var choices: [String: SongOfTheDay.Choice] = [:]
        for day in Set(candidates.keys).union(pins.keys) { choices[day] = SongOfTheDay.choose(candidates[day] ?? [], pin: pins[day]) }
        let tracks = try context.store.tracks(ids: Array(Set(choices.values.map(\.trackID))))
        let previous = m == 1 ? String(format: "%04d-12", year - 1) : String(format: "%04d-%02d", year, m - 1)
        let next = m == 12 ? String(format: "%04d-01", year + 1) : String(format: "%04d-%02d", year, m + 1)
        let f = format
        return Node.group {
            Node.el("h1") { "Songs of the day" }
            Node.el("nav", ["class": "months", "aria-label": "Months"]) {
                Node.el("a", ["href": url("/sotd?month=\(previous)"), "rel": "prev"]) { "← " + f.month(previous) }
                Node.el("strong") { f.month(prefix) }
                if next <= String(today.prefix(7)) { Node.el("a", ["href": url("/sotd?month=\(next)"), "rel": "next"]) { f.month(next) + " →" } }
            }
            Node.el("ol", ["class": "calendar", "aria-label": "Songs of \(f.month(prefix))"]) {
                for d in localTime.weekStart.dayNames { Node.el("li", ["class": "weekday", "aria-hidden": "true"]) { d } }
                for _ in 0..<leading { Node.el("li", ["class": "blank", "aria-hidden": "true"]) }
                for d in 1...dayCount {
                    let day = prefix + String(format: "-%02d", d)
                    let track = choices[day].flatMap { tracks[$0.trackID] }
                    Node.el("li", ["class": track == nil ? "day empty" : "day"]) {
                        Node.el("span", ["class": "date"]) { String(d) }
                        if let track {
                            Node.el("a", ["href": url("/sotd/\(day)"), "title": "\(track.title) — \(track.artist ?? "")"]) {
                                Node.el("img", ["src": url(sotdCoverPath(day, track)), "alt": "", "loading": "lazy", "width": "96", "height": "96"])
                                Node.el("span", ["class": "cal-title"]) { track.title }
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: Covers

    /// The address of a day's cover carries a version of its song (`SongOfTheDay.coverVersion`):
    /// the day's song can change (a pin, more plays later that day), and a cached picture
    /// must not outlive it. Not the track's id: strangers are shown none.
    func sotdCoverPath(_ day: String, _ track: Track, png: Bool = false) -> String {
        "/sotd/\(day)/cover" + (png ? ".png" : "") + "?v=" + sotdCoverVersion(day, track)
    }

    func sotdCoverVersion(_ day: String, _ track: Track) -> String {
        SongOfTheDay.coverVersion(day: day, title: track.title, artist: track.artist, album: track.album)
    }

    /// `/sotd/DAY/cover?v=VERSION`: public, but only ever the cover of that day's song — a
    /// version that is not the song's is a 404. Without `v`, the current song's, cached briefly.
    /// `png`: `/sotd/DAY/cover.png`, the address link previews get (`og:image`): without a
    /// picture from MPD, the drawn tile as a PNG rather than SVG.
    func sotdCover(_ day: String, png: Bool, _ request: HTTPRequest) throws -> HTTPResponse {
        let day = try validDay(day)
        guard let sotd = try songOfDay(day) else { throw APIError.notFound("no song of the day for \(day)") }
        guard let asked = request.query["v"] else {
            var response = try coverResponse(sotd.track, public: true, png: png)
            response.headers = response.headers.map { $0.0 == "Cache-Control" ? ($0.0, "public, max-age=300") : $0 }
            return response
        }
        guard asked == sotdCoverVersion(day, sotd.track) else { throw APIError.notFound("that is not the song of \(day)") }
        return try coverResponse(sotd.track, public: true, png: png)
    }

    /// `/covers/ID` (private): a track's cover from MPD, or a drawn placeholder.
    func cover(trackID: Int64, public: Bool) throws -> HTTPResponse {
        guard let track = try context.store.track(id: trackID) else { throw APIError.notFound("no track \(trackID)") }
        return try coverResponse(track, public: `public`)
    }

    func coverResponse(_ track: Track, public: Bool, png: Bool = false) throws -> HTTPResponse {
        let scope = `public` ? "public" : "private"
        if let image = context.services.coverArt?.image(for: track) {
            return HTTPResponse(status: 200, headers: [
                ("Content-Type", image.contentType), ("Cache-Control", "\(scope), max-age=2592000"),
                ("X-Content-Type-Options", "nosniff"),
            ], body: image.bytes)
        }
        // No picture: a tile coloured from the album, with its initials. Revalidated daily,
        // as the picture may appear later.
        if png {
            return HTTPResponse(status: 200, headers: [
                ("Content-Type", "image/png"), ("Cache-Control", "\(scope), max-age=86400"), ("X-Content-Type-Options", "nosniff"),
            ], body: Cover.placeholderPNG(title: track.album ?? track.title, artist: track.artist))
        }
        var body: [UInt8] = []
        Cover.placeholder(title: track.album ?? track.title, artist: track.artist).render(into: &body)
        return HTTPResponse(status: 200, headers: [
            ("Content-Type", "image/svg+xml"), ("Cache-Control", "\(scope), max-age=86400"),
            ("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"), ("X-Content-Type-Options", "nosniff"),
        ], body: body)
    }
}

enum Cover {
    /// The tile's hue, from the album and artist.
    static func hue(title: String, artist: String?) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in ((artist ?? "") + "\u{1F}" + title).utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return Int(hash % 360)
    }

    /// A square tile whose hue comes from the album and artist, with the album's initials.
    static func placeholder(title: String, artist: String?) -> Node {
        let hue = hue(title: title, artist: artist)
        let initials = title.split(whereSeparator: { $0.isWhitespace || $0.isPunctuation }).prefix(2)
            .compactMap { $0.first.map { String($0).uppercased() } }.joined()
        return .el("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 300 300", "width": "300", "height": "300",
                           "role": "img", "aria-label": "No cover for \(title)"]) {
            Node.el("defs") {
                Node.el("linearGradient", ["id": "g", "x1": "0", "y1": "0", "x2": "1", "y2": "1"]) {
                    Node.el("stop", ["offset": "0", "stop-color": "hsl(\(hue), 55%, 45%)"])
                    Node.el("stop", ["offset": "1", "stop-color": "hsl(\((hue + 50) % 360), 60%, 25%)"])
                }
            }
            Node.el("rect", ["width": "300", "height": "300", "fill": "url(#g)"])
            Node.el("circle", ["cx": "150", "cy": "150", "r": "96", "fill": "none", "stroke": "rgba(255,255,255,0.18)", "stroke-width": "36"])
            Node.el("circle", ["cx": "150", "cy": "150", "r": "14", "fill": "rgba(255,255,255,0.5)"])
            Node.el("text", ["x": "150", "y": "285", "text-anchor": "middle", "font-family": "sans-serif", "font-size": "30",
                             "font-weight": "700", "fill": "rgba(255,255,255,0.85)"]) { initials.isEmpty ? "♪" : initials }
        }
    }
}

extension Cover {
    /// Tiles drawn, by album and artist: `cover.png` is public, and a link preview's address
    /// asked for in a loop drew it on every request. At most `keptTiles`, then started over.
    private static let drawn = Mutex([String: [UInt8]]())
    static let keptTiles = 256

    /// The same tile as a PNG (without the initials: there is no font to draw them with),
    /// for link previews, which do not show SVG. 300×300, as the SVG. Drawn once per album
    /// and artist while the process runs (the tile depends on nothing else).
    static func placeholderPNG(title: String, artist: String?) -> [UInt8] {
        let key = (artist ?? "") + "\u{1F}" + title
        if let kept = drawn.withLock({ $0[key] }) { return kept }
        let png = drawPlaceholderPNG(title: title, artist: artist)
        Counter(label: "pacenote_public_images_drawn_total", dimensions: [("image", "sotd_cover")]).increment()
        drawn.withLock { tiles in
            if tiles.count >= keptTiles { tiles.removeAll() }
            tiles[key] = png
        }
        return png
    }

    static func drawPlaceholderPNG(title: String, artist: String?) -> [UInt8] {
        let hue = Double(hue(title: title, artist: artist))
        let from = hsl(hue, 0.55, 0.45), to = hsl((hue + 50).truncatingRemainder(dividingBy: 360), 0.60, 0.25)
        // 80 steps of the diagonal gradient, each plain, under the ring (18 % white) and
        // under the centre dot (50 % white): 240 colours.
        let steps = 80
        var palette: [PNG.RGB] = []
        for white in [0.0, 0.18, 0.5] {
            for step in 0..<steps {
                let t = Double(step) / Double(steps - 1)
                func mix(_ a: Double, _ b: Double) -> UInt8 {
                    let base = a + (b - a) * t
                    return UInt8(max(0, min(255, (base + (255 - base) * white).rounded())))
                }
                palette.append(PNG.RGB(r: mix(from.0, to.0), g: mix(from.1, to.1), b: mix(from.2, to.2)))
            }
        }
        let size = 300
        var pixels = [UInt8](repeating: 0, count: size * size)
        for y in 0..<size {
            for x in 0..<size {
                let step = (x + y) * (steps - 1) / (2 * (size - 1))
                let dx = Double(x) + 0.5 - 150, dy = Double(y) + 0.5 - 150
                let d = (dx * dx + dy * dy).squareRoot()
                let layer = d <= 14 ? 2 : abs(d - 96) <= 18 ? 1 : 0
                pixels[y * size + x] = UInt8(layer * steps + step)
            }
        }
        return PNG.encode(width: size, height: size, palette: palette, pixels: pixels)
    }

    /// An HSL colour (hue in degrees, saturation and lightness 0–1) as RGB 0–255.
    static func hsl(_ h: Double, _ s: Double, _ l: Double) -> (Double, Double, Double) {
        let c = (1 - abs(2 * l - 1)) * s
        let hp = h / 60
        let x = c * (1 - abs(hp.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch hp {
        case ..<1: (c, x, 0)
        case ..<2: (x, c, 0)
        case ..<3: (0, c, x)
        case ..<4: (0, x, c)
        case ..<5: (x, 0, c)
        default: (c, 0, x)
        }
        let m = l - c / 2
        return ((r + m) * 255, (g + m) * 255, (b + m) * 255)
    }
}
