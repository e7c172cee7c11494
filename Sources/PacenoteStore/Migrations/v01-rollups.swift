import GRDB
import PacenoteCore

/// Migration "v1.rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
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
            \(rollupStatements("NEW", adding: true))
            END;

            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false))
            END;

            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false))
            \(rollupStatements("NEW", adding: true))
            END;
            """)
    }
}
