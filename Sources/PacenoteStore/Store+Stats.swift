import Foundation
import GRDB
import PacenoteCore

/// Chart rows: a track, an artist or an album with its counted plays and listening time.
public struct ChartEntry: Equatable, Sendable {
    public var track: Track?
    public var artist: String?
    public var album: String?
    public var plays: Int
    public var seconds: Double
    /// In an artist's chart of tracks: the artist is featured on this track, not its primary artist.
    public var featured = false
    /// The artist's entity, in a chart of artists.
    public var artistID: Int64?
    /// The album's entity, in a chart of albums.
    public var albumID: Int64?
    /// The genre and its entity, in a chart of genres.
    public var genre: String? = nil
    public var genreID: Int64? = nil
}

/// How a chart is ranked: by counted plays (then listening time), or by listening time
/// (then plays), for a listener whose favourites are twelve-minute tracks.
public enum ChartOrder: String, CaseIterable, Equatable, Sendable {
    case plays, time

    /// The ORDER BY keys over a chart's `plays` and `secs` columns.
    func keys(plays: String, secs: String) -> String {
        switch self {
        case .plays: "\(plays) DESC, \(secs) DESC"
        case .time: "\(secs) DESC, \(plays) DESC"
        }
    }
}

public struct PeriodTotals: Equatable, Sendable {
    public var plays: Int
    public var skips: Int
    public var seconds: Double
}

/// A range's totals and charts (`Store.rangeStats`).
public struct RangeStats: Equatable, Sendable {
    public var totals: PeriodTotals
    public var tracks: [ChartEntry]
    public var artists: [ChartEntry]
    public var albums: [ChartEntry]
}

extension Store {
    /// The smallest rollup that answers a range of days exactly, as a subquery of
    /// (track_id, plays, skips, played_s) rows: all time, a whole year, or the days.
    static func trackRollup(fromDay: String, toDay: String) -> (sql: String, arguments: StatementArguments) {
        if fromDay <= "0000-01-01" && toDay >= "9999-12-31" {
            return ("SELECT track_id, plays, skips, played_s FROM rollup_track_total", [])
        }
        if fromDay.hasSuffix("-01-01"), toDay.hasSuffix("-12-31"), fromDay.prefix(4) == toDay.prefix(4) {
            return ("SELECT track_id, plays, skips, played_s FROM rollup_year_track WHERE year = ?", [String(fromDay.prefix(4))])
        }
        return ("""
            SELECT track_id, SUM(plays) AS plays, SUM(skips) AS skips, SUM(played_s) AS played_s
            FROM rollup_day_track WHERE day BETWEEN ? AND ? GROUP BY track_id
            """, [fromDay, toDay])
    }

    /// A range one rollup answers whole: all time, or one whole year.
    enum WholeRange: Equatable {
        case all
        case year(String)

        init?(fromDay: String, toDay: String) {
            if fromDay <= "0000-01-01" && toDay >= "9999-12-31" {
                self = .all
            } else if fromDay.hasSuffix("-01-01"), toDay.hasSuffix("-12-31"), fromDay.prefix(4) == toDay.prefix(4) {
                self = .year(String(fromDay.prefix(4)))
            } else {
                return nil
            }
        }

        /// The rollup table of `entity` (`track`, `artist`, `album`) for this range, and the
        /// condition (with its argument) that picks the range's rows.
        func table(_ entity: String) -> (name: String, filter: String, arguments: StatementArguments) {
            switch self {
            case .all: (entity == "track" ? "rollup_track_total" : "rollup_\(entity)_total", "1", [])
            case .year(let year): ("rollup_year_\(entity)", "r.year = ?", [year])
            }
        }
    }

    /// The best rows of a whole range's rollup, ranked by `order`, for a chart of at most
    /// `limit`: the `limit`-th row's ranking key is found by walking the table's index, then
    /// the chart is every row at least as good (the limit and its ties), sorted with the
    /// names. Every total and year rollup has an index by plays (v1, v9) and by time (v7,
    /// v16): a read of about `limit` rows, however long the history and wide the library —
    /// for a year, as long as the chart is within its head (v18, `RankingHeads`); a chart
    /// longer than the head sorts the year's rows.
    /// `select`/`join`/`name`: the chart's columns, the join that names its rows, the tie-break.
    static func topRows(_ range: WholeRange, entity: String, select: String, join: String, name: String, limit: Int,
                        order: ChartOrder, in db: Database) throws -> [Row] {
        try Row.fetchAll(topStatement(range, entity: entity, select: select, join: join, name: name, limit: limit, order: order, in: db).statement)
    }

    /// `topRows`' query, its arguments bound, for rows read through the C API (a deep
    /// chart of tracks: ListenBrainz's pages read 1,600 of them, 22 columns each, and GRDB's
    /// rows took ~10 ms of that at 5M plays).
    static func topStatement(_ range: WholeRange, entity: String, select: String, join: String, name: String, limit: Int,
                             order: ChartOrder, in db: Database) throws -> RawStatement {
        let table = range.table(entity)
        let keys = order == .plays ? ("r.plays", "r.played_s") : ("r.played_s", "r.plays")
        // By time, `plays > 0` is only a check (`+`): as a bound it would have SQLite walk
        // the index by plays and sort every row by time.
        let played = order == .plays ? "r.plays > 0" : "+r.plays > 0"
        let ranking = "ORDER BY \(keys.0) DESC, \(keys.1) DESC LIMIT 1 OFFSET ?"
        // A year's index holds its head only (v18, `RankingHeads`): the limit-th is looked for
        // there, then, when the head is shorter, among the tail's rows, sorted.
        var head = ""
        var threshold: Row?
        if case .year = range {
            let inHead = "\(table.filter) AND \(RankingHeads.head(order, "r.")) AND \(played)"
            threshold = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(keys.0), \(keys.1) FROM \(table.name) r WHERE \(inHead) \(ranking)"),
                                         arguments: table.arguments + [limit - 1])
            if threshold != nil {
                head = " AND \(RankingHeads.head(order, "r."))"
            } else {
                let count = try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM \(table.name) r WHERE \(inHead)"),
                                             arguments: table.arguments) ?? 0
                threshold = try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT \(keys.0), \(keys.1) FROM \(table.name) r WHERE \(table.filter) AND \(RankingHeads.tail(order, "r.")) AND \(played) \(ranking)
                    """), arguments: table.arguments + [limit - 1 - count])
            }
        } else {
            threshold = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(keys.0), \(keys.1) FROM \(table.name) r WHERE \(table.filter) AND \(played) \(ranking)"),
                                         arguments: table.arguments + [limit - 1])
        }
        // The leading key's bound on its own as well, and no other bound on that column: SQLite
        // seeks the index by one bound of a column, and checks a row value against every row
        // it walks (all 150,000 tracks at 5M plays). By plays, the bound implies `plays > 0`.
        // A limit-th in a year's head: the head's condition too, for SQLite to read its index
        // — after the bound, which SQLite then seeks by (it takes the first of two bounds of a
        // column; by the head's, it walked the whole head: ~22,000 rows, 3 ms, a year of tracks
        // at 5M plays). The bound is `+?`: SQLite compares a parameter beside the partial
        // index's condition with it (`x >= ?` against `x >= 2`), and then prepares the statement
        // again whenever it is bound (the year's charts at 5M plays took 0.3 ms more). As an
        // expression it is not compared, and still bounds the index. `RankingHeadsTests` counts
        // the rows stepped through and the statements prepared again.
        let positive = threshold != nil && order == .plays ? "" : " AND \(played)"
        let atLeast = threshold == nil ? "" : " AND \(keys.0) >= +?\(head) AND (\(keys.0), \(keys.1)) >= (?, ?)"
        let arguments = table.arguments + (threshold.map { [$0[0] as DatabaseValue, $0[0] as DatabaseValue, $0[1] as DatabaseValue] } ?? []) + [limit]
        return try RawStatement(db, """
            SELECT \(select) FROM \(table.name) r \(join) WHERE \(table.filter)\(positive)\(atLeast)
            ORDER BY \(keys.0) DESC, \(keys.1) DESC, \(name), r.\(entity)_id LIMIT ?
            """, arguments: arguments)
    }

    /// From the rollups: never a scan of the plays.
    public func totals(fromDay: String, toDay: String) throws(StoreError) -> PeriodTotals {
        try read { db in try Store.totals(Store.rangeSource(fromDay: fromDay, toDay: toDay, in: db), fromDay: fromDay, toDay: toDay, in: db) }
    }

    /// A range's totals: its whole years' rows, or a row per year, month and edge day of its
    /// pieces, or its days'.
    static func totals(_ source: RangeSource?, fromDay: String, toDay: String, in db: Database) throws -> PeriodTotals {
        switch source {
        case .whole(let whole)?:
            let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(plays), 0), COALESCE(SUM(skips), 0), COALESCE(SUM(played_s), 0) FROM rollup_year_total
                \(whole == .all ? "" : "WHERE year = ?")
                """, arguments: whole.table("track").arguments)!
            return PeriodTotals(plays: row[0], skips: row[1], seconds: row[2])
        case .pieces(let pieces)?:
            return try Store.totals(pieces, in: db)
        case nil:
            let row = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(plays), 0), COALESCE(SUM(skips), 0), COALESCE(SUM(played_s), 0) FROM rollup_day_total
                WHERE day BETWEEN ? AND ?
                """, arguments: [fromDay, toDay])!
            return PeriodTotals(plays: row[0], skips: row[1], seconds: row[2])
        }
    }

    /// A range's totals and its top tracks, artists and albums, from one read: the figures
    /// of one snapshot (they agree with each other while plays are being stored), the range
    /// cut into pieces once, and one connection's page cache for the four (every stored play
    /// empties the readers' caches; four reads on four connections read the same rollup
    /// pages four times). What the stats page and `/api/v1/stats` show.
    public func rangeStats(fromDay: String, toDay: String, limit: Int, by order: ChartOrder = .plays) throws(StoreError) -> RangeStats {
        let edge = Store.edgeDaysSummedWhole, budget = Store.rankedBudget
        return try read { db in
            let source = try Store.rangeSource(fromDay: fromDay, toDay: toDay, in: db)
            var counted: Int?
            return RangeStats(
                totals: try Store.totals(source, fromDay: fromDay, toDay: toDay, in: db),
                tracks: try Store.chart(.track, source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge,
                                        budget: budget, counted: &counted, in: db),
                artists: try Store.chart(.artist, source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge,
                                         budget: budget, counted: &counted, in: db),
                albums: try Store.chart(.album, source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge,
                                        budget: budget, counted: &counted, in: db))
        }
    }

    /// The most played tracks (counted plays, then listening time, then title).
    public func topTracks(fromDay: String, toDay: String, limit: Int, by order: ChartOrder = .plays) throws(StoreError) -> [ChartEntry] {
        try chart(.track, fromDay: fromDay, toDay: toDay, limit: limit, order: order)
    }

    /// A chart of `limit` entries (by plays) and the length of the whole chart
    /// (`chartedCount`: ListenBrainz's `total_…_count`), from one read. A range the chart
    /// sums whole (its days, or flat listening) gives its length with it; others count it
    /// from their rollups.
    public func countedChart(_ entity: ChartEntity, fromDay: String, toDay: String, limit: Int) throws(StoreError) -> (entries: [ChartEntry], total: Int) {
        let edge = Store.edgeDaysSummedWhole, budget = Store.rankedBudget
        return try read { db in
            var counted: Int?
            let source = try Store.rangeSource(fromDay: fromDay, toDay: toDay, in: db)
            let entries = try Store.chart(entity, source, fromDay: fromDay, toDay: toDay, limit: limit, order: .plays, edge: edge,
                                          budget: budget, needsCount: true, counted: &counted, in: db)
            return (entries, try counted ?? Store.chartedCount(entity, source, fromDay: fromDay, toDay: toDay, in: db))
        }
    }

    /// A chart in a read of its own (`topTracks`, `topArtists`, `topAlbums`).
    private func chart(_ entity: ChartEntity, fromDay: String, toDay: String, limit: Int, order: ChartOrder) throws(StoreError) -> [ChartEntry] {
        let edge = Store.edgeDaysSummedWhole, budget = Store.rankedBudget
        return try read { db in
            var counted: Int?
            return try Store.chart(entity, Store.rangeSource(fromDay: fromDay, toDay: toDay, in: db), fromDay: fromDay, toDay: toDay,
                                   limit: limit, order: order, edge: edge, budget: budget, counted: &counted, in: db)
        }
    }

    /// The chart of `entity` in a read, of the range as `rangeSource` gave it (`counted`: as `topTracks`'s).
    static func chart(_ entity: ChartEntity, _ source: RangeSource?, fromDay: String, toDay: String, limit: Int, order: ChartOrder,
                      edge: Int, budget: Int, needsCount: Bool = false, counted: inout Int?, in db: Database) throws -> [ChartEntry] {
        switch entity {
        case .track: try topTracks(source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge, budget: budget,
                                   needsCount: needsCount, counted: &counted, in: db)
        case .artist: try topArtists(source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge, budget: budget,
                                     needsCount: needsCount, counted: &counted, in: db)
        case .album: try topAlbums(source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge, budget: budget,
                                   needsCount: needsCount, counted: &counted, in: db)
        case .genre: try topGenres(source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge, budget: budget,
                                   needsCount: needsCount, counted: &counted, in: db)
        }
    }

    /// The totals and the top genres of a range, from one read (`GET /api/v1/stats?by=genre`).
    public func rangeGenres(fromDay: String, toDay: String, limit: Int, by order: ChartOrder = .plays)
        throws(StoreError) -> (totals: PeriodTotals, genres: [ChartEntry]) {
        let edge = Store.edgeDaysSummedWhole, budget = Store.rankedBudget
        return try read { db in
            let source = try Store.rangeSource(fromDay: fromDay, toDay: toDay, in: db)
            var counted: Int?
            return (try Store.totals(source, fromDay: fromDay, toDay: toDay, in: db),
                    try Store.chart(.genre, source, fromDay: fromDay, toDay: toDay, limit: limit, order: order, edge: edge,
                                    budget: budget, counted: &counted, in: db))
        }
    }

    /// The most played genres (v30): a play counts for each genre of its track.
    public func topGenres(fromDay: String, toDay: String, limit: Int, by order: ChartOrder = .plays) throws(StoreError) -> [ChartEntry] {
        try chart(.genre, fromDay: fromDay, toDay: toDay, limit: limit, order: order)
    }

    /// `topGenres` in a read (`counted`: as `topTracks`'s), as `topArtists`.
    static func topGenres(_ source: RangeSource?, fromDay: String, toDay: String, limit: Int, order: ChartOrder, edge: Int, budget: Int,
                          needsCount: Bool = false, counted: inout Int?, in db: Database) throws -> [ChartEntry] {
        func entry(id: Int64, name: String, plays: Int, seconds: Double) -> ChartEntry {
            ChartEntry(track: nil, artist: nil, album: nil, plays: plays, seconds: seconds, genre: name, genreID: id)
        }
        switch source {
        case .whole(let whole)?:
            return try Store.topRows(whole, entity: "genre", select: "g.id, g.name, r.plays, r.played_s",
                                     join: "JOIN genres g ON g.id = r.genre_id", name: "g.name", limit: limit, order: order, in: db)
                .map { entry(id: $0[0], name: $0[1], plays: $0[2], seconds: $0[3]) }
        case .pieces(let pieces)?:
            let ranked = try Store.ranked(.genre, pieces, limit: limit, order: order, edgeDaysSummedWhole: edge, budget: budget,
                                          needsCount: needsCount, counted: &counted, in: db)
            return try Store.named(ranked, limit: limit, order: order, select: "x.id, x.name", from: "genres x",
                                   decode: { (id: $0.int64(0), name: $0.text(1) ?? "") }, name: \.name, in: db).map { row, e in
                entry(id: row.id, name: row.name, plays: e.plays, seconds: e.seconds)
            }
        case nil: break
        }
        let source = Store.trackRollup(fromDay: fromDay, toDay: toDay)
        return try Row.fetchAll(db, sql: """
            SELECT g.id, g.name, SUM(r.plays) AS plays, SUM(r.played_s) AS secs
            FROM (\(source.sql)) r JOIN track_genres tg ON tg.track_id = r.track_id JOIN genres g ON g.id = tg.genre_id
            GROUP BY g.id HAVING SUM(r.plays) > 0
            ORDER BY \(order.keys(plays: "plays", secs: "secs")), g.name, g.id LIMIT ?
            """, arguments: source.arguments + [limit]).map { row in
            entry(id: row[0], name: row[1], plays: row[2], seconds: row[3])
        }
    }

    /// `topTracks` in a read. `counted`: set to the length of the whole chart when the
    /// chart summed every entry of the range (`ranked`).
    static func topTracks(_ source: RangeSource?, fromDay: String, toDay: String, limit: Int, order: ChartOrder, edge: Int, budget: Int,
                          needsCount: Bool = false, counted: inout Int?, in db: Database) throws -> [ChartEntry] {
        switch source {
        case .whole(let whole)?:
            let rows = try Store.topStatement(whole, entity: "track", select: "\(Store.trackColumns("t")), r.plays, r.played_s",
                                              join: "JOIN tracks t ON t.id = r.track_id", name: "t.title", limit: limit, order: order, in: db)
            var entries: [ChartEntry] = []
            let n = Int32(Store.trackColumnCount)
            while try rows.step() {
                entries.append(ChartEntry(track: Store.track(from: rows, at: 0), artist: nil, album: nil,
                                          plays: Int(rows.int64(n)), seconds: rows.double(n + 1)))
            }
            return entries
        case .pieces(let pieces)?:
            let ranked = try Store.ranked(.track, pieces, limit: limit, order: order, edgeDaysSummedWhole: edge, budget: budget,
                                          needsCount: needsCount, counted: &counted, in: db)
            return try Store.named(ranked, limit: limit, order: order, select: Store.trackColumns("x"), from: "tracks x",
                                   decode: { Store.track(from: $0, at: 0) }, name: \.title, in: db).map { track, entry in
                ChartEntry(track: track, artist: nil, album: nil, plays: entry.plays, seconds: entry.seconds)
            }
        case nil: break
        }
        let source = Store.trackRollup(fromDay: fromDay, toDay: toDay)
        return try Row.fetchAll(db, sql: """
            SELECT \(Store.trackColumns("t")), r.plays AS chart_plays, r.played_s AS chart_secs FROM (\(source.sql)) r
            JOIN tracks t ON t.id = r.track_id WHERE r.plays > 0
            ORDER BY \(order.keys(plays: "r.plays", secs: "r.played_s")), t.title, t.id LIMIT ?
            """, arguments: source.arguments + [limit]).map(Store.chartEntry(track:))
    }

    /// The most played artists: a play counts once for every artist its track is credited
    /// to (`track_artists`: the listed artists, or those split from the text, which falls
    /// back to the album artist), grouped by the artist's entity.
    public func topArtists(fromDay: String, toDay: String, limit: Int, by order: ChartOrder = .plays) throws(StoreError) -> [ChartEntry] {
        try chart(.artist, fromDay: fromDay, toDay: toDay, limit: limit, order: order)
    }

    /// `topArtists` in a read (`counted`: as `topTracks`'s).
    static func topArtists(_ source: RangeSource?, fromDay: String, toDay: String, limit: Int, order: ChartOrder, edge: Int, budget: Int,
                           needsCount: Bool = false, counted: inout Int?, in db: Database) throws -> [ChartEntry] {
        switch source {
        case .whole(let whole)?:
            return try Store.topRows(whole, entity: "artist", select: "ar.id, ar.name, r.plays, r.played_s",
                                     join: "JOIN artists ar ON ar.id = r.artist_id", name: "ar.name", limit: limit, order: order, in: db)
                .map { ChartEntry(track: nil, artist: $0[1], album: nil, plays: $0[2], seconds: $0[3], artistID: $0[0]) }
        case .pieces(let pieces)?:
            let ranked = try Store.ranked(.artist, pieces, limit: limit, order: order, edgeDaysSummedWhole: edge, budget: budget,
                                          needsCount: needsCount, counted: &counted, in: db)
            return try Store.named(ranked, limit: limit, order: order, select: "x.id, x.name", from: "artists x",
                                   decode: { (id: $0.int64(0), name: $0.text(1) ?? "") }, name: \.name, in: db).map { row, entry in
                ChartEntry(track: nil, artist: row.name, album: nil, plays: entry.plays, seconds: entry.seconds, artistID: row.id)
            }
        case nil: break
        }
        let source = Store.trackRollup(fromDay: fromDay, toDay: toDay)
        return try Row.fetchAll(db, sql: """
            SELECT ar.id, ar.name, SUM(r.plays) AS plays, SUM(r.played_s) AS secs
            FROM (\(source.sql)) r JOIN track_artists a ON a.track_id = r.track_id JOIN artists ar ON ar.id = a.artist_id
            GROUP BY ar.id HAVING SUM(r.plays) > 0
            ORDER BY \(order.keys(plays: "plays", secs: "secs")), ar.name, ar.id LIMIT ?
            """, arguments: source.arguments + [limit]).map { row in
            ChartEntry(track: nil, artist: row[1], album: nil, plays: row[2], seconds: row[3], artistID: row[0])
        }
    }

    /// The most played albums, by album entity: two albums of one title by two artists (or
    /// two releases) stay apart. `artistID`: the album artist's entity, when there is one.
    public func topAlbums(fromDay: String, toDay: String, limit: Int, by order: ChartOrder = .plays) throws(StoreError) -> [ChartEntry] {
        try chart(.album, fromDay: fromDay, toDay: toDay, limit: limit, order: order)
    }

    /// `topAlbums` in a read (`counted`: as `topTracks`'s).
    static func topAlbums(_ source: RangeSource?, fromDay: String, toDay: String, limit: Int, order: ChartOrder, edge: Int, budget: Int,
                          needsCount: Bool = false, counted: inout Int?, in db: Database) throws -> [ChartEntry] {
        let rows: [(id: Int64, title: String, artist: String?, plays: Int, seconds: Double)]
        switch source {
        case .whole(let whole)?:
            rows = try Store.topRows(whole, entity: "album", select: "al.id, al.title, al.artist, r.plays, r.played_s",
                                     join: "JOIN albums al ON al.id = r.album_id", name: "al.title", limit: limit, order: order, in: db)
                .map { ($0[0], $0[1], $0[2], $0[3], $0[4]) }
        case .pieces(let pieces)?:
            let ranked = try Store.ranked(.album, pieces, limit: limit, order: order, edgeDaysSummedWhole: edge, budget: budget,
                                          needsCount: needsCount, counted: &counted, in: db)
            rows = try Store.named(ranked, limit: limit, order: order, select: "x.id, x.title, x.artist", from: "albums x",
                                   decode: { (id: $0.int64(0), title: $0.text(1) ?? "", artist: $0.text(2)) }, name: \.title, in: db)
                .map { ($0.row.id, $0.row.title, $0.row.artist, $0.entry.plays, $0.entry.seconds) }
        case nil:
            let source = Store.trackRollup(fromDay: fromDay, toDay: toDay)
            rows = try Row.fetchAll(db, sql: """
                SELECT al.id, al.title, al.artist, SUM(r.plays) AS plays, SUM(r.played_s) AS secs
                FROM (\(source.sql)) r JOIN tracks t ON t.id = r.track_id JOIN albums al ON al.id = t.album_id
                GROUP BY al.id HAVING SUM(r.plays) > 0
                ORDER BY \(order.keys(plays: "plays", secs: "secs")), al.title, al.id LIMIT ?
                """, arguments: source.arguments + [limit]).map { ($0[0], $0[1], $0[2], $0[3], $0[4]) }
        }
        return try rows.map { row in
            // The album artist's own entity, when that name is credited somewhere; a merged
            // name shows as the kept one (`shownArtist`).
            let artist = try row.artist.flatMap {
                try Row.fetchOne(db.cachedStatement(sql: """
                    SELECT k.id, CASE WHEN a.merged_into IS NULL THEN NULL ELSE k.name END
                    FROM artists a JOIN artists k ON k.id = COALESCE(a.merged_into, a.id) WHERE a.name_key = ?
                    """), arguments: [EntityKey.artist($0)])
            }
            return ChartEntry(track: nil, artist: (artist?[1] as String?) ?? row.artist, album: row.title, plays: row.plays, seconds: row.seconds,
                              artistID: artist?[0], albumID: row.id)
        }
    }
}
