import Foundation
import GRDB
import PacenoteCore

/// What the site's track and artist pages show.
public struct TrackSummary: Equatable, Sendable {
    public var plays: Int
    public var skips: Int
    public var seconds: Double
    public var firstPlayed: Date?
    public var lastPlayed: Date?
    /// Counted plays per month, `YYYY-MM` ascending.
    public var months: [(month: String, plays: Int)]
    /// Counted plays in each heart-rate zone, Z0 to Z5 (plays without heart rate are in none).
    public var zones: [Int] = Array(repeating: 0, count: 6)

    public static func == (a: TrackSummary, b: TrackSummary) -> Bool {
        a.plays == b.plays && a.skips == b.skips && a.seconds == b.seconds && a.firstPlayed == b.firstPlayed
            && a.lastPlayed == b.lastPlayed && a.months.map(\.month) == b.months.map(\.month)
            && a.months.map(\.plays) == b.months.map(\.plays) && a.zones == b.zones
    }
}

extension Store {
    /// Counted plays per local hour of day (24 values) over a range of days, from the rollups
    /// (all time or a whole year: a row per year and hour).
    public func hourTotals(fromDay: String, toDay: String) throws(StoreError) -> [Double] {
        try read { db in
            var hours = [Double](repeating: 0, count: 24)
            let rows: [Row]
            switch WholeRange(fromDay: fromDay, toDay: toDay) {
            case .all?:
                rows = try Row.fetchAll(db, sql: "SELECT hour, SUM(plays) FROM rollup_year_hour GROUP BY hour")
            case .year(let year)?:
                rows = try Row.fetchAll(db, sql: "SELECT hour, plays FROM rollup_year_hour WHERE year = ?", arguments: [year])
            case nil:
                rows = try Row.fetchAll(db, sql: """
                    SELECT hour, SUM(plays) FROM rollup_day_hour WHERE day BETWEEN ? AND ? GROUP BY hour
                    """, arguments: [fromDay, toDay])
            }
            for row in rows {
                let hour: Int = row[0]
                if (0..<24).contains(hour) { hours[hour] = row[1] }
            }
            return hours
        }
    }

    /// Every local day with at least one counted play, ascending (for streaks).
    public func activeDays() throws(StoreError) -> [String] {
        try read { db in
            let rows = try RawStatement(db, "SELECT day FROM rollup_day_total WHERE plays > 0 ORDER BY day")
            var days: [String] = []
            while try rows.step() { days.append(rows.text(0) ?? "") }
            return days
        }
    }

    /// The same as day numbers (days since 1970-01-01), read without making a string per day.
    public func activeDayNumbers() throws(StoreError) -> [Int] {
        try read { db in
            let rows = try RawStatement(db, "SELECT day FROM rollup_day_total WHERE plays > 0 ORDER BY day")
            var days: [Int] = []
            while try rows.step() { if let day = rows.dayNumber(0) { days.append(day) } }
            return days
        }
    }

    /// The most played track of each of these days (days without plays are left out; of
    /// tracks tied in plays and time, the first added). Each day's rows are read once through
    /// the C API and the best kept, then the few winners are named: sorting a day's rows, or
    /// joining them before the sort, cost several times more.
    public func topTrackOfDays(_ days: [String]) throws(StoreError) -> [(day: String, track: Track, plays: Int)] {
        guard !days.isEmpty else { return [] }
        return try read { db in
            let rows = try RawStatement(db, "SELECT track_id, plays, played_s FROM rollup_day_track WHERE day = ? AND plays > 0")
            var best: [(day: String, track: Int64, plays: Int64)] = []
            for day in days {
                rows.reset()
                rows.bind(1, day as String?)
                var top: (track: Int64, plays: Int64, seconds: Double)?
                while try rows.step() {
                    let plays = rows.int64(1), seconds = rows.double(2)
                    if let t = top, (plays, seconds) <= (t.plays, t.seconds) { continue }
                    top = (rows.int64(0), plays, seconds)
                }
                if let top { best.append((day, top.track, top.plays)) }
            }
            var tracks: [Int64: Track] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")) FROM tracks t WHERE t.id IN (\(best.map { String($0.track) }.joined(separator: ", ")))
                """) {
                let track = Store.track(from: row)
                if let id = track.id { tracks[id] = track }
            }
            return best.compactMap { b in tracks[b.track].map { (b.day, $0, Int(b.plays)) } }
        }
    }

    /// Plays, skips, first and last play, plays per month and per zone of one track.
    public func trackSummary(id: Int64) throws(StoreError) -> TrackSummary {
        try summary(tracks: "SELECT ?1 AS id", monthRollup: ("rollup_month_track", "track_id"), id: id)
    }

    /// A summary of a set of tracks (`tracks`: a query of their ids, `?1` the entity's id),
    /// read from rollups and indexes only, in time independent of how many plays they have:
    /// totals from `rollup_track_total`, months from the entity's month rollup (a look-up per
    /// month of the history), first and last play by a look-up per track in `plays_identity`,
    /// zones from the plays that have one (`plays_zoned`).
    func summary(tracks: String, monthRollup: (table: String, key: String), id: Int64) throws(StoreError) -> TrackSummary {
        try read { db in
            let totals = try Row.fetchOne(db, sql: """
                SELECT COALESCE(SUM(plays), 0), COALESCE(SUM(skips), 0), COALESCE(SUM(played_s), 0)
                FROM rollup_track_total WHERE track_id IN (\(tracks))
                """, arguments: [id])!
            var months: [(month: String, plays: Int)] = []
            let monthRows = try RawStatement(db, """
                SELECT m.month, r.plays FROM rollup_month_total m
                JOIN \(monthRollup.table) r ON r.month = m.month AND r.\(monthRollup.key) = ?1 ORDER BY m.month
                """, arguments: [id])
            while try monthRows.step() { months.append((monthRows.text(0) ?? "", Int(monthRows.int64(1)))) }
            let span = try Row.fetchOne(db, sql: """
                SELECT MIN((SELECT MIN(started_at_ms) FROM plays WHERE track_id = x.id)),
                       MAX((SELECT MAX(started_at_ms) FROM plays WHERE track_id = x.id))
                FROM (\(tracks)) x
                """, arguments: [id])
            var zones = Array(repeating: 0, count: 6)
            for row in try Row.fetchAll(db, sql: """
                SELECT zone, SUM(counted) FROM plays INDEXED BY plays_zoned
                WHERE zone IS NOT NULL AND track_id IN (\(tracks)) GROUP BY zone
                """, arguments: [id]) {
                let zone: Int = row[0]
                if zones.indices.contains(zone) { zones[zone] = row[1] }
            }
            return TrackSummary(plays: totals[0], skips: totals[1], seconds: totals[2],
                                firstPlayed: (span?[0] as Int64?).map(Store.date(milliseconds:)),
                                lastPlayed: (span?[1] as Int64?).map(Store.date(milliseconds:)), months: months, zones: zones)
        }
    }

    /// The most recent plays of one track.
    public func plays(trackID: Int64, limit: Int) throws(StoreError) -> [Play] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT id, started_at_ms, ended_at_ms, played_s, counted, source, player, zone FROM plays
                WHERE track_id = ? ORDER BY started_at_ms DESC LIMIT ?
                """, arguments: [trackID, limit]).map { row in
                Play(id: row[0], trackID: trackID, startedAt: Store.date(milliseconds: row[1]),
                     endedAt: Store.date(milliseconds: row[2]), playedSeconds: row[3], counted: row[4], source: row[5],
                     player: row[6], zone: (row[7] as Int?).flatMap(Zone.init(rawValue:)))
            }
        }
    }

    /// The pins of a range of days, by day.
    public func sotdPins(fromDay: String, toDay: String) throws(StoreError) -> [String: SongOfTheDay.Pin] {
        try read { db in
            var out: [String: SongOfTheDay.Pin] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT day, track_id, note FROM sotd_pins WHERE day BETWEEN ? AND ?",
                                        arguments: [fromDay, toDay]) {
                out[row[0]] = SongOfTheDay.Pin(trackID: row[1], note: row[2])
            }
            return out
        }
    }

    /// Tracks by id, in one query.
    public func tracks(ids: [Int64]) throws(StoreError) -> [Int64: Track] {
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var out: [Int64: Track] = [:]
            let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
            for row in try Row.fetchAll(db, sql: "SELECT \(Store.trackColumns("tracks")) FROM tracks WHERE id IN (\(marks))",
                                        arguments: StatementArguments(ids)) {
                let track = Store.track(from: row)
                if let id = track.id { out[id] = track }
            }
            return out
        }
    }
}
