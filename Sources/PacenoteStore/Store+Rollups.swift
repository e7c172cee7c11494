import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// The display time zone the rollups and `plays.local_day` were computed in.
    public func rollupTimeZone() throws(StoreError) -> String? {
        try read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'rollup_timezone'") }
    }

    /// Whether rollups made for the zone named `stored` are `zone`'s. Zones are compared,
    /// not spellings: Foundation names UTC "GMT" on Linux (TZ=UTC), and the system's zone
    /// file "Etc/UTC". Taking two names of UTC for two zones rewrote every play's local day
    /// and rebuilt the rollups at the next start (2.5 minutes at 5M plays) for nothing.
    static func sameZone(_ stored: String, _ zone: TimeZone) -> Bool {
        if stored == zone.identifier || TimeZone(identifier: stored)?.identifier == zone.identifier { return true }
        return utcNames.contains(stored) && utcNames.contains(zone.identifier)
    }

    /// The IANA names of UTC (the tz database's aliases of Etc/UTC and Etc/GMT, offset 0 always).
    static let utcNames: Set<String> = ["UTC", "GMT", "UCT", "Universal", "Zulu", "Greenwich", "GMT0", "GMT+0", "GMT-0",
                                        "Etc/UTC", "Etc/GMT", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "Etc/Greenwich",
                                        "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0"]

    /// Recomputes `local_day`/`local_hour` of every play for `timeZone` and rebuilds the
    /// rollups from scratch, if they were built for another zone.
    func alignRollups(to timeZone: TimeZone) throws(StoreError) {
        if let stored = try rollupTimeZone(), Self.sameZone(stored, timeZone) { return }
        try write { db in
            let local = LocalTime(timeZone: timeZone)
            let update = try db.makeStatement(sql: "UPDATE plays SET local_day = ?, local_hour = ? WHERE id = ?")
            let rows = try Row.fetchCursor(db, sql: "SELECT id, started_at_ms FROM plays")
            var changes: [(Int64, String, Int)] = []
            while let row = try rows.next() {
                let at = Store.date(milliseconds: row[1])
                changes.append((row[0], local.day(of: at), local.hour(of: at)))
            }
            // The update trigger would adjust rollups row by row; set it aside and rebuild
            // them with one GROUP BY instead, then put it back exactly as it was.
            let triggers = try String.fetchAll(db, sql: """
                SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('plays_rollup_update', 'plays_entity_rollup_update')
                """)
            try db.execute(sql: "DROP TRIGGER IF EXISTS plays_rollup_update; DROP TRIGGER IF EXISTS plays_entity_rollup_update")
            for (id, day, hour) in changes {
                try update.execute(arguments: [day, hour, id])
            }
            for trigger in triggers { try db.execute(sql: trigger) }
            // Every rollup summed again from the plays in the new zone's days.
            try Rollups.rebuildAll(in: db)
            try db.execute(sql: """
                INSERT INTO meta (key, value) VALUES ('rollup_timezone', ?)
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value;
                """, arguments: [timeZone.identifier])
        }
    }

}
