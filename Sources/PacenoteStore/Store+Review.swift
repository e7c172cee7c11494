import Foundation
import GRDB
import PacenoteCore

/// The year (or any period) in review, from the rollups: the period's rows of each rollup
/// it needs (a year's tracks, artists and albums, its days, its day-and-track rows once for
/// the song of each day and the best day), the first days of tracks (`rollup_track_first`),
/// and for the heart-rate part the period's workouts and zoned plays only. Every figure
/// equals a recomputation from the plays (`ReviewStoreTests`).
extension Store {
    /// The review of `period`. `limit`: the length of each chart (comebacks, new finds and
    /// power songs too); `weekStart`: the ISO weekday the week begins on.
    public func review(_ period: ReviewPeriod, limit: Int = 10, weekStart: Int = 1) throws(StoreError) -> ReviewReport {
        let from = period.from, to = period.to
        // The charts and totals as the stats page reads them (each its own read).
        func items(_ entries: [ChartEntry], _ kind: ChartEntity) -> [ReviewReport.Item] {
            entries.map { e in
                switch kind {
                case .track: .track(e.track!, plays: e.plays, seconds: e.seconds)
                case .artist: ReviewReport.Item(id: e.artistID ?? 0, name: e.artist ?? "", plays: e.plays, seconds: e.seconds)
                case .album: ReviewReport.Item(id: e.albumID ?? 0, name: e.album ?? "", artist: e.artist, plays: e.plays, seconds: e.seconds)
                case .genre: ReviewReport.Item(id: e.genreID ?? 0, name: e.genre ?? "", plays: e.plays, seconds: e.seconds)
                }
            }
        }
        let topTracks = ReviewReport.Ranked(byPlays: items(try self.topTracks(fromDay: from, toDay: to, limit: limit, by: .plays), .track),
                                            byTime: items(try self.topTracks(fromDay: from, toDay: to, limit: limit, by: .time), .track))
        let topArtists = ReviewReport.Ranked(byPlays: items(try self.topArtists(fromDay: from, toDay: to, limit: limit, by: .plays), .artist),
                                             byTime: items(try self.topArtists(fromDay: from, toDay: to, limit: limit, by: .time), .artist))
        let topAlbums = ReviewReport.Ranked(byPlays: items(try self.topAlbums(fromDay: from, toDay: to, limit: limit, by: .plays), .album),
                                            byTime: items(try self.topAlbums(fromDay: from, toDay: to, limit: limit, by: .time), .album))
        let topGenres = ReviewReport.Ranked(byPlays: items(try self.topGenres(fromDay: from, toDay: to, limit: limit, by: .plays), .genre),
                                            byTime: items(try self.topGenres(fromDay: from, toDay: to, limit: limit, by: .time), .genre))
        var months: [ReviewReport.MonthTop] = []
        let history = try read { db in try Row.fetchOne(db, sql: "SELECT MIN(day), MAX(day) FROM rollup_day_total") }
        for m in period.months(within: (history?[0] as String?) ?? "9999-12-31", (history?[1] as String?) ?? "0000-01-01") {
            let top = try self.topTracks(fromDay: m.from, toDay: m.to, limit: 1).first
            months.append(ReviewReport.MonthTop(month: m.month, plays: try totals(fromDay: m.from, toDay: m.to).plays,
                                                top: top.map { .track($0.track!, plays: $0.plays, seconds: $0.seconds) }))
        }
        let sums = try totals(fromDay: from, toDay: to)
        let previousSums = try period.previous.map { p throws(StoreError) in try totals(fromDay: p.from, toDay: p.to) }
        let pins = try sotdPins(fromDay: from, toDay: to)
        let local = localTime
        return try read { db in
            let tracks = try Store.periodSums(.track, from: from, to: to, in: db)
            let artists = try Store.periodSums(.artist, from: from, to: to, in: db)
            let albums = try Store.periodSums(.album, from: from, to: to, in: db)
            let days = try Store.reviewDays(from: from, to: to, in: db)
            let totals = ReviewReport.Totals(plays: sums.plays, skips: sums.skips, seconds: sums.seconds, days: days.numbers.count,
                                             tracks: tracks.values.count(where: { $0.plays > 0 }), artists: artists.values.count(where: { $0.plays > 0 }),
                                             albums: albums.values.count(where: { $0.plays > 0 }))
            var previous: ReviewReport.Totals?
            if let p = period.previous, let previousSums {
                func count(_ entity: ChartEntity) throws -> Int {
                    try Store.periodSums(entity, from: p.from, to: p.to, in: db).values.count(where: { $0.plays > 0 })
                }
                previous = ReviewReport.Totals(plays: previousSums.plays, skips: previousSums.skips, seconds: previousSums.seconds,
                                               days: try Store.reviewDays(from: p.from, to: p.to, in: db).numbers.count,
                                               tracks: try count(.track), artists: try count(.artist), albums: try count(.album))
            }
            let discoveries = try Store.discoveries(period, tracks: tracks, artists: artists, limit: limit, in: db)
            let scan = try Store.dayTrackScan(from: from, to: to, pins: pins, in: db)
            var slots: [Int: ReviewReport.Slot] = [:]
            for (n, plays, seconds) in days.rows {
                let w = Weekday.of(dayNumber: n)
                slots[w, default: ReviewReport.Slot(key: w, plays: 0, seconds: 0)].plays += plays
                slots[w]!.seconds += seconds
            }
            return ReviewReport(
                period: period, totals: totals, previous: previous, discoveries: discoveries,
                topTracks: topTracks, topArtists: topArtists, topAlbums: topAlbums, months: months, bestDay: scan.best,
                longestStreak: ReviewReport.Streak.longest(days.numbers), clock: try Store.clock(from: from, to: to, in: db),
                weekdays: Weekday.order(startingOn: weekStart).map { slots[$0] ?? ReviewReport.Slot(key: $0, plays: 0, seconds: 0) },
                weekStart: weekStart, songsOfTheDay: scan.songs,
                heartRate: try Store.reviewHeartRate(from: from, to: to, limit: limit, local: local, in: db),
                topGenres: topGenres)
        }
    }

    /// Each id's counted plays and listening time in `from`…`to`, from the rollups of the
    /// range's pieces (a whole year or all time: one rollup's rows).
    static func periodSums(_ entity: ChartEntity, from: String, to: String,
                           in db: Database) throws -> [Int64: (plays: Int, seconds: Double)] {
        var queries: [(sql: String, arguments: [DatabaseValueConvertible])] = []
        switch try rangeSource(fromDay: from, toDay: to, in: db) {
        case .whole(let whole)?:
            let table = whole.table(entity.rawValue)
            let arguments: [DatabaseValueConvertible] = if case .year(let year) = whole { [year] } else { [] }
            queries.append(("SELECT r.\(entity.idColumn), r.plays, r.played_s FROM \(table.name) r WHERE \(table.filter)", arguments))
        case .pieces(let pieces)?:
            for (period, keys) in [(EntityRollups.Period.year, pieces.years), (.month, pieces.months)] {
                for key in keys {
                    queries.append(("SELECT \(entity.idColumn), plays, played_s FROM \(entity.table(period)) WHERE \(period.rawValue) = ?", [key]))
                }
            }
            for run in pieces.days {
                queries.append(("SELECT id, SUM(plays), SUM(played_s) FROM (\(entity.daysSource)) GROUP BY id", [run.from, run.to]))
            }
        case nil: break
        }
        var sums: [Int64: (plays: Int, seconds: Double)] = [:]
        for query in queries {
            let rows = try RawStatement(db, query.sql, arguments: StatementArguments(query.arguments))
            while try rows.step() {
                let id = rows.int64(0), plays = Int(rows.int64(1)), seconds = rows.double(2)
                if let known = sums[id] { sums[id] = (known.plays + plays, known.seconds + seconds) } else { sums[id] = (plays, seconds) }
            }
        }
        return sums
    }

    /// The days with counted plays in `from`…`to` (day numbers, ascending) with their plays
    /// and listening time.
    static func reviewDays(from: String, to: String, in db: Database) throws -> (numbers: [Int], rows: [(Int, Int, Double)]) {
        let rows = try RawStatement(db, "SELECT day, plays, played_s FROM rollup_day_total WHERE day BETWEEN ? AND ? AND plays > 0 ORDER BY day",
                                    arguments: [from, to])
        var out: [(Int, Int, Double)] = []
        while try rows.step() {
            if let n = rows.dayNumber(0) { out.append((n, Int(rows.int64(1)), rows.double(2))) }
        }
        return (out.map(\.0), out)
    }

    /// Counted plays and listening time per local hour.
    static func clock(from: String, to: String, in db: Database) throws -> [ReviewReport.Slot] {
        var hours = (0..<24).map { ReviewReport.Slot(key: $0, plays: 0, seconds: 0) }
        let sql: String, arguments: StatementArguments
        switch try rangeSource(fromDay: from, toDay: to, in: db) {
        case .whole(.all)?:
            (sql, arguments) = ("SELECT hour, SUM(plays), SUM(played_s) FROM rollup_year_hour GROUP BY hour", [])
        case .whole(.year(let year))?:
            (sql, arguments) = ("SELECT hour, plays, played_s FROM rollup_year_hour WHERE year = ?", [year])
        default:
            (sql, arguments) = ("SELECT hour, SUM(plays), SUM(played_s) FROM rollup_day_hour WHERE day BETWEEN ? AND ? GROUP BY hour", [from, to])
        }
        let rows = try RawStatement(db, sql, arguments: arguments)
        while try rows.step() {
            let hour = Int(rows.int64(0))
            if hours.indices.contains(hour) { hours[hour] = ReviewReport.Slot(key: hour, plays: Int(rows.int64(1)), seconds: rows.double(2)) }
        }
        return hours
    }

    /// `entries` ranked by plays then time: the first `limit` and those tied with the last.
    static func best(_ entries: [RankedSum.Entry], limit: Int) -> [RankedSum.Entry] {
        let sorted = entries.filter { $0.plays > 0 }.sorted { ($0.plays, $0.seconds) > ($1.plays, $1.seconds) }
        guard sorted.count > limit, limit > 0 else { return sorted }
        let cut = sorted[limit - 1]
        return Array(sorted.prefix { ($0.plays, $0.seconds) >= (cut.plays, cut.seconds) })
    }

    /// Ranked entries named as tracks (or artists), ties broken by title (name), cut to `limit`.
    static func trackItems(_ entries: [RankedSum.Entry], limit: Int, in db: Database) throws -> [ReviewReport.Item] {
        try named(best(entries, limit: limit), limit: limit, order: .plays, select: trackColumns("x"), from: "tracks x",
                  decode: { Store.track(from: $0, at: 0) }, name: \.title, in: db)
            .map { .track($0.row, plays: $0.entry.plays, seconds: $0.entry.seconds) }
    }

    static func artistItems(_ entries: [RankedSum.Entry], limit: Int, in db: Database) throws -> [ReviewReport.Item] {
        try named(best(entries, limit: limit), limit: limit, order: .plays, select: "x.id, x.name", from: "artists x",
                  decode: { (id: $0.int64(0), name: $0.text(1) ?? "") }, name: \.name, in: db)
            .map { ReviewReport.Item(id: $0.row.id, name: $0.row.name, plays: $0.entry.plays, seconds: $0.entry.seconds) }
    }

    /// Songs and artists first heard in the period, and favourites heard again after a year.
    static func discoveries(_ period: ReviewPeriod, tracks: [Int64: (plays: Int, seconds: Double)],
                            artists: [Int64: (plays: Int, seconds: Double)], limit: Int,
                            in db: Database) throws -> ReviewReport.Discoveries {
        let from = period.from, to = period.to
        let newTracks = try Int64.fetchAll(db, sql: "SELECT track_id FROM rollup_track_first WHERE day BETWEEN ? AND ?", arguments: [from, to])
        let newEntries = newTracks.map { RankedSum.Entry(id: $0, plays: tracks[$0]?.plays ?? 0, seconds: tracks[$0]?.seconds ?? 0) }
        // An artist is new when every track crediting it was first heard in the period or
        // later: the candidates are the new tracks' artists.
        var candidates = Set<Int64>()
        for chunk in stride(from: 0, to: newTracks.count, by: 500) {
            let ids = newTracks[chunk..<min(chunk + 500, newTracks.count)]
            candidates.formUnion(try Int64.fetchAll(db, sql: """
                SELECT DISTINCT artist_id FROM track_artists WHERE artist_id IS NOT NULL
                  AND track_id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
                """, arguments: StatementArguments(Array(ids))))
        }
        let heardBefore = try db.cachedStatement(sql: """
            SELECT EXISTS (SELECT 1 FROM track_artists a JOIN rollup_track_first f ON f.track_id = a.track_id
                           WHERE a.artist_id = ? AND f.day < ?)
            """)
        var newArtists: [RankedSum.Entry] = []
        for id in candidates where try Bool.fetchOne(heardBefore, arguments: [id, from]) == false {
            newArtists.append(RankedSum.Entry(id: id, plays: artists[id]?.plays ?? 0, seconds: artists[id]?.seconds ?? 0))
        }
        var comebackTracks: [ReviewReport.Comeback] = [], comebackArtists: [ReviewReport.Comeback] = []
        if period.kind != .all {
            let window = period.yearBefore
            comebackTracks = try comebacks(.track, period, sums: tracks, excluded: Set(newTracks), limit: limit, in: db,
                                           lastHeard: "SELECT MAX(local_day) FROM plays WHERE track_id = ? AND started_at_ms < ? AND local_day < ? AND counted = 1",
                                           windowFrom: window.from) { entries in
                try trackItems(entries, limit: limit, in: db)
            }
            comebackArtists = try comebacks(.artist, period, sums: artists, excluded: Set(newArtists.map(\.id)), limit: limit, in: db,
                                            lastHeard: """
                                                SELECT MAX(p.local_day) FROM track_artists a CROSS JOIN plays p ON p.track_id = a.track_id
                                                WHERE a.artist_id = ? AND p.started_at_ms < ? AND p.local_day < ? AND p.counted = 1
                                                """,
                                            windowFrom: window.from) { entries in
                try artistItems(entries, limit: limit, in: db)
            }
        }
        return ReviewReport.Discoveries(
            newTracks: newTracks.count, newTrackPlays: newEntries.reduce(0) { $0 + $1.plays }, newArtists: newArtists.count,
            topNewTracks: try trackItems(newEntries, limit: limit, in: db), topNewArtists: try artistItems(newArtists, limit: limit, in: db),
            comebackTracks: comebackTracks, comebackArtists: comebackArtists)
    }

    /// The ids played in the period (`sums`), not in the year before it, with at least
    /// `comebackMinimumPlays` counted plays before that year, the most played first (and
    /// their last day before it). All from the rollups: the plays before the year are those
    /// of the days before it, or — when fewer days follow the period than precede the year —
    /// all time's less the period's and the days' after it (none are in the year). `total`
    /// (all time) less the period's rules most ids out first. Only the ones shown have their
    /// last day looked up in the plays.
    private static func comebacks(_ entity: ChartEntity, _ period: ReviewPeriod, sums: [Int64: (plays: Int, seconds: Double)],
                                  excluded: Set<Int64>, limit: Int, in db: Database, lastHeard: String, windowFrom: String,
                                  name: ([RankedSum.Entry]) throws -> [ReviewReport.Item]) throws -> [ReviewReport.Comeback] {
        let minimum = ReviewReport.comebackMinimumPlays
        let window = try periodSums(entity, from: windowFrom, to: period.yearBefore.to, in: db)
        let total = try RawStatement(db, entity == .track ? "SELECT plays FROM rollup_track_total WHERE track_id = ?"
                                                          : "SELECT plays FROM rollup_artist_total WHERE artist_id = ?")
        var candidates: [(id: Int64, plays: Int, seconds: Double, total: Int)] = []
        for (id, sum) in sums where sum.plays > 0 && !excluded.contains(id) && (window[id]?.plays ?? 0) == 0 {
            total.reset()
            total.bind(1, id)
            let all = try total.step() ? Int(total.int64(0)) : 0
            if all - sum.plays >= minimum { candidates.append((id, sum.plays, sum.seconds, all)) }
        }
        guard !candidates.isEmpty else { return [] }
        let bounds = try Row.fetchOne(db, sql: "SELECT MIN(day), MAX(day) FROM rollup_day_total")
        let first: String = bounds?[0] ?? windowFrom, last: String = bounds?[1] ?? period.to
        let daysBefore = (CivilDate.days(of: windowFrom) ?? 0) - (CivilDate.days(of: first) ?? 0)
        let daysAfter = (CivilDate.days(of: last) ?? 0) - (CivilDate.days(of: period.to) ?? 0)
        var before: [Int64: Int] = [:]
        if daysBefore <= daysAfter {
            let sums = try periodSums(entity, from: "0000-01-01", to: ReviewPeriod.text((CivilDate.days(of: windowFrom) ?? 0) - 1), in: db)
            for c in candidates { before[c.id] = sums[c.id]?.plays ?? 0 }
        } else {
            let after = daysAfter > 0
                ? try periodSums(entity, from: ReviewPeriod.text((CivilDate.days(of: period.to) ?? 0) + 1), to: "9999-12-30", in: db) : [:]
            for c in candidates { before[c.id] = c.total - c.plays - (after[c.id]?.plays ?? 0) }
        }
        let entries = candidates.filter { (before[$0.id] ?? 0) >= minimum }.map { RankedSum.Entry(id: $0.id, plays: $0.plays, seconds: $0.seconds) }
        let items = try name(entries)
        // The last day before the year: plays before its first day, bounded through the start
        // times (a local day begins within 14 hours of the same UTC day).
        let bound = Int64(CivilDate.days(of: windowFrom) ?? 0) * 86_400_000 + 14 * 3_600_000
        let lastDay = try db.cachedStatement(sql: lastHeard)
        return try items.map { item in
            ReviewReport.Comeback(item: item, lastHeard: try String.fetchOne(lastDay, arguments: [item.id, bound, windowFrom]) ?? "",
                                  playsBefore: before[item.id] ?? 0)
        }
    }

    /// One pass over the period's day-and-track rows: the song of each day (as
    /// `SongOfTheDay.choose` picks it: a pin, else the most counted plays, then time, then
    /// the first played, then the lower id) and the most plays of one track in one day.
    static func dayTrackScan(from: String, to: String, pins: [String: SongOfTheDay.Pin],
                             in db: Database) throws -> (songs: [ReviewReport.DaySong], best: ReviewReport.DayTop?) {
        let rows = try RawStatement(db, "SELECT day, track_id, plays, played_s FROM rollup_day_track WHERE day BETWEEN ? AND ? AND plays > 0",
                                    arguments: [from, to])
        // Each day's best (plays, seconds) and the tracks that have it.
        var chosen: [(day: Int, tracks: [Int64], plays: Int)] = []
        var day = Int.min, top: (plays: Int64, seconds: Double, tracks: [Int64])?
        var best: (day: Int, track: Int64, plays: Int64, seconds: Double)?
        func close() { if let top { chosen.append((day, top.tracks, Int(top.plays))) } }
        while try rows.step() {
            guard let n = rows.dayNumber(0) else { continue }
            let track = rows.int64(1), plays = rows.int64(2), seconds = rows.double(3)
            if n != day { close(); day = n; top = nil }
            if let t = top, (plays, seconds) < (t.plays, t.seconds) {
            } else if let t = top, (plays, seconds) == (t.plays, t.seconds) {
                top!.tracks.append(track)
            } else {
                top = (plays, seconds, [track])
            }
            if let b = best, (plays, seconds) <= (b.plays, b.seconds) { continue }
            best = (n, track, plays, seconds)
        }
        close()
        // Ties: the track of the day's first counted play among them (then the lower id).
        let dayPlays = try db.cachedStatement(sql: """
            SELECT track_id, started_at_ms FROM plays WHERE started_at_ms BETWEEN ? AND ? AND local_day = ? AND counted = 1
            ORDER BY started_at_ms
            """)
        var songs: [(day: String, track: Int64, plays: Int, pinned: Bool)] = []
        var byDay: [String: (track: Int64, plays: Int)] = [:]
        for c in chosen {
            var track = c.tracks[0]
            if c.tracks.count > 1 {
                let tied = Set(c.tracks)
                let dayMs = Int64(c.day) * 86_400_000, slack: Int64 = 14 * 3_600_000
                let cursor = try Row.fetchCursor(dayPlays, arguments: [dayMs - slack, dayMs + 86_400_000 + slack, ReviewPeriod.text(c.day)])
                var first: (at: Int64, track: Int64)?
                while let row = try cursor.next() {
                    let id: Int64 = row[0], at: Int64 = row[1]
                    if let f = first, at > f.at { break }
                    if tied.contains(id), first.map({ id < $0.track }) ?? true { first = (at, id) }
                }
                track = first?.track ?? c.tracks.min()!
            }
            byDay[ReviewPeriod.text(c.day)] = (track, c.plays)
        }
        let figures = try db.cachedStatement(sql: "SELECT plays FROM rollup_day_track WHERE day = ? AND track_id = ?")
        for day in Set(byDay.keys).union(pins.keys).sorted() {
            if let pin = pins[day] {
                songs.append((day, pin.trackID, try Int.fetchOne(figures, arguments: [day, pin.trackID]) ?? 0, true))
            } else if let c = byDay[day] {
                songs.append((day, c.track, c.plays, false))
            }
        }
        let names = try tracks(ids: songs.map(\.track) + (best.map { [$0.track] } ?? []), in: db)
        let bestDay = best.flatMap { b in
            names[b.track].map { ReviewReport.DayTop(day: ReviewPeriod.text(b.day), item: .track($0, plays: Int(b.plays), seconds: b.seconds)) }
        }
        return (songs.compactMap { s in names[s.track].map { ReviewReport.DaySong(day: s.day, track: $0, plays: s.plays, pinned: s.pinned) } },
                bestDay)
    }

    /// Tracks by id, 500 to a query.
    static func tracks(ids: [Int64], in db: Database) throws -> [Int64: Track] {
        let unique = Array(Set(ids))
        var out: [Int64: Track] = [:]
        for chunk in stride(from: 0, to: unique.count, by: 500) {
            let ids = unique[chunk..<min(chunk + 500, unique.count)]
            for row in try Row.fetchAll(db, sql: """
                SELECT \(trackColumns("t")) FROM tracks t WHERE t.id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
                """, arguments: StatementArguments(Array(ids))) {
                let track = track(from: row)
                if let id = track.id { out[id] = track }
            }
        }
        return out
    }
}
