import GRDB
import PacenoteCore

/// Migration "v4.feelings" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v4Feelings(_ db: Database) throws {
        try db.execute(sql: """
            -- Likes and dislikes, one row per track that has one (no row: no feeling). Written
            -- only by Operations.setFeeling(s).
            CREATE TABLE track_feelings (
              track_id      INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
              feeling       TEXT NOT NULL CHECK (feeling IN ('like', 'dislike')),
              source        TEXT NOT NULL,        -- site, api, listenbrainz, import
              updated_at_ms INTEGER NOT NULL
            );
            """)
    }
}
