import Foundation
import Testing
@testable import PacenoteCore

/// `WorkoutMeasures` against gpxpy (PyPI), an independent implementation, on the same GPX track.
///
/// gpxpy writes a 30-minute run as GPX (positions, elevation to the centimetre, a time a second,
/// a one-minute stop at a crossing), parses it back and gives its figures; the test measures the
/// points gpxpy parsed. scripts/test installs gpxpy; missing, the test fails (never skips).
@Suite struct WorkoutMeasuresGPXReferenceTests {
    /// The track and gpxpy's figures, as JSON on stdout.
    static let script = """
        import datetime, json, math
        import gpxpy, gpxpy.gpx

        gpx = gpxpy.gpx.GPX()
        track = gpxpy.gpx.GPXTrack()
        gpx.tracks.append(track)
        segment = gpxpy.gpx.GPXTrackSegment()
        track.segments.append(segment)
        start = datetime.datetime(2026, 5, 1, 7, 0, 0, tzinfo=datetime.timezone.utc)
        seed = 12345
        def rand():
            global seed
            seed = (seed * 1103515245 + 12345) % 2**31
            return seed / 2**31
        lat, lon, heading, ran = 47.3769, 8.5417, 30.0, 0
        profile, ele = [], 400.0
        for i in range(1801):
            still = 900 <= i < 960
            if i > 0 and not still:
                speed = 3.0 + 0.5 * math.sin(i / 60)
                heading += 2 * math.sin(i / 45)
                lat += speed * math.cos(math.radians(heading)) / 111320
                lon += speed * math.sin(math.radians(heading)) / (111320 * math.cos(math.radians(lat)))
                ran += 1
            # Two hills along the way; the barometer noisy by up to 0.5 m, and still when you are.
            true = 400 + 30 * math.sin(2 * math.pi * ran / 1200)
            profile.append(true)
            if not still:
                ele = round(true + (rand() - 0.5), 2)
            segment.points.append(gpxpy.gpx.GPXTrackPoint(lat, lon, elevation=ele, time=start + datetime.timedelta(seconds=i)))

        parsed = gpxpy.parse(gpx.to_xml())
        points = parsed.tracks[0].segments[0].points
        moving = parsed.get_moving_data()
        up, down = parsed.get_uphill_downhill()
        true_up = sum(max(0, b - a) for a, b in zip(profile, profile[1:]))
        true_down = sum(max(0, a - b) for a, b in zip(profile, profile[1:]))
        print(json.dumps({
            "points": [[p.latitude, p.longitude, p.elevation, p.time.timestamp()] for p in points],
            "length_2d": parsed.length_2d(), "length_3d": parsed.length_3d(),
            "moving_time": moving.moving_time, "stopped_time": moving.stopped_time,
            "uphill": up, "downhill": down, "true_uphill": true_up, "true_downhill": true_down,
        }))
        """

    struct Reference: Decodable {
        var points: [[Double]]
        var length_2d: Double
        var length_3d: Double
        var moving_time: Double
        var uphill: Double
        var downhill: Double
        var true_uphill: Double
        var true_downhill: Double
    }

    /// python3 on PATH with gpxpy.
    static func reference() throws -> Reference {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        guard let python = dirs.map({ "\($0)/python3" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure("python3 is not installed; scripts/test installs it")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if problem.contains("No module named 'gpxpy'") {
            throw Failure("gpxpy is not installed: python3 -m pip install gpxpy (scripts/test does)")
        }
        guard process.terminationStatus == 0 else { throw Failure("the gpxpy script failed: \(problem)") }
        return try JSONDecoder().decode(Reference.self, from: data)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test func distanceMovingTimeAndElevationAgreeWithGpxpy() throws {
        let r = try Self.reference()
        #expect(r.points.count == 1801)
        let motion = r.points.map {
            MotionSample(at: Date(timeIntervalSince1970: $0[3]), altitude: $0[2], latitude: $0[0], longitude: $0[1])
        }
        let m = WorkoutMeasures(motion: motion, sport: "running")
        #expect(m.distanceSource == .positions)

        // Distance: ours is 2-D, as gpxpy's length_2d (Strava's and GoldenCheetah's distance is
        // on the map too; length_3d adds the climbing and the altitude's noise). gpxpy projects
        // each step on a plane with the equatorial radius, 6,378,137 m; Geodesy takes great
        // circles on the mean radius, 6,371,008.8 m: scaled by the radii, the two agree to
        // 1e-4 (the projection's own error over 3 m steps is far below that).
        let distance = try #require(m.distance)
        let scaled = r.length_2d * Geodesy.earthRadius / 6_378_137
        #expect(abs(distance / scaled - 1) < 1e-4, "ours \(distance) m, gpxpy's length_2d \(r.length_2d) m")
        #expect(distance < r.length_3d)

        // Moving time: gpxpy leaves out steps slower than 1 km/h (and, at no distance, counts
        // them nowhere); ours, steps slower than 0.5 m/s. The run is at 2.5–3.5 m/s and the
        // stop at none, so both give the same seconds: 1,800 − 60.
        #expect(m.moving == r.moving_time && r.moving_time == 1740, "ours \(m.moving ?? -1) s, gpxpy's \(r.moving_time) s")
        #expect(m.elapsed == 1800)

        // Elevation, gpxpy's smoothing: the same figures to the micrometre.
        var options = WorkoutMeasures.Options()
        options.elevation = .gpxpy
        let same = WorkoutMeasures(motion: motion, sport: "running", options: options)
        let up = try #require(same.elevationGain), down = try #require(same.elevationLoss)
        #expect(abs(up - r.uphill) < 1e-6 && abs(down - r.downhill) < 1e-6, "ours \(up)/\(down), gpxpy's \(r.uphill)/\(r.downhill)")

        // Elevation, our default (a 3 m hysteresis): gpxpy's light smoothing counts much of the
        // barometer's half-metre noise as climbing; the hysteresis does not, and stays within
        // 3 m of the noise-free profile at each of the track's four turning points (+ the
        // noise at each): 8 m of the true gain and loss, where gpxpy is further off.
        let gain = try #require(m.elevationGain), loss = try #require(m.elevationLoss)
        #expect(abs(gain - r.true_uphill) <= 8 && abs(loss - r.true_downhill) <= 8,
                "ours \(gain)/\(loss), true \(r.true_uphill)/\(r.true_downhill), gpxpy's \(r.uphill)/\(r.downhill)")
        #expect(r.uphill - r.true_uphill > abs(gain - r.true_uphill))
    }
}
