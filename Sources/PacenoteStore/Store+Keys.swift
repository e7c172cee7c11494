import Foundation
import GRDB
import PacenoteCore

/// A named API key as stored (`api_keys`): never the key itself, only its SHA-256 and the
/// first characters, to tell keys apart in `pacenote key list`.
public struct StoredKey: Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var prefix: String
    public var scope: KeyScope
    public var createdAt: Date
    public var lastUsedAt: Date?
    public var revokedAt: Date?
}

extension Store {
    /// Stores a new named key by its hash. A revoked key of the same name is replaced; a
    /// live one is not (false).
    /// `md5Sealed`: md5(key) sealed (`ScrobblerCredentials.seal`), never md5(key) itself.
    public func addKey(name: String, scope: KeyScope, hash: String, prefix: String, md5Sealed: String? = nil,
                       at now: Date = Date()) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM api_keys WHERE name = ? AND revoked_at_ms IS NOT NULL", arguments: [name])
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM api_keys WHERE name = ?)", arguments: [name]) == false else {
                return false
            }
            try db.execute(sql: """
                INSERT INTO api_keys (name, key_hash, key_prefix, scopes, created_at_ms, key_md5_sealed) VALUES (?, ?, ?, ?, ?, ?)
                """, arguments: [name, hash, prefix, scope.rawValue, Store.milliseconds(now), md5Sealed])
            return true
        }
    }

    /// Every named key, live and revoked, by name.
    public func keys() throws(StoreError) -> [StoredKey] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, name, key_prefix, scopes, created_at_ms, last_used_at_ms, revoked_at_ms FROM api_keys ORDER BY name
                """).map(Self.storedKey)
        }
    }

    /// The live key with this hash, if any: what a request's key is checked against, on
    /// each use (a key revoked by another process is refused at once).
    public func liveKey(hash: String) throws(StoreError) -> StoredKey? {
        try read { db in
            try Row.fetchOne(db, sql: """
                SELECT id, name, key_prefix, scopes, created_at_ms, last_used_at_ms, revoked_at_ms
                FROM api_keys WHERE key_hash = ? AND revoked_at_ms IS NULL
                """, arguments: [hash]).map(Self.storedKey)
        }
    }

    /// Revokes the live key of this name, and the Last.fm protocols' sessions it opened;
    /// false when there is none.
    public func revokeKey(name: String, at now: Date = Date()) throws(StoreError) -> Bool {
        try write { db in
            guard let hash = try String.fetchOne(db, sql: "SELECT key_hash FROM api_keys WHERE name = ? AND revoked_at_ms IS NULL",
                                                 arguments: [name]) else { return false }
            try db.execute(sql: "UPDATE api_keys SET revoked_at_ms = ?, key_md5_sealed = NULL, key_md5 = NULL WHERE name = ?",
                           arguments: [Store.milliseconds(now), name])
            try Store.endScrobbleSessions(keySHA256: hash, in: db)
            return true
        }
    }

    /// Notes when a key was last used (bookkeeping, not a change to what Pacenote knows:
    /// nothing is announced).
    public func recordKeyUse(id: Int64, at now: Date = Date()) throws(StoreError) {
        try write { db in
            try db.execute(sql: "UPDATE api_keys SET last_used_at_ms = ? WHERE id = ?", arguments: [Store.milliseconds(now), id])
        }
    }

    private static func storedKey(_ row: Row) -> StoredKey {
        StoredKey(id: row[0], name: row[1], prefix: row[2], scope: KeyScope(rawValue: row[3]) ?? .submit,
                  createdAt: date(milliseconds: row[4]), lastUsedAt: (row[5] as Int64?).map { date(milliseconds: $0) },
                  revokedAt: (row[6] as Int64?).map { date(milliseconds: $0) })
    }
}
