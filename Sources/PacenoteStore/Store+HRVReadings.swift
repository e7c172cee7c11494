import Foundation
import GRDB
import PacenoteCore

extension Store {
    // MARK: Resting HRV readings

    /// Starts a resting reading over [at, ends]; its figures come once the window has passed.
    public func startHRVReading(at: Date, ends: Date) throws(StoreError) -> HRVReading {
        try write { db in
            try db.execute(sql: "INSERT INTO hrv_readings (started_at_ms, ends_at_ms) VALUES (?, ?)",
                           arguments: [Store.milliseconds(at), Store.milliseconds(ends)])
            return HRVReading(id: db.lastInsertedRowID, startedAt: at, endsAt: ends, figures: nil, done: false)
        }
    }

    /// Completes a reading with its figures (nil: too few clean intervals).
    public func completeHRVReading(id: Int64, _ figures: HeartRateVariability?) throws(StoreError) {
        try write { db in
            try db.execute(sql: """
                UPDATE hrv_readings SET done = 1, rmssd_ms = ?, sdnn_ms = ?, mean_nn_ms = ?, beats = ?, outliers = ?, ectopic = ?
                WHERE id = ?
                """, arguments: [figures?.rmssd, figures?.sdnn, figures?.meanNN, figures?.beats, figures?.outliers, figures?.ectopic, id])
        }
    }

    public func hrvReading(id: Int64) throws(StoreError) -> HRVReading? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM hrv_readings WHERE id = ?", arguments: [id]).map(Store.hrvReading(from:))
        }
    }

    /// Readings that began in [from, to), oldest first.
    public func hrvReadings(from: Date, to: Date) throws(StoreError) -> [HRVReading] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM hrv_readings WHERE started_at_ms >= ? AND started_at_ms < ? ORDER BY started_at_ms
                """, arguments: [Store.milliseconds(from), Store.milliseconds(to)]).map(Store.hrvReading(from:))
        }
    }

    /// Readings still waiting for their figures, oldest first.
    public func pendingHRVReadings() throws(StoreError) -> [HRVReading] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM hrv_readings WHERE done = 0 ORDER BY ends_at_ms").map(Store.hrvReading(from:))
        }
    }

    static func hrvReading(from row: Row) -> HRVReading {
        let figures: HeartRateVariability? = (row["rmssd_ms"] as Double?).map { rmssd in
            HeartRateVariability(rmssd: rmssd, sdnn: row["sdnn_ms"] ?? 0, meanNN: row["mean_nn_ms"] ?? 0, beats: row["beats"] ?? 0,
                                 outliers: row["outliers"] ?? 0, ectopic: row["ectopic"] ?? 0)
        }
        return HRVReading(id: row["id"], startedAt: Store.date(milliseconds: row["started_at_ms"]),
                          endsAt: Store.date(milliseconds: row["ends_at_ms"]), figures: figures, done: (row["done"] as Int) == 1)
    }
}
