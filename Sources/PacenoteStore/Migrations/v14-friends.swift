import GRDB
import PacenoteCore

/// Migration "v14.friends" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Friends' songs of the day (`Store+Friends`): whom this Pacenote follows (the
    /// configuration's `[[friends]]`, replaced at each start, and those added on the site),
    /// what the poller last learnt of each feed (validators for conditional GETs, the last
    /// success and error, the backoff), and the songs their feeds gave, kept while a friend
    /// is down; a song's cover is copied here (`cover`), so pages never load another server's
    /// pictures and still show it when that server is gone.
    static func v14Friends(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE friends (
              id                INTEGER PRIMARY KEY,
              name              TEXT NOT NULL,
              url               TEXT NOT NULL UNIQUE,     -- as given: a feed, or a page naming one
              added_by          TEXT NOT NULL CHECK (added_by IN ('config', 'site')),
              feed_url          TEXT,                     -- the feed found from url (a page's link, a permanent redirect)
              etag              TEXT,
              last_modified     TEXT,
              last_polled_at_ms INTEGER,
              last_ok_at_ms     INTEGER,
              last_error        TEXT,
              failures          INTEGER NOT NULL DEFAULT 0,  -- in a row: the backoff grows with them
              next_poll_at_ms   INTEGER,                  -- NULL: as soon as the poller runs
              created_at_ms     INTEGER NOT NULL
            );
            CREATE TABLE friend_songs (
              id             INTEGER PRIMARY KEY,
              friend_id      INTEGER NOT NULL REFERENCES friends(id) ON DELETE CASCADE,
              entry_id       TEXT NOT NULL,               -- the feed entry's id: one per day
              day            TEXT,                        -- the friend's local day, YYYY-MM-DD
              updated_at_ms  INTEGER,
              title          TEXT NOT NULL,
              artist         TEXT,
              link           TEXT,                        -- the friend's share page
              cover_url      TEXT,
              note           TEXT,
              cover          BLOB,                        -- a copy of cover_url's picture
              cover_type     TEXT,
              seen_at_ms     INTEGER NOT NULL,
              UNIQUE (friend_id, entry_id)
            );
            CREATE INDEX friend_songs_latest ON friend_songs(friend_id, day, updated_at_ms);
            """)
    }
}
