import Foundation
import Synchronization

/// Browser sessions, made by logging in with the API key, kept in memory (a restart logs
/// everyone out; no session secret is ever written to disk). The cookie is HttpOnly and
/// SameSite=Strict; writes through a session must also come from the same origin. A session
/// ends at its lifetime, or sooner when it goes unused for `idleTimeout`
/// (`server.session_idle_days`), whichever comes first.
public final class Sessions: Sendable {
    public static let cookieName = "pacenote_session"
    public static let lifetime: Double = 30 * 86_400
    public static let defaultIdleTimeout: Double = 7 * 86_400
    /// Seconds without a request after which a session ends.
    public let idleTimeout: Double

    /// Session id → (expiry, last use, the key it was made with): a new or revoked key ends it.
    private let sessions = Mutex<[String: (expires: Date, lastUsed: Date, key: String)]>([:])
    /// When each client (`Authorization.client`) last sent a wrong key, the newest
    /// `maxFailures` within the last `failureWindow` seconds: a sliding window, so a burst
    /// across the turn of a minute counts whole.
    private let failures = Mutex<[String: [Date]]>([:])
    static let maxFailures = 10
    static let failureWindow = 60.0

    /// The time of day (the web layer's clock).
    let clock: WebClock

    public init(idleTimeout: Double = Sessions.defaultIdleTimeout, clock: WebClock) {
        self.idleTimeout = idleTimeout
        self.clock = clock
    }

    /// A new session id: 32 random bytes, base64url.
    func create(key: String, now given: Date? = nil) -> String {
        let now = given ?? clock.now()
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let id = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        sessions.withLock { s in
            s = s.filter { isLive($0.value, now) }  // forget ended ones
            s[id] = (now.addingTimeInterval(Self.lifetime), now, key)
        }
        return id
    }

    func isValid(_ id: String, key: String?, now given: Date? = nil) -> Bool {
        let now = given ?? clock.now()
        guard let key else { return false }
        return sessions.withLock { s in
            guard let session = s[id], isLive(session, now), Authorization.matches(session.key, key) else { return false }
            s[id]?.lastUsed = now
            return true
        }
    }

    private func isLive(_ session: (expires: Date, lastUsed: Date, key: String), _ now: Date) -> Bool {
        session.expires > now && now.timeIntervalSince(session.lastUsed) < idleTimeout
    }

    func end(_ id: String) {
        sessions.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Counts a failed key (login form, header or validate-token).
    func recordFailure(from client: String, now given: Date? = nil) {
        let now = given ?? clock.now()
        failures.withLock { f in
            if f.count > 10_000 {
                // Many addresses, each with a stale failure or two: forget what has aged out.
                f = f.filter { now.timeIntervalSince($0.value.last ?? .distantPast) < Self.failureWindow }
            }
            var times = f[client, default: []].filter { now.timeIntervalSince($0) < Self.failureWindow }
            times.append(now)
            f[client] = Array(times.suffix(Self.maxFailures))
        }
    }

    /// Whether the client failed `maxFailures` times within the window: then no key it sends
    /// is even compared, so guessing costs a minute per ten tries.
    func isLockedOut(_ client: String, now given: Date? = nil) -> Bool {
        let now = given ?? clock.now()
        return failures.withLock { f in
            (f[client] ?? []).filter { now.timeIntervalSince($0) < Self.failureWindow }.count >= Self.maxFailures
        }
    }

    /// The session id in a request's cookies, if any.
    static func cookie(in request: HTTPRequest) -> String? {
        guard let header = request.header("Cookie") else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == cookieName { return pair[1] }
        }
        return nil
    }

    /// Whether a cookie-authenticated write comes from the page itself: browsers send
    /// `Sec-Fetch-Site` and `Origin` with cross-site requests, so a write whose origin is
    /// another site is refused even if a cookie came along.
    /// Behind a reverse proxy that rewrites Host, the configured public address
    /// (`server.public_url`) names the site's own origin too.
    static func isSameOrigin(_ request: HTTPRequest, publicURL: String? = nil) -> Bool {
        if let site = request.header("Sec-Fetch-Site"), site != "same-origin", site != "none" { return false }
        if let origin = request.header("Origin") {
            let bare = hostPart(origin)
            if let publicURL, bare == hostPart(publicURL) { return true }
            guard let host = request.header("Host") else { return false }
            return bare == host
        }
        return true
    }

    /// `example.org:8080` of `https://example.org:8080/path`.
    static func hostPart(_ url: String) -> String {
        url.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).first.map(String.init) ?? ""
    }
}
