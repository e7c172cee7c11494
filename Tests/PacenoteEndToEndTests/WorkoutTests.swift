import Foundation
import PacenoteTestSupport
import Testing

/// Plays on a real MPD while heart rate streams in: zones, the detected workout, its time
/// in zone and each song's HR lift.
@Suite struct WorkoutTests {
    func sleep(_ seconds: Double) { usleep(UInt32(seconds * 1_000_000)) }

    /// Streams `bpm` every 0.25 s for `seconds`, timestamped now.
    func stream(_ daemon: PacenoteDaemon, bpm: Int, seconds: Double) throws {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let r = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": \#(bpm)}"#)
            guard r.status == 200 else { throw HarnessError("hr: \(r.status) \(r.text)") }
            sleep(0.25)
        }
    }

    @Test func playsGetZonesAndTheWorkoutItsFigures() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("warm.flac", seconds: 3, title: "Warm Up"),
                                           TestTrack("push.flac", seconds: 3, title: "Push")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: """
            [plays]
            min_track_s = 1
            [heart_rate]
            max_hr = 200
            workout_start_after_s = 2
            workout_end_after_s = 3
            """)
        #expect(try eventually { try daemon.mpdConnected() })
        try mpd.mpc("add", "warm.flac")
        try mpd.mpc("add", "push.flac")
        try stream(daemon, bpm: 100, seconds: 3)   // Z1 (50 %): the baseline before the songs
        try mpd.mpc("play")                        // Warm Up, then Push, 3 s each
        try stream(daemon, bpm: 130, seconds: 3)   // Z2 (65 %)
        try stream(daemon, bpm: 170, seconds: 3)   // Z4 (85 %)
        // No more samples: the workout ends 3 s after the last one.
        var workouts: [[String: Any]] = []
        #expect(try eventually(timeout: 10) {
            workouts = (try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]]) ?? []
            return workouts.first?["in_progress"] as? Bool == false
        }, "\(workouts)")
        let workout = try #require(workouts.first)
        #expect(workouts.count == 1)
        #expect(workout["kind"] as? String == "auto")
        let duration = (workout["duration_s"] as? NSNumber)?.doubleValue ?? 0
        #expect(abs(duration - 9) < 1.5, "\(workout)")
        let inZone = (workout["time_in_zone_s"] as? [NSNumber] ?? []).map(\.doubleValue)
        #expect(abs(inZone.reduce(0, +) - duration) <= 1, "time in zone \(inZone) vs duration \(duration)")
        #expect(inZone.count == 6 && inZone[1] > 2 && inZone[2] > 2 && inZone[4] > 2, "\(inZone)")
        #expect((workout["hr_max"] as? Int) == 170)

        let id = try #require(workout["id"] as? Int)
        let detail = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json)
        let plays = detail["plays"] as? [[String: Any]] ?? []
        #expect(plays.compactMap { ($0["track"] as? [String: Any])?["title"] as? String } == ["Warm Up", "Push"], "\(plays)")
        #expect(plays.map { $0["zone"] as? Int } == [2, 4], "\(plays)")
        let lifts = plays.map { ($0["hr_lift"] as? NSNumber)?.doubleValue ?? -999 }
        #expect(lifts.count == 2 && lifts[0] > 20 && lifts[1] > 20, "HR lift \(lifts)")
        #expect((detail["samples"] as? [Any])?.isEmpty == false)
        // The listens API shows the same heart rate.
        let listens = try daemon.listens()
        #expect(listens.map { $0.json["workout_id"] as? Int } == [id, id])
        #expect(listens.compactMap { ($0.json["hr_avg"] as? NSNumber)?.doubleValue }.count == 2)
    }

    @Test func manualWorkoutsAndLateUploads() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        var r = try daemon.post("/api/v1/workouts", body: #"{"name": "Intervals"}"#)
        #expect(r.status == 201)
        let id = try #require(r.json?["id"] as? Int)
        r = try daemon.post("/api/v1/workouts/\(id)/stop", body: "")
        #expect(r.status == 200)
        r = try daemon.post("/api/v1/workouts/\(id)/stop", body: "")
        #expect(r.status == 409)
        #expect(try daemon.post("/api/v1/workouts/99999/stop", body: "").status == 404)
        #expect(try HTTP.request("POST", daemon.base + "/api/v1/workouts").status == 401)

        // A watch syncs a run from an hour ago: the workout is found in the upload.
        let start = Int(Date().timeIntervalSince1970) - 3600
        let samples = (0..<600).map { #"{"bpm": \#(120 + $0 / 10), "ts": \#(start + $0)}"# }.joined(separator: ",")
        // A live sample first, so the upload is "late".
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 80}"#)
        r = try daemon.post("/api/v1/hr?source=watch", body: "[\(samples)]")
        #expect(r.json?["stored"] as? Int == 600)
        let workouts = try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]] ?? []
        let late = workouts.first { $0["name"] is NSNull && $0["in_progress"] as? Bool == false }
        #expect((late?["duration_s"] as? NSNumber)?.doubleValue == 599, "\(workouts)")
        #expect(workouts.contains { $0["name"] as? String == "Intervals" })

        // Another run, two hours ago, synced in three requests (as hr-feed drains a long
        // buffer): one workout, not three.
        let run2 = Int(Date().timeIntervalSince1970) - 7200
        for part in 0..<3 {
            let chunk = (part * 300..<(part + 1) * 300).map { #"{"bpm": 130, "ts": \#(run2 + $0)}"# }.joined(separator: ",")
            #expect(try daemon.post("/api/v1/hr?source=watch", body: "[\(chunk)]").json?["stored"] as? Int == 300)
        }
        let after = try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]] ?? []
        let second = after.filter { ($0["started_at"] as? String).map { $0 < ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(run2 + 60))) && $0 >= ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(run2 - 1))) } ?? false }
        #expect(second.count == 1, "\(after)")
        #expect((second.first?["duration_s"] as? NSNumber)?.doubleValue == 899, "\(second)")
    }
}

/// `pacenote import` of workout files from watches.
@Suite struct WorkoutFileImportTests {
    static let start = 1_763_794_800  // 2025-11-22T07:00:00Z

    static func iso(_ offset: Int) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(start + offset)))
    }

    /// A Garmin TCX export: 10 minutes, a point every 5 s, heart rate climbing 110 → 169.
    static var tcx: String {
        let points = stride(from: 0, to: 600, by: 5).map { t in """
                <Trackpoint>
                  <Time>\(iso(t))</Time>
                  <Position><LatitudeDegrees>52.5</LatitudeDegrees><LongitudeDegrees>13.4</LongitudeDegrees></Position>
                  <HeartRateBpm><Value>\(110 + t / 10)</Value></HeartRateBpm>
                </Trackpoint>
            """ }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
              <Activities>
                <Activity Sport="Running">
                  <Id>\(iso(0))</Id>
                  <Lap StartTime="\(iso(0))"><Track>
            \(points)
                  </Track></Lap>
                  <Notes>Morning run</Notes>
                </Activity>
              </Activities>
            </TrainingCenterDatabase>
            """
    }

    /// A GPX track with Garmin's TrackPointExtension, an hour later.
    static var gpx: String {
        let points = stride(from: 3600, to: 3900, by: 2).map { t in """
                  <trkpt lat="52.5" lon="13.4"><ele>34</ele><time>\(iso(t))</time>
                    <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>\(140 + (t % 20))</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>
                  </trkpt>
            """ }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Watch" xmlns="http://www.topografix.com/GPX/1/1"
                 xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <trk><name>Ride &amp; Tempo</name><trkseg>
            \(points)
              </trkseg></trk>
            </gpx>
            """
    }

    @Test func tcxAndGpxBecomeWorkoutsAndTagThePlaysOfThatTime() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", db]).status == 0)
        let sqlite = try Tools.require("sqlite3")
        // A play during the run (minutes 5 to 8), stored before the file arrives.
        try run(sqlite, [db, """
            INSERT INTO tracks (id, uri, title, match_key, first_seen_at_ms, updated_at_ms) VALUES (1, 'a.flac', 'A', 'a', 0, 0);
            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour)
            VALUES (1, \((Self.start + 300) * 1000), \((Self.start + 480) * 1000), 180, 1, 'mpd', '2025-11-22', 7);
            """])
        try Self.tcx.write(toFile: dir.file("run.tcx"), atomically: true, encoding: .utf8)
        try Self.gpx.write(toFile: dir.file("ride.gpx"), atomically: true, encoding: .utf8)
        var r = try PacenoteProcess.run(["import", "--db", db, dir.file("run.tcx"), dir.file("ride.gpx")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("run.tcx: 120 samples (120 new), workout 1"), "\(r.stdout)")
        #expect(r.stdout.contains("ride.gpx: 150 samples (150 new), workout 2"), "\(r.stdout)")
        let workouts = try run(sqlite, [db, "SELECT kind, name, ended_at_ms - started_at_ms, hr_max FROM workouts ORDER BY id"]).stdout
        #expect(workouts == "import|Morning run|595000|169\nimport|Ride & Tempo|298000|158\n", "\(workouts.replacingOccurrences(of: "\n", with: " / "))")
        // The play got the heart rate of minutes 5–8 (140–158 bpm, 148.8 on average: Z3 of 190).
        let play = try run(sqlite, [db, "SELECT hr_avg, hr_max, zone, workout_id FROM plays"]).stdout
        #expect(play == "148.8|158|3|1\n", "\(play)")
        // Again: nothing new.
        r = try PacenoteProcess.run(["import", "--db", db, dir.file("run.tcx")])
        #expect(r.stdout.contains("120 samples (0 new), already imported"), "\(r.stdout)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM workouts"]).stdout == "2\n")
        // A broken file is a clear error and changes nothing.
        try "<gpx><trk><trkpt".write(toFile: dir.file("broken.gpx"), atomically: true, encoding: .utf8)
        try "hello".write(toFile: dir.file("notes.txt"), atomically: true, encoding: .utf8)
        r = try PacenoteProcess.run(["import", "--db", db, dir.file("broken.gpx"), dir.file("notes.txt")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("broken.gpx: "), "\(r.stderr)")
        #expect(r.stderr.contains("notes.txt: not a TCX, GPX or FIT file"), "\(r.stderr)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM hr_samples"]).stdout == "270\n")
    }
}

/// FIT activities written by fit-tool (PyPI), a real encoder: `pacenote import` and
/// `POST /api/v1/import`.
@Suite struct FITImportTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients").path
    static let start = WorkoutFileImportTests.start

    /// python3 with fit-tool (scripts/test installs it); missing is a failure, not a skip.
    static func write(_ path: String, sport: String, offset: Int, seconds: Int, firstBPM: Int) throws {
        let python = try Tools.require("python3")
        if try run(python, ["-c", "import fit_tool"], allowFailure: true).status != 0 {
            throw HarnessError("fit-tool is not installed: python3 -m pip install fit-tool (scripts/test does)")
        }
        try run(python, [clients + "/fit_activity.py", path, sport, String(start + offset), String(seconds), String(firstBPM)])
    }

    /// A truncated copy (the last 100 bytes gone) and one with a bit flipped in the middle.
    static func damaged(_ path: String, in dir: TemporaryDirectory) throws -> (truncated: String, flipped: String) {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        try Data(bytes.dropLast(100)).write(to: URL(fileURLWithPath: dir.file("truncated.fit")))
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("flipped.fit")))
        return (dir.file("truncated.fit"), dir.file("flipped.fit"))
    }

    @Test func runAndRideFromTheCommandLine() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", db]).status == 0)
        let sqlite = try Tools.require("sqlite3")
        try Self.write(dir.file("run.fit"), sport: "running", offset: 0, seconds: 600, firstBPM: 110)
        try Self.write(dir.file("ride.fit"), sport: "cycling", offset: 3600, seconds: 300, firstBPM: 130)
        var r = try PacenoteProcess.run(["import", "--db", db, dir.file("run.fit"), dir.file("ride.fit")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("run.fit: 600 samples (600 new), workout 1"), "\(r.stdout)")
        #expect(r.stdout.contains("ride.fit: 300 samples (300 new), workout 2"), "\(r.stdout)")
        let workouts = try run(sqlite, [db, "SELECT kind, name, sport, started_at_ms / 1000, (ended_at_ms - started_at_ms) / 1000, hr_max FROM workouts ORDER BY id"]).stdout
        #expect(workouts == "import|Running|running|\(Self.start)|599|149\nimport|Cycling|cycling|\(Self.start + 3600)|299|169\n",
                "\(workouts.replacingOccurrences(of: "\n", with: " / "))")
        // Each second's heart rate, as written: 110 + (i % 40) for the run.
        let samples = try run(sqlite, [db, "SELECT source, COUNT(*), MIN(at_ms) / 1000, SUM(bpm) FROM hr_samples GROUP BY source"]).stdout
        let runSum = (0..<600).reduce(0) { $0 + 110 + $1 % 40 }, rideSum = (0..<300).reduce(0) { $0 + 130 + $1 % 40 }
        #expect(samples == "import:fit|900|\(Self.start)|\(runSum + rideSum)\n", "\(samples)")
        // Again: nothing new.
        r = try PacenoteProcess.run(["import", "--db", db, dir.file("run.fit")])
        #expect(r.status == 0 && r.stdout.contains("run.fit: 600 samples (0 new), already imported"), "\(r.stdout)")
        // Damaged copies are refused with their reason, and store nothing.
        try Self.write(dir.file("walk.fit"), sport: "running", offset: 7200, seconds: 120, firstBPM: 100)
        let (truncated, flipped) = try Self.damaged(dir.file("walk.fit"), in: dir)
        r = try PacenoteProcess.run(["import", "--db", db, truncated, flipped])
        #expect(r.status == 1)
        #expect(r.stderr.contains("truncated.fit: truncated FIT file: the header announces"), "\(r.stderr)")
        #expect(r.stderr.contains("flipped.fit: corrupt FIT file: the file's CRC is"), "\(r.stderr)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM hr_samples"]).stdout == "900\n")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM workouts"]).stdout == "2\n")
    }

    @Test func rideOverHTTP() throws {
        let dir = try TemporaryDirectory()
        try Self.write(dir.file("ride.fit"), sport: "cycling", offset: 0, seconds: 300, firstBPM: 130)
        let ride = try Data(contentsOf: URL(fileURLWithPath: dir.file("ride.fit")))
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let url = daemon.base + "/api/v1/import?name=ride.fit"
        let auth = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/vnd.ant.fit"]
        var r = try HTTP.request("POST", url, headers: auth, body: ride)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["format"] as? String == "fit" && r.json?["sport"] as? String == "cycling", "\(r.text)")
        #expect(r.json?["samples"] as? Int == 300 && r.json?["stored"] as? Int == 300, "\(r.text)")
        let id = try #require(r.json?["workout_id"] as? Int, "\(r.text)")
        var workouts = try #require(try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]])
        #expect(workouts.count == 1, "\(workouts)")
        #expect(workouts.first?["id"] as? Int == id && workouts.first?["name"] as? String == "Cycling", "\(workouts)")
        #expect(workouts.first?["sport"] as? String == "cycling", "\(workouts)")
        #expect(workouts.first?["kind"] as? String == "import" && workouts.first?["hr_max"] as? Int == 169, "\(workouts)")
        #expect((workouts.first?["duration_s"] as? NSNumber)?.doubleValue == 299, "\(workouts)")
        // The same file again adds nothing.
        r = try HTTP.request("POST", url, headers: auth, body: ride)
        #expect(r.status == 200 && r.json?["stored"] as? Int == 0 && r.json?["workout_id"] is NSNull, "\(r.text)")
        // Damaged copies: a 400 with the reason, nothing stored.
        try Self.write(dir.file("run.fit"), sport: "running", offset: 7200, seconds: 120, firstBPM: 100)
        let (truncated, flipped) = try Self.damaged(dir.file("run.fit"), in: dir)
        for (path, reason) in [(truncated, "truncated FIT file"), (flipped, "corrupt FIT file")] {
            r = try HTTP.request("POST", url, headers: auth, body: try Data(contentsOf: URL(fileURLWithPath: path)))
            let error = r.json?["error"] as? [String: Any]
            #expect(r.status == 400 && error?["code"] as? String == "invalid_workout_file", "\(r.text)")
            #expect((error?["message"] as? String)?.hasPrefix(reason) == true, "\(r.text)")
        }
        workouts = try #require(try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]])
        #expect(workouts.count == 1, "\(workouts)")
        #expect(try HTTP.request("POST", url, body: ride).status == 401)
    }
}

@Suite struct KeyRotationTests {
    @Test func newAndRevokedKeysTakeEffectWhileRunning() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let old = daemon.apiKey
        #expect(try daemon.post("/api/v1/hr", body: #"{"bpm": 70}"#, key: old).status == 200)
        let rotated = try PacenoteProcess.run(["key", "--new", "--db", daemon.db])
        #expect(rotated.status == 0)
        let new = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(new.hasPrefix("pn_") && new != old)
        #expect(try eventually(timeout: 5) { try daemon.post("/api/v1/hr", body: #"{"bpm": 71}"#, key: old).status == 401 })
        #expect(try daemon.post("/api/v1/hr", body: #"{"bpm": 72}"#, key: new).status == 200)

        #expect(try PacenoteProcess.run(["key", "--revoke", "--db", daemon.db]).status == 0)
        var r = try daemon.post("/api/v1/hr", body: #"{"bpm": 73}"#, key: new)
        #expect(try eventually(timeout: 5) {
            r = try daemon.post("/api/v1/hr", body: #"{"bpm": 73}"#, key: new)
            return r.status == 401
        })
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "key_revoked")
        let shown = try PacenoteProcess.run(["key", "--db", daemon.db])
        #expect(shown.status == 1 && shown.stderr.contains("revoked"))
        let mode = try FileManager.default.attributesOfItem(atPath: daemon.dir.file("api-key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
