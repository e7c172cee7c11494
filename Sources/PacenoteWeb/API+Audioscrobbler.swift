import Foundation
import PacenoteCore
import PacenoteStore

/// The Last.fm protocols, so that players that scrobble to Last.fm (or Libre.fm, or Maloja)
/// log into Pacenote at Maloja's paths: Audioscrobbler 2.0 at `/apis/audioscrobbler/2.0/`
/// (`auth.getMobileSession`, `track.scrobble`, `track.updateNowPlaying`) and the 1.2
/// submission protocol, whose handshake is `/apis/audioscrobbler_legacy/` (mpdscribble).
/// The user name is anything (it names the player); the password is the API key or a submit
/// key. Answers follow each protocol: 2.0's XML (`format=json`: JSON) with Last.fm's error
/// codes, 1.2's `OK` / `BADAUTH` / `BADSESSION` / `FAILED reason` lines.
///
/// Credentials (`ScrobblerCredentials`): a token logs in once (a 2.0 authToken, which
/// carries no time, never again while its key lives; a 1.2 token within 15 minutes of its
/// timestamp, and only once); a session ends 90 days after its last use, and with its key.
/// Unknown methods, malformed calls, wrong credentials, replays and unknown sessions count
/// toward the client's lockout, as a wrong key does.
extension API {
    // MARK: credentials

    /// The API key a login names, by its SHA-256 (what sessions are tied to): one that may
    /// submit (the admin key or a submit key) for which `matches(md5(key))` holds. A named
    /// key's md5 is stored sealed (`ScrobblerCredentials`); keys made before v12 have none
    /// and match plain text only.
    func scrobblerKey(plain: String? = nil, matches: (_ md5: String) -> Bool) -> String? {
        if let admin = context.currentKey() {
            if let plain, Authorization.matches(plain, admin) { return SHA256.hex(admin) }
            if matches(MD5.hex(admin)) { return SHA256.hex(admin) }
        }
        if let plain, let scope = context.namedKey(plain), scope == .admin || scope == .submit { return SHA256.hex(plain) }
        for key in (try? context.store.liveKeySealedMD5s()) ?? [] where key.scope != .read {
            guard let md5 = ScrobblerCredentials.unseal(key.sealedMD5, keySHA256: key.sha256, secret: context.scrobblerSecret)
            else { continue }
            if matches(md5) { return key.sha256 }
        }
        return nil
    }

    /// Records a login token's use: false when it was used before (a replay), which is
    /// then counted toward the client's lockout.
    func firstUse(of token: String, protocolVersion: String, keySHA256: String, expiresAt: Date?, client: String) -> Bool {
        let fresh = (try? context.operations.useScrobblerToken(id: ScrobblerCredentials.tokenID(protocolVersion: protocolVersion, token: token),
                                                              keySHA256: keySHA256, expiresAt: expiresAt)) ?? false
        if !fresh { context.sessions.recordFailure(from: client) }
        return fresh
    }

    /// The session with this key, while it is live (used within its lifetime) and the API
    /// key that opened it is still good; its use is noted. An unknown one is counted
    /// toward the client's lockout (a session key is a credential too).
    func scrobblerSession(_ key: String?, client: String) -> ScrobbleSession? {
        guard let session = liveScrobblerSession(key) else {
            context.sessions.recordFailure(from: client)
            return nil
        }
        try? context.operations.noteScrobblerSessionUse(session)
        return session
    }

    private func liveScrobblerSession(_ key: String?) -> ScrobbleSession? {
        guard let key, !key.isEmpty, key.utf8.count <= 64, let session = try? context.store.scrobbleSession(key) else { return nil }
        if let admin = context.currentKey(), SHA256.hex(admin) == session.keySHA256 { return session }
        guard let named = try? context.store.liveKey(hash: session.keySHA256), named.scope != .read else { return nil }
        return session
    }

    func newScrobblerSession(keySHA256: String, protocolVersion: String, client: String, user: String) throws -> String {
        var rng = SystemRandomNumberGenerator()
        let key = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
        try context.operations.openScrobblerSession(ScrobbleSession(
            key: key, keySHA256: keySHA256, protocolVersion: protocolVersion, client: client, user: user, createdAt: Date()))
        return key
    }

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
        context.scrobbles.record(.init(at: Date(), protocolName: protocolName, action: action, client: client, user: user,
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
        let playing = NowPlaying(player: player, state: .play, track: item.track, startedAt: Date(), playedSeconds: 0,
                                 elapsed: 0, duration: item.track.durationSeconds, at: Date())
        context.scrobbles.nowPlaying(playing)
        context.events?.publish(.nowPlaying(player: player, playing))
    }

    // MARK: Audioscrobbler 2.0

    /// Last.fm's error codes (https://www.last.fm/api/errorcodes).
    struct LastFMError: Error {
        var code: Int
        var message: String
        var status: Int
        static let invalidMethod = LastFMError(code: 3, message: "Invalid Method - No method with that name in this package", status: 400)
        static let authenticationFailed = LastFMError(
            code: 4, message: "Authentication Failed - You do not have permissions to access the service", status: 403)
        static let invalidSession = LastFMError(code: 9, message: "Invalid session key - Please re-authenticate", status: 403)
        static func invalidParameters(_ what: String) -> LastFMError {
            LastFMError(code: 6, message: "Invalid parameters - \(what)", status: 400)
        }
    }

    /// `/apis/audioscrobbler/2.0/`: the method in `method`, its fields in the query or a
    /// form body. Signatures (`api_sig`) are not checked: the secret is the client's own, any
    /// `api_key` is taken, and the API key in the password is what lets a player in.
    func audioscrobbler(_ request: HTTPRequest, client: String) -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        let json = fields["format"] == "json"
        let method = (fields["method"] ?? "").lowercased()
        let apiKey = fields["api_key"]
        do {
            switch method {
            case "auth.getmobilesession":
                return try mobileSession(fields, json: json, client: client)
            case "track.scrobble":
                guard let session = scrobblerSession(fields["sk"], client: client) else {
                    logScrobble("audioscrobbler2", "submit", client: apiKey, user: nil, outcome: "refused", reason: "invalid session key")
                    throw LastFMError.invalidSession
                }
                return try scrobble(fields, session: session, json: json, client: client)
            case "track.updatenowplaying":
                guard let session = scrobblerSession(fields["sk"], client: client) else {
                    logScrobble("audioscrobbler2", "now_playing", client: apiKey, user: nil, outcome: "refused",
                                reason: "invalid session key")
                    throw LastFMError.invalidSession
                }
                let item = Scrobble.v2NowPlaying(fields)
                guard item.accepted else {
                    logScrobble("audioscrobbler2", "now_playing", client: session.client, user: session.user, outcome: "refused",
                                ignored: 1, reason: item.ignoredMessage)
                    context.sessions.recordFailure(from: client)
                    throw LastFMError.invalidParameters(item.ignoredMessage)
                }
                announceElsewhere(item, session: session)
                logScrobble("audioscrobbler2", "now_playing", client: session.client, user: session.user, outcome: "ok", accepted: 1)
                return Self.lastFM(json, xml: "<nowplaying>\(Self.v2Fields(item))</nowplaying>",
                                   object: ("nowplaying", Self.v2JSON(item)))
            default:
                // A stranger's probe as much as a wrong key: it counts toward the lockout.
                context.sessions.recordFailure(from: client)
                logScrobble("audioscrobbler2", method.isEmpty ? "unknown" : String(method.prefix(60)), client: apiKey, user: nil,
                            outcome: "refused", reason: "no such method")
                throw LastFMError.invalidMethod
            }
        } catch let error as LastFMError {
            return Self.lastFMError(error, json: json)
        } catch {
            context.logger.error("audioscrobbler: \(error)")
            return Self.lastFMError(LastFMError(code: 16, message: "There was a temporary error processing your request. Please try again",
                                                status: 503), json: json)
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
            throw LastFMError.invalidParameters("username and password (or authToken) are required")
        }
        guard let keySHA = scrobblerKey(plain: password, matches: { token != nil && MD5.hex(user + $0) == token }) else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "refused",
                        reason: "the password is no API key that may submit")
            throw LastFMError.authenticationFailed
        }
        if password == nil, let token,
           !firstUse(of: user + "\n" + token, protocolVersion: "2.0", keySHA256: keySHA, expiresAt: nil, client: client) {
            logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "refused",
                        reason: "this authToken was used before: log in with the password (the key), or another user name")
            throw LastFMError(code: 4, message: "Authentication Failed - this authToken has been used: log in with the password",
                              status: 403)
        }
        let key = try newScrobblerSession(keySHA256: keySHA, protocolVersion: "2.0", client: fields["api_key"] ?? "", user: user)
        logScrobble("audioscrobbler2", "login", client: fields["api_key"], user: user, outcome: "ok")
        return Self.lastFM(json, xml: "<session><name>\(Self.xml(user))</name><key>\(key)</key><subscriber>0</subscriber></session>",
                           object: ("session", .object([("name", .string(user)), ("key", .string(key)), ("subscriber", .int(0))])))
    }

    /// `track.scrobble`, one or a batch: every item is answered, an ignored one with its
    /// reason; the accepted ones are stored (once, however often they are sent).
    private func scrobble(_ fields: [String: String], session: ScrobbleSession, json: Bool, client: String) throws -> HTTPResponse {
        guard let items = Scrobble.v2Scrobbles(fields) else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler2", "submit", client: session.client, user: session.user, outcome: "refused",
                        reason: "no scrobbles in the request")
            throw LastFMError.invalidParameters("no scrobbles: artist, track and timestamp are required")
        }
        let accepted = items.filter(\.accepted).count, ignored = items.count - accepted
        _ = try storeScrobbles(items, session: session)
        let reasons = items.filter { !$0.accepted }.map(\.ignoredMessage)
        logScrobble("audioscrobbler2", "submit", client: session.client, user: session.user,
                    outcome: ignored == 0 ? "ok" : accepted == 0 ? "ignored" : "partial", accepted: accepted, ignored: ignored,
                    reason: reasons.isEmpty ? nil : Array(Set(reasons)).sorted().joined(separator: "; "))
        let xmlItems = items.map { "<scrobble>\(Self.v2Fields($0, timestamp: true))</scrobble>" }.joined()
        let jsonItems = items.map { Self.v2JSON($0, timestamp: true) }
        return Self.lastFM(json, xml: "<scrobbles accepted=\"\(accepted)\" ignored=\"\(ignored)\">\(xmlItems)</scrobbles>",
                           object: ("scrobbles", .object([
                               ("@attr", .object([("accepted", .int(Int64(accepted))), ("ignored", .int(Int64(ignored)))])),
                               // Last.fm answers one scrobble as an object, a batch as a list.
                               ("scrobble", jsonItems.count == 1 ? jsonItems[0] : .array(jsonItems)),
                           ])))
    }

    static func v2Fields(_ item: Scrobble.Item, timestamp: Bool = false) -> String {
        var out = "<track corrected=\"0\">\(xml(item.title))</track><artist corrected=\"0\">\(xml(item.artist))</artist>"
            + "<album corrected=\"0\">\(xml(item.album))</album><albumArtist corrected=\"0\">\(xml(item.albumArtist))</albumArtist>"
        if timestamp { out += "<timestamp>\(xml(item.timestamp))</timestamp>" }
        return out + "<ignoredMessage code=\"\(item.ignoredCode)\">\(xml(item.ignoredMessage))</ignoredMessage>"
    }

    static func v2JSON(_ item: Scrobble.Item, timestamp: Bool = false) -> JSONValue {
        func field(_ text: String) -> JSONValue { .object([("corrected", .string("0")), ("#text", .string(text))]) }
        var fields: [(String, JSONValue)] = [("track", field(item.title)), ("artist", field(item.artist)), ("album", field(item.album)),
                                             ("albumArtist", field(item.albumArtist))]
        if timestamp { fields.append(("timestamp", .string(item.timestamp))) }
        fields.append(("ignoredMessage", .object([("code", .string(String(item.ignoredCode))), ("#text", .string(item.ignoredMessage))])))
        return .object(fields)
    }

    static func lastFM(_ json: Bool, xml body: String, object: (String, JSONValue)) -> HTTPResponse {
        if json { return .json(.object([object])) }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/xml; charset=utf-8")],
                            body: Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<lfm status=\"ok\">\(body)</lfm>\n".utf8))
    }

    static func lastFMError(_ error: LastFMError, json: Bool) -> HTTPResponse {
        if json {
            return .json(.object([("error", .int(Int64(error.code))), ("message", .string(error.message))]), status: error.status)
        }
        return HTTPResponse(status: error.status, headers: [("Content-Type", "text/xml; charset=utf-8")], body: Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <lfm status="failed"><error code="\(error.code)">\(xml(error.message))</error></lfm>

            """.utf8))
    }

    /// Text for XML content and attributes.
    static func xml(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            // XML 1.0 has no other control characters.
            case _ where c.value < 0x20 && c != "\t" && c != "\n" && c != "\r": continue
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    // MARK: Audioscrobbler 1.2

    static func legacy(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8))
    }

    /// How far a 1.2 handshake's timestamp may be from the server's clock (`BADTIME`).
    static let legacyClockSlack: TimeInterval = ScrobblerCredentials.legacyClockSlack

    /// `GET /apis/audioscrobbler_legacy/?hs=true&p=1.2&c=CLIENT&v=VERSION&u=USER&t=TS&a=TOKEN`,
    /// `a` = md5(md5(key) + t): `OK`, the session id, the now-playing and submission URLs.
    func legacyHandshake(_ request: HTTPRequest, client: String) -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        let clientID = fields["c"] ?? "", user = fields["u"] ?? ""
        // Every refusal counts toward the client's lockout: a malformed handshake too.
        func fail(_ answer: String, _ reason: String) -> HTTPResponse {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler1.2", "handshake", client: clientID, user: user, outcome: "refused", reason: reason)
            return Self.legacy(answer + "\n")
        }
        guard fields["hs"] == "true" else {
            return fail("FAILED this is the Audioscrobbler 1.2 handshake: send hs=true", "not a handshake (hs=true missing)")
        }
        guard let t = fields["t"], let seconds = Double(t), let token = fields["a"]?.lowercased(), !user.isEmpty else {
            return fail("FAILED the handshake needs u, t and a", "u, t or a missing")
        }
        guard seconds.isFinite, abs(seconds - Date().timeIntervalSince1970) <= Self.legacyClockSlack else {
            return fail("BADTIME", "the client's clock is more than \(Int(Self.legacyClockSlack / 60)) minutes off")
        }
        guard let keySHA = scrobblerKey(matches: { MD5.hex($0 + t) == token }) else {
            return fail("BADAUTH", "the password is no API key that may submit")
        }
        // Taken once: remembered until its timestamp is too old to be taken anyway.
        guard firstUse(of: t + "\n" + token, protocolVersion: "1.2", keySHA256: keySHA,
                       expiresAt: Date(timeIntervalSince1970: seconds + Self.legacyClockSlack + 1), client: client) else {
            logScrobble("audioscrobbler1.2", "handshake", client: clientID, user: user, outcome: "refused",
                        reason: "this token was used before (a replay)")
            return Self.legacy("BADAUTH\n")
        }
        do {
            let session = try newScrobblerSession(keySHA256: keySHA, protocolVersion: "1.2", client: clientID, user: user)
            let base = legacyBase(request)
            logScrobble("audioscrobbler1.2", "handshake", client: clientID, user: user, outcome: "ok")
            return Self.legacy("OK\n\(session)\n\(base)/nowplaying\n\(base)/submission\n")
        } catch {
            context.logger.error("audioscrobbler 1.2 handshake: \(error)")
            return Self.legacy("FAILED the server could not open a session\n")
        }
    }

    /// Where this server's 1.2 endpoints are, as the client reached it.
    func legacyBase(_ request: HTTPRequest) -> String {
        let root: String
        if let publicURL = context.publicURL {
            root = publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        } else {
            root = "http://" + (request.header("Host") ?? "127.0.0.1") + context.basePath
        }
        return root + "/apis/audioscrobbler_legacy"
    }

    /// `POST …/nowplaying`: `s`, `a`, `t`, `b`, `l`, `n`, `m`.
    func legacyNowPlaying(_ request: HTTPRequest, client: String) -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        guard let session = scrobblerSession(fields["s"], client: client) else {
            logScrobble("audioscrobbler1.2", "now_playing", client: nil, user: nil, outcome: "refused", reason: "invalid session id")
            return Self.legacy("BADSESSION\n")
        }
        let item = Scrobble.legacyNowPlaying(fields)
        guard item.accepted else {
            logScrobble("audioscrobbler1.2", "now_playing", client: session.client, user: session.user, outcome: "refused",
                        ignored: 1, reason: item.ignoredMessage)
            return Self.legacy("FAILED \(item.ignoredMessage)\n")
        }
        announceElsewhere(item, session: session)
        logScrobble("audioscrobbler1.2", "now_playing", client: session.client, user: session.user, outcome: "ok", accepted: 1)
        return Self.legacy("OK\n")
    }

    /// `POST …/submission`: `s` and up to 50 scrobbles `a[i]`, `t[i]`, `i[i]`, …. The
    /// usable ones are stored and the answer is `OK`; the others are noted with their
    /// reason in the submission log (a `FAILED` would make the client send them forever).
    func legacySubmit(_ request: HTTPRequest, client: String) -> HTTPResponse {
        let fields = Self.scrobblerFields(request)
        guard let session = scrobblerSession(fields["s"], client: client) else {
            logScrobble("audioscrobbler1.2", "submit", client: nil, user: nil, outcome: "refused", reason: "invalid session id")
            return Self.legacy("BADSESSION\n")
        }
        guard let items = Scrobble.legacySubmissions(fields) else {
            context.sessions.recordFailure(from: client)
            logScrobble("audioscrobbler1.2", "submit", client: session.client, user: session.user, outcome: "failed",
                        reason: "no scrobbles in the request")
            return Self.legacy("FAILED no scrobbles: a[0], t[0] and i[0] are required\n")
        }
        do {
            _ = try storeScrobbles(items, session: session)
        } catch {
            context.logger.error("audioscrobbler 1.2 submission: \(error)")
            logScrobble("audioscrobbler1.2", "submit", client: session.client, user: session.user, outcome: "failed",
                        reason: "the database could not store them")
            return Self.legacy("FAILED the server could not store the scrobbles\n")
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
