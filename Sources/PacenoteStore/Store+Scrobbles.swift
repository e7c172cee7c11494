import Foundation
import GRDB
import PacenoteCore

/// A Last.fm protocol session (`scrobble_sessions`): what a player logged in as, and the
/// SHA-256 of the API key that let it in.
public struct ScrobbleSession: Equatable, Sendable {
    public var key: String
    public var keySHA256: String
    public var protocolVersion: String
    public var client: String
    public var user: String
    public var createdAt: Date

    public init(key: String, keySHA256: String, protocolVersion: String, client: String, user: String, createdAt: Date) {
        self.key = key
        self.keySHA256 = keySHA256
        self.protocolVersion = protocolVersion
        self.client = client
        self.user = user
        self.createdAt = createdAt
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

    /// Opens a session for the key with this SHA-256.
    public func addScrobbleSession(_ session: ScrobbleSession) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                INSERT INTO scrobble_sessions (session_key, key_sha256, protocol, client, user_name, created_at_ms)
                VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [session.key, session.keySHA256, session.protocolVersion, String(session.client.prefix(200)),
                                 String(session.user.prefix(200)), Store.milliseconds(session.createdAt)])
        }
    }

    /// The session with this key, if any (whether its API key is still good is the caller's
    /// question: the admin key lives outside the database).
    public func scrobbleSession(_ key: String) throws(StoreError) -> ScrobbleSession? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT session_key, key_sha256, protocol, client, user_name, created_at_ms FROM scrobble_sessions WHERE session_key = ?
                """, arguments: [key]).map {
                ScrobbleSession(key: $0[0], keySHA256: $0[1], protocolVersion: $0[2], client: $0[3], user: $0[4],
                                createdAt: Store.date(milliseconds: $0[5]))
            }
        }
    }

    /// The live named keys that have an MD5 (made since v12): SHA-256, MD5 and scope, for
    /// the protocols' token checks.
    public func liveKeyMD5s() throws(StoreError) -> [(sha256: String, md5: String, scope: KeyScope)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT key_hash, key_md5, scopes FROM api_keys WHERE revoked_at_ms IS NULL AND key_md5 IS NOT NULL
                """).map { (sha256: $0[0], md5: $0[1], scope: KeyScope(rawValue: $0[2]) ?? .submit) }
        }
    }
}
