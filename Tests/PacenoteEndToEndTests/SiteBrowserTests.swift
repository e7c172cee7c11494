import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// The site in a real browser: Debian's Chromium driven by Selenium (offline), against a
/// Pacenote that follows a real MPD, with plays, a cover, heart rate and a workout.
/// Screenshots (desktop and 360 px) land in test-artifacts/browser/, cleared before each run.
@Suite struct SiteBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/site_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/browser").path

    static let hostileTitle = "<img src=x onerror=alert(1)>"
    static let hostileArtist = "\"&'<"

    /// python3 with Selenium, Chromium and its driver (scripts/test installs them); missing is a failure.
    static func python() throws -> String {
        _ = try Tools.require("chromium")
        _ = try Tools.require("chromedriver")
        let python = try Tools.require("python3")
        let check = try run(python, ["-c", "import selenium"], allowFailure: true)
        if check.status != 0 {
            throw HarnessError("selenium is not installed: python3 -m pip install selenium (scripts/test does)")
        }
        return python
    }

    /// The window widths the client sets, in device pixels (scale factor 1).
    static let widths = ["desktop": 1280, "phone": 360]

    /// A blank page saves as about 5.3 KB at 1280 × 900 and 2.3 KB at 360 × 780 (Chromium 156);
    /// the smallest drawn pages here are about 29 KB and 24 KB.
    static func minimumBytes(width: Int) -> Int { width >= 1280 ? 16_000 : 8_000 }

    /// Checks that `name` is a screenshot this run wrote: modified after `start`, a PNG
    /// (signature, then an IHDR chunk) as wide as the window, and more than a blank page.
    static func expectFreshScreenshot(_ name: String, since start: Date, sourceLocation: SourceLocation = #_sourceLocation) {
        let path = artifacts + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            Issue.record("\(name) was not written", sourceLocation: sourceLocation)
            return
        }
        let bytes = [UInt8](data)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count > 24, Array(bytes[0..<8]) == signature, Array(bytes[12..<16]) == Array("IHDR".utf8) else {
            Issue.record("\(name) is not a PNG (\(bytes.count) bytes)", sourceLocation: sourceLocation)
            return
        }
        func uint32(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        let width = uint32(16), height = uint32(20)
        let expected = name.contains("-phone") ? widths["phone"]! : widths["desktop"]!
        #expect(width == expected && height >= 500, "\(name) is \(width) × \(height), expected \(expected) wide",
                sourceLocation: sourceLocation)
        #expect(bytes.count > minimumBytes(width: expected), "\(name) has only \(bytes.count) bytes: a blank page?",
                sourceLocation: sourceLocation)
        let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
        #expect(modified >= start, "\(name) was modified at \(modified), before this run began at \(start)",
                sourceLocation: sourceLocation)
    }

    @Test func everyPageInARealBrowserAndTheDashboardFollowsMPD() throws {
        let python = try Self.python()
        // Screenshots of an earlier run must not pass for this one's.
        let start = Date()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        try FileManager.default.createDirectory(atPath: Self.artifacts, withIntermediateDirectories: true)
        let mpd = try MPDInstance(tracks: [
            TestTrack("Album One/01.flac", seconds: 3, title: Self.hostileTitle, artist: Self.hostileArtist, album: "Album One", bpm: 128),
            TestTrack("Album One/02.flac", seconds: 3, title: "Second Song", artist: "Band", album: "Album One", bpm: 140),
            TestTrack("Other/03.flac", seconds: 240, title: "Third Song", artist: "Band", album: "Other"),
            TestTrack("Other/04.flac", seconds: 240, title: "Fourth Song", artist: "Band", album: "Other"),
            // In the library, not in the queue: the one song to suggest.
            TestTrack("Extra/05.flac", seconds: 240, title: "Fifth Song", artist: "Band", album: "Extra", bpm: 130),
        ])
        // A cover for the first album, where MPD's albumart finds it.
        try run(try Tools.require("sox"), ["-n", "-n", "synth", "2", "sine", "300-3000", "spectrogram", "-x", "240", "-y", "257",
                                           "-r", "-o", mpd.musicDirectory + "/Album One/cover.png"])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n")
        #expect(try eventually(timeout: 10) { try daemon.mpdConnected() })
        let workout = try daemon.post("/api/v1/workouts", body: #"{"name": "Intervals"}"#)
        #expect(workout.status == 201)
        let workoutID = try #require(workout.json?["id"] as? Int)
        _ = try mpd.mpc("add", "Album One")
        _ = try mpd.mpc("add", "Other")
        _ = try mpd.mpc("play")
        var bpm = 120
        // Heart rate while the first two songs play, until both are logged.
        let logged = try eventually(timeout: 20) {
            let r = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": \#(bpm)}"#)
            #expect(r.status == 200)
            bpm = min(bpm + 2, 170)
            usleep(300_000)
            return try daemon.listens().count >= 2
        }
        #expect(logged)
        #expect(try daemon.post("/api/v1/workouts/\(workoutID)/stop", body: "").status == 200)
        _ = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": 150}"#)
        let listens = try daemon.listens()
        let hostile = try #require(listens.first { $0.title == Self.hostileTitle })
        let trackID = try #require(hostile.track["id"] as? Int)
        let albumID = try #require(hostile.track["album_id"] as? Int)
        let day = String(try daemon.sql("SELECT local_day FROM plays ORDER BY id LIMIT 1").prefix(10))
        #expect(hostile.counted)
        // Pinned, so the day's song does not hang on which 3 s song played a few ms longer.
        let pin = try HTTP.request("PUT", daemon.base + "/api/v1/sotd/\(day)",
                                   headers: ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"],
                                   body: Data(#"{"track_id": \#(trackID), "note": "<script>alert(3)</script> for friends"}"#.utf8))
        #expect(pin.status == 200, "\(pin.text)")

        // The recommender reads the history on first use; the dashboard does not wait for it.
        #expect(try HTTP.get(daemon.base + "/api/v1/recommendations/next").status == 200)
        let spec: [String: Any] = [
            "day": day, "track_id": String(trackID), "workout_id": workoutID, "album_id": String(albumID),
            "cover_version": SongOfTheDay.coverVersion(day: day, title: Self.hostileTitle, artist: hostile.track["artist"] as? String,
                                                       album: hostile.track["album"] as? String),
            "hostile_title": Self.hostileTitle, "hostile_artist": Self.hostileArtist,
            "playing": "Third Song", "next_title": "Fourth Song", "suggested": "Fifth Song",
        ]
        let specJSON = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let r = try run(python, [Self.script, daemon.base, String(mpd.port), Self.artifacts, specJSON], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 60, "\(r.stdout)")
        // Each page at both sizes, the live dashboard and the dark pages, all from this run;
        // the folder holds what the client says it saved and nothing else.
        var expected: Set<String> = ["dashboard-live-desktop.png", "dashboard-dark-desktop.png", "workout-dark-desktop.png",
                                     "stats-dark-desktop.png"]
        for page in ["dashboard", "history", "history-search", "stats", "sotd-archive", "sotd-share", "sotd-preview-image",
                     "workouts", "workout", "track", "artist", "album"] {
            for size in ["desktop", "phone"] { expected.insert("\(page)-\(size).png") }
        }
        let saved = Set(summary?["screenshots"] as? [String] ?? [])
        #expect(saved == expected, "the client saved \(saved.sorted()); expected \(expected.sorted())")
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: Self.artifacts))
        #expect(present == expected, "test-artifacts/browser holds \(present.sorted())")
        for name in expected.sorted() { Self.expectFreshScreenshot(name, since: start) }
    }

    @Test func theDashboardReconnectsAfterTheServerRestarts() throws {
        let python = try Self.python()
        let mpd = try MPDInstance(tracks: (1...3).map { TestTrack("s\($0).flac", seconds: 120, title: "Song \($0)", artist: "Band") })
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 10) { try daemon.mpdConnected() })
        _ = try mpd.mpc("add", "/")
        _ = try mpd.mpc("play")
        let signals = try TemporaryDirectory("pacenote-reconnect")
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: python)
        browser.arguments = [Self.script, "--reconnect", daemon.base, String(mpd.port), signals.path, "{}"]
        // To a file, not a pipe: a pipe nobody reads would stall a talkative browser.
        FileManager.default.createFile(atPath: signals.file("browser.log"), contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: signals.file("browser.log")))
        browser.standardOutput = log
        browser.standardError = log
        try browser.run()
        defer { if browser.isRunning { browser.terminate() } }
        let ready = try eventually(timeout: 40) { FileManager.default.fileExists(atPath: signals.file("ready")) || !browser.isRunning }
        #expect(ready && browser.isRunning)
        // Down for two seconds, then back on the same address.
        try daemon.restart(pause: 2, samePort: true)
        FileManager.default.createFile(atPath: signals.file("restarted"), contents: nil)
        let finished = try eventually(timeout: 90) { !browser.isRunning }
        let text = (try? String(contentsOfFile: signals.file("browser.log"), encoding: .utf8)) ?? ""
        #expect(finished && browser.terminationStatus == 0, "\(text)")
    }
}
