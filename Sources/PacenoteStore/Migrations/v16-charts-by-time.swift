import GRDB
import PacenoteCore

/// Migration "v16.charts-by-time" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Charts by listening time of any range read the best rows of each piece, as charts by
    /// plays do (`Store.ranked`, `RankedSum` by seconds): each year's and month's rollups of
    /// tracks, artists and albums get an index by time, and the artists' and albums' totals
    /// one as the tracks' have had since v7. Without them a range of three years summed
    /// every row of each year (119 ms p99 at 5M plays, scripts/bench/scale). They cost a bulk
    /// import about 6 % (1M plays, whole-process medians of 3 pairs). Setting every chart
    /// index aside during a large import and sorting them at its end cost 5 % more at 5M
    /// when first tried; with the WAL started over between transactions and the sort's runs
    /// in a file, it saves a quarter of a 5M import (`DeferredIndexes`).
    static func v16ChartsByTime(_ db: Database) throws {
        for table in ["rollup_year_track", "rollup_year_artist", "rollup_year_album"] {
            try db.execute(sql: "CREATE INDEX \(table)_by_time ON \(table)(year, played_s DESC, plays DESC)")
        }
        for table in ["rollup_month_track", "rollup_month_artist", "rollup_month_album"] {
            try db.execute(sql: "CREATE INDEX \(table)_by_time ON \(table)(month, played_s DESC, plays DESC)")
        }
        try db.execute(sql: """
            CREATE INDEX rollup_artist_total_by_time ON rollup_artist_total(played_s DESC, plays DESC);
            CREATE INDEX rollup_album_total_by_time ON rollup_album_total(played_s DESC, plays DESC);
            """)
    }
}
