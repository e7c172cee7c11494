import GRDB
import PacenoteCore

/// Migration "v13.forward" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Forwarding (`[[forward]]`): the targets the configuration names, and a durable outbox
    /// that a counted play enters in the transaction that stores it (`Store.insertPlay`).
    static func v13Forward(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE forward_targets (
              id                 INTEGER PRIMARY KEY,
              name               TEXT NOT NULL UNIQUE,
              kind               TEXT NOT NULL CHECK (kind IN ('listenbrainz', 'lastfm')),
              url                TEXT NOT NULL,
              active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),  -- in the configuration now
              sources            TEXT,          -- char(31)-wrapped list of the sources it takes; NULL: all
              players            TEXT,          -- likewise players; NULL: all
              session_key        TEXT,          -- lastfm: from `pacenote forward login`
              session_user       TEXT,
              queued             INTEGER NOT NULL DEFAULT 0,  -- kept by the outbox's triggers
              parked             INTEGER NOT NULL DEFAULT 0,
              sent               INTEGER NOT NULL DEFAULT 0,
              last_success_at_ms INTEGER,
              last_error         TEXT,
              last_error_at_ms   INTEGER,
              created_at_ms      INTEGER NOT NULL
            );
            -- A play on its way to a target; gone once the target took it. A play the target
            -- keeps refusing is parked (with the reason) so that the rest go on.
            CREATE TABLE forward_outbox (
              target_id    INTEGER NOT NULL REFERENCES forward_targets(id) ON DELETE CASCADE,
              play_id      INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
              queued_at_ms INTEGER NOT NULL,
              attempts     INTEGER NOT NULL DEFAULT 0,
              parked_at_ms INTEGER,
              reason       TEXT,
              PRIMARY KEY (target_id, play_id)
            ) WITHOUT ROWID;
            CREATE INDEX forward_outbox_play ON forward_outbox(play_id);
            -- What each target took, so that a backfill never sends a play twice.
            CREATE TABLE forward_sent (
              target_id INTEGER NOT NULL,
              play_id   INTEGER NOT NULL,
              PRIMARY KEY (target_id, play_id)
            ) WITHOUT ROWID;
            CREATE TRIGGER forward_outbox_in AFTER INSERT ON forward_outbox BEGIN
              UPDATE forward_targets SET queued = queued + (NEW.parked_at_ms IS NULL),
                                         parked = parked + (NEW.parked_at_ms IS NOT NULL)
              WHERE id = NEW.target_id;
            END;
            CREATE TRIGGER forward_outbox_out AFTER DELETE ON forward_outbox BEGIN
              UPDATE forward_targets SET queued = queued - (OLD.parked_at_ms IS NULL),
                                         parked = parked - (OLD.parked_at_ms IS NOT NULL)
              WHERE id = OLD.target_id;
            END;
            CREATE TRIGGER forward_outbox_park AFTER UPDATE OF parked_at_ms ON forward_outbox
            WHEN (OLD.parked_at_ms IS NULL) <> (NEW.parked_at_ms IS NULL) BEGIN
              UPDATE forward_targets SET queued = queued + (NEW.parked_at_ms IS NULL) - (OLD.parked_at_ms IS NULL),
                                         parked = parked + (NEW.parked_at_ms IS NOT NULL) - (OLD.parked_at_ms IS NOT NULL)
              WHERE id = NEW.target_id;
            END;
            """)
    }
}
