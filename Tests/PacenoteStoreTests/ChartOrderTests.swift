import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// Charts ranked by counted plays (the default) or by listening time.
@Suite struct ChartOrderTests {
    @Test func timeRanksTheLongTrackFirstPlaysTheFrequentOne() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let day = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01T00:00Z
        var listens: [(track: Track, startedAt: Date, client: String?)] = []
        // Three short plays against one twelve-minute one.
        for i in 0..<3 {
            listens.append((Track(title: "Short", artist: "Pop", album: "Singles", durationSeconds: 180),
                            day.addingTimeInterval(Double(i) * 600), nil))
        }
        listens.append((Track(title: "Long", artist: "Prog", album: "Epics", durationSeconds: 720), day.addingTimeInterval(3600), nil))
        _ = try store.recordListens(listens, source: "listenbrainz")
        for (from, to) in [("2026-01-01", "2026-01-01"), ("2026-01-01", "2026-12-31"), ("0000-01-01", "9999-12-31")] {
            let byPlays = try store.topTracks(fromDay: from, toDay: to, limit: 5)
            #expect(byPlays.map(\.track?.title) == ["Short", "Long"])
            #expect(try store.topTracks(fromDay: from, toDay: to, limit: 5, by: .plays) == byPlays)
            let byTime = try store.topTracks(fromDay: from, toDay: to, limit: 5, by: .time)
            #expect(byTime.map(\.track?.title) == ["Long", "Short"])
            #expect(byTime.map(\.seconds) == [720, 540])
            #expect(try store.topArtists(fromDay: from, toDay: to, limit: 5, by: .time).map(\.artist) == ["Prog", "Pop"])
            #expect(try store.topArtists(fromDay: from, toDay: to, limit: 5).map(\.artist) == ["Pop", "Prog"])
            #expect(try store.topAlbums(fromDay: from, toDay: to, limit: 5, by: .time).map(\.album) == ["Epics", "Singles"])
            #expect(try store.topAlbums(fromDay: from, toDay: to, limit: 5).map(\.album) == ["Singles", "Epics"])
        }
    }
}

/// The ids a chart's length counts, told apart in memory (`Store.DistinctIDs`).
@Suite struct DistinctIDsTests {
    @Test func eachIdCountsOnceSmallLargeOrNegative() {
        var distinct = Store.DistinctIDs()
        let ids: [Int64] = [5, 5, 0, 63, 64, 64, 1_000_000, Store.DistinctIDs.bitLimit, Store.DistinctIDs.bitLimit, .max, -3, -3, 5]
        for id in ids { distinct.insert(id) }
        #expect(distinct.count == Set(ids).count)
        var random = Store.DistinctIDs()
        var seen = Set<Int64>()
        var x: UInt64 = 7
        for _ in 0..<20_000 {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            let id = Int64(x >> 50)
            random.insert(id)
            seen.insert(id)
        }
        #expect(random.count == seen.count)
    }
}
