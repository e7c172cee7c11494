import GRDB
import PacenoteCore

/// Migration "v20.month-halves" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// v20: the month rollups of tracks, artists and albums hold their month's first half
    /// too (`MonthHalves`), summed from the day rollups; the track and entity triggers are
    /// created again to keep them (the same statements as before, and the halves').
    static func v20MonthHalves(_ db: Database) throws {
        for (entity, id) in [("track", "track_id"), ("artist", "artist_id"), ("album", "album_id")] {
            let table = "rollup_month_\(entity)"
            try db.execute(sql: """
                ALTER TABLE \(table) ADD COLUMN first_half_plays INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE \(table) ADD COLUMN first_half_played_s REAL NOT NULL DEFAULT 0.0;
                UPDATE \(table) AS m SET first_half_plays = d.plays, first_half_played_s = d.played_s
                  FROM (SELECT substr(day, 1, 7) AS month, \(id) AS id, SUM(plays) AS plays, SUM(played_s) AS played_s
                        FROM rollup_day_\(entity) WHERE substr(day, 9) <= '\(MonthHalves.lastDayOfFirst)' GROUP BY 1, 2) d
                  WHERE m.month = d.month AND m.\(id) = d.id;
                """)
        }
        try db.execute(sql: """
            DROP TRIGGER plays_rollup_insert;
            DROP TRIGGER plays_rollup_delete;
            DROP TRIGGER plays_rollup_update;
            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(rollupStatements("NEW", adding: true, tables: trackRollups, halves: true))
            \(firstPlayStatements("NEW", adding: true))
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups, halves: true))
            \(firstPlayStatements("OLD", adding: false))
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups, halves: true))
            \(rollupStatements("NEW", adding: true, tables: trackRollups, halves: true))
            \(firstPlayStatements("OLD", adding: false))
            \(firstPlayStatements("NEW", adding: true))
            END;
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            \(entityTriggers(EntityRollups.v7Tables + EntityRollups.monthTables + EntityRollups.dayTables, halves: true))
            """)
    }
}
