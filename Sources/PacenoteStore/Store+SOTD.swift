import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// The tracks counted on a local day, with what the song-of-the-day rule weighs: one
    /// pass over the day's plays (an index range), not a look-up per track.
    public func sotdCandidates(day: String) throws(StoreError) -> [SongOfTheDay.Candidate] {
        try sotdCandidates(fromDay: day, toDay: day)[day] ?? []
    }

    /// The same for every day of a range, by day.
    public func sotdCandidates(fromDay: String, toDay: String) throws(StoreError) -> [String: [SongOfTheDay.Candidate]] {
        try read { db in
            var out: [String: [SongOfTheDay.Candidate]] = [:]
            // The days' plays through the index on their starts: a local day begins within
            // 14 hours of the same day in UTC, whatever the zone (UTC−12 to UTC+14).
            let dayMs: Int64 = 86_400_000, slack: Int64 = 14 * 3_600_000
            let from = Int64(CivilDate.days(of: fromDay) ?? 0) * dayMs - slack
            let to = Int64((CivilDate.days(of: toDay) ?? Int(Int32.max)) + 1) * dayMs + slack
            for row in try Row.fetchAll(db, sql: """
                SELECT local_day, track_id, SUM(counted), SUM(played_s), MIN(CASE WHEN counted = 1 THEN started_at_ms END)
                FROM plays WHERE started_at_ms BETWEEN ? AND ? AND local_day BETWEEN ? AND ?
                GROUP BY local_day, track_id HAVING SUM(counted) > 0
                """, arguments: [from, to, fromDay, toDay]) {
                out[row[0], default: []].append(SongOfTheDay.Candidate(
                    trackID: row[1], plays: row[2], seconds: row[3], firstPlayedAt: Store.date(milliseconds: row[4] ?? 0)))
            }
            return out
        }
    }

    public func sotdPin(day: String) throws(StoreError) -> SongOfTheDay.Pin? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT track_id, note FROM sotd_pins WHERE day = ?", arguments: [day]).map {
                SongOfTheDay.Pin(trackID: $0[0], note: $0[1])
            }
        }
    }

    /// Pins `trackID` as the song of `day`, with an optional note; false if there is no
    /// such track.
    @discardableResult
    public func pinSOTD(day: String, trackID: Int64, note: String?) throws(StoreError) -> Bool {
        try write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tracks WHERE id = ?)", arguments: [trackID]) == true else {
                return false
            }
            try db.execute(sql: """
                INSERT INTO sotd_pins (day, track_id, note, pinned_at_ms) VALUES (?, ?, ?, ?)
                ON CONFLICT (day) DO UPDATE SET track_id = excluded.track_id, note = excluded.note, pinned_at_ms = excluded.pinned_at_ms
                """, arguments: [day, trackID, note, Store.milliseconds(Date())])
            return true
        }
    }

    @discardableResult
    public func unpinSOTD(day: String) throws(StoreError) -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM sotd_pins WHERE day = ?", arguments: [day])
            return db.changesCount > 0
        }
    }

    /// How often and how long the track was played on that day (counted plays).
    public func dayFigures(day: String, trackID: Int64) throws(StoreError) -> (plays: Int, seconds: Double) {
        try read { db in
            let row = try Row.fetchOne(db, sql: "SELECT plays, played_s FROM rollup_day_track WHERE day = ? AND track_id = ?",
                                       arguments: [day, trackID])
            return (row?[0] ?? 0, row?[1] ?? 0)
        }
    }

    /// The last `limit` local days that have a song of the day (counted plays or a pin),
    /// newest first, each with when its pin was set (nil without one). For the public feed
    /// (`/sotd.atom`), which says when an entry changed only to the day: when its plays were
    /// is not read here at all (issue 51, point 3).
    public func recentSOTDDays(limit: Int) throws(StoreError) -> [(day: String, pinnedAt: Date?)] {
        try read { db in
            var pinned: [String: Int64?] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT day FROM rollup_day_total WHERE plays > 0 ORDER BY day DESC LIMIT ?
                """, arguments: [limit]) {
                pinned[row[0]] = .some(nil)
            }
            for row in try Row.fetchAll(db, sql: "SELECT day, pinned_at_ms FROM sotd_pins ORDER BY day DESC LIMIT ?", arguments: [limit]) {
                pinned[row[0]] = .some(row[1])
            }
            return pinned.keys.sorted(by: >).prefix(limit).map { day in
                (day, pinned[day].flatMap { $0 }.map(Store.date(milliseconds:)))
            }
        }
    }
}
