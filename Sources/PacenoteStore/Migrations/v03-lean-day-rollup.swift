import GRDB
import PacenoteCore

/// Migration "v3.lean-day-rollup" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v3LeanDayRollup(_ db: Database) throws {
        try db.execute(sql: """
            -- rollup_day_track has about a row per play (few songs are played twice a day), so
            -- a second index on it cost as much to keep as plays' own (an eighth of an import,
            -- scripts/bench/import). Its one reader, a track's or an artist's plays by month,
            -- reads plays through plays_identity instead. Tracks are never deleted (plays
            -- restrict it), so the ON DELETE CASCADE it served does not run.
            DROP INDEX rollup_day_track_by_track;
            """)
    }
}
