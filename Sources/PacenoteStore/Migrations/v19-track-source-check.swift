import GRDB
import PacenoteCore

/// Migration "v19.track-source-check" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// v19: the tracks' check of `bpm_source` as comparisons, the same rule. SQLite (3.40)
    /// checks `x IN (five constants)` by building a temporary B-tree of the five every time a
    /// track is stored — a pager opened and closed per row, 7 % of an import of new tracks'
    /// writer. The table's SQL is changed in place (`PRAGMA writable_schema`, then a new
    /// schema version): SQLite documents that way for removing a check; here the new check
    /// accepts exactly the values the old one did, so every stored row meets it, and no row
    /// is rewritten. A tracks table whose SQL does not hold the old check (changed by hand)
    /// is left as it is: the rule is the same, only slower to check.
    static let v18SourceCheck = "CHECK (bpm_source IN ('tag', 'sticker', 'analysis', 'manual', 'import'))"
    static let v19SourceCheck = """
        CHECK (bpm_source = 'tag' OR bpm_source = 'sticker' OR bpm_source = 'analysis' OR bpm_source = 'manual' OR bpm_source = 'import')
        """

    static func v19TrackSourceCheck(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        defer { try? db.execute(sql: "PRAGMA writable_schema = OFF") }
        try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, ?1, ?2) WHERE type = 'table' AND name = 'tracks' AND instr(sql, ?1)",
                       arguments: [v18SourceCheck, v19SourceCheck])
        // The new version makes every connection read the schema again (this one at its next
        // statement: a rewrite SQLite could not parse would fail the migration there).
        if db.changesCount > 0 { try db.execute(sql: "PRAGMA schema_version = \(version + 1)") }
    }
}
