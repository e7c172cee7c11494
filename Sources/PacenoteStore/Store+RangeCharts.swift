import GRDB
import PacenoteCore

/// Charts of any range of days from the rollups of its pieces (`RangePieces`): its whole
/// years and months each a rollup with an index by plays (v8), read a prefix at a time
/// (`RankedSum`), and the days at its edges summed whole from the day rollups (v17: each
/// entity's own). A range's cost follows the
/// number of its pieces and the plays of its edge days (at most two part-months), not the
/// length of the history or the width of the library.
extension Store {
    /// What a chart is of: tracks, artists, albums or genres, and how their rollups are named.
    public enum ChartEntity: String, Sendable {
        case track, artist, album, genre

        var idColumn: String { "\(rawValue)_id" }
        func table(_ period: EntityRollups.Period) -> String { "rollup_\(period.rawValue)_\(rawValue)" }

        /// The days `?`…`?` of this entity's day rollup as (id, plays, skips, played_s) rows, in
        /// key order (v17: a day's artists and albums are rows of their own, not lookups of
        /// each track the day played).
        var daysSource: String {
            "SELECT \(idColumn) AS id, plays, skips, played_s FROM \(table(.day)) WHERE day BETWEEN ? AND ?"
        }

        /// (id, plays, played_s) of the ids `marks` on the days that follow them (`count` of
        /// them), looked up by the day-and-id key of this entity's day rollup.
        func daysLookup(ids marks: String, days count: Int) -> String {
            let days = Array(repeating: "?", count: count).joined(separator: ", ")
            return """
                SELECT \(idColumn), SUM(plays), SUM(played_s) FROM \(table(.day))
                WHERE \(idColumn) IN (\(marks)) AND day IN (\(days)) GROUP BY \(idColumn)
                """
        }
    }

    /// A run of edge days with at most this many plays is summed whole (a few milliseconds);
    /// a longer one is read through its month's index and looked up — unless it
    /// is under a third of its month and has at most `edgeDaysSummedWhole * 8` plays (and
    /// the range's other run is no list: `ranked`): the
    /// month's figures bound a few days' loosely (this week's artists at 5M plays, three
    /// days and 2,400 plays, took 53 ms through the month's index; summed whole, 5 ms, and
    /// ~1 ms from their own day rollup since v17),
    /// while half a month's bound it well enough (30 days across two months at 1M plays, 2,600
    /// plays a side: 4 ms through the index, 13 ms summed whole — measured before v17's day
    /// rollups of artists and albums, and before such a range was cut at the month's end;
    /// at 5M plays, read right, 4.2 ms p50 through the indexes). (A task local, read by
    /// the chart functions on the caller's task: tests set it to 0 to take the index.)
    @TaskLocal static var edgeDaysSummedWhole = 1_000

    /// The rows read per list, and entries resolved, past which a chart by plays sums its
    /// pieces whole instead (flat listening, where the threshold bounds little). A task local
    /// like `edgeDaysSummedWhole`: tests set it low to take that way.
    @TaskLocal static var rankedBudget = 2_000

    /// The best `entity` ids of `pieces` by `order`: at least `limit` (fewer when fewer were
    /// played), with those tied with the `limit`-th on plays and time, for the caller to
    /// break the ties by name. `counted`: set to how many entries have plays in the range
    /// when every piece was summed whole (its length, as `chartedCount` gives it).
    static func ranked(_ entity: ChartEntity, _ pieces: RangePieces, limit: Int, order: ChartOrder,
                       edgeDaysSummedWhole: Int, budget: Int, needsCount: Bool = false, counted: inout Int?,
                       in db: Database) throws -> [RankedSum.Entry] {
        // Each piece's rollup, by plays: a whole year or month exact, a run of edge days
        // bounded by its month's (what an entry has in those days is at most its month's).
        var lists = pieces.years.map { (table: entity.table(.year), period: EntityRollups.Period.year, key: $0, run: RangePieces.DayRun?.none) }
            + pieces.months.map { (table: entity.table(.month), period: EntityRollups.Period.month, key: $0, run: RangePieces.DayRun?.none) }
        var known: [Int64: (plays: Int, seconds: Double)] = [:]
        var runsToSum: [RangePieces.DayRun] = []
        // A run with few plays is summed whole, in memory; a long one is a list. One of a few
        // days is summed whole too — unless the other end is a list: then what it sums would
        // all be looked up in that list, and as a list it costs less (v20: a run's look-up is
        // its month row's halves and a few days). 30 days from 8 May at 5M plays, 6 days in
        // June: 6.1-7.8 ms p50 summed whole, 2.7 as a list; a week of its own: 3.0 ms summed,
        // 4.0 as a list; three days: 2.4 and 5.9.
        var runs: [(run: RangePieces.DayRun, tiny: Bool, short: Bool)] = []
        var runPlays = 0
        for run in pieces.days {
            let plays = try Int.fetchOne(db.cachedStatement(sql: """
                SELECT COALESCE(SUM(plays + skips), 0) FROM rollup_day_total WHERE day BETWEEN ? AND ?
                """), arguments: [run.from, run.to]) ?? 0
            runPlays += plays
            let tiny = plays <= edgeDaysSummedWhole
            var short = tiny
            if !tiny && plays <= edgeDaysSummedWhole * 8 {
                let month = try Int.fetchOne(db.cachedStatement(sql: """
                    SELECT COALESCE(SUM(plays + skips), 0) FROM rollup_month_total WHERE month = ?
                    """), arguments: [String(run.from.prefix(7))]) ?? 0
                short = plays * 3 < month
            }
            runs.append((run, tiny, short))
        }
        let anyLong = runs.contains { !$0.short }
        for (run, tiny, short) in runs {
            if tiny || (short && !anyLong) {
                runsToSum.append(run)
            } else {
                lists.append((entity.table(.month), .month, String(run.from.prefix(7)), run))
            }
        }
        if !lists.isEmpty {
            for run in runsToSum {
                for row in try Self.daySums(entity, run, in: db) {
                    known[row.id, default: (0, 0)].plays += row.plays
                    known[row.id]!.seconds += row.seconds
                }
            }
            let bounding = Set(lists.indices.filter { lists[$0].run != nil })
            // Each list read in the chart's order: its head through its index (v18,
            // `RankingHeads`), then, if that was shorter than asked, its tail sorted, ties by
            // id as in the index. By time every row counts, as seconds are charted with the
            // plays they go with.
            let keys = order == .plays ? "plays DESC, played_s DESC" : "played_s DESC, plays DESC"
            let top = try RankedSum.top(limit: limit, lists: lists.count, order: order == .plays ? .plays : .seconds,
                                        bounding: bounding, known: known, budget: budget, prefix: { list, n in
                let (table, period, key, _) = lists[list]
                let select = "SELECT \(entity.idColumn), plays, played_s FROM \(table) WHERE \(period.rawValue) = ?"
                var rows = try Self.entries("\(select) AND \(RankingHeads.head(order)) ORDER BY \(keys) LIMIT ?", [key, n], in: db)
                if rows.count < n {
                    rows += try Self.entries("\(select) AND \(RankingHeads.tail(order)) ORDER BY \(keys), \(entity.idColumn) LIMIT ?",
                                             [key, n - rows.count], in: db)
                }
                return rows
            }, lookup: { list, ids in
                let (table, period, key, run) = lists[list]
                if let run { return try Self.lookup(entity, ids, in: run, in: db) }
                var out: [Int64: (plays: Int, seconds: Double)] = [:]
                // One statement per count of ids looked up together.
                let marks = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                for row in try Self.entries("""
                    SELECT \(entity.idColumn), plays, played_s FROM \(table) WHERE \(period.rawValue) = ? AND \(entity.idColumn) IN (\(marks))
                    """, [key] + ids, in: db) {
                    out[row.id] = (row.plays, row.seconds)
                }
                return out
            })
            if let top { return top }
            // Flat listening: summing the pieces whole is cheaper than resolving most entries.
        }
        // Days only, more than a few plays, by plays: their heads, when they bound the rest.
        if lists.isEmpty, order == .plays, !needsCount, runPlays > edgeDaysSummedWhole,
           let best = try Self.fromDayHeads(entity, pieces.days, limit: limit, in: db) {
            return best
        }
        runsToSum = pieces.days
        // Only days, or flat listening: every piece's rows summed,
        // each piece read in its key's order through the C API and summed in memory (SQLite's
        // GROUP BY over a UNION ALL sorted every row first), and only the best kept.
        var pieceQueries: [(sql: String, arguments: [DatabaseValueConvertible])] = []
        for period in [EntityRollups.Period.year, .month] {
            for key in period == .year ? pieces.years : pieces.months {
                pieceQueries.append(("SELECT \(entity.idColumn), plays, played_s FROM \(entity.table(period)) WHERE \(period.rawValue) = ?", [key]))
            }
        }
        var entries: [RankedSum.Entry]
        if pieceQueries.count == 1 && runsToSum.isEmpty {
            entries = try Self.entries(pieceQueries[0].sql, pieceQueries[0].arguments, in: db)
        } else if pieceQueries.isEmpty && runsToSum.count == 1 {
            entries = try Self.daySums(entity, runsToSum[0], in: db)
        } else {
            let pieces = try pieceQueries.map { try Self.entries($0.sql, $0.arguments, in: db) }
                + runsToSum.map { try Self.daySums(entity, $0, in: db) }
            entries = Self.summed(pieces)
        }
        entries.removeAll { $0.plays <= 0 }
        entries = entries.map(\.charted)
        counted = entries.count
        return best(entries, limit: limit, order: order)
    }

    /// The best `limit` of `entries` (charted: `RankedSum.Entry.charted`) by `order`, best
    /// first, with every entry tied with the `limit`-th on plays and time.
    static func best(_ entries: [RankedSum.Entry], limit: Int, order: ChartOrder) -> [RankedSum.Entry] {
        let better: (RankedSum.Entry, RankedSum.Entry) -> Bool = order == .plays
            ? { ($0.plays, $0.seconds) > ($1.plays, $1.seconds) }
            : { ($0.seconds, $0.plays) > ($1.seconds, $1.plays) }
        guard entries.count > limit else { return entries.sorted(by: better) }
        // The limit-th best (kept sorted, best first: most entries are below it and pass by),
        // then every entry at least as good.
        var best: [RankedSum.Entry] = []
        best.reserveCapacity(limit + 1)
        for entry in entries where best.count < limit || better(entry, best[best.count - 1]) {
            var i = best.count
            while i > 0, better(entry, best[i - 1]) { i -= 1 }
            best.insert(entry, at: i)
            if best.count > limit { best.removeLast() }
        }
        let cut = best[limit - 1]
        return entries.filter { !better(cut, $0) }.sorted(by: better)
    }

    /// The best `limit` entries by plays of days `runs` (a range of days only), from their
    /// rows in the day rollups' heads (v21, `DayHeads`: the rows with at least
    /// `DayHeads.plays`), or nil when the heads do not settle it — for the caller to sum the
    /// days whole.
    ///
    /// An entry in no head of a day has at most `DayHeads.plays - 1` plays there. So what it
    /// has in the range is at least its heads' sum and at most that plus `DayHeads.plays - 1`
    /// for each day it is missing from; an entry in no head at all has at most
    /// `DayHeads.plays - 1` a day. When the `limit`-th best heads' sum is above that, no entry
    /// outside the heads reaches the chart nor ties its last; the entries whose bound reaches
    /// it and that miss a day are looked up on those days (by their day-and-id keys). This week at
    /// 5M plays: ~100 head rows of each entity and a few look-ups, where summing it whole
    /// read ~1,600 rows of each.
    static func fromDayHeads(_ entity: ChartEntity, _ runs: [RangePieces.DayRun], limit: Int,
                             in db: Database) throws -> [RankedSum.Entry]? {
        let days = runs.flatMap { Self.days($0) }
        // (At most two part-months: a bit a day.)
        guard limit > 0, !days.isEmpty, days.count <= 64 else { return nil }
        // (Set aside by an import that is writing: then the days are summed whole.)
        let present = try RawStatement(db, "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1")
        present.bind(1, DayHeads.indexName(entity))
        guard try present.step() else { return nil }
        present.reset()
        // Each id's sums over the heads it is in, and which days those are.
        var seen: [Int64: (plays: Int, seconds: Double, days: UInt64)] = [:]
        let heads = try RawStatement(db, """
            SELECT \(entity.idColumn), plays, played_s FROM \(entity.table(.day)) INDEXED BY \(DayHeads.indexName(entity))
            WHERE day = ?1 AND plays >= \(DayHeads.plays)
            """)
        for (d, day) in days.enumerated() {
            heads.bind(1, day)
            while try heads.step() {
                let id = heads.int64(0)
                let (plays, seconds) = (Int(heads.int64(1)), heads.double(2))
                if let old = seen[id] {
                    seen[id] = (old.plays + plays, old.seconds + seconds, old.days | 1 << d)
                } else {
                    seen[id] = (plays, seconds, 1 << d)
                }
            }
            heads.reset()
        }
        guard seen.count >= limit else { return nil }
        let most = DayHeads.plays - 1  // an entry's plays on a day where it is in no head
        // The limit-th best heads' sum: the chart's last has at least this.
        var sums = seen.values.map(\.plays)
        sums.sort(by: >)
        let floor = sums[limit - 1]
        guard floor > most * days.count else { return nil }
        // An id missing from a day's head whose bound reaches the floor: its rows of those
        // days, by their day-and-id key (a few dozen look-ups this week at 5M plays).
        let all: UInt64 = days.count == 64 ? ~0 : (1 << days.count) - 1
        let row = try RawStatement(db, "SELECT plays, played_s FROM \(entity.table(.day)) WHERE day = ?1 AND \(entity.idColumn) = ?2")
        var exact: [RankedSum.Entry] = []
        for (id, value) in seen {
            var entry = RankedSum.Entry(id: id, plays: value.plays, seconds: value.seconds)
            let missing = all & ~value.days
            if missing != 0 {
                guard value.plays + most * missing.nonzeroBitCount >= floor else { continue }
                for (d, day) in days.enumerated() where missing & (1 << d) != 0 {
                    row.bind(1, day)
                    row.bind(2, id)
                    if try row.step() {
                        entry.plays += Int(row.int64(0))
                        entry.seconds += row.double(1)
                    }
                    row.reset()
                }
            }
            exact.append(entry)
        }
        return best(exact.map(\.charted), limit: limit, order: .plays)
    }

    /// What `ids` have in a run of days within one month (`run`): their month rows (v20:
    /// with the month's first half, `MonthHalves`) and the fewest day rows
    /// (`DayRun.reading`). "30 days across two months" at 5M plays looked each candidate up
    /// in each of its 30 days: ~2,900 day rows a request, three quarters of its time; now its
    /// month rows and one day. An id without a month row has nothing in the run, and no
    /// day row is read for it.
    static func lookup(_ entity: ChartEntity, _ ids: [Int64], in run: RangePieces.DayRun,
                       in db: Database) throws -> [Int64: (plays: Int, seconds: Double)] {
        var out: [Int64: (plays: Int, seconds: Double)] = [:]
        guard !ids.isEmpty else { return out }
        // (A run from `RangePieces` is always one month's days in order; were it not, its
        // days one by one.)
        let reading = run.reading(firstHalfEnd: MonthHalves.lastDayOfFirst) ?? RangePieces.DayRun.Reading(added: Self.days(run))
        let marks = { (n: Int) in Array(repeating: "?", count: n).joined(separator: ", ") }
        let months = try RawStatement(db, """
            SELECT \(entity.idColumn), plays, played_s, first_half_plays, first_half_played_s FROM \(entity.table(.month))
            WHERE month = ? AND \(entity.idColumn) IN (\(marks(ids.count)))
            """, arguments: StatementArguments([String(run.from.prefix(7))] + ids))
        var present: [Int64] = []
        while try months.step() {
            let id = months.int64(0)
            let (plays, seconds) = (Int(months.int64(1)), months.double(2))
            let (firstPlays, firstSeconds) = (Int(months.int64(3)), months.double(4))
            present.append(id)
            var value = (plays: 0, seconds: 0.0)
            if reading.firstHalf { value = (firstPlays, firstSeconds) }
            if reading.secondHalf { value = (value.plays + plays - firstPlays, value.seconds + (seconds - firstSeconds)) }
            out[id] = value
        }
        guard !present.isEmpty else { return [:] }
        for (days, sign) in [(reading.added, 1), (reading.takenOff, -1)] where !days.isEmpty {
            for row in try Self.entries(entity.daysLookup(ids: marks(present.count), days: days.count), present + days, in: db) {
                out[row.id]!.plays += sign * row.plays
                out[row.id]!.seconds += Double(sign) * row.seconds
            }
        }
        return out
    }

    /// An entity's (id, plays, seconds) over a run of days: its day rollup's rows read in
    /// key order and summed in memory, in the order of the days (one day's rows are its sums
    /// already). SQLite's GROUP BY sorted the rows first: last week's 3,600 rows of tracks
    /// at 5M plays took 2.4 ms grouped and 0.6 ms read.
    static func daySums(_ entity: ChartEntity, _ run: RangePieces.DayRun, in db: Database) throws -> [RankedSum.Entry] {
        let rows = try entries("SELECT id, plays, played_s FROM (\(entity.daysSource))", [run.from, run.to], in: db)
        return run.from == run.to ? rows : summed([rows])
    }

    /// Rows summed by id, each id where it first came, its values added in the order they
    /// come (`IDPositions` places the ids).
    static func summed(_ pieces: [[RankedSum.Entry]]) -> [RankedSum.Entry] {
        let largest = pieces.map(\.count).max() ?? 0
        var at = IDPositions(capacity: largest)
        var out: [RankedSum.Entry] = []
        out.reserveCapacity(largest)
        for piece in pieces {
            for row in piece {
                let (i, inserted) = at.position(of: row.id, orInsert: out.count)
                if inserted {
                    out.append(row)
                } else {
                    out[i].plays += row.plays
                    out[i].seconds += row.seconds
                }
            }
        }
        return out
    }

    /// (id, plays, seconds) rows of a query, read through the C API: GRDB's rows cost a few
    /// microseconds each, and edge days and whole pieces are thousands of rows.
    static func entries(_ sql: String, _ arguments: [DatabaseValueConvertible], in db: Database) throws -> [RankedSum.Entry] {
        let statement = try RawStatement(db, sql, arguments: StatementArguments(arguments))
        var out: [RankedSum.Entry] = []
        while try statement.step() {
            out.append(RankedSum.Entry(id: statement.int64(0), plays: Int(statement.int64(1)), seconds: statement.double(2)))
        }
        return out
    }

    /// Chart rows of ranked ids, named by `select` (whose first column is the id) from
    /// `from`, each row decoded by `decode`, ties broken by `name` (as SQLite's ORDER BY
    /// would: by bytes), cut to `limit`. Read through the C API: a hundred tracks decoded as
    /// GRDB rows (twenty columns each, every optional looked up in the runtime's type
    /// metadata) were a third of a week's uncached chart at 5M plays.
    static func named<Named>(_ ranked: [RankedSum.Entry], limit: Int, order: ChartOrder, select: String, from: String,
                             decode: (RawStatement) -> Named, name: (Named) -> String,
                             in db: Database) throws -> [(row: Named, entry: RankedSum.Entry)] {
        guard !ranked.isEmpty else { return [] }
        var rows: [Int64: Named] = [:]
        for chunk in stride(from: 0, to: ranked.count, by: 500) {
            let ids = ranked[chunk..<min(chunk + 500, ranked.count)].map(\.id)
            // Not kept prepared: a statement per count of ids would stay in the cache.
            let statement = try RawStatement(uncached: db, """
                SELECT \(select) FROM \(from) WHERE x.id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
                """)
            for (i, id) in ids.enumerated() { statement.bind(Int32(i + 1), id) }
            while try statement.step() { rows[statement.int64(0)] = decode(statement) }
        }
        let named = ranked.compactMap { entry in rows[entry.id].map { (row: $0, entry: entry, name: name($0)) } }
        return named.sorted { a, b in
            let (x, y) = (a.entry, b.entry)
            switch order {
            case .plays where (x.plays, x.seconds) != (y.plays, y.seconds): return (x.plays, x.seconds) > (y.plays, y.seconds)
            case .time where (x.seconds, x.plays) != (y.seconds, y.plays): return (x.seconds, x.plays) > (y.seconds, y.plays)
            // The same name (two songs called "Intro"): the lower id first, as the rollups'
            // SQL orders them, so that every read path and every length of a chart agree.
            // Compared as bytes, as SQLite's BINARY collation does: Swift's `==` takes "Café"
            // spelt with é and with e and an accent for the same name.
            case _ where a.name.utf8.elementsEqual(b.name.utf8): return x.id < y.id
            default: return a.name.utf8.lexicographicallyPrecedes(b.name.utf8)
            }
        }.prefix(limit).map { ($0.row, $0.entry) }
    }

    /// Totals of pieces: a row per year, month and edge day.
    static func totals(_ pieces: RangePieces, in db: Database) throws -> PeriodTotals {
        var totals = PeriodTotals(plays: 0, skips: 0, seconds: 0)
        func add(_ sql: String, _ arguments: [DatabaseValueConvertible]) throws {
            let row = try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments))!
            totals.plays += row[0]
            totals.skips += row[1]
            totals.seconds += row[2]
        }
        for (table, column, keys) in [("rollup_year_total", "year", pieces.years), ("rollup_month_total", "month", pieces.months)] where !keys.isEmpty {
            try add("""
                SELECT COALESCE(SUM(plays), 0), COALESCE(SUM(skips), 0), COALESCE(SUM(played_s), 0) FROM \(table)
                WHERE \(column) IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", ")))
                """, keys)
        }
        for run in pieces.days {
            try add("""
                SELECT COALESCE(SUM(plays), 0), COALESCE(SUM(skips), 0), COALESCE(SUM(played_s), 0) FROM rollup_day_total
                WHERE day BETWEEN ? AND ?
                """, [run.from, run.to])
        }
        return totals
    }
}
