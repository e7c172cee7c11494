import Foundation
import PacenoteTestSupport
import Testing

/// A run's figures, splits and export through the real `pacenote` (issue 54, point 6): a TCX
/// with motion and laps imported over the API while two songs were logged; the workout's API
/// answer, its page, the list, and the file it exports read back by python-tcxparser (PyPI).
@Suite struct WorkoutMeasuresTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients").path
    static let start = WorkoutFileImportTests.start
    static func iso(_ t: Int) -> String { WorkoutFileImportTests.iso(t) }

    /// Fifteen minutes at 3 m/s (5:33 a kilometre): 2,697 m over 899 s, a point a second,
    /// heart rate climbing 120 → 164, runner's cadence 86 strides, a hill of 20 m, two laps.
    static var tcx: String {
        let points = (0..<900).map { t in """
            <Trackpoint><Time>\(iso(t))</Time>
              <Position><LatitudeDegrees>\(52.5 + Double(t) * 0.000027)</LatitudeDegrees><LongitudeDegrees>13.4</LongitudeDegrees></Position>
              <AltitudeMeters>\(30 + 20 * sin(Double(t) / 900 * .pi))</AltitudeMeters><DistanceMeters>\(Double(t) * 3)</DistanceMeters>
              <HeartRateBpm><Value>\(120 + t / 20)</Value></HeartRateBpm>
              <Extensions><ns3:TPX><ns3:Speed>3</ns3:Speed><ns3:RunCadence>86</ns3:RunCadence></ns3:TPX></Extensions>
            </Trackpoint>
            """ }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
              <Activities><Activity Sport="Running"><Id>\(iso(0))</Id>
                <Lap StartTime="\(iso(0))"><TotalTimeSeconds>450</TotalTimeSeconds><Calories>80</Calories><Track>
            \(points[..<450].joined(separator: "\n"))
                </Track></Lap>
                <Lap StartTime="\(iso(450))"><TotalTimeSeconds>449</TotalTimeSeconds><Calories>95</Calories><Track>
            \(points[450...].joined(separator: "\n"))
                </Track></Lap>
              </Activity></Activities>
            </TrainingCenterDatabase>
            """
    }

    /// A daemon with the run imported and two songs logged during it (0–400 s, 400–900 s).
    static func daemonWithRun(config: String = "[workouts]\nkeep_positions = true\n") throws -> (PacenoteDaemon, Int) {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: config)
        _ = try daemon.sql("""
            INSERT INTO tracks (id, uri, title, match_key, first_seen_at_ms, updated_at_ms) VALUES
              (1, 'warm.flac', 'Warm <Up>', 'warm', 0, 0), (2, 'push.flac', 'Push', 'push', 0, 0);
            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour) VALUES
              (1, \(start * 1000), \((start + 400) * 1000), 400, 1, 'mpd', '2025-11-22', 7),
              (2, \((start + 400) * 1000), \((start + 900) * 1000), 500, 1, 'mpd', '2025-11-22', 7);
            """)
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=run.tcx", headers: [
            "Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/vnd.garmin.tcx+xml",
        ], body: Data(tcx.utf8))
        guard r.status == 200, let id = r.json?["workout_id"] as? Int else { throw HarnessError("import: \(r.status) \(r.text)") }
        return (daemon, id)
    }

    static func number(_ any: Any?) -> Double { (any as? NSNumber)?.doubleValue ?? .nan }

    @Test func theAPIGivesTheFiguresAndTheSplitsWithTheirSongs() throws {
        let (daemon, id) = try Self.daemonWithRun()
        let detail = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json)
        let m = try #require(detail["measures"] as? [String: Any])
        #expect(m["units"] as? String == "metric" && m["shows_pace"] as? Bool == true && m["distance_source"] as? String == "device")
        #expect(Self.number(m["distance_m"]) == 2697 && Self.number(m["elapsed_s"]) == 899 && Self.number(m["moving_s"]) == 899, "\(m)")
        #expect(abs(Self.number(m["avg_pace_s"]) - 1000.0 / 3) < 0.1 && Self.number(m["avg_speed_mps"]) == 3, "\(m)")
        #expect(abs(Self.number(m["best_pace_s"]) - 1000.0 / 3) < 0.5, "\(m)")
        // The hill: 20 m up and down, counted in steps of over 3 m (GoldenCheetah's hysteresis):
        // the climb's last metres are below a step, and the descent starts from
        // the last counted height (about 48 m): 17–20 m up and 14–20 m down.
        #expect((17...20).contains(Self.number(m["elevation_gain_m"])) && (14...20).contains(Self.number(m["elevation_loss_m"])), "\(m)")
        #expect(Self.number(m["cadence_avg"]) == 172 && Self.number(m["cadence_max"]) == 172, "\(m)")
        #expect(m["power_avg_w"] is NSNull && Self.number(m["calories_kcal"]) == 175 && m["calories_source"] as? String == "device", "\(m)")

        // Kilometres at 333.3 s, 666.7 s, then 697 m; each with the songs that played in it.
        let splits = try #require(detail["splits"] as? [[String: Any]])
        #expect(splits.map { Self.number($0["distance_m"]) } == [1000, 1000, 697], "\(splits)")
        #expect(splits.allSatisfy { abs(Self.number($0["pace_s"]) - 1000.0 / 3) < 0.2 }, "\(splits)")
        let songs = splits.map { ($0["songs"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String } }
        #expect(songs == [["Warm <Up>"], ["Warm <Up>", "Push"], ["Push"]], "\(songs)")
        let inSecond = (splits[1]["songs"] as? [[String: Any]] ?? []).map { Self.number($0["seconds"]) }
        #expect(abs(inSecond[0] - 66.7) < 0.2 && abs(inSecond[1] - 266.7) < 0.2, "\(inSecond)")
        #expect(splits.map { Self.number($0["hr_avg"]) }.allSatisfy { $0 >= 120 && $0 <= 164 })
        let laps = try #require(detail["laps"] as? [[String: Any]])
        #expect(laps.map { Self.number($0["distance_m"]) } == [1350, 1347], "\(laps)")

        // Imperial: miles, and paces per mile.
        let (miles, mileID) = try Self.daemonWithRun(config: "[site]\nunits = \"imperial\"\n")
        let imperial = try #require(try HTTP.get(miles.base + "/api/v1/workouts/\(mileID)").json)
        #expect((imperial["measures"] as? [String: Any])?["units"] as? String == "imperial")
        #expect(abs(Self.number((imperial["measures"] as? [String: Any])?["avg_pace_s"]) - 1609.344 / 3) < 0.1)
        #expect((imperial["splits"] as? [[String: Any]])?.map { Self.number($0["distance_m"]) } == [1609.3, 1087.7], "\(imperial["splits"] ?? "")")
    }

    @Test func thePagesShowTheFiguresTheChartAndTheSplits() throws {
        let (daemon, id) = try Self.daemonWithRun()
        let page = try HTTP.get(daemon.base + "/workouts/\(id)")
        #expect(page.status == 200)
        let html = page.text
        for expected in ["<dt>Distance</dt><dd>2.70 km</dd>", "<dt>Moving time</dt><dd>14:59</dd>", "<dt>Average pace</dt><dd>5:33 /km</dd>",
                         "<dt>Cadence</dt><dd>172 /min (max 172)</dd>", "<dt>Calories</dt><dd>175 kcal</dd>",
                         "svg class=\"chart motionchart\"", "polyline class=\"pace\"", "path class=\"elevation\"",
                         "<h2 id=\"motion-h\">Pace and elevation</h2>", "data-splits=\"splits\"", "data-splits=\"laps\"",
                         "Warm &lt;Up&gt;</a><br><a", "/api/v1/workouts/\(id)/export.tcx", "/api/v1/workouts/\(id)/export.gpx"] {
            #expect(html.contains(expected), "\(expected) not on the page")
        }
        // The pace chart marks both songs, as the heart-rate chart does.
        #expect(html.components(separatedBy: "<line class=\"song\"").count == 5, "two songs on each of two charts")
        let list = try HTTP.get(daemon.base + "/workouts").text
        #expect(list.contains("<span data-distance=\"\"> · 2.70 km</span><span data-pace=\"\"> · 5:33 /km</span>"), "\(list)")

        // A workout of heart rate alone looks as it did: no figures, chart, splits or GPX.
        let before = Int(Date().timeIntervalSince1970) - 3600
        let beats = (0..<300).map { #"{"bpm": \#(120 + $0 / 10), "ts": \#(before + $0)}"# }.joined(separator: ",")
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 80}"#)  // a live reading first: the upload is a late one
        #expect(try daemon.post("/api/v1/hr?source=strap", body: "[\(beats)]").status == 200)
        let workouts = try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]] ?? []
        let strapID = try #require(workouts.first { Self.number($0["duration_s"]) == 299 }?["id"] as? Int, "\(workouts)")
        let plain = try HTTP.get(daemon.base + "/workouts/\(strapID)").text
        for absent in ["data-measures", "motionchart", "data-splits", "export.gpx"] { #expect(!plain.contains(absent), "\(absent) on a strap-only page") }
        #expect(plain.contains("svg class=\"chart hrchart\"") && plain.contains("export.tcx"))
        let gpx = try HTTP.get(daemon.base + "/api/v1/workouts/\(strapID)/export.gpx")
        #expect(gpx.status == 404 && (gpx.json?["error"] as? [String: Any])?["code"] as? String == "no_positions", "\(gpx.text)")
        let strap = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(strapID)").json)
        #expect((strap["measures"] as? [String: Any])?["distance_m"] is NSNull && (strap["splits"] as? [Any])?.isEmpty == true)
        // Private like the other workout pages (AccessTests holds every caller to it): a wrong key is refused.
        #expect(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)/export.tcx", headers: ["Authorization": "Token wrong-key-0123456789"]).status == 403)
    }

    /// The exported TCX read by python-tcxparser gives back the API's distance, duration and
    /// heart rate; the GPX is a GPX 1.1 document of the kept positions.
    @Test func theExportReadsBackInPythonTcxparser() throws {
        let (daemon, id) = try Self.daemonWithRun()
        let detail = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json)
        let m = try #require(detail["measures"] as? [String: Any])
        let export = try HTTP.get(daemon.base + "/api/v1/workouts/\(id)/export.tcx")
        #expect(export.status == 200 && export.header("Content-Type") == "application/vnd.garmin.tcx+xml; charset=utf-8")
        #expect(export.header("Content-Disposition") == "attachment; filename=\"pacenote-2025-11-22-workout-\(id).tcx\"")
        let dir = try TemporaryDirectory()
        try export.body.write(to: URL(fileURLWithPath: dir.file("run.tcx")))
        let python = try Tools.require("python3")
        guard try run(python, ["-c", "import tcxparser"], allowFailure: true).status == 0 else {
            throw HarnessError("tcxparser is not installed: python3 -m pip install python-tcxparser (scripts/test does)")
        }
        let out = try run(python, [Self.clients + "/tcx_reference.py", dir.file("run.tcx")]).stdout
        let read = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        #expect(abs(Self.number(read["distance"]) - Self.number(m["distance_m"])) < 0.01, "\(read) / \(m)")
        #expect(Self.number(read["duration"]) == Self.number(m["elapsed_s"]), "\(read) / \(m)")
        // tcxparser's average is the plain mean of the readings, cut to an integer; Pacenote's (1 Hz here) the same mean.
        #expect(Self.number(read["hr_avg"]) == Self.number(detail["hr_avg"]).rounded(.down), "\(read) / \(detail["hr_avg"] ?? "")")
        #expect(Self.number(read["hr_max"]) == Self.number(detail["hr_max"]) && Self.number(read["hr_min"]) == 120, "\(read)")
        #expect(Self.number(read["calories"]) == 175 && read["activity_type"] as? String == "running" && Self.number(read["points"]) == 900, "\(read)")

        let gpx = try HTTP.get(daemon.base + "/api/v1/workouts/\(id)/export.gpx")
        #expect(gpx.status == 200 && gpx.header("Content-Type") == "application/gpx+xml; charset=utf-8")
        #expect(gpx.text.components(separatedBy: "<trkpt ").count == 901 && gpx.text.contains("<gpxtpx:cad>86</gpxtpx:cad>"))
        #expect(try HTTP.get(daemon.base + "/api/v1/workouts/999/export.tcx").status == 404)
    }
}

/// The run's page in a real browser at 1280 and 360 px: figures, the pace and elevation chart
/// under the heart-rate chart with the songs marked, the splits with their songs.
@Suite struct WorkoutMeasuresBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Clients/workout_measures_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/workout-measures").path

    @Test func theRunsPageAtTwoWidths() throws {
        let python = try SiteBrowserTests.python()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let (daemon, id) = try WorkoutMeasuresTests.daemonWithRun()
        let r = try run(python, [Self.script, daemon.base, String(id), Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 20, "\(r.stdout)")
        #expect(summary?["screenshots"] as? [String] == ["workout-run-desktop.png", "workout-run-phone.png"], "\(r.stdout)")
    }
}

/// The live path: heart rate, speed, distance and cadence pushed as a phone app sends them
/// while a real MPD plays two songs; the detected workout gets its distance, pace and a split
/// with both songs in it, on the API and the page.
@Suite struct LiveWorkoutMeasuresTests {
    @Test func aLiveRunWithMusicGetsItsDistanceAndSplits() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("warm.flac", seconds: 3, title: "Warm Up"),
                                           TestTrack("push.flac", seconds: 3, title: "Push")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: """
            [plays]
            min_track_s = 1
            [heart_rate]
            workout_start_after_s = 2
            workout_end_after_s = 3
            """)
        #expect(try eventually { try daemon.mpdConnected() })
        try mpd.mpc("add", "warm.flac")
        try mpd.mpc("add", "push.flac")
        // 4 m/s for about 8.5 s, four readings a second (a fast stride, 180 steps a minute); the
        // music starts half a second in, so both songs play wholly within the samples.
        let start = Date()
        var sent = 0
        while Date().timeIntervalSince(start) < 8.5 {
            if sent == 2 { try mpd.mpc("play") }
            let t = Date().timeIntervalSince(start)
            let body = #"{"bpm": \#(140 + sent % 10), "speed": 4, "distance": \#((t * 4 * 10).rounded() / 10), "cadence": 180}"#
            let r = try daemon.post("/api/v1/hr?source=phone", body: body)
            #expect(r.status == 200 && r.json?["motion_stored"] as? Int == 1, "\(r.text)")
            sent += 1
            usleep(250_000)
        }
        var workout: [String: Any] = [:]
        #expect(try eventually(timeout: 10) {
            let list = (try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]]) ?? []
            workout = list.first ?? [:]
            let listens = try daemon.listens().count
            return workout["in_progress"] as? Bool == false && listens == 2
        }, "\(workout)")
        let id = try #require(workout["id"] as? Int)
        let detail = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json)
        let m = try #require(detail["measures"] as? [String: Any])
        let distance = WorkoutMeasuresTests.number(m["distance_m"])
        #expect(distance > 26 && distance <= 34.5 && m["distance_source"] as? String == "device", "\(m)")
        #expect(abs(WorkoutMeasuresTests.number(m["avg_pace_s"]) - 250) < 15 && WorkoutMeasuresTests.number(m["cadence_avg"]) == 180, "\(m)")
        let splits = try #require(detail["splits"] as? [[String: Any]])
        let songs = splits.first.map { ($0["songs"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String } }
        #expect(splits.count == 1 && songs == ["Warm Up", "Push"], "\(splits)")
        let page = try HTTP.get(daemon.base + "/workouts/\(id)").text
        #expect(page.contains("<dt>Distance</dt><dd>0.0") && page.contains("<dt>Average pace</dt>") && page.contains("data-splits=\"splits\""))
        #expect(page.contains(">Warm Up</a><br><a") && page.contains(">Push</a>"), "both songs in the split")

        // The page in a real browser at 1280 and 360 px, screenshots kept.
        let python = try SiteBrowserTests.python()
        let artifacts = URL(fileURLWithPath: WorkoutMeasuresBrowserTests.artifacts).deletingLastPathComponent()
            .appendingPathComponent("workout-live").path
        let r = try run(python, [WorkoutMeasuresBrowserTests.script, daemon.base, String(id), artifacts, "live"], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect(summary?["screenshots"] as? [String] == ["workout-live-desktop.png", "workout-live-phone.png"], "\(r.stdout)")
    }

    /// A phone that sends positions and no distance: the distance is summed along them as they
    /// arrive (`LiveDistance`) and stored, the positions dropped (`keep_positions` is off).
    @Test func aLiveRunWithPositionsOnlyGetsItsDistanceAndKeepsNoPosition() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [heart_rate]
            workout_start_after_s = 2
            workout_end_after_s = 3
            """)
        // 3 m/s due north, a reading every quarter second, each position pushed on its own:
        // 0.25 s × 3 m/s is 2.698e-5° of latitude a step.
        let start = Date()
        var sent = 0
        while Date().timeIntervalSince(start) < 6 {
            let t = Date().timeIntervalSince(start)
            let body = #"{"bpm": \#(140 + sent % 10), "lat": \#(52.5 + t * 3 / 111_195), "lon": 13.4}"#
            let r = try daemon.post("/api/v1/hr?source=phone", body: body)
            #expect(r.status == 200 && r.json?["motion_stored"] as? Int == 1, "\(r.text)")
            sent += 1
            usleep(250_000)
        }
        let stored = try daemon.sql("SELECT COUNT(*), COUNT(lat), ROUND(MAX(distance) - MIN(distance)) FROM motion_samples")
        let parts = stored.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        #expect(parts.count == 3 && parts[0] == String(sent) && parts[1] == "0", "every sample kept, no position: \(stored)")
        let total = Double(parts.last ?? "") ?? 0
        #expect(abs(total - (Date().timeIntervalSince(start) - 0.25) * 3) < 3, "about 3 m a second: \(stored)")
        var workout: [String: Any] = [:]
        #expect(try eventually(timeout: 10) {
            workout = ((try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]]) ?? []).first ?? [:]
            return workout["in_progress"] as? Bool == false
        }, "\(workout)")
        let id = try #require(workout["id"] as? Int)
        let m = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json?["measures"] as? [String: Any])
        #expect(m["distance_source"] as? String == "device" && abs(WorkoutMeasuresTests.number(m["distance_m"]) - total) < 1, "\(m)")
        #expect(abs(WorkoutMeasuresTests.number(m["avg_speed_mps"]) - 3) < 0.3, "\(m)")
    }
}
