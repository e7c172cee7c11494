import Foundation
import PacenoteCore
import PacenoteStore

/// The Last.fm protocols, so that players that scrobble to Last.fm (or Libre.fm, or Maloja)
/// log into Pacenote at Maloja's paths: Audioscrobbler 2.0 at `/apis/audioscrobbler/2.0/`
/// (`auth.getMobileSession`, `track.scrobble`, `track.updateNowPlaying`; the reads and loves
/// apps call are in API+LastFMReads.swift) and the 1.2
/// submission protocol, whose handshake is `/apis/audioscrobbler_legacy/` (mpdscribble).
/// The user name is anything (it names the player); the password is the API key or a submit
/// key. Answers follow each protocol: 2.0's XML (`format=json`: JSON) with Last.fm's error
/// codes, 1.2's `OK` / `BADAUTH` / `BADSESSION` / `FAILED reason` lines.
///
/// Credentials are judged by `Authorization` (Authorization+Scrobblers.swift); refusals are
/// thrown in the protocol's words (`APIError.lastFM`, `.audioscrobbler1`) and written by the
/// route's `ErrorDialect`.
extension API {
    /// A request's fields: the query and a form body together (pylast sends `username` in
    /// the query and the rest in the body).
    static func scrobblerFields(_ request: HTTPRequest) -> [String: String] {
        request.query.merging(Scrobble.formFields(request.body)) { query, _ in query }
    }

    /// The source and the player of a scrobbler's plays: mpdscribble (1.2 client id `mdc`)
    /// is `mpdscribble`; other 1.2 clients `audioscrobbler:CLIENT`, 2.0 clients
    /// `audioscrobbler`. The user name the player logged in with names the player.
    static func scrobblerSource(_ session: ScrobbleSession) -> (source: String, player: String) {
        let source = session.protocolVersion == "2.0" ? "audioscrobbler"
            : session.client == "mdc" ? "mpdscribble" : "audioscrobbler:" + session.client
        let player = session.user.isEmpty ? (session.client == "mdc" ? "mpdscribble" : session.client) : session.user
        return (source, player)
    }

    func logScrobble(_ protocolName: String, _ action: String, client: String?, user: String?, outcome: String,
                     accepted: Int = 0, ignored: Int = 0, reason: String? = nil) {
        context.scrobbles.record(.init(at: context.clock.now(), protocolName: protocolName, action: action, client: client, user: user,
                                       outcome: outcome, accepted: accepted, ignored: ignored, reason: reason))
    }

    /// Stores the accepted items; returns how many were new.
    func storeScrobbles(_ items: [Scrobble.Item], session: ScrobbleSession) throws -> Int {
        let (source, player) = Self.scrobblerSource(session)
        let accepted = items.filter(\.accepted)
        guard !accepted.isEmpty else { return 0 }
        context.scrobbles.played(player: player)
        return try context.operations.recordScrobbles(accepted.map { ($0.track, $0.startedAt, player) }, source: source).count
    }

    func announceElsewhere(_ item: Scrobble.Item, session: ScrobbleSession) {
        let player = Self.scrobblerSource(session).player
        let playing = NowPlaying(player: player, state: .play, track: item.track, startedAt: context.clock.now(), playedSeconds: 0,
                                 elapsed: 0, duration: item.track.durationSeconds, at: context.clock.now())
        context.scrobbles.nowPlaying(playing)
        context.events?.publish(.nowPlaying(player: player, playing))
    }

    // MARK: Audioscrobbler 2.0

    /// `/apis/audioscrobbler/2.0/`: the method in `method`, its fields in the query or a
    /// form body.
    func audioscrobbler(_ request: HTTPRequest, client: String) throws -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        let json = fields["format"] == "json"
        let method = (fields["method"] ?? "").lowercased()
        let apiKey = fields["api_key"]
        do {
            switch method {
            case "auth.getmobilesession":
                return try mobileSession(fields, json: json, client: client)
            case "track.scrobble":
                guard let session = Authorization.scrobblerSession(fields["sk"], client: client, in: context) else {
                    logScrobble("audioscrobbler2", "submit", client: apiKey, user: nil, outcome: "refused", reason: "invalid session key")
                    throw APIError.lastFMInvalidSession
                }
                return try scrobble(fields, session: session, json: json, client: client)
            case "track.updatenowplaying":
                guard let session = Authorization.scrobblerSession(fields["sk"], client: client, in: context) else {
                    logScrobble("audioscrobbler2", "now_playing", client: apiKey, user: nil, outcome: "refused",
                                reason: "invalid session key")
                    throw APIError.lastFMInvalidSession
                }
                let item = Scrobble.v2NowPlaying(fields)
                guard item.accepted else {
                    logScrobble("audioscrobbler2", "now_playing", client: session.client, user: session.user, outcome: "refused",
                                ignored: 1, reason: item.ignoredMessage)
                    context.sessions.recordFailure(from: client)
                    throw APIError.lastFMInvalidParameters(item.ignoredMessage)
                }
                announceElsewhere(item, session: session)
                logScrobble("audioscrobbler2", "now_playing", client: session.client, user: session.user, outcome: "ok", accepted: 1)
                return Self.lastFM(json, xml: .el("nowplaying") { Self.v2Fields(item) }, object: ("nowplaying", Self.v2JSON(item)))
            case let read where Self.lastFMReadMethods.contains(read):
                try Authorization.lastFMReader(fields, request, client: client, in: context)
                return try lastFMRead(read, fields, request, json: json)
            case "track.love", "track.unlove":
                return try lastFMLove(fields, love: method == "track.love", json: json, client: client)
            default:
                // A stranger's probe as much as a wrong key: it counts toward the lockout.
                context.sessions.recordFailure(from: client)
                logScrobble("audioscrobbler2", method.isEmpty ? "unknown" : String(method.prefix(60)), client: apiKey, user: nil,
                            outcome: "refused", reason: "no such method")
                throw APIError.lastFM(3, "Invalid Method - No method with that name in this package", .badRequest)
            }
        } catch let error as APIError where error.style.isProtocolAnswer {
            throw error
        } catch {
            context.logger.error("audioscrobbler: \(error)")
            throw APIError.lastFM(16, "There was a temporary error processing your request. Please try again", .unavailable)
        }
    }

    /// `auth.getMobileSession`: `username` and `password` (the key itself), or `username`
    /// and `authToken` = md5(username + md5(key)) as pylast sends it. An authToken is the
    /// same at every login of a user name with a key, so it logs in once: sent again (a
    /// replay, or the player logging in afresh) it is refused; the player then logs in with
    /// `password`, or another user name.
    private func mobileSession(_ fields: [String: String], json: Bool, client: String) throws -> HTTPResponse {
        let user = fields["username"] ?? ""
        let password = fields["password"], token = fields["authToken"]?.lowercased()
        guard !user.isEmpty, password != nil || token != nil else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "refused",
                        reason: "username and password (or authToken) are required")
            throw APIError.lastFMInvalidParameters("username and password (or authToken) are required")
        }
        guard let keySHA = Authorization.scrobblerKey(plain: password, in: context, matches: { token != nil && MD5.hex(user + $0) == token })
        else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "refused",
                        reason: "the password is no API key that may submit")
            throw APIError.lastFMAuthenticationFailed
        }
        if password == nil, let token,
           !Authorization.firstUse(of: user + "\n" + token, protocolVersion: "2.0", keySHA256: keySHA, expiresAt: nil, client: client,
                                   in: context) {
            logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "refused",
                        reason: "this authToken was used before: log in with the password (the key), or another user name")
            throw APIError.lastFM(4, "Authentication Failed - this authToken has been used: log in with the password", .forbidden)
        }
        let key = try Authorization.newScrobblerSession(keySHA256: keySHA, protocolVersion: "2.0", client: fields["api_key"] ?? "",
                                                        user: user, in: context)
        logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "ok")
        let session = Node.el("session") {
            Node.el("name") { user }
            Node.el("key") { key }
            Node.el("subscriber") { "0" }
        }
        return Self.lastFM(json, xml: session, object: ("session", .object([("name", .string(user)), ("key", .string(key)), ("subscriber", .int(0))])))
    }

    /// `track.scrobble`, one or a batch: every item is answered, an ignored one with its
    /// reason; the accepted ones are stored (once, however often they are sent).
    private func scrobble(_ fields: [String: String], session: ScrobbleSession, json: Bool, client: String) throws -> HTTPResponse {
        guard let items = Scrobble.v2Scrobbles(fields) else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler2", "submit", client: session.client, user: session.user, outcome: "refused",
                        reason: "no scrobbles in the request")
            throw APIError.lastFMInvalidParameters("no scrobbles: artist, track and timestamp are required")
        }
        let accepted = items.filter(\.accepted).count, ignored = items.count - accepted
        _ = try storeScrobbles(items, session: session)
        let reasons = items.filter { !$0.accepted }.map(\.ignoredMessage)
        logScrobble("audioscrobbler2", "submit", client: session.client, user: session.user,
                    outcome: ignored == 0 ? "ok" : accepted == 0 ? "ignored" : "partial", accepted: accepted, ignored: ignored,
                    reason: reasons.isEmpty ? nil : Array(Set(reasons)).sorted().joined(separator: "; "))
        let jsonItems = items.map { Self.v2JSON($0, timestamp: true) }
        let scrobbles = Node.el("scrobbles", ["accepted": String(accepted), "ignored": String(ignored)]) {
            items.map { item in Node.el("scrobble") { Self.v2Fields(item, timestamp: true) } }
        }
        return Self.lastFM(json, xml: scrobbles, object: ("scrobbles", .object([
                               ("@attr", .object([("accepted", .int(Int64(accepted))), ("ignored", .int(Int64(ignored)))])),
                               // Last.fm answers one scrobble as an object, a batch as a list.
                               ("scrobble", jsonItems.count == 1 ? jsonItems[0] : .array(jsonItems)),
                           ])))
    }

    static func v2Fields(_ item: Scrobble.Item, timestamp: Bool = false) -> Node {
        .group {
            Node.el("track", ["corrected": "0"]) { item.title }
            Node.el("artist", ["corrected": "0"]) { item.artist }
            Node.el("album", ["corrected": "0"]) { item.album }
            Node.el("albumArtist", ["corrected": "0"]) { item.albumArtist }
            if timestamp { Node.el("timestamp") { item.timestamp } }
            Node.el("ignoredMessage", ["code": String(item.ignoredCode)]) { item.ignoredMessage }
        }
    }

    static func v2JSON(_ item: Scrobble.Item, timestamp: Bool = false) -> JSONValue {
        func field(_ text: String) -> JSONValue { .object([("corrected", .string("0")), ("#text", .string(text))]) }
        var fields: [(String, JSONValue)] = [("track", field(item.title)), ("artist", field(item.artist)), ("album", field(item.album)),
                                             ("albumArtist", field(item.albumArtist))]
        if timestamp { fields.append(("timestamp", .string(item.timestamp))) }
        fields.append(("ignoredMessage", .object([("code", .string(String(item.ignoredCode))), ("#text", .string(item.ignoredMessage))])))
        return .object(fields)
    }

    static func lastFM(_ json: Bool, xml body: Node, object: (String, JSONValue)) -> HTTPResponse {
        if json { return .json(.object([object])) }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/xml; charset=utf-8")],
                            body: Node.el("lfm", ["status": "ok"]) { body }.xmlDocument())
    }

    /// An error in Last.fm's words (`ErrorDialect.lastFM`): its code and message, in XML or,
    /// with `format=json`, JSON.
    static func lastFMError(_ error: APIError, json: Bool) -> HTTPResponse {
        guard case .lastFM(let code) = error.style else { return HTTPResponse(apiError: error) }
        if json {
            return .json(.object([("error", .int(Int64(code))), ("message", .string(error.message))]), status: error.status)
        }
        return HTTPResponse(status: error.status, headers: [("Content-Type", "text/xml; charset=utf-8")],
                            body: Node.el("lfm", ["status": "failed"]) { Node.el("error", ["code": String(code)]) { error.message } }
                                .xmlDocument())
    }

    // MARK: Audioscrobbler 1.2

    static func legacy(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// How far a 1.2 handshake's timestamp may be from the server's clock (`BADTIME`).
    static let legacyClockSlack: TimeInterval = ScrobblerCredentials.legacyClockSlack

    /// `GET /apis/audioscrobbler_legacy/?hs=true&p=1.2&c=CLIENT&v=VERSION&u=USER&t=TS&a=TOKEN`,
    /// `a` = md5(md5(key) + t): `OK`, the session id, the now-playing and submission URLs.
    func legacyHandshake(_ request: HTTPRequest, client: String) throws -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        let clientID = fields["c"] ?? "", user = fields["u"] ?? ""
        // Every refusal counts toward the client's lockout: a malformed handshake too.
        func fail(_ answer: String, _ reason: String) -> APIError {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler1.2", "handshake", client: clientID, user: user, outcome: "refused", reason: reason)
            return .audioscrobbler1(answer)
        }
        guard fields["hs"] == "true" else {
            throw fail("FAILED this is the Audioscrobbler 1.2 handshake: send hs=true", "not a handshake (hs=true missing)")
        }
        guard let t = fields["t"], let seconds = Double(t), let token = fields["a"]?.lowercased(), !user.isEmpty else {
            throw fail("FAILED the handshake needs u, t and a", "u, t or a missing")
        }
        guard seconds.isFinite, abs(seconds - context.clock.now().timeIntervalSince1970) <= Self.legacyClockSlack else {
            throw fail("BADTIME", "the client's clock is more than \(Int(Self.legacyClockSlack / 60)) minutes off")
        }
        guard let keySHA = Authorization.scrobblerKey(in: context, matches: { MD5.hex($0 + t) == token }) else {
            throw fail("BADAUTH", "the password is no API key that may submit")
        }
        // Taken once: remembered until its timestamp is too old to be taken anyway.
        guard Authorization.firstUse(of: t + "\n" + token, protocolVersion: "1.2", keySHA256: keySHA,
                                     expiresAt: Date(timeIntervalSince1970: seconds + Self.legacyClockSlack + 1), client: client,
                                     in: context) else {
            logScrobble("audioscrobbler1.2", "handshake", client: clientID, user: user, outcome: "refused",
                        reason: "this token was used before (a replay)")
            throw APIError.audioscrobbler1("BADAUTH")
        }
        do {
            let session = try Authorization.newScrobblerSession(keySHA256: keySHA, protocolVersion: "1.2", client: clientID, user: user,
                                                                in: context)
            let base = legacyBase(request)
            logScrobble("audioscrobbler1.2", "handshake", client: clientID, user: user, outcome: "ok")
            return Self.legacy("OK\n\(session)\n\(base)/nowplaying\n\(base)/submission\n")
        } catch {
            context.logger.error("audioscrobbler 1.2 handshake: \(error)")
            throw APIError.audioscrobbler1("FAILED the server could not open a session")
        }
    }

    /// Where this server's 1.2 endpoints are, as the client reached it.
    func legacyBase(_ request: HTTPRequest) -> String {
        siteRoot(request) + "/apis/audioscrobbler_legacy"
    }

    /// `POST …/nowplaying`: `s`, `a`, `t`, `b`, `l`, `n`, `m`.
    func legacyNowPlaying(_ request: HTTPRequest, client: String) throws -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        guard let session = Authorization.scrobblerSession(fields["s"], client: client, in: context) else {
            logScrobble("audioscrobbler1.2", "now_playing", client: nil, user: nil, outcome: "refused", reason: "invalid session id")
            throw APIError.audioscrobbler1("BADSESSION")
        }
        let item = Scrobble.legacyNowPlaying(fields)
        guard item.accepted else {
            logScrobble("audioscrobbler1.2", "now_playing", client: session.client, user: session.user, outcome: "refused",
                        ignored: 1, reason: item.ignoredMessage)
            throw APIError.audioscrobbler1("FAILED \(item.ignoredMessage)")
        }
        announceElsewhere(item, session: session)
        logScrobble("audioscrobbler1.2", "now_playing", client: session.client, user: session.user, outcome: "ok", accepted: 1)
        return Self.legacy("OK\n")
    }

    /// `POST …/submission`: `s` and up to 50 scrobbles `a[i]`, `t[i]`, `i[i]`, …. The
    /// usable ones are stored and the answer is `OK`; the others are noted with their
    /// reason in the submission log (a `FAILED` would make the client send them forever).
    func legacySubmit(_ request: HTTPRequest, client: String) throws -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        guard let session = Authorization.scrobblerSession(fields["s"], client: client, in: context) else {
            logScrobble("audioscrobbler1.2", "submit", client: nil, user: nil, outcome: "refused", reason: "invalid session id")
            throw APIError.audioscrobbler1("BADSESSION")
        }
        guard let items = Scrobble.legacySubmissions(fields) else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler1.2", "submit", client: session.client, user: session.user, outcome: "failed",
                        reason: "no scrobbles in the request")
            throw APIError.audioscrobbler1("FAILED no scrobbles: a[0], t[0] and i[0] are required")
        }
        do {
            _ = try storeScrobbles(items, session: session)
        } catch {
            context.logger.error("audioscrobbler 1.2 submission: \(error)")
            logScrobble("audioscrobbler1.2", "submit", client: session.client, user: session.user, outcome: "failed",
                        reason: "the database could not store them")
            throw APIError.audioscrobbler1("FAILED the server could not store the scrobbles")
        }
        let accepted = items.filter(\.accepted).count, ignored = items.count - accepted
        let reasons = items.filter { !$0.accepted }.map(\.ignoredMessage)
        logScrobble("audioscrobbler1.2", "submit", client: session.client, user: session.user,
                    outcome: ignored == 0 ? "ok" : accepted == 0 ? "ignored" : "partial", accepted: accepted, ignored: ignored,
                    reason: reasons.isEmpty ? nil : Array(Set(reasons)).sorted().joined(separator: "; "))
        return Self.legacy("OK\n")
    }

    // MARK: GET /api/v1/submissions

    func submissionsJSON(_ query: [String: String]) -> JSONValue {
        let entries = context.scrobbles.entries()
        return .object([
            ("submissions", .array(entries.map { e in
                .object([
                    ("at", .string(ISO8601.string(e.at))), ("protocol", .string(e.protocolName)), ("action", .string(e.action)),
                    ("client", .optional(e.client)), ("user", .optional(e.user)), ("outcome", .string(e.outcome)),
                    ("accepted", .int(Int64(e.accepted))), ("ignored", .int(Int64(e.ignored))), ("reason", .optional(e.reason)),
                ])
            })),
            ("capacity", .int(Int64(ScrobbleState.capacity))),
        ])
    }
}

extension APIError {
    /// An error in Last.fm's words (https://www.last.fm/api/errorcodes): its code, message
    /// and status (`ErrorDialect.lastFM`).
    static func lastFM(_ code: Int, _ message: String, _ kind: Kind) -> APIError {
        var error = APIError(kind: kind, code: "lastfm_\(code)", message: message)
        error.style = .lastFM(code)
        return error
    }

    static let lastFMAuthenticationFailed = lastFM(4, "Authentication Failed - You do not have permissions to access the service", .forbidden)
    static let lastFMInvalidSession = lastFM(9, "Invalid session key - Please re-authenticate", .forbidden)
    static func lastFMInvalidParameters(_ what: String) -> APIError { lastFM(6, "Invalid parameters - \(what)", .badRequest) }

    /// An Audioscrobbler 1.2 refusal: its whole line (`BADAUTH`, `FAILED reason`), sent with
    /// 200 (`ErrorDialect.audioscrobbler1`).
    static func audioscrobbler1(_ line: String) -> APIError {
        var error = APIError(kind: .badRequest, code: "audioscrobbler", message: line)
        error.style = .audioscrobbler1(line)
        return error
    }
}
