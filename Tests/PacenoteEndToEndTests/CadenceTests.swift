import Foundation
import PacenoteTestSupport
import Testing

/// Live cadence and cadence mode (issue 56): a footpod's or a watch's `cadence` pushed to
/// `POST /api/v1/hr`, smoothed; suggestions follow the stride (and find themselves again when
/// it moves); Beatrun's −5 / +5 on a target; the dashboard's card in headless Chromium.
@Suite(.serialized)
struct CadenceTests {
    static let tracks = [
        TestTrack("now.flac", seconds: 120, title: "Opener", artist: "Warmup", bpm: 120),
        TestTrack("c/160.flac", seconds: 30, title: "Step 160", artist: "Feet", bpm: 160),
        TestTrack("c/170.flac", seconds: 30, title: "Step 170", artist: "Feet", bpm: 170),
        TestTrack("c/176.flac", seconds: 30, title: "Step 176", artist: "Feet", bpm: 176),
    ]
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/cadence_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/cadence-browser").path

    func start() throws -> (MPDInstance, PacenoteDaemon) {
        let mpd = try MPDInstance(tracks: Self.tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        _ = try mpd.mpc("add", "now.flac")
        _ = try mpd.mpc("play")
        #expect(eventually(timeout: 15) { (try? daemon.sql("SELECT count(*) FROM tracks WHERE bpm IS NOT NULL"))?.hasPrefix("4") == true })
        return (mpd, daemon)
    }

    func stride(_ daemon: PacenoteDaemon, _ spm: Double, seconds: Int = 6) throws {
        let now = Date().timeIntervalSince1970
        let samples = (0..<seconds).map { #"{"ts": \#(now - Double(seconds) + Double($0) + 1), "cadence": \#(spm)}"# }
        let r = try daemon.post("/api/v1/hr", body: #"{"source": "footpod", "samples": [\#(samples.joined(separator: ","))]}"#)
        #expect(r.status == 200, "\(r.text)")
    }

    func cadence(_ daemon: PacenoteDaemon) throws -> [String: Any] {
        try HTTP.get(daemon.base + "/api/v1/cadence", headers: ["Authorization": "Token \(daemon.apiKey)"]).json ?? [:]
    }

    func topSuggestion(_ daemon: PacenoteDaemon) throws -> (String?, [String: Any]) {
        let json = try HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=3", headers: ["Authorization": "Token \(daemon.apiKey)"]).json ?? [:]
        let first = (json["suggestions"] as? [[String: Any]])?.first?["track"] as? [String: Any]
        return (first?["title"] as? String, json)
    }

    @Test func suggestionsFollowTheStrideAndTheTarget() throws {
        let (_, daemon) = try start()
        var state = try cadence(daemon)
        #expect(state["mode"] as? String == "zone" && state["source"] as? String == "default" && state["following"] as? Double == 170, "\(state)")
        var r = try daemon.post("/api/v1/cadence", body: #"{"mode": "cadence"}"#)
        #expect(r.status == 200 && r.json?["mode"] as? String == "cadence", "\(r.text)")

        // 160, then 176: the suggestions follow within seconds, asked without a mode.
        try stride(daemon, 160)
        state = try cadence(daemon)
        #expect(state["following"] as? Double == 160 && state["source"] as? String == "live", "\(state)")
        #expect(((state["live"] as? [String: Any])?["source"] as? String) == "footpod", "\(state)")
        var top = try topSuggestion(daemon)
        #expect(top.0 == "Step 160" && top.1["mode"] as? String == "cadence", "\(top.1)")
        try stride(daemon, 176, seconds: 10)
        #expect(eventually(timeout: 5) { (try? topSuggestion(daemon).0) == "Step 176" }, "\((try? topSuggestion(daemon).1) ?? [:])")
        // A reading or two off (a stumble) does not move what the music follows.
        try stride(daemon, 150, seconds: 2)
        #expect(try cadence(daemon)["following"] as? Double == 176)

        // −5 / +5 on a target; null follows the stride again.
        r = try daemon.post("/api/v1/cadence", body: #"{"step": -5}"#)
        #expect(r.json?["following"] as? Double == 171 && r.json?["source"] as? String == "target", "\(r.text)")
        top = try topSuggestion(daemon)
        #expect(top.0 == "Step 170", "\(top.1)")
        r = try daemon.post("/api/v1/cadence", body: #"{"target": null}"#)
        #expect(r.json?["following"] as? Double == 176 && r.json?["source"] as? String == "live", "\(r.text)")

        // Bad input is refused with a reason; nothing changes. Strangers may not change it.
        for body in [#"{"step": 0}"#, "{}", #"{"mode": "fast"}"#, #"{"target": 400}"#, #"{"step": 5, "target": 170}"#, "[1"] {
            r = try daemon.post("/api/v1/cadence", body: body)
            #expect(r.status == 400 && (r.json?["error"] as? [String: Any])?["code"] is String, "\(body): \(r.status) \(r.text)")
        }
        #expect(try HTTP.request("POST", daemon.base + "/api/v1/cadence", body: Data(#"{"step": 5}"#.utf8)).status == 401)
        #expect(try cadence(daemon)["following"] as? Double == 176)
    }

    @Test func theDashboardsCardInABrowser() throws {
        let python = try SiteBrowserTests.python()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let (_, daemon) = try start()
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 18, "\(r.stdout)")
    }
}
