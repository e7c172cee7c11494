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

/// Where each id of a run of days is summed (`Store.IDPositions`): each id its first
/// position, found again however the table grew; ids of any sign and size.
@Suite struct IDPositionsTests {
    @Test func eachIdKeepsTheFirstPositionGiven() {
        for capacity in [0, 1, 3, 1_000] {
            var positions = Store.IDPositions(capacity: capacity)
            var expected: [Int64: Int] = [:]
            var x: UInt64 = 11
            var ids: [Int64] = [0, -1, .min, .max, 1 << 40, 16, 32, 48]
            for _ in 0..<30_000 {
                x = x &* 6364136223846793005 &+ 1442695040888963407
                ids.append(Int64(x >> 47))
            }
            for id in ids {
                let next = expected.count
                let (position, inserted) = positions.position(of: id, orInsert: next)
                if let known = expected[id] {
                    #expect(position == known && !inserted, "\(id)")
                } else {
                    #expect(position == next && inserted, "\(id)")
                    expected[id] = next
                }
            }
            #expect(positions.count == expected.count)
            for (id, known) in expected { #expect(positions.position(of: id, orInsert: -5) == (known, false)) }
        }
    }
}
