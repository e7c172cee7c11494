import Foundation
import PacenoteTestSupport
import Testing

/// Heart rate reaches plays after they were stored (a watch's samples uploaded late). The
/// daemon's tagging is an operation that announces the plays it changed, so the year's
/// review — kept for up to a minute — shows their zone on the next request once they have
/// it (issue 53: the zone charts could be a minute stale).
@Suite struct ZoneFreshnessEndToEndTests {
    @Test func theReviewsZonesAreFreshAsSoonAsLateSamplesTagThePlay() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let start = 1_750_000_000  // 2025-06-15
        let listen = #"{"listen_type": "single", "payload": [{"listened_at": \#(start), "track_metadata": {"artist_name": "Pulse", "track_name": "Steady", "additional_info": {"duration_ms": 200000}}}]}"#
        let submitted = try daemon.post("/1/submit-listens", body: listen)
        #expect(submitted.status == 200, "\(submitted.text)")
        func zonedPlays() throws -> Int {
            let r = try HTTP.get(daemon.base + "/api/v1/review?range=2025", headers: ["Authorization": "Token \(daemon.apiKey)"])
            #expect(r.status == 200, "\(r.text)")
            let zones = (r.json?["heart_rate"] as? [String: Any])?["zones"] as? [[String: Any]] ?? []
            return zones.reduce(0) { $0 + ($1["plays"] as? Int ?? 0) }
        }
        #expect(try zonedPlays() == 0, "no heart rate yet (and the review is kept now)")

        let samples = stride(from: start, through: start + 200, by: 5).map { #"{"bpm": 150, "ts": \#($0)}"# }.joined(separator: ",")
        let posted = try daemon.post("/api/v1/hr", body: #"{"source": "watch", "samples": [\#(samples)]}"#)
        #expect(posted.status == 200, "\(posted.text)")
        // The samples are tagged onto the play on the heart-rate service's queue: wait for that state.
        let deadline = Date().addingTimeInterval(20)
        while try daemon.sql("SELECT COUNT(*) FROM plays WHERE zone IS NOT NULL") != "1\n", Date() < deadline { usleep(20_000) }
        #expect(try daemon.sql("SELECT COUNT(*) FROM plays WHERE zone IS NOT NULL") == "1\n", "the play got its zone")
        #expect(try zonedPlays() == 1, "the kept review followed the tagging at once")
    }
}
