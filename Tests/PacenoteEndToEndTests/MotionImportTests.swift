import Foundation
import PacenoteTestSupport
import Testing

/// Speed, distance, altitude, cadence, power, positions and laps (issue 54): files written by
/// independent libraries (fit-tool, gpxpy), read back by another (fitdecode), imported by the
/// real `pacenote` and read back from its database; a live push over HTTP; hostile files.
@Suite struct MotionImportTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients").path
    static let start = 1_763_794_800  // 2025-11-22T07:00:00Z

    /// python3 with the packages (scripts/test installs them); missing is a failure, not a skip.
    static func reference(_ kind: String, _ path: String, seconds: Int) throws -> [String: Any] {
        let python = try Tools.require("python3")
        for module in ["fit_tool", "fitdecode", "gpxpy"] where try run(python, ["-c", "import \(module)"], allowFailure: true).status != 0 {
            throw HarnessError("\(module) is not installed: python3 -m pip install fit-tool fitdecode gpxpy (scripts/test does)")
        }
        let out = try run(python, [clients + "/motion_reference.py", kind, path, String(start), String(seconds)]).stdout
        return try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    }

    /// `pacenote import` with a config, into a fresh database.
    static func importFiles(_ files: [String], in dir: TemporaryDirectory, config: String = "") throws -> (db: String, result: (status: Int32, stdout: String, stderr: String)) {
        let db = dir.file("p.sqlite"), configPath = dir.file("config.toml")
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        let r = try PacenoteProcess.run(["import", "--config", configPath, "--db", db] + files)
        return (db, (r.status, r.stdout, r.stderr))
    }

    static func rows(_ db: String, _ query: String) throws -> [[Double?]] {
        try run(try Tools.require("sqlite3"), [db, query]).stdout.split(separator: "\n").map { line in
            line.split(separator: "|", omittingEmptySubsequences: false).map { Double($0) }
        }
    }

    static func number(_ any: Any?) -> Double? { (any as? NSNumber)?.doubleValue }

    /// A time as the API writes it (with milliseconds).
    static func apiTime(_ offset: Int) -> String { WorkoutFileImportTests.iso(offset).replacingOccurrences(of: "Z", with: ".000Z") }

    @Test func fitWrittenByFitToolReadsAsFitdecodeReadsIt() throws {
        let dir = try TemporaryDirectory()
        let reference = try Self.reference("fit", dir.file("run.fit"), seconds: 300)
        let (db, r) = try Self.importFiles([dir.file("run.fit")], in: dir, config: "[workouts]\nkeep_positions = true\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("run.fit: 300 samples (300 new), workout 1; motion: 300 samples (300 new), 2 laps"), "\(r.stdout)")
        let records = try #require(reference["records"] as? [[String: Any]])
        let stored = try Self.rows(db, "SELECT at_ms / 1000.0, speed, distance, altitude, cadence, power, lat, lon FROM motion_samples ORDER BY at_ms")
        #expect(records.count == 300 && stored.count == 300)
        // Equal within each field's FIT resolution: 1 mm/s, 1 cm, 0.2 m, 1/128 of a stride
        // (doubled: a runner's steps), 1 W, one semicircle (~8.4e-8°).
        let resolution: [(field: String, column: Int, within: Double, times: Double)] = [
            ("ts", 0, 0.001, 1), ("speed", 1, 0.001, 1), ("distance", 2, 0.01, 1), ("altitude", 3, 0.2, 1),
            ("cadence", 4, 2.0 / 128, 2), ("power", 5, 1, 1), ("lat", 6, 1e-7, 1), ("lon", 7, 1e-7, 1),
        ]
        var worst: [String: Double] = [:]
        for (record, row) in zip(records, stored) {
            for f in resolution {
                guard let want = Self.number(record[f.field]).map({ $0 * f.times }), let got = row[f.column] else {
                    Issue.record("\(f.field) missing: \(record) / \(row)")
                    continue
                }
                worst[f.field] = max(worst[f.field] ?? 0, abs(want - got))
            }
        }
        for f in resolution { #expect((worst[f.field] ?? .infinity) <= f.within, "\(f.field): off by \(worst[f.field] ?? .nan)") }
        // The laps and the calories as fitdecode reads them.
        let laps = try #require(reference["laps"] as? [[String: Any]])
        let storedLaps = try Self.rows(db, "SELECT start_ms / 1000.0, (end_ms - start_ms) / 1000.0, calories FROM workout_laps ORDER BY start_ms")
        #expect(storedLaps == laps.map { [Self.number($0["start"]), Self.number($0["elapsed"]), Self.number($0["calories"])] }, "\(storedLaps) / \(laps)")
        #expect(try Self.rows(db, "SELECT calories FROM workouts") == [[Self.number(reference["calories"])]])
    }

    @Test func positionsAreDroppedUnlessKept() throws {
        let dir = try TemporaryDirectory()
        _ = try Self.reference("fit", dir.file("run.fit"), seconds: 30)
        let (db, r) = try Self.importFiles([dir.file("run.fit")], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.rows(db, "SELECT COUNT(*), COUNT(lat), COUNT(lon), COUNT(distance) FROM motion_samples") == [[30, 0, 0, 30]])
    }

    @Test func gpxWrittenByGpxpyGivesGpxpysLength() throws {
        let dir = try TemporaryDirectory()
        let reference = try Self.reference("gpx", dir.file("run.gpx"), seconds: 600)
        let (db, r) = try Self.importFiles([dir.file("run.gpx")], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("run.gpx: 600 samples (600 new), workout 1; motion: 600 samples (600 new)"), "\(r.stdout)")
        let rows = try Self.rows(db, "SELECT MAX(distance), COUNT(lat), MIN(cadence), MAX(cadence), COUNT(altitude) FROM motion_samples")
        let distance = try #require(rows.first?[0] ?? nil)
        let length2D = try #require(Self.number(reference["length_2d"])), length3D = try #require(Self.number(reference["length_3d"]))
        // Within 0.5 %: Pacenote sums great circles on the mean Earth radius (6,371.0 km), gpxpy
        // an equirectangular step on the equatorial one (6,378.1 km: 0.11 % longer); its 3D
        // length adds the climb (15 m up and down here, ~0.2 %), which Pacenote leaves out.
        #expect(abs(distance - length2D) / length2D < 0.005, "\(distance) vs gpxpy's length_2d \(length2D)")
        #expect(abs(distance - length3D) / length3D < 0.005, "\(distance) vs gpxpy's length_3d \(length3D)")
        // Positions gave the distance and were dropped; a runner's gpxtpx:cad (84–88) doubled.
        #expect(rows.first.map { Array($0[1...]) } == [0, 168, 176, 600], "\(rows)")
    }

    /// A Garmin Connect TCX with the ActivityExtension's TPX, uploaded through the API.
    @Test func tcxWithTPXOverTheAPI() throws {
        let points = (0..<120).map { i in """
            <Trackpoint><Time>\(WorkoutFileImportTests.iso(i))</Time>
              <Position><LatitudeDegrees>52.5</LatitudeDegrees><LongitudeDegrees>13.4</LongitudeDegrees></Position>
              <AltitudeMeters>\(30 + i % 7)</AltitudeMeters><DistanceMeters>\(Double(i) * 3.25)</DistanceMeters>
              <HeartRateBpm><Value>\(130 + i % 20)</Value></HeartRateBpm>
              <Extensions><ns3:TPX><ns3:Speed>3.25</ns3:Speed><ns3:RunCadence>\(85 + i % 3)</ns3:RunCadence><ns3:Watts>\(250 + i % 10)</ns3:Watts></ns3:TPX></Extensions>
            </Trackpoint>
            """ }.joined(separator: "\n")
        let tcx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
              <Activities><Activity Sport="Running"><Id>\(WorkoutFileImportTests.iso(0))</Id>
                <Lap StartTime="\(WorkoutFileImportTests.iso(0))"><TotalTimeSeconds>60</TotalTimeSeconds><Calories>12</Calories><Track>
            \(points)
                </Track></Lap>
                <Lap StartTime="\(WorkoutFileImportTests.iso(60))"><TotalTimeSeconds>59</TotalTimeSeconds><Calories>13</Calories><Track></Track></Lap>
              </Activity></Activities>
            </TrainingCenterDatabase>
            """
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let auth = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/vnd.garmin.tcx+xml"]
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=run.tcx", headers: auth, body: Data(tcx.utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["samples"] as? Int == 120 && r.json?["motion_samples"] as? Int == 120 && r.json?["motion_stored"] as? Int == 120, "\(r.text)")
        #expect(r.json?["laps"] as? Int == 2 && (r.json?["cleaned"] as? [String])?.isEmpty == true, "\(r.text)")
        let stored = try daemon.sql("SELECT COUNT(*), MIN(speed), MAX(distance), MIN(cadence), MAX(cadence), MAX(power), COUNT(lat) FROM motion_samples")
        #expect(stored == "120|3.25|386.75|170.0|174.0|259.0|0\n", "\(stored)")
        #expect(try daemon.sql("SELECT calories FROM workouts") == "25.0\n")
        // The series as the API gives it back, for charts and exports.
        let id = try #require(r.json?["workout_id"] as? Int)
        let series = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)/samples").json)
        let motion = series["motion"] as? [[String: Any]] ?? []
        #expect((series["heart_rate"] as? [Any])?.count == 120 && motion.count == 120, "\(series.keys)")
        #expect(Self.number(motion.last?["distance"]) == 386.75 && Self.number(motion.first?["cadence"]) == 170, "\(motion.last ?? [:])")
        #expect(motion.first?["lat"] is NSNull && motion.first?["at"] as? String == Self.apiTime(0), "\(motion.first ?? [:])")
        let laps = series["laps"] as? [[String: Any]] ?? []
        #expect(laps.map { Self.number($0["calories"]) } == [12, 13] && laps.first?["end"] as? String == Self.apiTime(60), "\(laps)")
        #expect(Self.number(series["calories"]) == 25)
        #expect(try HTTP.get(daemon.base + "/api/v1/workouts/999/samples").status == 404)
    }

    /// Hostile files: refused, or cleaned with the reason told and nothing nonsense stored.
    @Test func hostileFilesAreCleanedWithTheReasonOrRefused() throws {
        let dir = try TemporaryDirectory()
        func point(_ t: Int, _ body: String) -> String {
            "<trkpt lat=\"52.5\" lon=\"13.4\"><time>\(WorkoutFileImportTests.iso(t))</time>\(body)</trkpt>"
        }
        func gpx(_ points: [String]) -> String {
            """
            <?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"
              xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><trkseg>
            """ + points.joined() + "</trkseg></trk></gpx>"
        }
        let hr = "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions>"
        var points = (0..<20).map { point($0, "<ele>30</ele>" + hr) }
        points[5] = point(5, "<ele>5030</ele>" + hr)          // an altitude jump of 5 km
        points[6] = point(6, "<ele>NaN</ele>" + hr)           // not a number
        points[7] = "<trkpt lat=\"91\" lon=\"13.4\"><time>\(WorkoutFileImportTests.iso(7))</time><ele>30</ele>\(hr)</trkpt>"
        points.append(point(3, "<ele>31</ele>" + hr))         // the clock going backwards
        try gpx(points).write(toFile: dir.file("hostile.gpx"), atomically: true, encoding: .utf8)
        // Nothing usable at all: refused, with what was dropped.
        let offGlobe = { (t: Int, ele: String) in "<trkpt lat=\"91\" lon=\"13.4\"><time>\(WorkoutFileImportTests.iso(t))</time><ele>\(ele)</ele></trkpt>" }
        try gpx([offGlobe(0, "NaN"), offGlobe(1, "-9000")]).write(toFile: dir.file("empty.gpx"), atomically: true, encoding: .utf8)
        let (db, r) = try Self.importFiles([dir.file("hostile.gpx"), dir.file("empty.gpx")], in: dir)
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        for line in ["hostile.gpx: 1 value that was not a number dropped",
                     "hostile.gpx: 1 sample earlier than the one before dropped (the clock went backwards)",
                     "hostile.gpx: 1 altitude changing faster than 50 m a second dropped",
                     "hostile.gpx: 1 position off the globe (or at 0°, 0°) dropped"] {
            #expect(r.stdout.contains(line), "\(line) in \(r.stdout)")
        }
        #expect(r.stderr.contains("empty.gpx: the file has no heart rate, speed, distance, altitude, cadence, power or position (1 value that was not a number dropped; 1 altitude outside −500 to 9,000 m dropped; 2 positions off the globe (or at 0°, 0°) dropped)"), "\(r.stderr)")
        let stored = try Self.rows(db, "SELECT COUNT(*), MIN(altitude), MAX(altitude), MIN(distance), MAX(distance) FROM motion_samples")
        #expect(stored == [[20, 30, 30, 0, 0]], "\(stored)")
        #expect(try Self.rows(db, "SELECT COUNT(*) FROM workouts") == [[1]])
    }

    /// `hr-feed` carries motion on its JSON lines, beside the heart rate or alone.
    @Test func hrFeedSendsMotionToo() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let now = Int(Date().timeIntervalSince1970) - 20
        let lines = [#"{"bpm":150,"ts":\#(now),"speed":3.3,"cadence":176,"power":280}"#,
                     #"{"ts":\#(now + 1),"speed":3.4,"distance":3.4}"#,
                     #"{"bpm":152,"ts":\#(now + 2),"speed":"fast"}"#]
        let input = daemon.dir.file("in.txt")
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let log = try run("/bin/sh", ["-c", "'\(try PacenoteProcess.binary())' hr-feed --db '\(daemon.db)' --url \(daemon.base)/ --format json --source feed < '\(input)'"]).stderr
        #expect(log.contains("line 3: speed: must be a number"), "\(log)")
        #expect(try daemon.sql("SELECT at_ms / 1000 - \(now), speed, distance, cadence, power FROM motion_samples WHERE source = 'feed' ORDER BY at_ms")
                == "0|3.3||176.0|280.0\n1|3.4|3.4||\n")
        #expect(try daemon.sql("SELECT at_ms / 1000 - \(now), bpm FROM hr_samples WHERE source = 'feed' ORDER BY at_ms") == "0|150\n2|152\n")
    }

    /// Heart rate, speed and cadence pushed live, as a phone app sends them while running.
    @Test func liveHeartRateWithSpeedAndCadenceOverHTTP() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let now = Int(Date().timeIntervalSince1970) - 30
        let samples = (0..<10).map { i in #"{"bpm":\#(140 + i),"ts":\#(now + i),"speed":3.1,"distance":\#(Double(i) * 3.1),"cadence":172}"# }
        var r = try daemon.post("/api/v1/hr?source=phone", body: #"{"samples":[\#(samples.joined(separator: ","))]}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["stored"] as? Int == 10 && r.json?["motion_stored"] as? Int == 10, "\(r.text)")
        // Motion alone (a foot pod between heart-rate readings), and a speed no runner has.
        r = try daemon.post("/api/v1/hr?source=phone", body: #"[{"ts":\#(now + 10),"speed":3.2,"cadence":174},{"ts":\#(now + 11),"speed":300,"cadence":174}]"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["stored"] as? Int == 0 && r.json?["motion_stored"] as? Int == 2, "\(r.text)")
        #expect(r.json?["cleaned"] as? [String] == ["1 speed above 150 km/h dropped"], "\(r.text)")
        // A field of the wrong type is refused, naming it.
        r = try daemon.post("/api/v1/hr?source=phone", body: #"{"speed":"fast"}"#)
        #expect(r.status == 400, "\(r.text)")
        #expect(try daemon.sql("SELECT COUNT(*), COUNT(speed), MAX(speed), MIN(cadence), MAX(distance) FROM motion_samples WHERE source = 'phone'")
                == "12|11|3.2|172.0|27.9\n")
        #expect(try daemon.sql("SELECT COUNT(*) FROM hr_samples WHERE source = 'phone'") == "10\n")
    }
}
