import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
@testable import PacenoteStore
import Testing

/// Curation entries store facts, not English (issue 53, point 3): the transaction writes
/// `facts_json` and an empty `summary`; the line is made when read, in the zone of the store
/// that reads it; an entry logged before v28 keeps the line it stored.
@Suite struct CurationFactsStoreTests {
    @Test func theLogStoresFactsAndTheLineFollowsTheReadersZone() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("p.sqlite")
        var store: Store? = try Store.open(path: path, timeZone: TimeZone(identifier: "UTC")!)
        let id = try store!.saveTrack(Track(uri: nil, title: "Clair", artist: "Gilbert", album: nil, albumArtist: nil, durationSeconds: 200))
        // 2026-01-05 11:30 UTC.
        let added = try store!.curateAdd(.track(id: id), startedAt: Date(timeIntervalSince1970: 1_767_612_600), request: "{}", source: "test").entry
        #expect(added.summary(in: store!.localTime) == "Added a play of “Clair” at 2026-01-05 11:30")
        let row = try #require(try store!.read { db in
            try Row.fetchOne(db, sql: "SELECT summary, facts_json FROM curation_log WHERE id = ?", arguments: [added.id])
        })
        #expect(row[0] as String == "")
        #expect(CurationFacts(json: row[1] as String) == .added(plays: 1, title: "Clair", startedAt: Date(timeIntervalSince1970: 1_767_612_600)))
        // An entry as v10–v25 wrote it: its line, no facts.
        try store!.write { db in
            try db.execute(sql: """
                INSERT INTO curation_log (at_ms, kind, summary, request_json, undo_json, touches, source)
                VALUES (1767612600000, 'delete', 'Deleted 2 plays', '{}', '{}', ' ', 'api')
                """)
        }
        store = nil

        let paris = try Store.open(path: path, timeZone: TimeZone(identifier: "Europe/Paris")!)
        let log = try paris.curationLog()
        #expect(log.map { $0.summary(in: paris.localTime) } == ["Deleted 2 plays", "Added a play of “Clair” at 2026-01-05 12:30"])
    }
}
