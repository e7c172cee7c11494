/// `forEachPlay`: every play of a span with its track, one at a time, for an export.

import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// Every play that started in [`from`, `to`), oldest first, with its track, handed to
    /// `body` one at a time (an export of years of plays is never held in memory).
    public func forEachPlay(from: Date? = nil, to: Date? = nil, _ body: (PlayWithTrack) throws -> Void) throws(StoreError) {
        try read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            Store.startedBetween(from, to, &conditions, &arguments)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY p.started_at_ms, p.id
                """, arguments: arguments)
            // A credit the source listed goes out as listed (ListenBrainz's artist_names);
            // each such track's credit is read once.
            let listed = try Set(Int64.fetchAll(db, sql: "SELECT DISTINCT track_id FROM track_artists WHERE listed = 1"))
            var credits: [Int64: ArtistCredit] = [:]
            while let row = try rows.next() {
                var item = Store.playWithTrack(from: row)
                if listed.contains(item.play.trackID) {
                    if credits[item.play.trackID] == nil { credits[item.play.trackID] = try Store.credit(trackID: item.play.trackID, in: db) }
                    item.track.listedCredit = credits[item.play.trackID]
                }
                try body(item)
            }
        }
    }
}
