import Foundation
import PacenoteCore
import PacenoteStore

/// The now-playing card for the owner's website (`[share] now = true`, issue 58 point 6):
/// `/now` a small page to embed in an iframe, `/now.svg` a badge, `/now.json` for a page's
/// script (cross-origin for `server.cors_origins`, as the other key-free reads are not: it is
/// public by the owner's choice), `/now/cover` the cover. Only the fields in
/// `[share] now_fields` are shown; all are blank while nothing plays or a private session is
/// on. Off (the default): every one answers 404, as if it did not exist.
extension API {
    /// The card as of now; nil: blank. Throws 404 when the card is off.
    func nowCard() throws -> NowCard? {
        guard let fields = context.nowFields else { throw APIError.notFound("the now-playing card is off ([share] now)") }
        let now = context.clock.now()
        if try context.store.privateSession()?.isOn(at: now) == true { return nil }
        let playing = context.nowPlaying().first { $0.state == .play }
            ?? context.scrobbles.playingElsewhere(now: now).first { $0.state == .play }
        var workout: NowCard.Workout?
        if fields.contains(.workout), let live = context.heartRate?.current(now: now), let id = live.workoutID {
            let stored = try context.store.workout(id: id)
            workout = NowCard.Workout(sport: stored?.sport, zone: live.zone)
        }
        return NowCard.make(playing: playing, fields: Set(fields), privateSessionOn: false, workout: workout)
    }

    /// `GET /now.json`: `{"playing": false}`, or `{"playing": true}` with the ticked fields.
    func nowJSON() throws -> HTTPResponse {
        var response = HTTPResponse.json(APIJSON.nowCard(try nowCard(), coverURL: url("/now/cover")))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The headers of the card's page and badge: no script, nothing from elsewhere, and —
    /// unlike every other page, which `frame-ancestors 'none'` keeps out of frames — any
    /// site may frame it: it is the card's purpose, and it has no form or link that acts.
    static let nowHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors *; base-uri 'none'; form-action 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        ("Cache-Control", "no-store"),
    ]

    /// `GET /now`: the card as a small page, refreshed every 30 s (a meta refresh: no script).
    func nowPage() throws -> HTTPResponse {
        let card = try nowCard()
        let cover = url("/now/cover")
        let document = Node.el("html", ["lang": "en"]) {
            Node.el("head") {
                Node.el("meta", ["charset": "utf-8"])
                Node.el("meta", ["http-equiv": "refresh", "content": "30"])
                Node.el("meta", ["name": "viewport", "content": "width=device-width, initial-scale=1"])
                Node.el("meta", ["name": "robots", "content": "noindex"])
                Node.el("title") { card?.song.map { "Now playing: \($0)" } ?? "Now playing" }
                Node.el("style") { Self.nowStyle }
            }
            Node.el("body") {
                Node.el("div", ["class": card == nil ? "now blank" : "now", "data-playing": card == nil ? "false" : "true"]) {
                    if let card {
                        if card.coverTrackID != nil { Node.el("img", ["src": cover, "alt": "", "width": "64", "height": "64"]) }
                        Node.el("div") {
                            if let song = card.song { Node.el("p", ["class": "song"]) { song } }
                            if let artist = card.artist { Node.el("p", ["class": "artist"]) { artist } }
                            if let album = card.album { Node.el("p", ["class": "album"]) { album } }
                            if let workout = card.workout { Node.el("p", ["class": "workout"]) { workout } }
                        }
                    }
                }
            }
        }
        var body = Array("<!doctype html>\n".utf8)
        document.render(into: &body)
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")] + Self.nowHeaders, body: body)
    }

    /// Plain CSS: no `<` or `&` in it, so the escaping of text leaves it as written.
    static let nowStyle = """
        body{margin:0;font:14px/1.3 system-ui,sans-serif;color:#222;background:transparent}\
        .now{display:flex;gap:10px;align-items:center;padding:6px}\
        .now img{border-radius:4px;flex:none}.now p{margin:0;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\
        .song{font-weight:600}.album,.workout{color:#666;font-size:12px}\
        @media (prefers-color-scheme: dark){body{color:#eee}.album,.workout{color:#aaa}}
        """

    /// `GET /now.svg`: a 360×64 badge with the ticked lines (an empty badge when blank). Its
    /// text is escaped as any page's (`Node`): a tag's `<script>` is text.
    func nowSVG() throws -> HTTPResponse {
        let card = try nowCard()
        let lines = card.map { c in [c.song, c.artist, c.album, c.workout].compactMap { $0 } } ?? []
        let svg = Node.el("svg", ["xmlns": "http://www.w3.org/2000/svg", "viewBox": "0 0 360 64", "width": "360", "height": "64",
                                  "role": "img", "aria-label": lines.isEmpty ? "Nothing playing" : "Now playing: " + lines.joined(separator: " — ")]) {
            Node.el("rect", ["width": "360", "height": "64", "rx": "6", "fill": "#1f2430"])
            if lines.isEmpty {
                Node.el("text", ["x": "12", "y": "38", "font-family": "sans-serif", "font-size": "14", "fill": "#8a93a6"]) { "♪" }
            }
            for (i, line) in lines.prefix(3).enumerated() {
                Node.el("text", ["x": "12", "y": String(22 + i * 17), "font-family": "sans-serif", "font-size": i == 0 ? "15" : "13",
                                 "font-weight": i == 0 ? "700" : "400", "fill": i == 0 ? "#ffffff" : "#c5cbd8"]) {
                    Self.clipped(line, to: 48)
                }
            }
        }
        var body: [UInt8] = []
        svg.render(into: &body)
        return HTTPResponse(status: 200, headers: [("Content-Type", "image/svg+xml")] + Self.nowHeaders, body: body)
    }

    static func clipped(_ text: String, to count: Int) -> String {
        text.count <= count ? text : String(text.prefix(count - 1)) + "…"
    }

    /// `GET /now/cover`: the cover of what the card shows, when `cover` is ticked; 404 otherwise.
    func nowCover() throws -> HTTPResponse {
        guard let id = try nowCard()?.coverTrackID, let track = try context.store.track(id: id) else {
            throw APIError.notFound("no cover is shown now")
        }
        var response = try coverResponse(track, public: true)
        response.headers.removeAll { $0.0 == "Cache-Control" }
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    // MARK: The private session

    /// `GET /api/v1/private-session` (and `private_session` in the status).
    func privateSessionJSON() throws -> JSONValue {
        APIJSON.privateSession(try context.store.privateSession(), at: context.clock.now())
    }

    /// `POST /api/v1/private-session`: `{"minutes": 30}` (or `"seconds"`); no duration, or 0:
    /// until it is turned off.
    func startPrivateSession(_ request: HTTPRequest) throws -> JSONValue {
        var minutes: Double?, seconds: Double?
        if !request.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                throw APIError.badRequest("body: expected {\"minutes\": 30}, {\"seconds\": 90} or {} (until turned off)", code: "invalid_body")
            }
            for (name, value) in object where !(value is NSNull) {
                guard name == "minutes" || name == "seconds" else {
                    throw APIError.badRequest("unknown field '\(name)': expected minutes or seconds", code: "invalid_body")
                }
                guard let number = HeartRateInput.number(value) else {
                    throw APIError.badRequest("'\(name)' must be a number", code: "invalid_duration")
                }
                if name == "minutes" { minutes = number } else { seconds = number }
            }
        }
        let duration: TimeInterval?
        switch PrivateSession.duration(minutes: minutes, seconds: seconds) {
        case .success(let value): duration = value
        case .failure(.both): throw APIError.badRequest("give minutes or seconds, not both", code: "invalid_duration")
        case .failure(.outOfRange):
            throw APIError.badRequest("a private session lasts from 1 second to a week (10080 minutes), or 0 for until it is turned off",
                                      code: "invalid_duration")
        }
        let now = context.clock.now()
        let session = try context.operations.startPrivateSession(lasting: duration, now: now)
        return APIJSON.privateSession(session, at: now)
    }

    /// `DELETE /api/v1/private-session`: ends it now (nothing to do when none is on).
    func endPrivateSession() throws -> JSONValue {
        let now = context.clock.now()
        // The session as ended (its end is `now` exactly; the stored one is to the millisecond).
        let ended = try context.operations.endPrivateSession(now: now)
        return APIJSON.privateSession(try ended ?? context.store.privateSession(), at: now)
    }

    /// The durations the dashboard offers, in minutes (0: until turned off).
    static let privateSessionChoices: [(minutes: Int, label: String)] = [
        (30, "30 minutes"), (60, "1 hour"), (240, "4 hours"), (0, "until I turn it off"),
    ]

    /// `POST /private-session`: the dashboard's switch (a logged-in browser).
    func privateSessionForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let now = context.clock.now()
        switch Self.formField("action", in: request.body) {
        case "on":
            guard let text = Self.formField("minutes", in: request.body), let minutes = Int(text),
                  Self.privateSessionChoices.contains(where: { $0.minutes == minutes }) else {
                throw APIError.badRequest("choose how long the private session lasts", code: "invalid_duration")
            }
            try context.operations.startPrivateSession(lasting: minutes == 0 ? nil : Double(minutes) * 60, now: now)
        case "off":
            try context.operations.endPrivateSession(now: now)
        default:
            throw APIError.badRequest("unknown action", code: "invalid_action")
        }
        return HTTPResponse(status: 303, headers: [("Location", url("/") + "#private-session"), ("Cache-Control", "no-store")])
    }

    /// `POST /api/v1/hidden-listens/{id}/unhide`: shows a hidden play again.
    func unhidePlay(_ id: Int64) throws -> JSONValue {
        try context.operations.unhidePlay(id: id)
        return .object([("unhidden", .int(id))])
    }

    /// The dashboard's card: the switch, with the time it ends.
    func privateSessionCard(_ session: PrivateSession?, now: Date, mayWrite: Bool) -> Node {
        let on = session?.isOn(at: now) == true
        return Node.el("section", ["class": "card private-session", "id": "private-session", "aria-labelledby": "private-h",
                                   "data-private-session": on ? "on" : "off"]) {
            Node.el("h2", ["id": "private-h"]) { "Private session" }
            if on, let session {
                Node.el("p", ["role": "status"]) {
                    if let until = session.until {
                        "On until \(format.time(until)): new plays are logged hidden, out of the charts, forwarding and the now-playing card."
                    } else {
                        "On until you turn it off: new plays are logged hidden, out of the charts, forwarding and the now-playing card."
                    }
                }
                if mayWrite {
                    Node.el("form", ["method": "post", "action": url("/private-session"), "class": "inline"]) {
                        Node.el("button", ["type": "submit", "name": "action", "value": "off"]) { "Turn off" }
                    }
                }
            } else {
                Node.el("p", ["class": "muted"]) { "Off. While on, new plays are logged hidden (they can be shown again on the Rules page)." }
                if mayWrite {
                    Node.el("form", ["method": "post", "action": url("/private-session"), "class": "inline"]) {
                        Node.el("input", ["type": "hidden", "name": "action", "value": "on"])
                        Node.el("label", ["for": "private-minutes"]) { "For " }
                        Node.el("select", ["id": "private-minutes", "name": "minutes"]) {
                            for choice in Self.privateSessionChoices {
                                Node.el("option", ["value": String(choice.minutes)]) { choice.label }
                            }
                        }
                        " "
                        Node.el("button", ["type": "submit"]) { "Turn on" }
                    }
                }
            }
        }
    }
}

extension APIJSON {
    static func nowCard(_ card: NowCard?, coverURL: String) -> JSONValue {
        guard let card else { return .object([("playing", .bool(false))]) }
        var fields: [(String, JSONValue)] = [("playing", .bool(true))]
        if let song = card.song { fields.append(("song", .string(song))) }
        if let artist = card.artist { fields.append(("artist", .string(artist))) }
        if let album = card.album { fields.append(("album", .string(album))) }
        if card.coverTrackID != nil { fields.append(("cover_url", .string(coverURL))) }
        if let workout = card.workout { fields.append(("workout", .string(workout))) }
        return .object(fields)
    }

    static func privateSession(_ session: PrivateSession?, at now: Date) -> JSONValue {
        let on = session?.isOn(at: now) == true
        return .object([
            ("on", .bool(on)),
            ("since", timestamp(session?.since)),
            ("until", timestamp(session?.until)),
            ("seconds_left", on ? .optional(session?.secondsLeft(at: now).map { Int64($0.rounded(.up)) }) : .null),
        ])
    }
}
