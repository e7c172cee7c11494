import Foundation
import PacenoteTestSupport
import Testing

/// `pacenote bench workouts`, the hidden command scripts/bench/workouts runs: the figures of a
/// workout file as JSON, a clear error for a file that is not one, and no line in the help.
@Suite struct BenchCommandTests {
    @Test func benchWorkoutsPrintsTheTimingsAndTheFigures() throws {
        let dir = try TemporaryDirectory()
        // Ten minutes at 3 m/s with the device's distance and a heart rate; a song of four
        // minutes from the start; one lap.
        let samples = (0...600).map { t in "[\(t), 3, \(t * 3), 100, 170, 200, null, null, 140]" }.joined(separator: ",")
        let json = """
            {"start": 1777618800, "samples": [\(samples)], "plays": [[0, 240, "Song", "Artist"]], "laps": [[0, 600]],
             "sport": "running", "units": "metric", "athlete": {"age": 40, "weight": 70, "sex": "female"}}
            """
        try json.write(toFile: dir.file("run.json"), atomically: true, encoding: .utf8)
        let r = try PacenoteProcess.run(["bench", "workouts", dir.file("run.json"), "--runs", "3"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["samples"] as? Int == 601)
        #expect((report["runsMilliseconds"] as? [Double])?.count == 3)
        let measures = try #require(report["measures"] as? [String: Any])
        #expect(measures["distance"] as? Double == 1800 && measures["moving"] as? Double == 600)
        #expect((measures["averagePace"] as? Double).map { abs($0 - 1000.0 / 3) < 1e-6 } == true)
        #expect(measures["caloriesSource"] as? String == "heartRate")
        let splits = try #require(measures["splits"] as? [[String: Any]])
        #expect(splits.count == 2)
        let songs = try #require(splits.first?["plays"] as? [[String: Any]])
        #expect((songs.first?["play"] as? [String: Any])?["title"] as? String == "Song")
        #expect((measures["laps"] as? [Any])?.count == 1)
    }

    @Test func aFileThatIsNotAWorkoutIsAClearErrorAndBenchIsNotInTheHelp() throws {
        let dir = try TemporaryDirectory()
        try "{\"samples\": 3}".write(toFile: dir.file("bad.json"), atomically: true, encoding: .utf8)
        let r = try PacenoteProcess.run(["bench", "workouts", dir.file("bad.json")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.json: not a workout series"), "\(r.stderr)")
        let missing = try PacenoteProcess.run(["bench", "workouts", dir.file("none.json")])
        #expect(missing.status == 1 && missing.stderr.contains("none.json"), "\(missing.stderr)")
        let help = try PacenoteProcess.run(["--help"])
        #expect(help.status == 0 && help.stdout.contains("forward") && !help.stdout.contains("bench"))
    }
}
