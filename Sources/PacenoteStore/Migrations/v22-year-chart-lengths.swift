import GRDB

/// Migration "v22.year-chart-lengths" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// v22: how many tracks, artists and albums each year has with counted plays
    /// (`YearChartLengths`): `rollup_year_charted`, counted from the year rollups, and the
    /// triggers on them that keep it (a row's plays becoming positive or not).
    static func v22YearChartLengths(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_year_charted (
              year    TEXT NOT NULL,
              entity  TEXT NOT NULL CHECK (entity IN ('track', 'artist', 'album')),
              charted INTEGER NOT NULL,                 -- the year's rows of the entity with plays > 0
              PRIMARY KEY (year, entity)
            ) WITHOUT ROWID;
            INSERT INTO rollup_year_charted (year, entity, charted)
            SELECT year, 'track', COUNT(*) FROM rollup_year_track WHERE plays > 0 GROUP BY year;
            INSERT INTO rollup_year_charted (year, entity, charted)
            SELECT year, 'artist', COUNT(*) FROM rollup_year_artist WHERE plays > 0 GROUP BY year;
            INSERT INTO rollup_year_charted (year, entity, charted)
            SELECT year, 'album', COUNT(*) FROM rollup_year_album WHERE plays > 0 GROUP BY year;
            CREATE TRIGGER rollup_year_track_charted_insert AFTER INSERT ON rollup_year_track WHEN NEW.plays > 0 BEGIN INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'track', 1 WHERE NEW.plays > 0
                ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END;
            CREATE TRIGGER rollup_year_track_charted_update AFTER UPDATE OF year, plays ON rollup_year_track
            WHEN OLD.year IS NOT NEW.year OR (OLD.plays > 0) <> (NEW.plays > 0) BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'track'; INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'track', 1 WHERE NEW.plays > 0
                ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END;
            CREATE TRIGGER rollup_year_track_charted_delete AFTER DELETE ON rollup_year_track WHEN OLD.plays > 0 BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'track'; END;
            CREATE TRIGGER rollup_year_artist_charted_insert AFTER INSERT ON rollup_year_artist WHEN NEW.plays > 0 BEGIN INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'artist', 1 WHERE NEW.plays > 0
                ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END;
            CREATE TRIGGER rollup_year_artist_charted_update AFTER UPDATE OF year, plays ON rollup_year_artist
            WHEN OLD.year IS NOT NEW.year OR (OLD.plays > 0) <> (NEW.plays > 0) BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'artist'; INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'artist', 1 WHERE NEW.plays > 0
                ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END;
            CREATE TRIGGER rollup_year_artist_charted_delete AFTER DELETE ON rollup_year_artist WHEN OLD.plays > 0 BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'artist'; END;
            CREATE TRIGGER rollup_year_album_charted_insert AFTER INSERT ON rollup_year_album WHEN NEW.plays > 0 BEGIN INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'album', 1 WHERE NEW.plays > 0
                ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END;
            CREATE TRIGGER rollup_year_album_charted_update AFTER UPDATE OF year, plays ON rollup_year_album
            WHEN OLD.year IS NOT NEW.year OR (OLD.plays > 0) <> (NEW.plays > 0) BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'album'; INSERT INTO rollup_year_charted (year, entity, charted) SELECT NEW.year, 'album', 1 WHERE NEW.plays > 0
                ON CONFLICT (year, entity) DO UPDATE SET charted = charted + 1; END;
            CREATE TRIGGER rollup_year_album_charted_delete AFTER DELETE ON rollup_year_album WHEN OLD.plays > 0 BEGIN UPDATE rollup_year_charted SET charted = charted - 1 WHERE OLD.plays > 0 AND year = OLD.year AND entity = 'album'; END;
            """)
    }
}
