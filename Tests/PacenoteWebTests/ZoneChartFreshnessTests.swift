import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// Plays get their heart rate after they are stored (as readings arrive, or late from a
/// watch's sync). The tagging is an operation that announces the plays it changed, so the
/// review's zone chart, kept for up to a minute, follows at once (issue 53: it could be a
/// minute stale).
@Suite struct ZoneChartFreshnessTests {
    @Test func theReviewsZoneChartIsFreshRightAfterPlaysAreTagged() throws {
        let utc = TimeZone(identifier: "UTC")!
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let context = APIContext.forTests(store: store, timeZone: utc, apiKey: "k", events: EventBus(),
                                          configure: { $0.publicURL = "http://pacenote.example" })
        let api = API(context: context)
        let start = 1_735_725_600.0  // 2025-01-01T10:00Z
        let track = try store.saveTrack(Track(title: "Song", artist: "Artist"))
        for n in 0..<3 {
            let at = start + Double(n) * 240
            try store.insertPlay(Play(trackID: track, startedAt: Date(timeIntervalSince1970: at), endedAt: Date(timeIntervalSince1970: at + 200),
                                      playedSeconds: 200, counted: true, source: "mpd"))
        }
        func zonePlays() throws -> [Int] {
            let response = api.handle(ReviewAPITests.request("GET", "/api/v1/review", query: ["range": "2025"]))
            #expect(response.status == 200)
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
            let zones = (json["heart_rate"] as? [String: Any])?["zones"] as? [[String: Any]] ?? []
            return zones.map { $0["plays"] as? Int ?? 0 }
        }
        #expect(try zonePlays().reduce(0, +) == 0, "no play has a zone yet (and the review is kept now)")

        _ = try store.insertSamples(stride(from: start, through: start + 800, by: 5).map {
            HeartRateSample(at: Date(timeIntervalSince1970: $0), bpm: 150)
        }, source: "strap")
        let tagged = try context.operations.tagPlays(from: Date(timeIntervalSince1970: start), to: Date(timeIntervalSince1970: start + 800)) { _, _ in .z4 }
        #expect(tagged.count == 3)
        let after = try zonePlays()
        #expect(after.count == 6 && after[4] == 3, "the kept review followed the tagging: \(after)")
    }
}
