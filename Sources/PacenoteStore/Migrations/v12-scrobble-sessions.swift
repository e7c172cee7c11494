import GRDB
import PacenoteCore

/// Migration "v12.scrobble-sessions" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// The Last.fm protocols' sessions (`Store+Scrobbles`): a session key a player got from
    /// `auth.getMobileSession` or the 1.2 handshake, tied to the API key that opened it by
    /// that key's SHA-256 (revoking the key ends its sessions). `api_keys.key_md5`: the
    /// MD5 of a named key, which the protocols' tokens are made of (`md5(md5(password)+t)`);
    /// keys made before v12 have none and log in with their plain text only (2.0's `password`).
    static func v12ScrobbleSessions(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE scrobble_sessions (
              session_key   TEXT PRIMARY KEY,
              key_sha256    TEXT NOT NULL,            -- the API key that opened it
              protocol      TEXT NOT NULL CHECK (protocol IN ('2.0', '1.2')),
              client        TEXT NOT NULL,            -- 1.2's client id, 2.0's api_key
              user_name     TEXT NOT NULL,            -- as the player sent it: names the player
              created_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            ALTER TABLE api_keys ADD COLUMN key_md5 TEXT;
            """)
    }
}
