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
