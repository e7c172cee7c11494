import GRDB
import PacenoteCore

/// Migration "v17.day-entity-rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A play added to v17's rollups of artists and albums and its totals (`NEW`), and taken from them (`OLD`).
    static let v17EntityTriggersAdd = [v7EntityAddNew, v8MonthEntityAddNew, v17DayEntityAddNew,
                                       v7PeriodsAddNew, v8MonthTotalAddNew].joined(separator: "\n")
    static let v17EntityTriggersRemove = [v7EntityRemoveOld, v8MonthEntityRemoveOld, v17DayEntityRemoveOld,
                                          v7PeriodsRemoveOld, v8MonthTotalRemoveOld].joined(separator: "\n")

    /// A play (`NEW`) added to the days' rollups of artists and albums. (Frozen with this migration;
    /// later ones that create the triggers again reuse it.)
    static let v17DayEntityAddNew = """
        INSERT INTO rollup_day_artist (day, artist_id, plays, skips, played_s)
          SELECT NEW.local_day, e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
          ON CONFLICT (day, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_day_album (day, album_id, plays, skips, played_s)
          SELECT NEW.local_day, e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
          ON CONFLICT (day, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`OLD`) taken from them. (Frozen with this migration; later ones that create the triggers
    /// again reuse it.)
    static let v17DayEntityRemoveOld = """
        UPDATE rollup_day_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE day = OLD.local_day AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
        DELETE FROM rollup_day_artist WHERE day = OLD.local_day AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
        UPDATE rollup_day_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE day = OLD.local_day AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
        DELETE FROM rollup_day_album WHERE day = OLD.local_day AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
        """

    /// Artists and albums per local day (`rollup_day_artist`, `rollup_day_album`), summed from the day's
    /// track rollup, kept by the entity triggers (created again with them) and the bulk
    /// import. Only their keys: a range of days reads its days' rows whole, in key order,
    /// and a day's rows are a few hundred at most. They cost a bulk import of 5M plays
    /// about a row per play in each (figures in docs/PERFORMANCE.md).
    static func v17DayEntityRollups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_day_artist (
              day      TEXT NOT NULL,
              artist_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, artist_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_day_album (
              day      TEXT NOT NULL,
              album_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, album_id)
            ) WITHOUT ROWID;
            """)
        // Summed from the days' rollup of tracks.
        try db.execute(sql: """
            INSERT INTO rollup_day_artist (day, artist_id, plays, skips, played_s)
              SELECT r.day, e.artist_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_day_track r JOIN track_artists e ON e.track_id = r.track_id
              WHERE e.artist_id IS NOT NULL GROUP BY r.day, e.artist_id;
            INSERT INTO rollup_day_album (day, album_id, plays, skips, played_s)
              SELECT r.day, e.album_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_day_track r JOIN tracks e ON e.id = r.track_id
              WHERE e.album_id IS NOT NULL GROUP BY r.day, e.album_id;
            """)
        try db.execute(sql: """
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            CREATE TRIGGER plays_entity_rollup_insert AFTER INSERT ON plays BEGIN
            \(v17EntityTriggersAdd)
            END;
            CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN
            \(v17EntityTriggersRemove)
            END;
            CREATE TRIGGER plays_entity_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v17EntityTriggersRemove)
            \(v17EntityTriggersAdd)
            END;
            """)
    }
}
