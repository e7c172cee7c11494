import Foundation
import PacenoteCore
import PacenoteStore

/// The Last.fm protocols' credentials, judged here like every other credential: they come
/// in the body (the access decision saw only the lockout, `Access.keyCheck`), so their
/// handlers ask these once the body is in.
///
/// `ScrobblerCredentials`: a token logs in once (a 2.0 authToken, which carries no time,
/// never again while its key lives; a 1.2 token within 15 minutes of its timestamp, and only
/// once); a session ends 90 days after its last use, and with its key. Wrong credentials,
/// replays and unknown sessions count toward the client's lockout, as a wrong key does.
/// Audioscrobbler 2.0's `api_sig` is not checked: the secret is the client's own, any
/// `api_key` is taken, and the API key in the password is what lets a player in.
extension Authorization {
    /// The API key a login names, by its SHA-256 (what sessions are tied to): one that may
    /// submit (the admin key, a submit or a client key) that is `plain`, or for which
    /// `matches(md5(key))` holds. A named key's md5 is stored sealed (`ScrobblerCredentials`);
    /// keys made before v12 have none and match plain text only.
    static func scrobblerKey(plain: String? = nil, in context: APIContext, matches: (_ md5: String) -> Bool) -> String? {
        if let admin = context.currentKey() {
            if let plain, Authorization.matches(plain, admin) { return SHA256.hex(admin) }
            if matches(MD5.hex(admin)) { return SHA256.hex(admin) }
        }
        if let plain, let scope = context.namedKey(plain), scope.maySubmit { return SHA256.hex(plain) }
        for key in (try? context.store.liveKeySealedMD5s()) ?? [] where key.scope != .read {
            guard let md5 = ScrobblerCredentials.unseal(key.sealedMD5, keySHA256: key.sha256, secret: context.scrobblerSecret)
            else { continue }
            if matches(md5) { return key.sha256 }
        }
        return nil
    }

    /// Records a login token's use: false when it was used before (a replay), which is
    /// then counted toward the client's lockout.
    static func firstUse(of token: String, protocolVersion: String, keySHA256: String, expiresAt: Date?, client: String,
                         in context: APIContext) -> Bool {
        let fresh = (try? context.operations.useScrobblerToken(id: ScrobblerCredentials.tokenID(protocolVersion: protocolVersion, token: token),
                                                         keySHA256: keySHA256, expiresAt: expiresAt)) ?? false
        if !fresh { context.sessions.recordFailure(from: client) }
        return fresh
    }

    /// The session with this key, while it is live (used within its lifetime) and the API
    /// key that opened it is still good; its use is noted. An unknown one is counted
    /// toward the client's lockout (a session key is a credential too).
    static func scrobblerSession(_ key: String?, client: String, in context: APIContext) -> ScrobbleSession? {
        guard let session = liveScrobblerSession(key, in: context) else {
            context.sessions.recordFailure(from: client)
            return nil
        }
        try? context.operations.noteScrobblerSessionUse(session)
        return session
    }

    private static func liveScrobblerSession(_ key: String?, in context: APIContext) -> ScrobbleSession? {
        guard let key, !key.isEmpty, key.utf8.count <= 64, let session = try? context.store.scrobbleSession(key) else { return nil }
        if let admin = context.currentKey(), SHA256.hex(admin) == session.keySHA256 { return session }
        guard let named = try? context.store.liveKey(hash: session.keySHA256), named.scope != .read else { return nil }
        return session
    }

    /// A new session for a login the checks above let in: 16 random bytes, hex.
    static func newScrobblerSession(keySHA256: String, protocolVersion: String, client: String, user: String,
                                    in context: APIContext) throws -> String {
        var rng = SystemRandomNumberGenerator()
        let key = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
        try context.operations.openScrobblerSession(ScrobbleSession(
            key: key, keySHA256: keySHA256, protocolVersion: protocolVersion, client: client, user: user, createdAt: context.clock.now()))
        return key
    }
}

/// Who may call Last.fm 2.0's reads and loves (API+LastFMReads.swift), decided here with the
/// other credentials.
extension Authorization {
    /// The scope of the key that opened a session: the admin key's, else the named key's
    /// (nil once it is revoked).
    static func scope(of session: ScrobbleSession, in context: APIContext) -> KeyScope? {
        if let admin = context.currentKey(), SHA256.hex(admin) == session.keySHA256 { return .admin }
        return (try? context.store.liveKey(hash: session.keySHA256))?.scope
    }

    /// Keys whose sessions or `api_key` may read the history through Last.fm's methods:
    /// those that read it elsewhere.
    static func lastFMMayRead(_ scope: KeyScope) -> Bool { scope == .admin || scope == .read || scope == .client }

    /// Keys whose sessions may love and unlove: those that may send ListenBrainz feedback.
    static func lastFMMayLove(_ scope: KeyScope) -> Bool { scope == .admin || scope == .submit || scope == .client }

    /// Lets a Last.fm read in, or throws Last.fm's error: a session key (`sk`, pylast sends
    /// it with every call once logged in) is judged alone — unknown: 9, of a key that may not
    /// read: 4; without one, a Pacenote key as `api_key` (one that may not read: 4), else a
    /// trusted network; else 10, counted toward the client's lockout like a wrong key. Any
    /// other `api_key` is a client's own Last.fm key and means nothing here.
    static func lastFMReader(_ fields: [String: String], _ request: HTTPRequest, client: String, in context: APIContext) throws {
        if let sk = fields["sk"], !sk.isEmpty {
            guard let session = scrobblerSession(sk, client: client, in: context) else { throw APIError.lastFMInvalidSession }
            guard let scope = scope(of: session, in: context), lastFMMayRead(scope) else {
                throw APIError.lastFM(4, "Authentication Failed - this session's key may not read the history", .forbidden)
            }
            return
        }
        if let apiKey = fields["api_key"], !apiKey.isEmpty, let scope = scope(of: apiKey, in: context) {
            guard lastFMMayRead(scope) else {
                throw APIError.lastFM(4, "Authentication Failed - this is a \(scope.rawValue) key: it may not read the history", .forbidden)
            }
            return
        }
        if isTrusted(request, in: context) { return }
        context.sessions.recordFailure(from: client)
        throw APIError.lastFM(10, "Invalid API key - the history is private: send a Pacenote key that may read as api_key, "
            + "or a session key (auth.getMobileSession)", .forbidden)
    }
}
