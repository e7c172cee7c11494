import GRDB

/// The triggers on `plays` that keep every rollup (`Rollups.all`), derived from the
/// declarations and made again at open when they differ from the stored ones.
///
/// They are derived schema, not a migration: a migration carries its own SQL and never
/// changes, while these follow the declarations. After the migrations, `sync` compares
/// each trigger's SQL in `sqlite_master` with the one the declarations give and, where
/// they differ (a rollup added, a statement changed, a database left by an older
/// version), drops it and creates it again, in one transaction. The stored SQL is its own
/// signature: an unchanged database is one read.
enum RollupTriggers {
    /// The two kinds of trigger, by how the bulk import writes their rollups
    /// (`Rollup.Batch`): it sets their insert triggers aside while it writes a batch.
    static let prefixes: [(Rollup.Batch, String)] = [(.eachPlay, "plays_rollup"), (.batchSums, "plays_entity_rollup")]

    /// Each trigger's name and its `CREATE TRIGGER` statement.
    static var all: [(name: String, sql: String)] {
        prefixes.flatMap { batch, prefix in
            let rollups = Rollups.all.filter { $0.batch == batch }
            func statements(_ row: String, adding: Bool) -> String {
                rollups.map { $0.statements(row, adding: adding) }.joined(separator: "\n")
            }
            return [
                ("\(prefix)_insert", """
                    CREATE TRIGGER \(prefix)_insert AFTER INSERT ON plays BEGIN
                    \(statements("NEW", adding: true))
                    END
                    """),
                ("\(prefix)_delete", """
                    CREATE TRIGGER \(prefix)_delete AFTER DELETE ON plays BEGIN
                    \(statements("OLD", adding: false))
                    END
                    """),
                ("\(prefix)_update", """
                    CREATE TRIGGER \(prefix)_update
                    AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
                    \(statements("OLD", adding: false))
                    \(statements("NEW", adding: true))
                    END
                    """),
            ]
        }
    }

    /// Makes again every trigger whose stored SQL is not the declarations'. Returns the
    /// names of those it made.
    @discardableResult
    static func sync(in db: Database) throws -> [String] {
        let stored = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'plays'")
            .reduce(into: [String: String]()) { $0[$1[0]] = $1[1] }
        var made: [String] = []
        for trigger in all where stored[trigger.name] != trigger.sql {
            try db.execute(sql: "DROP TRIGGER IF EXISTS \(trigger.name)")
            try db.execute(sql: trigger.sql)
            made.append(trigger.name)
        }
        return made
    }
}
