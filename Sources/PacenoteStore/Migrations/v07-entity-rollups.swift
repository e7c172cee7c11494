import GRDB
import PacenoteCore

/// Migration "v7.entity-rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A play added to v7's rollups of artists and albums and its totals (`NEW`), and taken from them (`OLD`).
    static let v7EntityTriggersAdd = [v7EntityAddNew, v7PeriodsAddNew].joined(separator: "\n")
    static let v7EntityTriggersRemove = [v7EntityRemoveOld, v7PeriodsRemoveOld].joined(separator: "\n")

    /// A play (`NEW`) added to v7's rollups of artists and albums (all time, per year), once for each
    /// artist its track credits. (Frozen with this migration; later ones that create the triggers again
    /// reuse it.)
    static let v7EntityAddNew = """
        INSERT INTO rollup_artist_total (artist_id, plays, skips, played_s)
          SELECT e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
          ON CONFLICT (artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_year_artist (year, artist_id, plays, skips, played_s)
          SELECT substr(NEW.local_day, 1, 4), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
          ON CONFLICT (year, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_album_total (album_id, plays, skips, played_s)
          SELECT e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
          ON CONFLICT (album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_year_album (year, album_id, plays, skips, played_s)
          SELECT substr(NEW.local_day, 1, 4), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
          ON CONFLICT (year, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`NEW`) added to v7's totals: per year, per day, per year and hour. (Frozen with this
    /// migration; later ones that create the triggers again reuse it.)
    static let v7PeriodsAddNew = """
        INSERT INTO rollup_year_total (year, plays, skips, played_s)
          VALUES (substr(NEW.local_day, 1, 4), NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (year) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_day_total (day, plays, skips, played_s)
          VALUES (NEW.local_day, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (day) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_year_hour (year, hour, plays, skips, played_s)
          VALUES (substr(NEW.local_day, 1, 4), NEW.local_hour, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (year, hour) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`OLD`) taken from v7's rollups of artists and albums, a row that it empties deleted.
    /// (Frozen with this migration; later ones that create the triggers again reuse it.)
    static let v7EntityRemoveOld = """
        UPDATE rollup_artist_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
        DELETE FROM rollup_artist_total WHERE artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
        UPDATE rollup_year_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
        DELETE FROM rollup_year_artist WHERE year = substr(OLD.local_day, 1, 4) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
        UPDATE rollup_album_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
        DELETE FROM rollup_album_total WHERE album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
        UPDATE rollup_year_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
        DELETE FROM rollup_year_album WHERE year = substr(OLD.local_day, 1, 4) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
        """
    /// A play (`OLD`) taken from v7's totals. (Frozen with this migration; later ones that create the
    /// triggers again reuse it.)
    static let v7PeriodsRemoveOld = """
        UPDATE rollup_year_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4);
        DELETE FROM rollup_year_total WHERE year = substr(OLD.local_day, 1, 4) AND plays = 0 AND skips = 0;
        UPDATE rollup_day_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE day = OLD.local_day;
        DELETE FROM rollup_day_total WHERE day = OLD.local_day AND plays = 0 AND skips = 0;
        UPDATE rollup_year_hour SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE year = substr(OLD.local_day, 1, 4) AND hour = OLD.local_hour;
        DELETE FROM rollup_year_hour WHERE year = substr(OLD.local_day, 1, 4) AND hour = OLD.local_hour AND plays = 0 AND skips = 0;
        """

    /// Rollups by artist and album, for all time and per year, and the year's totals: the
    /// all-time and year charts of artists and albums read a row per artist or album (a few
    /// thousand) instead of summing every track's, and totals a row per year. Kept by their
    /// own triggers on `plays` (a play counts once for every artist its track credits, once
    /// for its album), by the bulk import (`ImportEntityRollups`), and moved along when a
    /// track's credit or album changes (`EntityRollups.move`). No index beyond their keys:
    /// each one cost an eighth more import time (`scripts/bench/scale`), and these tables
    /// are small enough to read whole. Tracks, which are many, have theirs (`Store.topRows`).
    static func v7EntityRollups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_artist_total (
              artist_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (artist_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_year_artist (
              year TEXT NOT NULL, artist_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, artist_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_album_total (
              album_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (album_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_year_album (
              year TEXT NOT NULL, album_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, album_id)
            ) WITHOUT ROWID;
            """)
        try db.execute(sql: """
            -- The year's totals (a year or all time is a few rows, not one per track), each
            -- day's (the heatmap, streaks: a row a day, not 24), and each year's hours (the
            -- listening clock of a year or of all time).
            CREATE TABLE rollup_year_total (
              year     TEXT PRIMARY KEY NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE rollup_day_total (
              day      TEXT PRIMARY KEY NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE rollup_year_hour (
              year     TEXT NOT NULL,
              hour     INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, hour)
            ) WITHOUT ROWID;
            -- The all-time track chart by listening time walks an index too (a year's reads the
            -- year's rows: an index on rollup_year_track by time cost a tenth of an import).
            CREATE INDEX rollup_track_total_by_time ON rollup_track_total(played_s DESC, plays DESC);
            CREATE TRIGGER plays_entity_rollup_insert AFTER INSERT ON plays BEGIN
            \(v7EntityTriggersAdd)
            END;
            CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN
            \(v7EntityTriggersRemove)
            END;
            CREATE TRIGGER plays_entity_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v7EntityTriggersRemove)
            \(v7EntityTriggersAdd)
            END;
            """)
        // Summed from the track and hour rollups.
        try db.execute(sql: """
            INSERT INTO rollup_artist_total (artist_id, plays, skips, played_s)
              SELECT e.artist_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_track_total r JOIN track_artists e ON e.track_id = r.track_id
              WHERE e.artist_id IS NOT NULL GROUP BY e.artist_id;
            INSERT INTO rollup_year_artist (year, artist_id, plays, skips, played_s)
              SELECT r.year, e.artist_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_year_track r JOIN track_artists e ON e.track_id = r.track_id
              WHERE e.artist_id IS NOT NULL GROUP BY r.year, e.artist_id;
            INSERT INTO rollup_album_total (album_id, plays, skips, played_s)
              SELECT e.album_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_track_total r JOIN tracks e ON e.id = r.track_id
              WHERE e.album_id IS NOT NULL GROUP BY e.album_id;
            INSERT INTO rollup_year_album (year, album_id, plays, skips, played_s)
              SELECT r.year, e.album_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_year_track r JOIN tracks e ON e.id = r.track_id
              WHERE e.album_id IS NOT NULL GROUP BY r.year, e.album_id;
            """)
        // The totals, from the years' rollup of tracks and the days' of hours.
        try db.execute(sql: """
            INSERT INTO rollup_year_total (year, plays, skips, played_s)
              SELECT year, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_year_track GROUP BY year;
            INSERT INTO rollup_day_total (day, plays, skips, played_s)
              SELECT day, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_hour GROUP BY day;
            """)
        try db.execute(sql: """
            INSERT INTO rollup_year_hour (year, hour, plays, skips, played_s)
              SELECT substr(day, 1, 4), hour, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_hour GROUP BY 1, 2;
            """)
    }
}
