import Foundation
import PacenoteTestSupport
import Testing

/// The year in review in a real browser (issue 22): a Pacenote that trusts no network, with
/// last year's listening imported and a workout's heart rate back-filled; the owner opens
/// the review at 1280 px and 360 px and publishes it with heart rate off; a stranger finds
/// no heart-rate figure on the public page or in its PNG card; withdrawn, both are 404.
/// Screenshots go to test-artifacts/review/.
@Suite struct ReviewBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/review_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/review").path

    @Test func publishedWithoutHeartRateAStrangerSeesNoneAndWithdrawnItIsGone() throws {
        let python = try SiteBrowserTests.python()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\ntrusted_networks = []\n", arguments: ["--timezone", "UTC"])
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let year = utc.component(.year, from: Date()) - 1
        let january = utc.date(from: DateComponents(year: year, month: 1, day: 1))!.timeIntervalSince1970
        // Last year: ten songs an evening, every third day, from eight artists.
        var lines: [String] = []
        for d in stride(from: 0, to: 360, by: 3) {
            for n in 0..<10 {
                let t = (d * 7 + n * 3) % 24
                let at = Int(january) + d * 86_400 + 18 * 3600 + n * 240
                lines.append(#"{"listened_at":\#(at),"track_metadata":{"artist_name":"Artist \#(t % 8)","track_name":"Song \#(t)","#
                             + #""release_name":"Album \#(t % 5)","additional_info":{"duration_ms":200000}}}"#)
            }
        }
        let imported = try daemon.post("/api/v1/import", body: lines.joined(separator: "\n") + "\n", contentType: "application/x-ndjson")
        #expect(imported.status == 200, "\(imported.text)")
        // A watch syncing later: a reading now first, so that the run of 2 June is back-filled
        // (a workout detected in the upload, its plays given a zone).
        #expect(try daemon.post("/api/v1/hr", body: #"{"source":"watch","samples":[{"bpm":70,"ts":\#(Int(Date().timeIntervalSince1970 * 1000))}]}"#).status == 200)
        let run = Int(january) + 150 * 86_400 + 18 * 3600
        let samples = (0..<2400).map { #"{"bpm":\#(110 + $0 / 40),"ts":\#((run + $0) * 1000)}"# }
        let hr = try daemon.post("/api/v1/hr", body: #"{"source":"watch","samples":[\#(samples.joined(separator: ","))]}"#)
        #expect(hr.status == 200, "\(hr.text)")
        let review = try HTTP.request("GET", daemon.base + "/api/v1/review?range=\(year)", headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(review.status == 200)
        let heartRate = review.json?["heart_rate"] as? [String: Any]
        #expect((heartRate?["workouts"] as? Int ?? 0) >= 1, "\(review.text.prefix(400))")

        let spec = String(decoding: try JSONSerialization.data(withJSONObject: ["key": daemon.apiKey, "year": String(year)]), as: UTF8.self)
        let r = try PacenoteTestSupport.run(python, [Self.script, daemon.base, Self.artifacts, spec], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 60, "\(r.stdout)")
        let expected: Set<String> = ["review-desktop.png", "review-phone.png", "review-shared-desktop.png", "review-shared-phone.png",
                                     "review-card.png"]
        #expect(Set(summary?["screenshots"] as? [String] ?? []) == expected, "\(r.stdout)")
        for name in expected {
            let bytes = [UInt8](FileManager.default.contents(atPath: Self.artifacts + "/" + name) ?? Data())
            #expect(bytes.count > (name == "review-card.png" ? 2_000 : 8_000) && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name): \(bytes.count) bytes")
        }
    }
}
