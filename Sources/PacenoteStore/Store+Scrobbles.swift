import Foundation
import GRDB
import PacenoteCore

/// A Last.fm protocol session (`scrobble_sessions`): what a player logged in as, and the
/// SHA-256 of the API key that let it in. It ends `ScrobblerCredentials.sessionLifetime`
/// after its last use, and with its key.
public struct ScrobbleSession: Equatable, Sendable {
    public var key: String
    public var keySHA256: String
    public var protocolVersion: String
    public var client: String
    public var user: String
    public var createdAt: Date
    /// When it was last used (to the hour: `touchScrobbleSession`); its creation before.
    public var lastUsedAt: Date

    public init(key: String, keySHA256: String, protocolVersion: String, client: String, user: String, createdAt: Date,
                lastUsedAt: Date? = nil) {
        self.key = key
        self.keySHA256 = keySHA256
        self.protocolVersion = protocolVersion
        self.client = client
        self.user = user
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt ?? createdAt
    }
}

extension Store {
    /// The window within which a scrobble of a song is the play already stored (the watcher
    /// and mpdscribble following one MPD; a client retrying with its clock a minute off).
    public static let scrobbleWindow: TimeInterval = 90

    /// Whether a play of the same song is already stored that is this one: it began within
    /// `within` seconds, and neither ended before the other began (2 s of slack for whole
    /// seconds) — a short song played twice in a row is two plays.
    static func isStored(_ track: Track, startedAt: Date, duration: Double, within: TimeInterval, source: String,
                         in db: Database) throws -> Bool {
        try samePlay(track, startedAt: startedAt, duration: duration, within: within, source: source, in: db) != nil
    }

    /// The id of the stored play that is this one (as `isStored`), if any; `notFrom` leaves
    /// out the plays of a source (the watcher looks only for scrobbles).
    ///
    /// Between the two routes — the watcher (`mpd`) and a scrobbler following the same MPD —
    /// a scrobble stamped at the other's end (±3 s) is that play too: mpdscribble stamps a
    /// play with the time it submits it, when the song ended, not when it began. Within one
    /// route that would be a song on repeat; across them the watcher logs every play itself,
    /// so nothing is lost either way.
    static func samePlay(_ track: Track, startedAt: Date, duration: Double, within: TimeInterval, source: String,
                         notFrom excluded: String? = nil, in db: Database) throws -> Int64? {
        let start = milliseconds(startedAt), window = Int64(within * 1000), slack: Int64 = 2000, stamp: Int64 = 3000
        let end = start + Int64(max(0, duration) * 1000)
        let rows = try Row.fetchAll(db, sql: """
            SELECT p.id, p.started_at_ms, p.ended_at_ms, p.source FROM plays p JOIN tracks t ON t.id = p.track_id
            WHERE p.started_at_ms BETWEEN ? AND ? AND t.match_key = ? AND (?4 IS NULL OR p.source <> ?4)
            """, arguments: [start - window, start + window, track.matchKey, excluded])
        return rows.first { row in
            let otherStart: Int64 = row[1], otherEnd: Int64 = row[2], otherSource: String = row[3]
            if (source == "mpd") != (otherSource == "mpd"),
               abs(start - otherEnd) <= stamp || (duration > 0 && abs(end - otherStart) <= stamp) {
                return true
            }
            let otherEndedBefore = otherEnd - slack <= start && otherStart < start
            let thisEndedBefore = duration > 0 && end - slack <= otherStart && start < otherStart
            return !otherEndedBefore && !thisEndedBefore
        }.map { $0[0] }
    }

    /// Opens a session for the key with this SHA-256 (and forgets the sessions that have
    /// ended: unused for `ScrobblerCredentials.sessionLifetime`).
    public func addScrobbleSession(_ session: ScrobbleSession) throws(StoreError) {
        try write { db in
            try db.execute(sql: "DELETE FROM scrobble_sessions WHERE coalesce(last_used_at_ms, created_at_ms) < ?",
                           arguments: [Store.milliseconds(session.createdAt) - Int64(ScrobblerCredentials.sessionLifetime * 1000)])
            try db.execute(sql: """
                INSERT INTO scrobble_sessions (session_key, key_sha256, protocol, client, user_name, created_at_ms, last_used_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [session.key, session.keySHA256, session.protocolVersion, String(session.client.prefix(200)),
                                 String(session.user.prefix(200)), Store.milliseconds(session.createdAt),
                                 Store.milliseconds(session.lastUsedAt)])
        }
    }

    /// The session with this key, if any and not ended by age at `now` (whether its API key
    /// is still good is the caller's question: the admin key lives outside the database).
    public func scrobbleSession(_ key: String, at now: Date = Date()) throws(StoreError) -> ScrobbleSession? {
        let session: ScrobbleSession? = try read { db in
            try Row.fetchOne(db, sql: """
                SELECT session_key, key_sha256, protocol, client, user_name, created_at_ms, last_used_at_ms
                FROM scrobble_sessions WHERE session_key = ?
                """, arguments: [key]).map { row in
                let lastUsed: Int64? = row[6]
                return ScrobbleSession(key: row[0], keySHA256: row[1], protocolVersion: row[2], client: row[3], user: row[4],
                                       createdAt: Store.date(milliseconds: row[5]), lastUsedAt: lastUsed.map(Store.date(milliseconds:)))
            }
        }
        guard let session, now.timeIntervalSince(session.lastUsedAt) <= ScrobblerCredentials.sessionLifetime else { return nil }
        return session
    }

    /// Notes a session's use, at most once an hour (its lifetime runs from its last use).
    /// Returns whether it wrote.
    @discardableResult
    public func touchScrobbleSession(_ session: ScrobbleSession, at now: Date = Date()) throws(StoreError) -> Bool {
        guard now.timeIntervalSince(session.lastUsedAt) >= 3600 else { return false }
        try write { db in
            try db.execute(sql: "UPDATE scrobble_sessions SET last_used_at_ms = ? WHERE session_key = ?",
                           arguments: [Store.milliseconds(now), session.key])
        }
        return true
    }

    /// Ends the sessions opened with the key of this SHA-256 and forgets its used tokens:
    /// the key was revoked or replaced.
    public func endScrobbleSessions(keySHA256: String) throws(StoreError) {
        try write { db in try Store.endScrobbleSessions(keySHA256: keySHA256, in: db) }
    }

    static func endScrobbleSessions(keySHA256: String, in db: Database) throws {
        try db.execute(sql: "DELETE FROM scrobble_sessions WHERE key_sha256 = ?", arguments: [keySHA256])
        try db.execute(sql: "DELETE FROM scrobble_tokens_used WHERE key_sha256 = ?", arguments: [keySHA256])
    }

    /// Records a login token's use; false when it was used before (a replay). `expiresAt`:
    /// when it could not be taken anyway (then it is forgotten); nil for a token that
    /// carries no time (remembered while its key lives).
    public func useScrobbleToken(id: String, keySHA256: String, expiresAt: Date?, at now: Date = Date()) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM scrobble_tokens_used WHERE expires_at_ms < ?", arguments: [Store.milliseconds(now)])
            try db.execute(sql: "INSERT OR IGNORE INTO scrobble_tokens_used (token_id, key_sha256, expires_at_ms) VALUES (?, ?, ?)",
                           arguments: [id, keySHA256, expiresAt.map { Store.milliseconds($0) }])
            return db.changesCount > 0
        }
    }

    /// The live named keys that may log in by token: SHA-256, md5(key) sealed
    /// (`ScrobblerCredentials`) and scope.
    public func liveKeySealedMD5s() throws(StoreError) -> [(sha256: String, sealedMD5: String, scope: KeyScope)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT key_hash, key_md5_sealed, scopes FROM api_keys WHERE revoked_at_ms IS NULL AND key_md5_sealed IS NOT NULL
                """).map { (sha256: $0[0], sealedMD5: $0[1], scope: KeyScope(rawValue: $0[2]) ?? .submit) }
        }
    }

    /// Seals the plain md5(key) that keys made before v25 carry (`seal`: md5 and the key's
    /// SHA-256 to the sealed form), and clears it, overwriting the bytes it took in the file
    /// (`secure_delete` for this write). Returns how many keys it sealed.
    @discardableResult
    public func sealScrobblerMD5s(_ seal: (_ md5: String, _ keySHA256: String) -> String?) throws(StoreError) -> Int {
        try write { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, key_hash, key_md5 FROM api_keys WHERE key_md5 IS NOT NULL")
            guard !rows.isEmpty else { return 0 }
            let previous = try Int.fetchOne(db, sql: "PRAGMA secure_delete") ?? 0
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = \(previous)") }
            for row in rows {
                let id: Int64 = row[0], sha: String = row[1], md5: String = row[2]
                try db.execute(sql: "UPDATE api_keys SET key_md5_sealed = ?, key_md5 = NULL WHERE id = ?",
                               arguments: [seal(md5.lowercased(), sha), id])
            }
            return rows.count
        }
    }
}
