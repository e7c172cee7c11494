import PacenoteCore

/// The API key check and the trusted-network rule, in one place.
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

    /// The key check. The comparison takes the same time whatever the key sent, so it
    /// cannot be guessed byte by byte.
    static func require(_ key: String?, in request: HTTPRequest) throws(APIError) {
        guard let sent = sentKey(in: request) else { throw missingKey }
        guard let key else {
            throw APIError(kind: .unauthorized, code: "key_revoked",
                           message: "the API key was revoked: create a new one with pacenote key --new")
        }
        guard constantTimeEquals(Array(sent.utf8), Array(key.utf8)) else {
            throw APIError(kind: .unauthorized, code: "invalid_key", message: "the API key is not valid")
        }
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

    /// For logs and rate limits: the client, or its peer address.
    static func client(_ request: HTTPRequest, proxies: [IPNetwork]) -> String {
        clientAddress(request, proxies: proxies) ?? request.peerAddress ?? "-"
    }

    /// Whether the client is in a trusted network.
    static func isTrusted(_ request: HTTPRequest, networks: [IPNetwork], proxies: [IPNetwork]) -> Bool {
        guard let client = clientAddress(request, proxies: proxies) else { return false }
        return networks.containsAddress(client)
    }

    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}
