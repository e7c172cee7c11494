import GRDB
import PacenoteCore

/// Migration "v8.month-rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
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
        for table in EntityRollups.monthTables { try createPeriodRollup(table, in: db) }
        // Each month's best rows, walked by the charts: a month's chart reads about as many
        // rows as it shows, and a range of months the first rows of each.
        for table in ["rollup_month_track"] + EntityRollups.monthTables.map(\.name) {
            try db.execute(sql: "CREATE INDEX \(table)_top ON \(table)(month, plays DESC, played_s DESC)")
        }
        try db.execute(sql: """
            INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s)
              SELECT substr(day, 1, 7), track_id, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_track GROUP BY 1, 2;
            """)
        for table in EntityRollups.monthTables { try EntityRollups.rebuild(table, halves: false, in: db) }
        try EntityRollups.rebuildMonthTotals(in: db)
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
            \(rollupStatements("NEW", adding: true, tables: trackRollups))
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups))
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups))
            \(rollupStatements("NEW", adding: true, tables: trackRollups))
            END;
            \(entityTriggers(EntityRollups.v7Tables + EntityRollups.monthTables))
            """)
    }
}
