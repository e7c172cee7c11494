import GRDB
import PacenoteCore

/// Migration "v2.import" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v2Import(_ db: Database) throws {
        try db.execute(sql: """
            -- The artists a track is credited to, parsed from its credit text ('A feat. B',
            -- 'Song (feat. C)') or listed by the export (Maloja): position 0 is the primary
            -- artist. tracks.artist keeps the original text.
            CREATE TABLE track_artists (
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              position INTEGER NOT NULL CHECK (position >= 0),
              name     TEXT NOT NULL,
              role     TEXT NOT NULL CHECK (role IN ('primary', 'featured')),
              PRIMARY KEY (track_id, position)
            ) WITHOUT ROWID;
            CREATE INDEX track_artists_name ON track_artists(name COLLATE NOCASE);
            """)
    }
}
