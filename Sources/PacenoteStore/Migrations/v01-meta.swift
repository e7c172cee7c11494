import GRDB
import PacenoteCore

/// Migration "v1.meta" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v1Meta(_ db: Database) throws {
        try db.execute(sql: """
            -- Small facts about this database: when it was created, which time zone the rollups use.
            CREATE TABLE meta (
              key   TEXT PRIMARY KEY NOT NULL,
              value TEXT NOT NULL
            ) WITHOUT ROWID;
            """)
    }
}
