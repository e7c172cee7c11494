import Foundation
import PacenoteTestSupport
import Testing

/// A player's controls through the API (issue 57) against a real MPD: each press is seen by
/// `mpc status`, the state comes back on the event stream (also when another client changes
/// it), MPD's refusals are shown in its words, and nothing is done without write access.
@Suite(.serialized)
struct PlayerControlsTests {
    static let tracks = [
        TestTrack("one.flac", seconds: 60, title: "One", artist: "Controls"),
        TestTrack("two.flac", seconds: 60, title: "Two", artist: "Controls", frequency: 550),
        TestTrack("three.flac", seconds: 60, title: "Three", artist: "Controls", frequency: 660),
    ]

    func press(_ daemon: PacenoteDaemon, _ action: String, _ body: String = "", key: String? = nil) throws -> HTTPResult {
        try daemon.post("/api/v1/players/default/\(action)", body: body, key: key)
    }

    /// `mpc status`, as a user would read it ("" if mpc fails: every check on it then fails).
    func status(_ mpd: MPDInstance) -> String { (try? mpd.mpc("status")) ?? "" }

    /// A private MPD with a mixer at volume 50 playing the three songs, and a daemon that has
    /// seen it play.
    func playing() throws -> (MPDInstance, PacenoteDaemon) {
        let mpd = try MPDInstance(tracks: Self.tracks, volume: true)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        _ = try mpd.mpc("add", "/")
        _ = try mpd.mpc("volume", "50")
        _ = try mpd.mpc("play")
        #expect(try eventually(timeout: 10) {
            try HTTP.get(daemon.base + "/api/v1/players/default").json?["state"] as? String == "play"
        })
        return (mpd, daemon)
    }

    @Test func everyPressReachesMPDAndComesBackOnTheEventStream() throws {
        let (mpd, daemon) = try playing()
        let stream = try TimedEventStream(port: daemon.port, event: "player_state")
        #expect(stream.waitForConnected())

        var r = try press(daemon, "pause")
        #expect(r.status == 200 && r.json?["state"] as? String == "pause", "\(r.text)")
        #expect(status(mpd).contains("[paused]"))
        #expect(stream.waitFor(count: 1, timeout: 2), "the pause came back as player_state: \(stream.events)")
        #expect(stream.events.last?.data.contains(#""state":"pause""#) == true, "\(stream.events)")

        r = try press(daemon, "play")
        #expect(r.json?["state"] as? String == "play" && status(mpd).contains("[playing]"), "\(r.text)")
        // MPD's queue is in the order `add /` listed the files: one, three, two.
        r = try press(daemon, "next")
        #expect(try mpd.mpc("-f", "%file%", "current").hasPrefix("three.flac"), "\(r.text)")
        r = try press(daemon, "previous")
        #expect(try mpd.mpc("-f", "%file%", "current").hasPrefix("one.flac"), "\(r.text)")
        r = try press(daemon, "seek", #"{"position": 20}"#)
        #expect(r.status == 200 && ((r.json?["elapsed_s"] as? Double) ?? 0) >= 20, "\(r.text)")
        #expect(status(mpd).contains("0:2"), "\(status(mpd))")
        r = try press(daemon, "volume", #"{"volume": 40}"#)
        #expect(r.json?["volume"] as? Int == 40 && status(mpd).contains("volume: 40%"), "\(r.text)")
        r = try press(daemon, "volume", #"{"change": -5}"#)
        #expect(r.json?["volume"] as? Int == 35 && status(mpd).contains("volume: 35%"), "\(r.text)")
        r = try press(daemon, "modes", #"{"random": true, "repeat": true, "single": "oneshot", "consume": false}"#)
        #expect(r.json?["random"] as? Bool == true && r.json?["single"] as? String == "oneshot", "\(r.text)")
        let modes = status(mpd)
        #expect(modes.contains("random: on") && modes.contains("repeat: on") && modes.contains("single: once"), "\(modes)")
        _ = try press(daemon, "modes", #"{"random": false, "single": false}"#)
        #expect(status(mpd).contains("random: off"))

        // Another client turns the volume: the page hears it within a second of MPD taking it
        // (mpc returns once MPD has; the event may even arrive before that).
        _ = try mpd.mpc("volume", "70")
        let turned = Date()
        #expect(eventually(timeout: 3) { stream.events.contains { $0.data.contains(#""volume":70"#) } }, "\(stream.events)")
        let heard = try #require(stream.events.first { $0.data.contains(#""volume":70"#) }, "\(stream.events)")
        #expect(heard.at.timeIntervalSince(turned) < 1, "\(heard.at.timeIntervalSince(turned)) s")
        #expect(try HTTP.get(daemon.base + "/api/v1/players/default").json?["volume"] as? Int == 70)

        // MPD's refusal in its own words.
        r = try press(daemon, "stop")
        #expect(r.json?["state"] as? String == "stop" && status(mpd).split(separator: "\n").count == 1, "\(status(mpd))")
        r = try press(daemon, "seek", #"{"position": 5}"#)
        let refusal = r.json?["error"] as? [String: Any]
        #expect(r.status == 409 && refusal?["code"] as? String == "mpd_refused", "\(r.text)")
        #expect(refusal?["message"] as? String == "MPD default: Not playing", "\(r.text)")
        // Bad presses.
        #expect(try press(daemon, "volume", #"{"volume": 140}"#).status == 400)
        #expect(try press(daemon, "volume", "[").status == 400)
        #expect(try press(daemon, "modes", #"{"shuffle": true}"#).status == 400)
        #expect(try press(daemon, "eject").status == 404)
        #expect(try press(daemon, "eject", "[").status == 404, "an unknown action is 404 whatever its body")
        #expect(try press(daemon, "pause", #"{"volume": 3}"#).status == 400, "pause takes no body")
        #expect(try press(daemon, "modes", #"{"single": "twice"}"#).status == 400)
        #expect(try daemon.post("/api/v1/players/kitchen/pause", body: "").status == 404)
        // Without write access nothing is pressed.
        _ = try mpd.mpc("play")
        r = try HTTP.request("POST", daemon.base + "/api/v1/players/default/pause", headers: [:], body: Data())
        #expect(r.status == 401, "\(r.text)")
        #expect(try press(daemon, "pause", key: "pn_wrong_key_0123456789").status == 401)
        #expect(status(mpd).contains("[playing]"))
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/player_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/player-browser").path

    /// Headless Chromium presses pause, next and volume + on the dashboard; `mpc status` shows
    /// each, and a second open dashboard follows them (and mpc's own changes) within a second.
    @Test func theDashboardsControlsInABrowser() throws {
        let python = try SiteBrowserTests.python()
        _ = try Tools.require("mpc")
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let (mpd, daemon) = try playing()
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, String(mpd.port), Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 14, "\(r.stdout)")
    }

    /// MPD without a mixer has no volume: the controls say so, and a volume press is refused
    /// with MPD's reason.
    @Test func withoutAMixerTheVolumeIsFixed() throws {
        let mpd = try MPDInstance(tracks: Self.tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 10) { try HTTP.get(daemon.base + "/api/v1/players/default").status == 200 })
        let controls = try HTTP.get(daemon.base + "/api/v1/players/default").json
        #expect(controls?["volume"] is NSNull, "\(String(describing: controls))")
        let r = try daemon.post("/api/v1/players/default/volume", body: #"{"volume": 30}"#)
        let refusal = r.json?["error"] as? [String: Any]
        #expect(r.status == 409 && refusal?["code"] as? String == "mpd_refused", "\(r.text)")
        #expect(refusal?["message"] as? String == "MPD default: No mixer", "\(r.text)")
    }
}
