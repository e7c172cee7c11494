import GRDB
import PacenoteCore

/// Migration "v1.sotd-and-api-keys" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v1SOTDAndKeys(_ db: Database) throws {
        try db.execute(sql: """
            -- A pinned song of the day overrides the computed one for that local day.
            CREATE TABLE sotd_pins (
              day          TEXT PRIMARY KEY NOT NULL,   -- 'YYYY-MM-DD' in the display time zone
              track_id     INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              note         TEXT,
              pinned_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;

            -- API keys are stored as SHA-256 hashes; only the prefix is shown again.
            CREATE TABLE api_keys (
              id              INTEGER PRIMARY KEY,
              name            TEXT NOT NULL UNIQUE,
              key_hash        TEXT NOT NULL UNIQUE,
              key_prefix      TEXT NOT NULL,
              scopes          TEXT NOT NULL DEFAULT 'write',
              created_at_ms   INTEGER NOT NULL,
              last_used_at_ms INTEGER,
              revoked_at_ms   INTEGER
            );
            """)
    }
}
