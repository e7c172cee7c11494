import GRDB
import PacenoteCore

/// Migration "v8.month-rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A play added to v8's rollups of artists and albums and its totals (`NEW`), and taken from them (`OLD`).
    static let v8EntityTriggersAdd = [v7EntityAddNew, v8MonthEntityAddNew,
                                      v7PeriodsAddNew, v8MonthTotalAddNew].joined(separator: "\n")
    static let v8EntityTriggersRemove = [v7EntityRemoveOld, v8MonthEntityRemoveOld,
                                         v7PeriodsRemoveOld, v8MonthTotalRemoveOld].joined(separator: "\n")

    /// A play added to v8's rollups of tracks and hours (`NEW`), and taken from them (`OLD`).
    static let v8TrackTriggersAdd = [v1RollupsAddNew, v8MonthTrackAddNew].joined(separator: "\n")
    static let v8TrackTriggersRemove = [v1RollupsRemoveOld, v8MonthTrackRemoveOld].joined(separator: "\n")

    /// A play (`NEW`) added to `rollup_month_track`. (Frozen with this migration; later ones that
    /// create the triggers again reuse it.)
    static let v8MonthTrackAddNew = """
        INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s)
          VALUES (substr(NEW.local_day, 1, 7), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (month, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`OLD`) taken from `rollup_month_track`. (Frozen with this migration; later ones that
    /// create the triggers again reuse it.)
    static let v8MonthTrackRemoveOld = """
        UPDATE rollup_month_track
          SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
          WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id;
        DELETE FROM rollup_month_track WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
        """
    /// A play (`NEW`) added to the months' rollups of artists and albums. (Frozen with this migration;
    /// later ones that create the triggers again reuse it.)
    static let v8MonthEntityAddNew = """
        INSERT INTO rollup_month_artist (month, artist_id, plays, skips, played_s)
          SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
          ON CONFLICT (month, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_month_album (month, album_id, plays, skips, played_s)
          SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s
          FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
          ON CONFLICT (month, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`OLD`) taken from them. (Frozen with this migration; later ones that create the triggers
    /// again reuse it.)
    static let v8MonthEntityRemoveOld = """
        UPDATE rollup_month_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
        DELETE FROM rollup_month_artist WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
        UPDATE rollup_month_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
        DELETE FROM rollup_month_album WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
        """
    /// A play (`NEW`) added to `rollup_month_total`. (Frozen with this migration; later ones that
    /// create the triggers again reuse it.)
    static let v8MonthTotalAddNew = """
        INSERT INTO rollup_month_total (month, plays, skips, played_s)
          VALUES (substr(NEW.local_day, 1, 7), NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (month) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`OLD`) taken from it. (Frozen with this migration; later ones that create the triggers again reuse it.)
    static let v8MonthTotalRemoveOld = """
        UPDATE rollup_month_total SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s WHERE month = substr(OLD.local_day, 1, 7);
        DELETE FROM rollup_month_total WHERE month = substr(OLD.local_day, 1, 7) AND plays = 0 AND skips = 0;
        """

    static func v8MonthRollups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_month_track (
              month    TEXT NOT NULL,                   -- 'YYYY-MM' of local_day
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (month, track_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_month_total (
              month    TEXT PRIMARY KEY NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            ) WITHOUT ROWID;
            """)
        try db.execute(sql: """
            CREATE TABLE rollup_month_artist (
              month    TEXT NOT NULL,
              artist_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (month, artist_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_month_album (
              month    TEXT NOT NULL,
              album_id INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (month, album_id)
            ) WITHOUT ROWID;
            """)
        // Each month's best rows, walked by the charts: a month's chart reads about as many
        // rows as it shows, and a range of months the first rows of each.
        try db.execute(sql: """
            CREATE INDEX rollup_month_track_top ON rollup_month_track(month, plays DESC, played_s DESC);
            CREATE INDEX rollup_month_artist_top ON rollup_month_artist(month, plays DESC, played_s DESC);
            CREATE INDEX rollup_month_album_top ON rollup_month_album(month, plays DESC, played_s DESC);
            """)
        // Summed from the days' rollups (tracks, totals) and the months' of tracks (artists, albums).
        try db.execute(sql: """
            INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s)
              SELECT substr(day, 1, 7), track_id, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_track GROUP BY 1, 2;
            INSERT INTO rollup_month_artist (month, artist_id, plays, skips, played_s)
              SELECT r.month, e.artist_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_month_track r JOIN track_artists e ON e.track_id = r.track_id
              WHERE e.artist_id IS NOT NULL GROUP BY r.month, e.artist_id;
            INSERT INTO rollup_month_album (month, album_id, plays, skips, played_s)
              SELECT r.month, e.album_id, SUM(r.plays), SUM(r.skips), SUM(r.played_s)
              FROM rollup_month_track r JOIN tracks e ON e.id = r.track_id
              WHERE e.album_id IS NOT NULL GROUP BY r.month, e.album_id;
            INSERT INTO rollup_month_total (month, plays, skips, played_s)
              SELECT substr(day, 1, 7), SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_total GROUP BY 1;
            """)
        // Plays by local day were read only by the song of the day, which finds a few days'
        // plays through `plays_started` as well; the index cost a bulk import about a
        // twentieth of its time (scripts/bench/scale), the month rollups more than that.
        try db.execute(sql: "DROP INDEX plays_local_day")
        try db.execute(sql: """
            DROP TRIGGER plays_rollup_insert;
            DROP TRIGGER plays_rollup_delete;
            DROP TRIGGER plays_rollup_update;
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(v8TrackTriggersAdd)
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(v8TrackTriggersRemove)
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v8TrackTriggersRemove)
            \(v8TrackTriggersAdd)
            END;
            CREATE TRIGGER plays_entity_rollup_insert AFTER INSERT ON plays BEGIN
            \(v8EntityTriggersAdd)
            END;
            CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN
            \(v8EntityTriggersRemove)
            END;
            CREATE TRIGGER plays_entity_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v8EntityTriggersRemove)
            \(v8EntityTriggersAdd)
            END;
            """)
    }
}
