import GRDB

/// The rollups by artist and album (all time, per year, month and day; declared in
/// `Rollups.all`): their tables, and their rebuild from the track rollups.
///
/// They are sums over the track rollups: an artist's row is the sum of the rows of the
/// tracks that credit it, an album's of its tracks'. So whatever moves a track to other
/// artists or another album moves its track rows along (`move`), and a rebuild is
/// a GROUP BY over `rollup_track_total`, `rollup_year_track` and `rollup_month_track`.
/// (`move` is the one place a track's rows move between entities.)
enum EntityRollups {
    struct Table {
        var name: String
        var keys: [String]
        /// Which entity: `artist` (via `track_artists`), `album` (via `tracks.album_id`) or
        /// `genre` (via `track_genres`).
        var entity: String

        /// The period its rows are per (`year`, `month`), if any: the first key.
        var period: Period? { Period(rawValue: keys[0]) }
    }

    /// A calendar period a rollup sums over: its column, the length of its text (a prefix
    /// of `local_day`) and its track rollup.
    enum Period: String {
        case year, month, day

        var length: Int {
            switch self {
            case .year: 4
            case .month: 7
            case .day: 10
            }
        }
        var trackTable: String { "rollup_\(rawValue)_track" }
        var totalTable: String { "rollup_\(rawValue)_total" }
        /// A play's period, as SQL over a row (`NEW`, `OLD`).
        func of(_ row: String) -> String { self == .day ? "\(row).local_day" : "substr(\(row).local_day, 1, \(length))" }
    }

    /// Every artist's and album's rollup today (`Rollups.all`).
    static var tables: [Table] { Rollups.all.compactMap(\.entityTable) }

    /// The entities of a track as a subquery of ids (the track's id as SQL).
    static func entities(_ entity: String, of track: String) -> String {
        switch entity {
        case "artist": "SELECT artist_id AS id FROM track_artists WHERE track_id = \(track) AND artist_id IS NOT NULL"
        case "genre": "SELECT genre_id AS id FROM track_genres WHERE track_id = \(track)"
        default: "SELECT album_id AS id FROM tracks WHERE id = \(track) AND album_id IS NOT NULL"
        }
    }

    /// The join from a track rollup (`r`) to an entity's ids, and the id column.
    static func join(_ entity: String) -> (join: String, id: String) {
        switch entity {
        case "artist": ("JOIN track_artists e ON e.track_id = r.track_id", "e.artist_id")
        case "genre": ("JOIN track_genres e ON e.track_id = r.track_id", "e.genre_id")
        default: ("JOIN tracks e ON e.id = r.track_id", "e.album_id")
        }
    }

    static let upsert = "plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s"

    /// `upsert`, and for a month table with its halves (v20, `MonthHalves`) theirs too.
    static func upsert(halves: Bool) -> String { halves ? upsert + ", " + MonthHalves.upsert : upsert }

    /// One table's rows as sums of its track rollup's (`halves`: a month table's halves
    /// too, from v20 on).
    static func rebuild(_ table: Table, halves: Bool, in db: Database) throws {
        let (join, id) = join(table.entity)
        let keys = (table.period.map { "r.\($0.rawValue), " } ?? "") + id
        let withHalves = halves && table.period == .month
        try db.execute(sql: """
            INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s\(withHalves ? ", " + MonthHalves.columns : ""))
              SELECT \(keys), SUM(r.plays), SUM(r.skips), SUM(r.played_s)\(withHalves ? ", SUM(r.first_half_plays), SUM(r.first_half_played_s)" : "")
              FROM \(table.period?.trackTable ?? "rollup_track_total") r \(join)
              WHERE \(id) IS NOT NULL GROUP BY \(keys)
            """)
    }

    /// The rows a track contributes, moved out of (`adding: false`) or into the rows of its
    /// current artists (`entity: "artist"`) or album: before and after its credit or album
    /// changes.
    static func move(track: Int64, entity: String, adding: Bool, in db: Database) throws {
        // A bulk import caches tracks' entities between its batches: it reads this to know.
        try db.cachedStatement(sql: """
            INSERT INTO meta (key, value) VALUES ('entity_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """).execute()
        for table in tables where table.entity == entity {
            // rollup_year_track's key begins with the year (the month's and day's with theirs):
            // naming the periods lets SQLite look the track's rows up instead of reading the table.
            let period = table.period
            let source = period?.trackTable ?? "rollup_track_total"
            let periods = period.map { "\($0.rawValue) IN (SELECT \($0.rawValue) FROM \($0.totalTable)) AND " } ?? ""
            let sourceRows = "\(period == nil ? "" : "r." + periods)r.track_id = ?1"
            let id = table.keys.last!
            let ids = entities(entity, of: "?1")
            // (It runs on the latest schema: a month table has its halves.)
            let halves = period == .month
            let halvesTaken = halves ? ", first_half_plays = \(table.name).first_half_plays - r.first_half_plays, "
                + "first_half_played_s = \(table.name).first_half_played_s - r.first_half_played_s" : ""
            if adding {
                try db.cachedStatement(sql: """
                    INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s\(halves ? ", " + MonthHalves.columns : ""))
                      SELECT \(period.map { "r.\($0.rawValue), " } ?? "")e.id, r.plays, r.skips, r.played_s\(
                        halves ? ", r.first_half_plays, r.first_half_played_s" : "")
                      FROM \(source) r, (\(ids)) e WHERE \(sourceRows)
                      ON CONFLICT (\(table.keys.joined(separator: ", "))) DO UPDATE SET \(upsert(halves: halves))
                    """).execute(arguments: [track])
            } else {
                try db.cachedStatement(sql: """
                    UPDATE \(table.name) SET plays = \(table.name).plays - r.plays, skips = \(table.name).skips - r.skips,
                      played_s = \(table.name).played_s - r.played_s\(halvesTaken)
                    FROM \(source) r WHERE \(sourceRows) AND \(id) IN (\(ids))\(period.map { " AND \(table.name).\($0.rawValue) = r.\($0.rawValue)" } ?? "")
                    """).execute(arguments: [track])
                try db.cachedStatement(sql: "DELETE FROM \(table.name) WHERE \(periods)\(id) IN (\(ids)) AND plays = 0 AND skips = 0")
                    .execute(arguments: [track])
            }
        }
    }
}

/// v20: each month's rollup row of a track, artist or album also holds the first half of its
/// month (days 1 to 15): its counted plays and seconds. A run of days at a range's edge is
/// then its month's row's halves and a few days, not every one of its days: "30 days across
/// two months" looked up ~2,900 day rows per request at 5M plays (`Store.ranked`). The
/// second half is the month's row less the first. Kept wherever the month rows are: the
/// triggers, `EntityRollups.move` and `rebuild`, the rebuilds from plays, the bulk import.
enum MonthHalves {
    /// The last day of a month's first half.
    static let lastDayOfFirst = 15
    static let columns = "first_half_plays, first_half_played_s"
    static let upsert = """
        first_half_plays = first_half_plays + excluded.first_half_plays, \
        first_half_played_s = first_half_played_s + excluded.first_half_played_s
        """

    /// Whether a play (`NEW`, `OLD`, a table's alias) is in its month's first half, as SQL.
    static func isFirst(_ row: String) -> String { "substr(\(row).local_day, 9) <= '\(lastDayOfFirst)'" }

    /// A play's part in a month row's halves, as SQL values (its counted play and seconds in
    /// the first half, else 0): added to the row, as a trigger adds its plays and seconds,
    /// each play's seconds in turn, 0.0 for the second half's (which changes no sum).
    static func values(_ row: String) -> String {
        "CASE WHEN \(isFirst(row)) THEN \(row).counted ELSE 0 END, CASE WHEN \(isFirst(row)) THEN \(row).played_s ELSE 0.0 END"
    }

    /// What removing a play takes off a row's halves, as SQL assignments.
    static func subtract(_ row: String) -> String {
        """
        first_half_plays = first_half_plays - (CASE WHEN \(isFirst(row)) THEN \(row).counted ELSE 0 END), \
        first_half_played_s = first_half_played_s - (CASE WHEN \(isFirst(row)) THEN \(row).played_s ELSE 0.0 END)
        """
    }

    /// The sums of plays' halves as SQL aggregates (a GROUP BY over `plays`, alias `p` or none).
    static func sums(_ row: String = "plays") -> String {
        "SUM(CASE WHEN \(isFirst(row)) THEN \(row).counted ELSE 0 END), SUM(CASE WHEN \(isFirst(row)) THEN \(row).played_s ELSE 0.0 END)"
    }

    /// Whether a local day (`YYYY-MM-DD`) is in its month's first half.
    static func isFirst(day: some StringProtocol) -> Bool {
        let utf8 = Array(day.utf8.dropFirst(8).prefix(2))
        guard utf8.count == 2 else { return false }
        return Int(utf8[0] &- 48) * 10 + Int(utf8[1] &- 48) <= lastDayOfFirst
    }
}
