import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The forwarding outbox: a counted play enters it in the transaction that stores it, for
/// each active target whose filters it passes; the counts the status shows follow every
/// change; a backfill never queues a play a target took.
@Suite struct ForwardStoreTests {
    static func store() throws -> (TemporaryDirectory, Store) {
        let dir = try TemporaryDirectory()
        return (dir, try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!))
    }

    @discardableResult
    static func play(_ store: Store, _ title: String, at seconds: Double, counted: Bool = true, source: String = "mpd",
                     player: String? = "default") throws -> Int64? {
        let id = try store.saveTrack(Track(title: title, artist: "Artist", durationSeconds: 200))
        return try store.insertPlay(Play(trackID: id, startedAt: Date(timeIntervalSince1970: seconds),
                                         endedAt: Date(timeIntervalSince1970: seconds + 200), playedSeconds: counted ? 200 : 5,
                                         counted: counted, source: source, player: player))
    }

    static func state(_ store: Store, _ name: String) throws -> ForwardTargetState {
        try #require(try store.forwardTargets().first { $0.name == name })
    }

    @Test func countedPlaysAreQueuedForTheTargetsWhoseFiltersTheyPass() throws {
        let (_, store) = try Self.store()
        try Self.play(store, "Before any target", at: 1_000)
        let ids = try store.syncForwardTargets([
            ForwardTargetSpec(name: "all", kind: .listenbrainz, url: "http://a"),
            ForwardTargetSpec(name: "mpd-only", kind: .lastfm, url: "http://b", sources: ["mpd"]),
            ForwardTargetSpec(name: "kitchen", kind: .listenbrainz, url: "http://c", players: ["kitchen"]),
        ])
        #expect(ids.count == 3)
        try Self.play(store, "From MPD", at: 2_000)
        try Self.play(store, "A skip", at: 3_000, counted: false)
        try Self.play(store, "Scrobbled", at: 4_000, source: "audioscrobbler", player: "kitchen")
        #expect(try Self.play(store, "From MPD", at: 2_000) == nil, "the same listen twice is stored and queued once")
        #expect(try Self.state(store, "all").queued == 2)
        #expect(try store.forwardBatch(target: ids["all"]!, limit: 10).map(\.track.title) == ["From MPD", "Scrobbled"])
        #expect(try store.forwardBatch(target: ids["mpd-only"]!, limit: 10).map(\.track.title) == ["From MPD"])
        #expect(try store.forwardBatch(target: ids["kitchen"]!, limit: 10).map(\.track.title) == ["Scrobbled"])
        #expect(try store.forwardBatch(target: ids["all"]!, limit: 1).count == 1)
    }

    @Test func deliveredParkedRetriedAndDeletedPlaysKeepTheCountsTrue() throws {
        let (_, store) = try Self.store()
        let id = try #require(try store.syncForwardTargets([ForwardTargetSpec(name: "t", kind: .listenbrainz, url: "http://t")])["t"])
        let plays = try (0..<5).map { try #require(try Self.play(store, "Song \($0)", at: Double(1_000 * ($0 + 1)))) }
        try store.forwardDelivered(target: id, plays: Array(plays[0..<2]))
        try store.forwardParked(target: id, plays: [(plays[2], "400: no")])
        try store.forwardFailed(target: id, plays: [plays[3]], reason: "down")
        var state = try Self.state(store, "t")
        #expect((state.queued, state.parked, state.sent) == (2, 1, 2))
        #expect(state.lastError == "down" && state.lastSuccessAt != nil)
        #expect(try store.forwardBatch(target: id, limit: 10).map(\.playID) == [plays[3], plays[4]])
        #expect(try store.forwardBatch(target: id, limit: 10).first?.attempts == 1)
        #expect(try store.parkedPlays().map(\.reason) == ["400: no"])
        #expect(try store.retryParked(target: "t") == 1)
        state = try Self.state(store, "t")
        #expect((state.queued, state.parked) == (3, 0))
        // A deleted play leaves the outbox with it.
        _ = try store.deletePlay(id: plays[4])
        state = try Self.state(store, "t")
        #expect(state.queued == 2)
        let counted = try store.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM forward_outbox")! }
        #expect(counted == state.queued + state.parked)
    }

    @Test func backfillQueuesThePastOnceWithinTheTargetsFilters() throws {
        let (_, store) = try Self.store()
        for i in 0..<6 { try Self.play(store, "Old \(i)", at: Double(86_400 * (i + 1)), source: i == 5 ? "listenbrainz" : "mpd") }
        try Self.play(store, "Old skip", at: 86_400 * 8, counted: false)
        let ids = try store.syncForwardTargets([ForwardTargetSpec(name: "t", kind: .listenbrainz, url: "http://t", sources: ["mpd"])])
        let id = try #require(ids["t"])
        #expect(try Self.state(store, "t").queued == 0, "a new target takes plays from now on")
        #expect(try store.backfill(target: "nope", from: .distantPast, to: nil) == nil)
        #expect(try store.backfill(target: "t", from: Date(timeIntervalSince1970: 86_400 * 2), to: nil) == 4)
        let batch = try store.forwardBatch(target: id, limit: 2)
        try store.forwardDelivered(target: id, plays: batch.map(\.playID))
        #expect(try store.backfill(target: "t", from: Date(timeIntervalSince1970: 0), to: nil) == 1, "only Old 0: the rest are queued or sent")
        #expect(try Self.state(store, "t").queued == 3)
        #expect(try store.backfill(target: "t", from: Date(timeIntervalSince1970: 0), to: nil) == 0)
    }

    @Test func targetsFollowTheConfigurationAndKeepTheirSessionOnlyForTheSameService() throws {
        let (_, store) = try Self.store()
        try store.syncForwardTargets([ForwardTargetSpec(name: "fm", kind: .lastfm, url: "http://fm")])
        #expect(try store.setForwardSession(target: "fm", key: "sk", user: "alice"))
        #expect(try !store.setForwardSession(target: "none", key: "sk", user: "alice"))
        try store.syncForwardTargets([ForwardTargetSpec(name: "fm", kind: .lastfm, url: "http://fm")])
        #expect(try Self.state(store, "fm").sessionKey == "sk")
        try store.syncForwardTargets([ForwardTargetSpec(name: "fm", kind: .lastfm, url: "http://other")])
        #expect(try Self.state(store, "fm").sessionKey == nil, "another service, another session")
        try store.syncForwardTargets([])
        #expect(try store.forwardTargets().map(\.active) == [false])
        try Self.play(store, "After", at: 5_000)
        #expect(try Self.state(store, "fm").queued == 0, "an inactive target takes nothing")
    }
}
