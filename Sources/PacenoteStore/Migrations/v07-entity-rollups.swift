import GRDB
import PacenoteCore

/// Migration "v7.entity-rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Rollups by artist and album, for all time and per year, and the year's totals: the
    /// all-time and year charts of artists and albums read a row per artist or album (a few
    /// thousand) instead of summing every track's, and totals a row per year. Kept by their
    /// own triggers on `plays` (a play counts once for every artist its track credits, once
    /// for its album), by the bulk import (`ImportEntityRollups`), and moved along when a
    /// track's credit or album changes (`EntityRollups.move`). No index beyond their keys:
    /// each one cost an eighth more import time (`scripts/bench/scale`), and these tables
    /// are small enough to read whole. Tracks, which are many, have theirs (`Store.topRows`).
    static func v7EntityRollups(_ db: Database) throws {
        for table in EntityRollups.v7Tables {
            let keys = table.keys.map { "\($0) \($0 == "year" ? "TEXT" : "INTEGER") NOT NULL" }.joined(separator: ", ")
            let primary = table.keys.joined(separator: ", ")
            try db.execute(sql: """
                CREATE TABLE \(table.name) (
                  \(keys),
                  plays    INTEGER NOT NULL,
                  skips    INTEGER NOT NULL,
                  played_s REAL NOT NULL,
                  PRIMARY KEY (\(primary))
                ) WITHOUT ROWID;
                """)
        }
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
            \(entityTriggers(EntityRollups.v7Tables, v7: true))
            """)
        try EntityRollups.rebuild(in: db, v7: true)
    }
}
