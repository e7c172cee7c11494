import Foundation
import PacenoteTestSupport
import Testing

/// Every empty state explains itself (issue 52, rows 1–4): suggestions that come back empty
/// say why in the API, on the dashboard and in `pacenote recommend`, which leaves out what the
/// API leaves out; a dashboard whose MPD is down says so.
@Suite struct EmptyStatesTests {
    static func tracks(_ n: Int, seconds: Double) -> [TestTrack] {
        (1...n).map { TestTrack("t\($0).flac", seconds: seconds, title: "Song \($0)", artist: "Artist \($0)", bpm: 134) }
    }

    /// `pacenote recommend` against the daemon's database and MPD.
    static func recommend(_ daemon: PacenoteDaemon, _ mpd: MPDInstance, _ extra: [String] = []) throws -> (status: Int32, stdout: String, stderr: String) {
        try PacenoteProcess.run(["recommend", "--config", daemon.dir.file("config.toml"), "--db", daemon.db,
                                 "--mpd", "127.0.0.1:\(mpd.port)"] + extra)
    }

    static func suggestionTitles(_ json: [String: Any]?) -> [String] {
        (json?["suggestions"] as? [[String: Any]] ?? []).compactMap { ($0["track"] as? [String: Any])?["title"] as? String }
    }

    static func suggestionsJSON(_ daemon: PacenoteDaemon, _ query: String = "limit=5") throws -> [String: Any] {
        let r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?" + query)
        guard r.status == 200, let json = r.json else { throw HarnessError("suggestions answered \(r.status): \(r.text)") }
        return json
    }

    /// Where the browser scripts save their screenshots (SiteBrowserTests, maybe running
    /// meanwhile, empties test-artifacts/browser).
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/empty-states").path

    /// Runs Clients/`script` in headless Chromium while `during` takes turns with it through
    /// files in a folder (`step` waits for the script's, `mark` writes the test's); then
    /// checks its summary and that it saved `screenshots`.
    static func browser(_ script: String, _ arguments: [String], screenshots: [String], leastChecks: Int,
                        during: (_ step: (String) -> Bool, _ mark: (String) throws -> Void) throws -> Void) throws {
        let python = try SiteBrowserTests.python()
        let steps = try TemporaryDirectory("pacenote-steps")
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/" + script).path
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: python)
        browser.arguments = [path, arguments[0], artifacts, steps.path] + arguments.dropFirst()
        let out = Pipe(), err = Pipe()
        browser.standardOutput = out
        browser.standardError = err
        try browser.run()
        func step(_ name: String) -> Bool {
            eventually(timeout: 60, interval: 0.1) { FileManager.default.fileExists(atPath: steps.file(name)) || !browser.isRunning }
                && FileManager.default.fileExists(atPath: steps.file(name))
        }
        func mark(_ name: String) throws { try "".write(toFile: steps.file(name), atomically: true, encoding: .utf8) }
        try during(step, mark)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        #expect(browser.terminationStatus == 0, "\(script): \(errors)")
        let result = (try? JSONSerialization.jsonObject(with: output) as? [String: Any]) ?? [:]
        #expect((result["checked"] as? Int ?? 0) >= leastChecks, "\(script): \(text)")
        #expect(result["screenshots"] as? [String] == screenshots, "\(script): \(text)")
        for name in screenshots {
            let bytes = [UInt8](FileManager.default.contents(atPath: artifacts + "/" + name) ?? Data())
            #expect(bytes.count > 8_000 && bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]), "\(name): \(bytes.count) bytes")
        }
    }

    /// `mpc add /` (row 2), then `mpc crop`, then one song queued after the playing one (row 3).
    @Test func aWholeLibraryQueuedIsNamedAndRecommendLeavesTheQueueOut() throws {
        let mpd = try MPDInstance(tracks: Self.tracks(4, seconds: 120))
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[heart_rate]\nmax_hr = 200\n")
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1") == "4\n" })
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        #expect(try eventually { try mpd.mpc("current").contains("Song 1") })

        // The API: nothing, and why.
        var json: [String: Any] = [:]
        #expect(try eventually(timeout: 10, interval: 0.3) {
            json = try Self.suggestionsJSON(daemon)
            return (json["empty_reason"] as? [String: Any])?["code"] as? String == "all_queued"
        }, "\(json)")
        #expect(Self.suggestionTitles(json).isEmpty)
        let reason = json["empty_reason"] as? [String: Any] ?? [:]
        let message = reason["message"] as? String ?? ""
        #expect(message.hasPrefix("Every song in the library is in MPD's queue: ") && message.contains("3 are queued in MPD")
                && message.contains("1 is playing now"), "\(reason)")
        #expect((reason["fix"] as? String)?.contains("`mpc crop`") == true, "\(reason)")
        let excluded = json["excluded"] as? [String: Any] ?? [:]
        #expect(excluded["library"] as? Int == 4 && excluded["queued"] as? Int == 3 && excluded["playing"] as? Int == 1, "\(excluded)")
        #expect(json["queue_error"] is NSNull)

        // The dashboard says the same, with the command set as code.
        let page = try HTTP.get(daemon.base + "/").text
        #expect(page.contains(#"data-next-why="all_queued""#), "\(page)")
        #expect(page.contains("is in MPD's queue"), "\(page)")
        #expect(page.contains("<code>mpc crop</code>"))
        #expect(!page.contains("No suggestion yet."))
        // The command: the reason on stderr, and status 2.
        var r = try Self.recommend(daemon, mpd, ["--limit", "3"])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.isEmpty, "\(r.stdout)")
        #expect(r.stderr.contains("no suggestion: Every song in the library is in MPD's queue"), "\(r.stderr)")
        #expect(r.stderr.contains("`mpc crop`"), "\(r.stderr)")

        // In a browser: the page's reason, then the live script's own when the zone changes;
        // cropped, suggestions without a reload.
        try Self.browser("up_next_browser.py", [daemon.base, "all_queued"],
                         screenshots: ["up-next-empty-desktop.png", "up-next-empty-phone.png"], leastChecks: 10) { step, mark in
            #expect(step("blanked"), "the browser did not open the dashboard")
            // Heart rate 170 of max 200: zone 4, announced as zone_changed.
            for _ in 0..<4 {
                let r = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": 170}"#)
                #expect(r.status == 200, "\(r.text)")
                usleep(250_000)  // a strap's pace: each reading at a time of its own
            }
            #expect(step("seen"), "the browser did not see the reason")
            try mpd.mpc("crop")
            try mark("cropped")
        }

        // Cropped, with one song queued after the playing one: neither is suggested, by the
        // API or the command, and the other two are.
        try mpd.mpc("add", "t3.flac")
        var titles: [String] = []
        #expect(try eventually(timeout: 10, interval: 0.3) {
            titles = Self.suggestionTitles(try Self.suggestionsJSON(daemon))
            return Set(titles) == ["Song 2", "Song 4"]
        }, "\(titles)")
        r = try Self.recommend(daemon, mpd, ["--limit", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("Artist 2 – Song 2") && r.stdout.contains("Artist 4 – Song 4"), "\(r.stdout)")
        #expect(!r.stdout.contains("Song 1") && !r.stdout.contains("Song 3"), "the playing and the queued song: \(r.stdout)")
        #expect(r.stderr.contains("note: 2 of the 3 asked for"), "\(r.stderr)")
        // Asked for what cannot be: a usage error, not an empty list.
        r = try Self.recommend(daemon, mpd, ["--zone", "9"])
        #expect(r.status == 64 && r.stderr.contains("--zone: a zone from 0 to 5"), "\(r.status) \(r.stderr)")
        try daemon.stop()
    }

    /// The demo's case (row 1): every song played in the last hours. Then the command with
    /// nothing to give, and with MPD gone (said, not hidden).
    @Test func everySongPlayedRecentlyIsNamedAndRecommendExitsNonZero() throws {
        let mpd = try MPDInstance(tracks: Self.tracks(3, seconds: 1))
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n")
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1") == "3\n" })
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 20) { try daemon.listens().filter(\.counted).count == 3 }, "\((try? daemon.listens()) ?? [])")
        try mpd.mpc("clear")

        var json: [String: Any] = [:]
        #expect(try eventually(timeout: 10, interval: 0.3) {
            json = try Self.suggestionsJSON(daemon, "zone=4")
            return (json["empty_reason"] as? [String: Any])?["code"] as? String == "all_recently_played"
        }, "\(json)")
        let reason = json["empty_reason"] as? [String: Any] ?? [:]
        #expect(reason["message"] as? String == "All 3 songs in the library were played in the last 6 hours.", "\(reason)")
        #expect((reason["fix"] as? String)?.contains("[recommender] recent_hours") == true, "\(reason)")
        #expect((json["excluded"] as? [String: Any])?["recently_played"] as? Int == 3, "\(json)")

        let page = try HTTP.get(daemon.base + "/").text
        #expect(page.contains(#"data-next-why="all_recently_played""#) && page.contains("were played in the last 6 hours"), "\(page)")

        var r = try Self.recommend(daemon, mpd, ["--zone", "4"])
        #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("no suggestion: All 3 songs in the library were played in the last 6 hours."), "\(r.stderr)")
        #expect(r.stderr.contains("lower [recommender] recent_hours"), "\(r.stderr)")
        // A shorter window in the configuration brings them back.
        try "[recommender]\nrecent_hours = 0\n".write(toFile: daemon.dir.file("short.toml"), atomically: true, encoding: .utf8)
        r = try PacenoteProcess.run(["recommend", "--config", daemon.dir.file("short.toml"), "--db", daemon.db,
                                     "--mpd", "127.0.0.1:\(mpd.port)", "--limit", "3"])
        #expect(r.status == 0 && r.stdout.contains("Song 1") && r.stdout.contains("Song 3"), "\(r.stdout)\(r.stderr)")

        // MPD gone: the command says its queue could not be read, rather than pretend.
        mpd.stop()
        r = try Self.recommend(daemon, mpd, ["--zone", "4"])
        #expect(r.stderr.contains("note: MPD at 127.0.0.1:\(mpd.port) is not reachable"), "\(r.stderr)")
        #expect(r.status == 2)
        try daemon.stop()
    }

    /// Row 4: MPD stopped mid-song. The dashboard over plain HTTP, then in headless Chromium
    /// at 1280 and 360 px, where the live script shows MPD going and coming back.
    @Test func theDashboardSaysWhenMPDIsUnreachable() throws {
        let mpd = try MPDInstance(tracks: Self.tracks(2, seconds: 300))
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 20) { try daemon.mpdConnected() })
        try mpd.mpc("add", "t1.flac")
        try mpd.mpc("play")
        #expect(try eventually { try HTTP.get(daemon.base + "/").text.contains("Song 1") })
        #expect(!(try HTTP.get(daemon.base + "/").text.contains("is not reachable")))

        // The browser opens the page with MPD up, then waits for the test to stop it.
        try Self.browser("mpd_down_browser.py", [daemon.base, String(mpd.port)],
                         screenshots: ["mpd-down-desktop.png", "mpd-down-phone.png"], leastChecks: 10) { step, mark in
            #expect(step("opened"), "the browser did not open the dashboard")
            mpd.stop()
            // Over plain HTTP: the reason, and not "Nothing is playing · Stopped".
            var page = ""
            #expect(try eventually(timeout: 10, interval: 0.2) {
                page = try HTTP.get(daemon.base + "/").text
                return page.contains("MPD at 127.0.0.1:\(mpd.port) is not reachable: ")
            }, "\(page)")
            #expect(page.contains("MPD is not reachable") && page.contains("Not connected"))
            #expect(!page.contains("Nothing is playing") && !page.contains(">Stopped<"), "\(page)")
            #expect(page.contains("<code>pacenote doctor</code>"))
            try mark("stopped")
            #expect(step("seen-down"), "the browser did not see MPD go")
            try mpd.start()
            try mark("started")
        }
        #expect(try eventually(timeout: 10) { !(try HTTP.get(daemon.base + "/").text.contains("is not reachable: ")) })
        try daemon.stop()
    }

    /// A new instance: the history, stats and workouts say how to get what they lack, and
    /// the dashboard that MPD is not there.
    @Test func pagesWithNothingYetSayHowToGetIt() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        var page = try HTTP.get(daemon.base + "/history").text
        #expect(page.contains("Nothing has been played yet.") && page.contains("<code>pacenote import FILE</code>"), "\(page)")
        page = try HTTP.get(daemon.base + "/history?q=zzz").text
        #expect(page.contains("No plays match “zzz”") && page.contains(#"<a href="/history">Show every play</a>"#), "\(page)")
        page = try HTTP.get(daemon.base + "/stats?range=week").text
        #expect(page.contains("data-stats-empty") && page.contains("No plays this week.")
                && page.contains(#"<a href="/stats?range=all">all time</a>"#), "\(page)")
        page = try HTTP.get(daemon.base + "/stats?range=2020").text
        #expect(page.contains("No plays in 2020."), "\(page)")
        page = try HTTP.get(daemon.base + "/stats?range=all").text
        #expect(page.contains("Nothing has been played yet, so there is nothing to count."), "\(page)")
        page = try HTTP.get(daemon.base + "/workouts").text
        #expect(page.contains("No workouts yet.") && page.contains("<code>pacenote hr-scan</code>")
                && page.contains("<code>pacenote import workout.fit</code>"), "\(page)")
        #expect(try eventually(timeout: 10, interval: 0.2) {
            page = try HTTP.get(daemon.base + "/").text
            return page.contains("MPD at 127.0.0.1:1 is not reachable: ")
        }, "\(page)")

        // One play: the week has it, and the empty states go.
        let now = Int(Date().timeIntervalSince1970) - 60
        let r = try daemon.post("/1/submit-listens", body: #"{"listen_type": "single", "payload": [{"listened_at": \#(now), "track_metadata": {"artist_name": "A", "track_name": "T"}}]}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(try eventually(timeout: 10, interval: 0.2) { !(try HTTP.get(daemon.base + "/stats?range=week").text.contains("data-stats-empty")) })
        #expect(!(try HTTP.get(daemon.base + "/history").text.contains("data-history-empty")))
        try daemon.stop()
    }
}
