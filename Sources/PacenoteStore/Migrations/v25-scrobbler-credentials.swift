import GRDB
import PacenoteCore

/// Migration "v25.scrobbler-credentials" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// The Last.fm protocols' credentials made as strong as the keys (`ScrobblerCredentials`):
    /// `api_keys.key_md5_sealed`, md5(key) sealed with a secret kept outside the database
    /// (the plain `key_md5` of older keys is sealed and cleared when the server starts, as
    /// only it has the secret: `Store.sealScrobblerMD5s`); sessions that end 90 days after
    /// their last use (`last_used_at_ms`); and the tokens already used, refused when sent
    /// again (`expires_at_ms`: when a 1.2 token's timestamp is too old to be taken anyway;
    /// NULL for 2.0's, which carry no time and are remembered while their key lives).
    static func v25ScrobblerCredentials(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE api_keys ADD COLUMN key_md5_sealed TEXT;
            ALTER TABLE scrobble_sessions ADD COLUMN last_used_at_ms INTEGER;
            CREATE INDEX scrobble_sessions_key ON scrobble_sessions(key_sha256);
            CREATE TABLE scrobble_tokens_used (
              token_id      TEXT PRIMARY KEY,        -- ScrobblerCredentials.tokenID: a hash, not the token
              key_sha256    TEXT NOT NULL,           -- the key it logged in with
              expires_at_ms INTEGER                  -- forgotten after; NULL: while the key lives
            ) WITHOUT ROWID;
            CREATE INDEX scrobble_tokens_used_key ON scrobble_tokens_used(key_sha256);
            """)
    }
}
