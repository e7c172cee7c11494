import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// A merged artist's name is read as the kept one's, however the tag spells it (issue 52,
/// row 8), on the fast path for plain ASCII and through `pacenote_artist_key` for the rest;
/// the tags themselves stay, and an undo shows them as tagged again.
@Suite struct ShownArtistTests {
    @Test func aMergedNameReadsAsTheKeptOneUntilTheMergeIsUndone() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        let texts = ["Kinks", "KINKS", "The Kinks", "Sigur Rós", "SIGUR RÓS", "Sigur Ros", "Other", "Kinks feat. Other"]
        var ids: [String: Int64] = [:]
        for (i, text) in texts.enumerated() { ids[text] = try store.saveTrack(Track(title: "Song \(i)", artist: text)) }
        func shown() throws -> [String] { try texts.map { try store.track(id: ids[$0]!)?.artist ?? "?" } }
        #expect(try shown() == texts)
        let kinks = try #require(try store.artist(named: "Kinks")).id, theKinks = try #require(try store.artist(named: "The Kinks")).id
        let accented = try #require(try store.artist(named: "Sigur Rós")).id, plain = try #require(try store.artist(named: "Sigur Ros")).id
        let first = try store.merge(.artist, from: [kinks], into: theKinks, request: "{}", source: "test")
        let second = try store.merge(.artist, from: [accented], into: plain, request: "{}", source: "test")
        #expect(try shown() == ["The Kinks", "The Kinks", "The Kinks", "Sigur Ros", "Sigur Ros", "Sigur Ros", "Other", "Kinks feat. Other"])
        // The tags are as they were.
        #expect(try store.read { db in try String.fetchAll(db, sql: "SELECT artist FROM tracks ORDER BY id") } == texts)
        _ = try store.undoCuration(id: second.id)
        _ = try store.undoCuration(id: first.id)
        #expect(try shown() == texts)
    }
}
