import GRDB

/// Migration "v18.ranking-heads" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// v18: every ranking index of the year and month rollups made a head index (the rows
    /// with at least 2 counted plays, or 600 s: `RankingHeads`), and the years' skip-only
    /// rows indexed. (A process of an older version building the same set-aside indexes while
    /// this runs may have read the record before it was rewritten: its full indexes then
    /// stay. They give the same charts, only larger.) One that an import set aside (recorded
    /// under `meta.deferred_indexes` by `DeferredIndexes`, a line per statement after its
    /// owner's) is not built here: its record gets the new statement, for whoever builds it.
    /// Its statements as they were when it shipped, not `RankingHeads`' of the day.
    static let v18HeadIndexes: [(name: String, sql: String)] = [
        ("rollup_year_track_top", "CREATE INDEX rollup_year_track_top ON rollup_year_track(year, plays DESC, played_s DESC) WHERE plays >= 2"),
        ("rollup_year_track_by_time",
         "CREATE INDEX rollup_year_track_by_time ON rollup_year_track(year, played_s DESC, plays DESC) WHERE played_s >= 600"),
        ("rollup_month_track_top", "CREATE INDEX rollup_month_track_top ON rollup_month_track(month, plays DESC, played_s DESC) WHERE plays >= 2"),
        ("rollup_month_track_by_time",
         "CREATE INDEX rollup_month_track_by_time ON rollup_month_track(month, played_s DESC, plays DESC) WHERE played_s >= 600"),
        ("rollup_year_artist_top", "CREATE INDEX rollup_year_artist_top ON rollup_year_artist(year, plays DESC, played_s DESC) WHERE plays >= 2"),
        ("rollup_year_artist_by_time",
         "CREATE INDEX rollup_year_artist_by_time ON rollup_year_artist(year, played_s DESC, plays DESC) WHERE played_s >= 600"),
        ("rollup_month_artist_top",
         "CREATE INDEX rollup_month_artist_top ON rollup_month_artist(month, plays DESC, played_s DESC) WHERE plays >= 2"),
        ("rollup_month_artist_by_time",
         "CREATE INDEX rollup_month_artist_by_time ON rollup_month_artist(month, played_s DESC, plays DESC) WHERE played_s >= 600"),
        ("rollup_year_album_top", "CREATE INDEX rollup_year_album_top ON rollup_year_album(year, plays DESC, played_s DESC) WHERE plays >= 2"),
        ("rollup_year_album_by_time",
         "CREATE INDEX rollup_year_album_by_time ON rollup_year_album(year, played_s DESC, plays DESC) WHERE played_s >= 600"),
        ("rollup_month_album_top", "CREATE INDEX rollup_month_album_top ON rollup_month_album(month, plays DESC, played_s DESC) WHERE plays >= 2"),
        ("rollup_month_album_by_time",
         "CREATE INDEX rollup_month_album_by_time ON rollup_month_album(month, played_s DESC, plays DESC) WHERE played_s >= 600"),
    ]

    static func v18RankingHeads(_ db: Database) throws {
        let record = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'deferred_indexes'")
        let recorded = record?.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().filter { !$0.isEmpty } ?? []
        for (name, sql) in v18HeadIndexes {
            let exists = try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", arguments: [name]) ?? false
            let isRecorded = recorded.contains { $0.hasPrefix("CREATE INDEX \(name) ON ") }
            if exists { try db.execute(sql: "DROP INDEX \(name)") }
            if exists || !isRecorded { try db.execute(sql: sql) }
        }
        // (Added to v18 before it was released; a database v18 reached without them counts
        // a year's chart by reading every row: `chartedCount`.)
        try db.execute(sql: """
            CREATE INDEX rollup_year_track_skipped ON rollup_year_track(year) WHERE plays <= 0;
            CREATE INDEX rollup_year_artist_skipped ON rollup_year_artist(year) WHERE plays <= 0;
            CREATE INDEX rollup_year_album_skipped ON rollup_year_album(year) WHERE plays <= 0;
            """)
        guard let record else { return }
        let lines = record.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            guard line.hasPrefix("CREATE INDEX "), let name = line.dropFirst("CREATE INDEX ".count).split(separator: " ").first,
                  let index = v18HeadIndexes.first(where: { $0.name == name }) else { return String(line) }
            return index.sql
        }
        try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'deferred_indexes'", arguments: [lines.joined(separator: "\n")])
    }
}
