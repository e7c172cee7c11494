import GRDB

/// One rollup, declared once: a table of pre-summed plays, a row per key. Everything that
/// keeps rollups is derived from `Rollups.all`: the triggers on `plays` (`RollupTriggers`,
/// made again at open when the declarations change), the bulk import's sums
/// (`ImportRollups`, `ImportEntityRollups`), the rebuild and the curation's recompute from
/// the plays (`recompute`), and the test that holds every rollup to its recomputation.
///
/// A new rollup is a line in `Rollups.all` and a migration that creates its table (and
/// fills it from `plays` with its own literal SQL).
struct Rollup: Sendable {
    /// What a row is per, besides its period.
    enum Subject: String, Sendable {
        case track, hour, artist, album, genre

        /// Its key column.
        var column: String {
            switch self {
            case .track: "track_id"
            case .hour: "hour"
            case .artist: "artist_id"
            case .album: "album_id"
            case .genre: "genre_id"
            }
        }
    }

    /// What a row holds.
    enum Measure: Sendable {
        /// Counted plays, skips and seconds (`plays`, `skips`, `played_s`); `halves`: and
        /// those of the month's first half (`MonthHalves`).
        case sums(halves: Bool)
        /// The earliest local day with a counted play (`day`).
        case firstDay
    }

    /// How the bulk import writes it. `eachPlay`: each play's seconds added to a stored row
    /// in the order they came, as the trigger adds them (bit for bit; `ImportRollups`, by
    /// track or hour). `batchSums`: the batch's sums per key added at once
    /// (`ImportEntityRollups`, by artist, album, hour or none). The trigger of each kind is
    /// a trigger of its own (`plays_rollup_*`, `plays_entity_rollup_*`): the import sets
    /// both aside while it writes.
    enum Batch: Sendable { case eachPlay, batchSums }

    /// An order its rows are read in, each an index (per period, when it has one). Charts
    /// read a period's rows best first, by plays (`…_top`) or by time (`…_by_time`); `head`:
    /// the index holds only the rows at least that high, as listening is skewed
    /// (`RankingHeads`, `DayHeads`). `skipped`: the rows without a counted play (`…_skipped`,
    /// for `chartedCount`); `byDay`: the first days in order (`…_day`).
    enum Order: Sendable, Equatable {
        case byPlays(head: Int?)
        case byTime(head: Int?)
        case skipped
        case byDay
    }

    let table: String
    /// The calendar period of a play's local day its rows are per (first key), if any.
    let period: EntityRollups.Period?
    let subject: Subject?
    let measure: Measure
    let batch: Batch
    let orders: [Order]

    init(_ table: String, _ period: EntityRollups.Period?, _ subject: Subject?, _ measure: Measure = .sums(halves: false),
         batch: Batch, orders: [Order] = []) {
        self.table = table
        self.period = period
        self.subject = subject
        self.measure = measure
        self.batch = batch
        self.orders = orders
    }

    /// Its indexes (name, and the statement on one line as `sqlite_master` keeps it), from
    /// its orders. Migrations create them with their own literal SQL; `DeclaredRollupsTests`
    /// holds the schema to these.
    var indexes: [(name: String, sql: String)] {
        let period = self.period.map { "\($0.rawValue), " } ?? ""
        return orders.map { order in
            switch order {
            case .byPlays(let head):
                ("\(table)_top", "CREATE INDEX \(table)_top ON \(table)(\(period)plays DESC, played_s DESC)"
                    + (head.map { " WHERE plays >= \($0)" } ?? ""))
            case .byTime(let head):
                ("\(table)_by_time", "CREATE INDEX \(table)_by_time ON \(table)(\(period)played_s DESC, plays DESC)"
                    + (head.map { " WHERE played_s >= \($0)" } ?? ""))
            case .skipped:
                ("\(table)_skipped", "CREATE INDEX \(table)_skipped ON \(table)(\(self.period?.rawValue ?? "rowid")) WHERE plays <= 0")
            case .byDay:
                ("\(table)_day", "CREATE INDEX \(table)_day ON \(table)(day)")
            }
        }
    }

    /// Its key columns, period first.
    var keys: [String] { (period.map { [$0.rawValue] } ?? []) + (subject.map { [$0.column] } ?? []) }

    var halves: Bool { if case .sums(true) = measure { true } else { false } }

    /// `artist`, `album` or `genre`: a play counts once for each of its track's (`EntityRollups.entities`).
    var entity: String? { subject == .artist || subject == .album || subject == .genre ? subject!.rawValue : nil }

    /// The measure's columns after the keys.
    var measureColumns: String {
        switch measure {
        case .sums(let halves): "plays, skips, played_s" + (halves ? ", " + MonthHalves.columns : "")
        case .firstDay: "day"
        }
    }

    /// A play's key values, as SQL over its row (`NEW`, `OLD`, `p`); an entity's id is `e.id`,
    /// from `entities(of:)`.
    func keyValues(_ row: String) -> [String] {
        var values = period.map { [$0.of(row)] } ?? []
        switch subject {
        case .track?: values.append("\(row).track_id")
        case .hour?: values.append("\(row).local_hour")
        case .artist?, .album?, .genre?: values.append("e.id")
        case nil: break
        }
        return values
    }

    /// The ids of a play's artists or album as a subquery (`track`: the track's id as SQL).
    func entities(of track: String) -> String { EntityRollups.entities(entity!, of: track) }

    /// The statements (in a trigger) that add (`NEW`) or remove (`OLD`) one play.
    func statements(_ row: String, adding: Bool) -> String {
        if case .firstDay = measure { return Schema.firstPlayStatements(row, adding: adding) }
        let columns = keys.joined(separator: ", ")
        let values = keyValues(row)
        if adding {
            let measures = "\(row).counted, 1 - \(row).counted, \(row).played_s" + (halves ? ", " + MonthHalves.values(row) : "")
            let source = entity == nil ? "VALUES (\(values.joined(separator: ", ")), \(measures))"
                : "SELECT \(values.joined(separator: ", ")), \(measures)\n  FROM (\(entities(of: "\(row).track_id"))) e WHERE true"
            return """
                INSERT INTO \(table) (\(columns), \(measureColumns))
                  \(source)
                  ON CONFLICT (\(columns)) DO UPDATE SET \(EntityRollups.upsert(halves: halves));
                """
        }
        let match = zip(keys, values).map { column, value in
            value == "e.id" ? "\(column) IN (\(entities(of: "\(row).track_id")))" : "\(column) = \(value)"
        }.joined(separator: " AND ")
        return """
            UPDATE \(table)
              SET plays = plays - \(row).counted, skips = skips - (1 - \(row).counted), played_s = played_s - \(row).played_s\(
                halves ? ", " + MonthHalves.subtract(row) : "")
              WHERE \(match);
            DELETE FROM \(table) WHERE \(match) AND plays = 0 AND skips = 0;
            """
    }

    /// Its rows summed from `plays` (`p`), as a SELECT of its key and measure columns in
    /// that order; `where`: a condition on the plays (`p.track_id IN (…)`).
    func recomputed(where condition: String? = nil) -> String {
        let values = keyValues("p")
        let join: String
        switch subject {
        case .artist?: join = " JOIN track_artists e0 ON e0.track_id = p.track_id AND e0.artist_id IS NOT NULL"
        case .album?: join = " JOIN tracks e0 ON e0.id = p.track_id AND e0.album_id IS NOT NULL"
        case .genre?: join = " JOIN track_genres e0 ON e0.track_id = p.track_id"
        default: join = ""
        }
        let keyed = values.map { $0 == "e.id" ? "e0.\(subject!.column)" : $0 }
        let filters: [String] = (condition.map { [$0] } ?? []) + (measureIsFirstDay ? ["p.counted = 1"] : [])
        let whereClause = filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND ")
        let measures: String
        switch measure {
        case .sums(let halves):
            measures = "SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s)" + (halves ? ", " + MonthHalves.sums("p") : "")
        case .firstDay:
            measures = "MIN(p.local_day)"
        }
        let groups = keyed.isEmpty ? "" : " GROUP BY " + keyed.joined(separator: ", ")
        // Every track's first day: one pass over the plays and a sort, not a look-up per track.
        let scan = measureIsFirstDay && condition == nil ? " NOT INDEXED" : ""
        return "SELECT \((keyed + [measures]).joined(separator: ", ")) FROM plays p\(scan)\(join)\(whereClause)\(groups)"
    }

    private var measureIsFirstDay: Bool { if case .firstDay = measure { true } else { false } }

    /// Deletes its rows (`rows`: those that match, a condition on the table) and sums them
    /// again from the plays (`where`: those that match, a condition on `p`).
    func recompute(where condition: String? = nil, rows: String? = nil, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(table)\(rows.map { " WHERE \($0)" } ?? "")")
        try db.execute(sql: "INSERT INTO \(table) (\(keys.joined(separator: ", ")), \(measureColumns)) \(recomputed(where: condition))")
    }

    /// As `EntityRollups.Table`, for an artist's or album's rollup.
    var entityTable: EntityRollups.Table? {
        entity.map { EntityRollups.Table(name: table, keys: keys, entity: $0) }
    }
}

enum Rollups {
    /// Every rollup the triggers keep, in the order each kind's trigger and the bulk import
    /// write them. Name: `rollup_<period>_<subject>`, `rollup_<subject>_total` (all time) or
    /// `rollup_<period>_total` (every play of the period).
    static let all: [Rollup] = [
        // By track (and the day's hours), each play's seconds added in order.
        Rollup("rollup_day_track", .day, .track, batch: .eachPlay, orders: dayHead),
        Rollup("rollup_day_hour", .day, .hour, batch: .eachPlay),
        Rollup("rollup_year_track", .year, .track, batch: .eachPlay, orders: periodHeads + [.skipped]),
        Rollup("rollup_month_track", .month, .track, .sums(halves: true), batch: .eachPlay, orders: periodHeads),
        Rollup("rollup_track_first", nil, .track, .firstDay, batch: .eachPlay, orders: [.byDay]),
        Rollup("rollup_track_total", nil, .track, batch: .eachPlay, orders: everyRow),
        // By artist and album, and the periods' totals: the batch's sums added.
        Rollup("rollup_artist_total", nil, .artist, batch: .batchSums, orders: everyRow),
        Rollup("rollup_year_artist", .year, .artist, batch: .batchSums, orders: periodHeads + [.skipped]),
        Rollup("rollup_month_artist", .month, .artist, .sums(halves: true), batch: .batchSums, orders: periodHeads),
        Rollup("rollup_day_artist", .day, .artist, batch: .batchSums, orders: dayHead),
        Rollup("rollup_album_total", nil, .album, batch: .batchSums, orders: everyRow),
        Rollup("rollup_year_album", .year, .album, batch: .batchSums, orders: periodHeads + [.skipped]),
        Rollup("rollup_month_album", .month, .album, .sums(halves: true), batch: .batchSums, orders: periodHeads),
        Rollup("rollup_day_album", .day, .album, batch: .batchSums, orders: dayHead),
        // By genre (v30), through `track_genres` as the artists' through `track_artists`.
        Rollup("rollup_genre_total", nil, .genre, batch: .batchSums, orders: everyRow),
        Rollup("rollup_year_genre", .year, .genre, batch: .batchSums, orders: periodHeads + [.skipped]),
        Rollup("rollup_month_genre", .month, .genre, .sums(halves: true), batch: .batchSums, orders: periodHeads),
        Rollup("rollup_day_genre", .day, .genre, batch: .batchSums, orders: dayHead),
        Rollup("rollup_year_total", .year, nil, batch: .batchSums),
        Rollup("rollup_month_total", .month, nil, batch: .batchSums),
        Rollup("rollup_day_total", .day, nil, batch: .batchSums),
        Rollup("rollup_year_hour", .year, .hour, batch: .batchSums),
    ]

    /// All-time rankings: every row, best first.
    private static let everyRow: [Rollup.Order] = [.byPlays(head: nil), .byTime(head: nil)]
    /// A year's or month's rankings: the heads only (`RankingHeads`).
    private static let periodHeads: [Rollup.Order] = [.byPlays(head: RankingHeads.plays), .byTime(head: RankingHeads.seconds)]
    /// A day's ranking by plays: the head only (`DayHeads`).
    private static let dayHead: [Rollup.Order] = [.byPlays(head: DayHeads.plays)]

    static func named(_ table: String) -> Rollup? { all.first { $0.table == table } }

    /// The one step by which the bulk import hands a transaction's new plays to the rollups
    /// (with the triggers set aside): every declared rollup gets its rows. `trackIDs`: the
    /// session's track ids by index; `entities`: each track's artists and album by index.
    static func write(_ plays: ImportRollups, trackIDs: [Int64], entities: [ImportEntityRollups.Entities?], in db: Database) throws {
        try plays.write(trackIDs: trackIDs, in: db)
        try ImportEntityRollups.write(plays, entities: entities, in: db)
    }

    /// Every rollup summed again from the plays (a new time zone's local days): the track
    /// rollups from the plays, the artists' and albums' from their period's track rollup
    /// (one row per track and period, not per play), the rest from the plays.
    static func rebuildAll(in db: Database) throws {
        for rollup in all where rollup.entity == nil { try rollup.recompute(in: db) }
        for rollup in all {
            guard let table = rollup.entityTable else { continue }
            if all.contains(where: { $0.subject == .track && $0.period == rollup.period && !$0.isFirstDay }) {
                try db.execute(sql: "DELETE FROM \(rollup.table)")
                try EntityRollups.rebuild(table, halves: rollup.halves, in: db)
            } else {
                try rollup.recompute(in: db)
            }
        }
    }
}

extension Rollup {
    var isFirstDay: Bool { measureIsFirstDay }
}
