import Foundation
import PacenoteCore
import PacenoteStore

/// The Last.fm protocols' credentials: sessions and used login tokens. They are credentials,
/// not listening data: announced as `.credentials`, which nothing derived from plays follows.
extension Operations {
    /// Opens a session for the key with this SHA-256 (and forgets the sessions that ended).
    public func openScrobblerSession(_ session: ScrobbleSession) throws {
        try store.addScrobbleSession(session)
        announce(.credentials)
    }

    /// Notes a session's use (stored at most once an hour: its lifetime runs from its last use).
    public func noteScrobblerSessionUse(_ session: ScrobbleSession, at now: Date = Date()) throws {
        if try store.touchScrobbleSession(session, at: now) { announce(.credentials) }
    }

    /// Records a login token's use: false when it was used before (a replay).
    public func useScrobblerToken(id: String, keySHA256: String, expiresAt: Date?, at now: Date = Date()) throws -> Bool {
        let fresh = try store.useScrobbleToken(id: id, keySHA256: keySHA256, expiresAt: expiresAt, at: now)
        if fresh { announce(.credentials) }
        return fresh
    }

    /// Ends the sessions the key of this SHA-256 opened: it was revoked or replaced.
    public func endScrobblerSessions(keySHA256: String) throws {
        try store.endScrobbleSessions(keySHA256: keySHA256)
        announce(.credentials)
    }

    /// Seals the MD5s that keys made before v25 kept in the clear; returns how many.
    @discardableResult
    public func sealScrobblerMD5s(_ seal: (_ md5: String, _ keySHA256: String) -> String?) throws -> Int {
        let sealed = try store.sealScrobblerMD5s(seal)
        if sealed > 0 { announce(.credentials) }
        return sealed
    }
}
