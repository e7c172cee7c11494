import PacenoteCore

/// The API key check and the trusted-network rule, in one place.
enum Authorization {
    /// Accepts `Authorization: Token KEY` (ListenBrainz's form), `Authorization: Bearer KEY`
    /// and `X-API-Key: KEY`. The comparison takes the same time whatever the key sent, so
    /// it cannot be guessed byte by byte.
    static func require(_ key: String?, in request: HTTPRequest) throws(APIError) {
        var sent = request.header("X-API-Key")
        if sent == nil, let header = request.header("Authorization") {
            for scheme in ["Token ", "Bearer "] where header.lowercased().hasPrefix(scheme.lowercased()) {
                sent = String(header.dropFirst(scheme.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        guard let sent else {
            throw APIError(kind: .unauthorized, code: "unauthorized",
                           message: "this needs the API key: send 'Authorization: Token KEY' or 'X-API-Key: KEY' (pacenote key shows it)")
        }
        guard let key else {
            throw APIError(kind: .unauthorized, code: "key_revoked",
                           message: "the API key was revoked: create a new one with pacenote key --new")
        }
        guard constantTimeEquals(Array(sent.utf8), Array(key.utf8)) else {
            throw APIError(kind: .unauthorized, code: "invalid_key", message: "the API key is not valid")
        }
    }

    /// Whether the client is in a trusted network. Behind a trusted reverse proxy, the
    /// client is the rightmost `X-Forwarded-For` address that is not a proxy itself;
    /// otherwise the header is ignored (anyone can send it).
    static func isTrusted(_ request: HTTPRequest, networks: [IPNetwork], proxies: [IPNetwork]) -> Bool {
        guard var client = request.peerAddress else { return false }
        if proxies.containsAddress(client), let forwarded = request.header("X-Forwarded-For") {
            let chain = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            client = chain.last { !proxies.containsAddress($0) } ?? chain.first ?? client
        }
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
