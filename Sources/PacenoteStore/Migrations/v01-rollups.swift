import GRDB
import PacenoteCore

/// Migration "v1.rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A play (`NEW`) added to v1's rollups of tracks and hours: day, hour, year, all time. (Frozen
    /// with this migration; later ones that create the triggers again reuse it.)
    static let v1RollupsAddNew = """
        INSERT INTO rollup_day_track (day, track_id, plays, skips, played_s)
          VALUES (NEW.local_day, NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (day, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_day_hour (day, hour, plays, skips, played_s)
          VALUES (NEW.local_day, NEW.local_hour, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (day, hour) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_year_track (year, track_id, plays, skips, played_s)
          VALUES (substr(NEW.local_day, 1, 4), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (year, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        INSERT INTO rollup_track_total (track_id, plays, skips, played_s)
          VALUES (NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s)
          ON CONFLICT (track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s;
        """
    /// A play (`OLD`) taken from them, a row that it empties deleted. (Frozen with this migration;
    /// later ones that create the triggers again reuse it.)
    static let v1RollupsRemoveOld = """
        UPDATE rollup_day_track
          SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
          WHERE day = OLD.local_day AND track_id = OLD.track_id;
        DELETE FROM rollup_day_track WHERE day = OLD.local_day AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
        UPDATE rollup_day_hour
          SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
          WHERE day = OLD.local_day AND hour = OLD.local_hour;
        DELETE FROM rollup_day_hour WHERE day = OLD.local_day AND hour = OLD.local_hour AND plays = 0 AND skips = 0;
        UPDATE rollup_year_track
          SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
          WHERE year = substr(OLD.local_day, 1, 4) AND track_id = OLD.track_id;
        DELETE FROM rollup_year_track WHERE year = substr(OLD.local_day, 1, 4) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
        UPDATE rollup_track_total
          SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s
          WHERE track_id = OLD.track_id;
        DELETE FROM rollup_track_total WHERE track_id = OLD.track_id AND plays = 0 AND skips = 0;
        """

    static func v1Rollups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_day_track (
              day      TEXT NOT NULL,
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,                -- counted plays
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, track_id)
            ) WITHOUT ROWID;
            CREATE INDEX rollup_day_track_by_track ON rollup_day_track(track_id, day);

            CREATE TABLE rollup_day_hour (
              day      TEXT NOT NULL,
              hour     INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, hour)
            ) WITHOUT ROWID;

            CREATE TABLE rollup_year_track (
              year     TEXT NOT NULL,                   -- 'YYYY' of local_day
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, track_id)
            ) WITHOUT ROWID;
            CREATE INDEX rollup_year_track_top ON rollup_year_track(year, plays DESC, played_s DESC);

            CREATE TABLE rollup_track_total (
              track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            );
            CREATE INDEX rollup_track_total_top ON rollup_track_total(plays DESC, played_s DESC);

            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(v1RollupsAddNew)
            END;

            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(v1RollupsRemoveOld)
            END;

            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v1RollupsRemoveOld)
            \(v1RollupsAddNew)
            END;
            """)
    }
}
