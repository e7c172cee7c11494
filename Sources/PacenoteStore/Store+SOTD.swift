import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// The tracks counted on a local day, with what the song-of-the-day rule weighs.
    public func sotdCandidates(day: String) throws(StoreError) -> [SongOfTheDay.Candidate] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT r.track_id, r.plays, r.played_s,
                       (SELECT MIN(p.started_at_ms) FROM plays p
                        WHERE p.local_day = r.day AND p.track_id = r.track_id AND p.counted = 1) AS first_ms
                FROM rollup_day_track r WHERE r.day = ? AND r.plays > 0
                """, arguments: [day]).map {
                SongOfTheDay.Candidate(trackID: $0[0], plays: $0[1], seconds: $0[2],
                                       firstPlayedAt: Store.date(milliseconds: $0[3] ?? 0))
            }
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
}
