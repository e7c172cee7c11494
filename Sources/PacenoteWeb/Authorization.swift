import PacenoteCore

/// The API key check, the trusted-network rule and the access decision, in one place.
enum Authorization {
    /// The key a request carries: `Authorization: Token KEY` (ListenBrainz's form),
    /// `Authorization: Bearer KEY` or `X-API-Key: KEY`.
    static func sentKey(in request: HTTPRequest) -> String? {
        if let key = request.header("X-API-Key") { return key }
        guard let header = request.header("Authorization") else { return nil }
        for scheme in ["Token ", "Bearer "] where header.lowercased().hasPrefix(scheme.lowercased()) {
            return String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    static let missingKey = APIError(
        kind: .unauthorized, code: "unauthorized",
        message: "this needs the API key: send 'Authorization: Token KEY' or 'X-API-Key: KEY' (pacenote key shows it)")

    /// The key check for a request that sends one in its headers.
    static func require(_ key: String?, in request: HTTPRequest) throws(APIError) {
        guard let sent = sentKey(in: request) else { throw missingKey }
        guard let key else {
            throw APIError(kind: .unauthorized, code: "key_revoked",
                           message: "the API key was revoked: create a new one with pacenote key --new")
        }
        guard matches(sent, key) else {
            throw APIError(kind: .unauthorized, code: "invalid_key", message: "the API key is not valid")
        }
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

    /// The one notion of the client, for logs and every lockout (keys in headers, the login
    /// form, ListenBrainz tokens): the client address, or the peer's.
    static func client(_ request: HTTPRequest, proxies: [IPNetwork]) -> String {
        clientAddress(request, proxies: proxies) ?? request.peerAddress ?? "-"
    }

    /// Whether the client is in a trusted network.
    static func isTrusted(_ request: HTTPRequest, networks: [IPNetwork], proxies: [IPNetwork]) -> Bool {
        guard let client = clientAddress(request, proxies: proxies) else { return false }
        return networks.containsAddress(client)
    }
}

/// What the access decision allows a request that may proceed.
struct Grant: Equatable, Sendable {
    /// The client, for lockouts (`Authorization.client`).
    var client: String
    /// History and health data: a trusted network, the key or a session.
    var mayReadPrivate: Bool
    /// The key or a session: the owner, to whom pages show their forms.
    var isOwner: Bool
}

extension Authorization {
    /// The access decision: from a route's declared access, the request's headers (the key,
    /// the session cookie, Origin for same-origin), the trusted networks and proxies and the
    /// sessions, whether the request may proceed. It runs once per request, on the headers,
    /// before any body is read or any handler runs; a refusal is written in the route's
    /// dialect by `API.refusal`. A key that was sent is compared once, here; ten wrong ones
    /// a minute lock the client out.
    static func decide(_ access: Access, for request: HTTPRequest, in context: APIContext) -> Result<Grant, APIError> {
        let client = client(request, proxies: context.trustedProxies)
        let stranger = Grant(client: client, mayReadPrivate: false, isOwner: false)
        let sessions = context.sessions
        switch access {
        case .open:
            return .success(stranger)
        case .keyCheck:
            return sessions.isLockedOut(client) ? .failure(tooManyAttempts) : .success(stranger)
        case .listenBrainzToken:
            if sessions.isLockedOut(client) { return .failure(tooManyAttempts) }
            guard let sent = listenBrainzToken(in: request) else {
                return .failure(APIError(kind: .unauthorized, code: "unauthorized", message: "You need to provide an Authorization header."))
            }
            guard matches(sent, context.currentKey()) else {
                sessions.recordFailure(from: client)
                return .failure(APIError(kind: .unauthorized, code: "invalid_key", message: "Invalid authorization token."))
            }
            return .success(Grant(client: client, mayReadPrivate: true, isOwner: true))
        case .public, .privateRead, .write:
            let key = context.currentKey()
            var keyAccepted = false
            var keyError: APIError?
            if sentKey(in: request) != nil {
                if sessions.isLockedOut(client) { return .failure(tooManyAttempts) }
                do {
                    try require(key, in: request)
                    keyAccepted = true
                } catch {
                    keyError = error
                    if error.code == "invalid_key" { sessions.recordFailure(from: client) }
                }
            }
            let session = Sessions.cookie(in: request).map { sessions.isValid($0, key: key) } ?? false
            let grant = Grant(client: client,
                              mayReadPrivate: session || keyAccepted
                                || isTrusted(request, networks: context.trustedNetworks, proxies: context.trustedProxies),
                              isOwner: session || keyAccepted)
            switch access {
            case .write where !keyAccepted && !(session && Sessions.isSameOrigin(request, publicURL: context.publicURL)):
                // A logged-in browser may write too, from the page itself only (CSRF).
                return .failure(keyError ?? missingKey)
            case .privateRead where !grant.mayReadPrivate:
                return .failure(APIError(kind: .forbidden, code: "forbidden",
                                         message: "listening history and heart rate are private: from outside the trusted networks, send the API key"))
            default:
                return .success(grant)
            }
        }
    }

    static let tooManyAttempts = APIError(kind: .tooManyRequests, code: "too_many_attempts", message: "too many wrong keys: wait a minute")

    /// ListenBrainz's token: `Authorization: Token …` (or Bearer), else `X-API-Key`.
    static func listenBrainzToken(in request: HTTPRequest) -> String? {
        guard let header = request.header("Authorization") else { return request.header("X-API-Key") }
        for scheme in ["Token ", "Bearer "] where header.lowercased().hasPrefix(scheme.lowercased()) {
            return String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
