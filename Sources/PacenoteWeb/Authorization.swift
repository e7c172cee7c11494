import Logging
import PacenoteCore
import Synchronization

/// The API key check, the trusted-network rule and the access decision, in one place.
enum Authorization {
    /// The key a request carries: `Authorization: Token KEY` (ListenBrainz's form),
    /// `Authorization: Bearer KEY` or `X-API-Key: KEY`.
    /// The one reading of a key, for every route (ListenBrainz's included): `Authorization`
    /// with the Token or Bearer scheme first, else `X-API-Key`.
    static func sentKey(in request: HTTPRequest) -> String? {
        if let header = request.header("Authorization") {
            for scheme in ["Token ", "Bearer "] where header.lowercased().hasPrefix(scheme.lowercased()) {
                return String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        return request.header("X-API-Key")
    }

    static let missingKey = APIError(
        kind: .unauthorized, code: "unauthorized",
        message: "this needs the API key: send 'Authorization: Token KEY' or 'X-API-Key: KEY' (pacenote key shows it)")

    /// The scope of a key that was sent: the instance's own key (`pacenote key`) is the
    /// admin key; a named key (`pacenote key add`) has its own; nil: no valid key.
    static func scope(of sent: String, in context: APIContext) -> KeyScope? {
        if matches(sent, context.currentKey()) { return .admin }
        return context.namedKey(sent)
    }

    /// Why a sent key was refused: the instance's key may have been revoked.
    static func wrongKey(_ context: APIContext) -> APIError {
        context.currentKey() == nil
            ? APIError(kind: .unauthorized, code: "key_revoked", message: "the API key was revoked: create a new one with pacenote key --new")
            : APIError(kind: .unauthorized, code: "invalid_key", message: "the API key is not valid")
    }

    /// A valid key whose scope does not reach this route.
    static func outOfScope(_ scope: KeyScope) -> APIError {
        let what = switch scope {
        case .submit: "it may only submit listens, now-playing and heart rate"
        case .read: "it may only read"
        case .client: "it may submit, read and send likes, but not delete, import, curate or administer"
        case .admin: "it may do anything"
        }
        return APIError(kind: .forbidden, code: "insufficient_scope", message: "this is a \(scope.rawValue) key: \(what)")
    }

    /// The one comparison of a key that was sent with the current one (nil: revoked): it
    /// takes the same time whatever was sent, so the key cannot be guessed byte by byte, and
    /// it compares the full lengths (a key with anything appended is another key).
    static func matches(_ sent: String, _ key: String?) -> Bool {
        guard let key else { return false }
        let a = Array(sent.utf8), b = Array(key.utf8)
        var difference = a.count ^ b.count
        for i in 0..<max(a.count, b.count) {
            difference |= Int((i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0))
        }
        return difference == 0
    }

    /// The client's address: the peer, or behind a trusted reverse proxy the rightmost
    /// `X-Forwarded-For` address that is not a proxy (every line of the header, in order;
    /// anyone can send the header, so it counts only from a trusted proxy). nil when a
    /// proxy names no client.
    static func clientAddress(_ request: HTTPRequest, proxies: [IPNetwork]) -> String? {
        guard let peer = request.peerAddress else { return nil }
        guard proxies.containsAddress(peer) else { return peer }
        guard let forwarded = request.header("X-Forwarded-For") else { return nil }
        let chain = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return chain.last { !proxies.containsAddress($0) }
    }

    /// Whether the request came through a configured reverse proxy (whose X-Forwarded-*
    /// headers are believed).
    static func isFromTrustedProxy(_ request: HTTPRequest, proxies: [IPNetwork]) -> Bool {
        request.peerAddress.map { proxies.containsAddress($0) } ?? false
    }

    /// The headers a reverse proxy adds. From a peer that is no configured proxy they mean
    /// a proxy nobody told Pacenote about (on the same host, every client would look local),
    /// or a client pretending: either way the request is not trusted.
    static let forwardingHeaders = ["X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "Forwarded", "X-Real-IP"]

    static func isForwardedByAStranger(_ request: HTTPRequest, proxies: [IPNetwork]) -> Bool {
        !isFromTrustedProxy(request, proxies: proxies) && forwardingHeaders.contains { request.header($0) != nil }
    }

    /// The one notion of the client, for logs and every lockout (keys in headers, the login
    /// form, ListenBrainz tokens): the client address, or the peer's.
    static func client(_ request: HTTPRequest, proxies: [IPNetwork]) -> String {
        clientAddress(request, proxies: proxies) ?? request.peerAddress ?? "-"
    }

    /// Whether the request may use the trusted networks' privileges: its client is in one,
    /// it names this server in `Host` (an IP address, `localhost`, the bound host or the
    /// public URL's: a page on another site that re-points its own name at this address —
    /// DNS rebinding — sends its own name), and no proxy forwarded it that is not configured.
    static func isTrusted(_ request: HTTPRequest, in context: APIContext) -> Bool {
        guard isOwnHost(request.header("Host"), context: context) else { return false }
        if isForwardedByAStranger(request, proxies: context.trustedProxies) {
            context.notices.warnOnce("forwarded", logger: context.logger, """
                a request from \(LogText.escaped(request.peerAddress ?? "-")) carries forwarding headers (X-Forwarded-For, \
                Forwarded) but that address is not in server.trusted_proxies: such requests are treated as coming from \
                outside the trusted networks. If a reverse proxy runs there, add its address to server.trusted_proxies.
                """)
            return false
        }
        guard let client = clientAddress(request, proxies: context.trustedProxies) else { return false }
        return context.trustedNetworks.containsAddress(client)
    }

    /// Whether a `Host` header names this server: an IP literal (with or without a port),
    /// `localhost`, one of `ownHosts` (the bound host, the machine's name), or the host of
    /// `server.public_url`. A rebinding attacker's name is a domain the attacker owns: none
    /// of these.
    static func isOwnHost(_ header: String?, context: APIContext) -> Bool {
        guard let header, let host = hostName(header) else { return false }
        if host == "localhost" || IPNetwork(host) != nil { return true }
        if context.ownHosts.contains(where: { hostName($0) == host }) { return true }
        if let publicURL = context.publicURL, let own = hostName(Sessions.hostPart(publicURL)), host == own { return true }
        return false
    }

    /// `Example.org:8080` → `example.org`; `[::1]:6680` → `::1`; nil when it is no host.
    static func hostName(_ header: String) -> String? {
        // Optional whitespace around the value is spaces and tabs (RFC 9110); trimmed without
        // Foundation, whose character sets were a tenth of a request's time.
        var trimmed = Substring(header)
        while let c = trimmed.first, c == " " || c == "\t" { trimmed.removeFirst() }
        while let c = trimmed.last, c == " " || c == "\t" { trimmed.removeLast() }
        var text = trimmed.lowercased()
        if text.hasPrefix("[") {
            guard let end = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: end)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return String(text[text.index(after: text.startIndex)..<end])
        }
        if let colon = text.lastIndex(of: ":") {
            guard text[text.index(after: colon)...].allSatisfy(\.isNumber) else { return nil }
            text = String(text[..<colon])
        }
        if text.hasSuffix(".") { text.removeLast() }
        return text.isEmpty ? nil : text
    }
}

/// What the access decision allows a request that may proceed.
struct Grant: Equatable, Sendable {
    /// The client, for lockouts (`Authorization.client`).
    var client: String
    /// History and health data: a trusted network, a read or admin key, or a session.
    var mayReadPrivate: Bool
    /// The admin key or a session: the owner, to whom pages show their forms.
    var isOwner: Bool
}

extension Authorization {
    /// The access decision: from a route's declared access, the request's headers (the key
    /// and its scope, the session cookie, Origin for same-origin, Host), the trusted networks
    /// and proxies and the sessions, whether the request may proceed. It runs once per
    /// request, on the headers, before any body is read or any handler runs; a refusal is
    /// written in the route's dialect by `API.refusal`. A key that was sent is checked once,
    /// here; ten wrong ones a minute lock the client out. A request that sends a key is
    /// judged by that key's scope: a submit key reads nothing, even from a trusted network.
    static func decide(_ access: Access, for request: HTTPRequest, pathKey: String? = nil, in context: APIContext) -> Result<Grant, APIError> {
        let client = client(request, proxies: context.trustedProxies)
        let stranger = Grant(client: client, mayReadPrivate: false, isOwner: false)
        let sessions = context.sessions
        switch access {
        case .open:
            return .success(stranger)
        case .keyCheck:
            return sessions.isLockedOut(client) ? .failure(tooManyAttempts) : .success(stranger)
        case .listenBrainzToken, .listenBrainzAdminToken:
            if sessions.isLockedOut(client) { return .failure(tooManyAttempts) }
            guard let sent = sentKey(in: request) else {
                return .failure(APIError(kind: .unauthorized, code: "unauthorized", message: "You need to provide an Authorization header."))
            }
            switch scope(of: sent, in: context) {
            case .admin: return .success(Grant(client: client, mayReadPrivate: true, isOwner: true))
            case .submit: return access == .listenBrainzAdminToken ? .failure(outOfScope(.submit)) : .success(stranger)
            case .client:
                return access == .listenBrainzAdminToken
                    ? .failure(outOfScope(.client)) : .success(Grant(client: client, mayReadPrivate: true, isOwner: false))
            case .read: return .failure(outOfScope(.read))
            case nil:
                sessions.recordFailure(from: client)
                return .failure(APIError(kind: .unauthorized, code: "invalid_key", message: "Invalid authorization token."))
            }
        case .webhookKey:
            // Submit keys, and client keys (an app that scrobbles), reach this route.
            if sessions.isLockedOut(client) { return .failure(tooManyAttempts) }
            guard let sent = sentKey(in: request) ?? pathKey else { return .failure(missingKey) }
            switch scope(of: sent, in: context) {
            case .admin, .submit, .client: return .success(stranger)
            case .read: return .failure(outOfScope(.read))
            case nil:
                sessions.recordFailure(from: client)
                return .failure(wrongKey(context))
            }
        case .public, .privateRead, .write, .submit, .like:
            var keyScope: KeyScope?
            var keyError: APIError?
            if let sent = sentKey(in: request) {
                if sessions.isLockedOut(client) { return .failure(tooManyAttempts) }
                keyScope = scope(of: sent, in: context)
                if keyScope == nil {
                    keyError = wrongKey(context)
                    sessions.recordFailure(from: client)
                }
            }
            // A page on another site that may read the answer (`server.cors_origins`) is judged by
            // the key it sends alone: the browser's address (a trusted network) and its cookie
            // are the browser's, not the page's.
            let otherSite = isFromAllowedOtherSite(request, in: context)
            let session = !otherSite && (Sessions.cookie(in: request).map { sessions.isValid($0, key: context.currentKey()) } ?? false)
            let sameOriginSession = session && Sessions.isSameOrigin(request, publicURL: context.publicURL)
            // A request with a key is judged by it: a submit key sees what a stranger sees.
            let trusted = !otherSite && keyScope != .submit && isTrusted(request, in: context)
            let grant = Grant(client: client,
                              mayReadPrivate: session || keyScope?.mayRead == true || trusted,
                              isOwner: session || keyScope == .admin)
            switch access {
            case .write where keyScope == .admin || (keyScope == nil && sameOriginSession):
                return .success(grant)
            case .submit where keyScope?.maySubmit == true || (keyScope == nil && sameOriginSession):
                return .success(grant)
            case .like where keyScope?.mayLike == true || (keyScope == nil && sameOriginSession):
                return .success(grant)
            case .write, .submit, .like:
                // A logged-in browser may write too, from the page itself only (CSRF).
                if let keyScope { return .failure(outOfScope(keyScope)) }
                return .failure(keyError ?? missingKey)
            case .privateRead where keyScope?.mayRead == false:
                return .failure(outOfScope(keyScope ?? .submit))
            case .privateRead where !grant.mayReadPrivate || keyError != nil:
                // A wrong or revoked key is refused as from a stranger, even from a trusted
                // network: a request that sends a key is judged by it.
                return .failure(privateData)
            default:
                return .success(grant)
            }
        }
    }

    /// A request from a page on another site listed in `server.cors_origins` (its `Origin`),
    /// which would be allowed to read the answer.
    static func isFromAllowedOtherSite(_ request: HTTPRequest, in context: APIContext) -> Bool {
        guard !context.corsOrigins.isEmpty, WebOrigin.allowed(request.header("Origin"), in: context.corsOrigins) != nil else { return false }
        return !Sessions.isSameOrigin(request, publicURL: context.publicURL)
    }

    static let privateData = APIError(
        kind: .forbidden, code: "forbidden",
        message: "listening history and heart rate are private: from outside the trusted networks, send the API key")

    static let tooManyAttempts = APIError(kind: .tooManyRequests, code: "too_many_attempts", message: "too many wrong keys: wait a minute")
}

/// Warnings worth saying once per run, not once per request (a misconfigured proxy would
/// otherwise fill the log).
public final class SecurityNotices: Sendable {
    private let said = Mutex<Set<String>>([])

    public init() {}

    func warnOnce(_ topic: String, logger: Logger, _ message: @autoclosure () -> String) {
        guard said.withLock({ $0.insert(topic).inserted }) else { return }
        logger.warning("\(message())")
    }
}
