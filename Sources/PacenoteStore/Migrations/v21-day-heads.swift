import GRDB

/// Migration "v21.day-heads" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// v21: the day rollups' heads (`DayHeads`), three indexes (5M plays: ~1 s) — or, while
    /// an import has the ranking indexes set aside (its record under `meta.deferred_indexes`,
    /// `DeferredIndexes`), recorded with them, for whoever builds those (as v18 does):
    /// created now, the import would keep them row by row.
    static func v21DayHeads(_ db: Database) throws {
        let statements = [
            "CREATE INDEX rollup_day_track_top ON rollup_day_track(day, plays DESC, played_s DESC) WHERE plays >= 3",
            "CREATE INDEX rollup_day_artist_top ON rollup_day_artist(day, plays DESC, played_s DESC) WHERE plays >= 3",
            "CREATE INDEX rollup_day_album_top ON rollup_day_album(day, plays DESC, played_s DESC) WHERE plays >= 3",
        ]
        if let record = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'deferred_indexes'") {
            try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'deferred_indexes'",
                           arguments: [([record] + statements).joined(separator: "\n")])
        } else {
            for statement in statements { try db.execute(sql: statement) }
        }
    }
}
