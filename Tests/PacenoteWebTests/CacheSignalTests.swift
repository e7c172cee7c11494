import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteWeb

/// Every cache of the web layer keeps one rule (`CacheSignal`): a value goes stale when a
/// change its cache follows is announced, or when a commit nobody announced is made; a
/// change it does not follow, announced after its commit, leaves it kept.
@Suite struct CacheSignalTests {
    @Test func followedChangesAndUnannouncedCommitsMakeValuesStaleOthersDoNot() throws {
        let dir = try TemporaryDirectory("cache-signal")
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let bus = EventBus()
        // As the charts: they follow the changes to plays.
        let cache = CommitCache<Int>(signal: CacheSignal(store: store, bus: bus, follows: CacheSignal.playChanges), maxAge: 60)
        let computed = Atomic<Int>(0)
        func value() -> Int { cache.kept("k") { computed.add(1, ordering: .relaxed).newValue } }
        func commit() throws { try store.insertSamples([HeartRateSample(at: Date(), bpm: 120)], source: "test") }

        #expect(value() == 1)
        #expect(value() == 1, "kept")
        try commit()
        #expect(value() == 2, "a commit nobody announced: anything may have changed")
        try commit()
        bus.publish(.changed(.trackBPM(trackID: 1)))
        #expect(value() == 2, "a commit announced as a change the charts do not follow")
        bus.publish(.changed(.playsAdded(ids: [1])))
        #expect(value() == 3, "a change to plays")
        bus.publish(.heartRate(bpm: 120, zone: .z2, at: Date()))
        #expect(value() == 3, "a live event is no change to the data")
    }

    @Test func theStatusFollowsLiveEventsToo() throws {
        let dir = try TemporaryDirectory("cache-signal")
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let bus = EventBus()
        let cache = CommitCache<Int>(signal: CacheSignal(store: store, bus: bus, follows: { _ in true }), maxAge: 60)
        let computed = Atomic<Int>(0)
        func value() -> Int { cache.kept("status") { computed.add(1, ordering: .relaxed).newValue } }
        #expect(value() == 1)
        bus.publish(.heartRate(bpm: 120, zone: .z2, at: Date()))
        #expect(value() == 2, "a strap's reading shows at once")
    }

    /// The writes that come every second or every tick (heart-rate samples, the play in
    /// progress) are announced: charts keep their values, the pages that show them follow.
    @Test func samplesAndThePlayInProgressKeepChartsAndMovePages() throws {
        let dir = try TemporaryDirectory("cache-signal")
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let bus = EventBus()
        let operations = Operations(store: store, events: bus)
        let charts = CommitCache<Int>(signal: CacheSignal(store: store, bus: bus, follows: CacheSignal.playChanges), maxAge: 60)
        let pages = CommitCache<Int>(signal: CacheSignal(store: store, bus: bus), maxAge: 60)
        let chartsComputed = Atomic<Int>(0), pagesComputed = Atomic<Int>(0)
        func chart() -> Int { charts.kept("k") { chartsComputed.add(1, ordering: .relaxed).newValue } }
        func page() -> Int { pages.kept("k") { pagesComputed.add(1, ordering: .relaxed).newValue } }

        #expect(chart() == 1 && page() == 1)
        #expect(try operations.storeSamples([HeartRateSample(at: Date(), bpm: 120)], source: "test") == 1)
        #expect(chart() == 1, "samples are no change to plays")
        #expect(page() == 2, "a page that shows heart rate follows them")
        let song = SongInfo(uri: "a.flac", tags: ["Title": "A"], durationSeconds: 200)
        let now = Date()
        try operations.saveProgress(player: "default", OpenPlay(song: song, songID: 3, startedAt: now.addingTimeInterval(-45),
                                                              playedSeconds: 45, isPlaying: true, asOf: now, position: 45))
        #expect(chart() == 1, "a play in progress is counted by no chart")
        #expect(page() == 3)
    }
}
