import GRDB
import PacenoteCore

/// Migration "v17.day-entity-rollups" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Artists and albums per local day (`EntityRollups.dayTables`), summed from the day's
    /// track rollup, kept by the entity triggers (created again with them) and the bulk
    /// import. Only their keys: a range of days reads its days' rows whole, in key order,
    /// and a day's rows are a few hundred at most. They cost a bulk import of 5M plays
    /// about a row per play in each (figures in docs/PERFORMANCE.md).
    static func v17DayEntityRollups(_ db: Database) throws {
        for table in EntityRollups.dayTables {
            try createPeriodRollup(table, in: db)
            try EntityRollups.rebuild(table, halves: false, in: db)
        }
        try db.execute(sql: """
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            \(entityTriggers(EntityRollups.v7Tables + EntityRollups.monthTables + EntityRollups.dayTables))
            """)
    }
}
