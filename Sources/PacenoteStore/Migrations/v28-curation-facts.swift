import GRDB
import PacenoteCore

/// Migration "v28.curation-facts" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A curation entry's facts (`CurationFacts`, JSON): the line people read is made from
    /// them when it is shown, not written in English inside the change's transaction.
    /// Entries logged before keep their stored `summary`; later ones store it empty.
    static func v28CurationFacts(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE curation_log ADD COLUMN facts_json TEXT;
            """)
    }
}
