import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// Training load and heart-rate variability through the real server: RR intervals pushed over
/// HTTP, workouts imported from files, `pacenote hrv`, the API and /workouts.
@Suite struct TrainingLoadTests {
    static func iso(_ t: Int) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(t))) }

    /// A TCX file: `minutes` at a steady `bpm`, a point every 5 s from `start` (Unix seconds).
    static func tcx(start: Int, minutes: Int, bpm: Int) -> String {
        let points = stride(from: 0, through: minutes * 60, by: 5).map { t in
            "<Trackpoint><Time>\(iso(start + t))</Time><HeartRateBpm><Value>\(bpm)</Value></HeartRateBpm></Trackpoint>"
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
              <Activities><Activity Sport="Running"><Id>\(iso(start))</Id>
                <Lap StartTime="\(iso(start))"><Track>
            \(points)
                </Track></Lap>
              </Activity></Activities>
            </TrainingCenterDatabase>
            """
    }

    /// RR intervals around `base` ms with breathing's swing and a little noise (deterministic).
    static func rr(count: Int, base: Double, seed: UInt64 = 1) -> [Double] {
        var state = seed
        return (0..<count).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Double(state >> 40) / Double(1 << 24) * 20 - 10
            return (base + 40 * sin(Double(i) * 2 * .pi / 5) + noise).rounded()
        }
    }

    @Test func importedWorkoutsGiveTheHandComputedLoadFitnessFatigueAndForm() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [athlete]
            resting_hr = 60
            max_hr = 190
            sex = "male"
            """, arguments: ["--timezone", "UTC"])
        // 2025-11-20 07:00 UTC: 10 min at 150 bpm; two days later 10 min at 125 bpm.
        let day0 = 1_763_622_000
        for (name, start, bpm) in [("a.tcx", day0, 150), ("b.tcx", day0 + 2 * 86_400, 125)] {
            let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=\(name)",
                                     headers: ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/xml"],
                                     body: Data(Self.tcx(start: start, minutes: 10, bpm: bpm).utf8))
            #expect(r.status == 200 && r.json?["workout_id"] is Int, "\(r.text)")
        }
        // By hand: TRIMP = 10 min × HRr × 0.64 × e^(1.92 × HRr), HRr = (bpm − 60) / (190 − 60):
        //   150 bpm: HRr 0.692308 → 16.740049; 125 bpm: HRr 0.5 → 8.357429.
        // fitness_t = fitness_{t−1} + (load − fitness_{t−1}) / 42, fatigue the same over 7,
        // form_t = fitness_{t−1} − fatigue_{t−1}:
        let expected: [(day: String, load: Double, fitness: Double, fatigue: Double, form: Double)] = [
            ("2025-11-19", 0, 0, 0, 0),
            ("2025-11-20", 16.740049, 0.398573, 2.391436, 0),
            ("2025-11-21", 0, 0.389083, 2.049802, -1.992863),
            ("2025-11-22", 8.357429, 0.578805, 2.950891, -1.660719),
            ("2025-11-23", 0, 0.565024, 2.529336, -2.372086),
        ]
        let r = try HTTP.get(daemon.base + "/api/v1/training-load?from=2025-11-19&to=2025-11-23")
        #expect(r.status == 200, "\(r.text)")
        let days = try #require(r.json?["days"] as? [[String: Any]], "\(r.text)")
        #expect(days.count == 5, "\(r.text)")
        for (got, want) in zip(days, expected) {
            func value(_ key: String) -> Double { (got[key] as? NSNumber)?.doubleValue ?? .nan }
            #expect(got["day"] as? String == want.day)
            #expect(abs(value("load") - want.load) < 0.001 && abs(value("fitness") - want.fitness) < 0.001
                    && abs(value("fatigue") - want.fatigue) < 0.001 && abs(value("form") - want.form) < 0.001, "\(got) vs \(want)")
        }
        #expect(r.json?["fitness_days"] as? Int == 42 && r.json?["fatigue_days"] as? Int == 7, "\(r.text)")
        // Each workout carries its load.
        let workouts = try #require(try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]])
        let first = try #require(workouts.last?["id"] as? Int)
        let detail = try HTTP.get(daemon.base + "/api/v1/workouts/\(first)").json
        #expect(abs(((detail?["trimp"] as? NSNumber)?.doubleValue ?? 0) - 16.740049) < 0.001, "\(String(describing: detail))")
        // A range the wrong way round, or a day that is not one: 400 naming the parameter.
        let bad = try HTTP.get(daemon.base + "/api/v1/training-load?from=2025-11-23&to=2025-11-19")
        #expect(bad.status == 400 && (bad.json?["error"] as? [String: Any])?["code"] as? String == "invalid_from", "\(bad.text)")
        #expect(try HTTP.get(daemon.base + "/api/v1/training-load?to=2025-13-40").status == 400)
        // The page draws the chart.
        let page = try HTTP.get(daemon.base + "/workouts")
        #expect(page.status == 200 && page.text.contains("data-training-load") && page.text.contains(#"id="load-title""#), "\(page.text.prefix(300))")
        // The year in review: the load in each zone (150 bpm is Z3 and 125 bpm Z2 of 190's percentages).
        let review = try HTTP.get(daemon.base + "/review/2025")
        #expect(review.status == 200 && review.text.contains(#"id="review-load-title""#), "\(review.text.prefix(300))")
        #expect(review.text.contains("Z3 16.7") && review.text.contains("Z2 8.4"), "the review's load per zone")
    }

    @Test func rrPushedOverHTTPGiveTheWorkoutsAndTheRestingReadingsHRV() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        // A run synced an hour after it happened: 10 minutes at 1 Hz, 130 bpm, two or three RR
        // intervals a reading, a premature beat and a dropout among them.
        let start = Int(Date().timeIntervalSince1970) - 3600
        var intervals = Self.rr(count: 1600, base: 460)
        intervals[200] = 300
        intervals[700] = 2400
        var sent: [Double] = []
        var offset = 0
        let samples = (0..<600).map { i -> String in
            let n = i % 2 == 0 ? 2 : 3
            let mine = Array(intervals[offset..<offset + n])
            offset += n
            sent += mine
            return #"{"bpm": 130, "ts": \#(start + i), "rr": [\#(mine.map { String(Int($0)) }.joined(separator: ","))]}"#
        }
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 80}"#)  // a live reading first: the upload is late
        let pushed = try daemon.post("/api/v1/hr?source=watch", body: "[\(samples.joined(separator: ","))]")
        #expect(pushed.json?["stored"] as? Int == 600, "\(pushed.text)")
        let workouts = try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]] ?? []
        let id = try #require(workouts.first { $0["in_progress"] as? Bool == false }?["id"] as? Int, "\(workouts)")
        let detail = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json)
        let hrv = try #require(detail["hrv"] as? [String: Any], "\(detail)")
        let want = try #require(HeartRateVariability(rr: sent))
        #expect(abs(((hrv["rmssd_ms"] as? NSNumber)?.doubleValue ?? 0) - want.rmssd) < 0.01, "\(hrv) vs \(want)")
        #expect(abs(((hrv["sdnn_ms"] as? NSNumber)?.doubleValue ?? 0) - want.sdnn) < 0.01, "\(hrv) vs \(want)")
        #expect(hrv["beats"] as? Int == sent.count && sent.count == 1500 && hrv["outliers"] as? Int == 1 && (hrv["ectopic"] as? Int ?? 0) >= 1, "\(hrv)")

        // A resting reading: two minutes still, a beat a second, sent by a strap three minutes ago.
        let rest = Int(Date().timeIntervalSince1970) - 180
        let beats = Self.rr(count: 120, base: 1000, seed: 7)
        let still = (0..<120).map { #"{"bpm": 60, "ts": \#(rest + $0), "rr": [\#(Int(beats[$0]))]}"# }.joined(separator: ",")
        #expect(try daemon.post("/api/v1/hr?source=strap", body: "[\(still)]").json?["stored"] as? Int == 120)
        let restWant = try #require(HeartRateVariability(rr: beats))
        var r = try daemon.post("/api/v1/hrv", body: #"{"start": \#(rest), "seconds": 120}"#)
        #expect(r.status == 201 && r.json?["done"] as? Bool == true, "\(r.text)")
        let figures = r.json?["hrv"] as? [String: Any]
        #expect(abs(((figures?["rmssd_ms"] as? NSNumber)?.doubleValue ?? 0) - restWant.rmssd) < 0.01, "\(r.text) vs \(restWant)")
        // pacenote hrv --last reads the same stored beats from the command line.
        let cli = try PacenoteProcess.run(["hrv", "--last", "--seconds", "200", "--db", daemon.dir.file("pacenote.sqlite")])
        #expect(cli.status == 0 && cli.stdout.contains("RMSSD \(Self.one(restWant.rmssd)) ms"), "\(cli.stdout) \(cli.stderr)")
        let listedByCLI = try PacenoteProcess.run(["hrv", "--list", "--db", daemon.dir.file("pacenote.sqlite")])
        #expect(listedByCLI.status == 0 && listedByCLI.stdout.split(separator: "\n").count == 2, "\(listedByCLI.stdout)")
        let tooShort = try PacenoteProcess.run(["hrv", "--seconds", "5", "--db", daemon.dir.file("pacenote.sqlite")])
        #expect(tooShort.status != 0 && tooShort.stderr.contains("--seconds: 30 to 600, not 5"), "\(tooShort.stderr)")
        let empty = try TemporaryDirectory()
        let nothing = try PacenoteProcess.run(["hrv", "--last", "--db", empty.file("p.sqlite")])
        #expect(nothing.status != 0 && nothing.stderr.contains("too few clean RR intervals (0 intervals received"), "\(nothing.stderr)")
        // A reading whose window is not over yet: 202, completed by the server once it is.
        let now = Int(Date().timeIntervalSince1970)
        r = try daemon.post("/api/v1/hrv", body: #"{"start": \#(now - 150), "seconds": 153}"#)
        #expect(r.status == 202 && r.json?["done"] as? Bool == false, "\(r.text)")
        let pending = try #require(r.json?["id"] as? Int)
        #expect(try eventually(timeout: 10) { try HTTP.get(daemon.base + "/api/v1/hrv/\(pending)").json?["done"] as? Bool == true })
        let listed = try HTTP.get(daemon.base + "/api/v1/hrv").json?["readings"] as? [[String: Any]] ?? []
        #expect(listed.count == 3 && listed.allSatisfy { $0["hrv"] is [String: Any] }, "\(listed)")
        // Bad input: 400 naming the field, nothing stored.
        for (body, code) in [(#"{"seconds": 5}"#, "invalid_seconds"), (#"{"start": "soon"}"#, "invalid_start"),
                             (#"{"start": \#(rest + 3600)}"#, "invalid_start"), ("[1]", "invalid_json")] {
            let refused = try daemon.post("/api/v1/hrv", body: body)
            #expect(refused.status == 400 && (refused.json?["error"] as? [String: Any])?["code"] as? String == code, "\(body): \(refused.text)")
        }
        #expect((try HTTP.get(daemon.base + "/api/v1/hrv").json?["readings"] as? [[String: Any]])?.count == 3)

        // The page: the trend, the latest reading and the button, which starts a reading.
        var page = try HTTP.get(daemon.base + "/workouts")
        #expect(page.text.contains("data-resting-hrv") && page.text.contains(#"id="hrv-title""#), "\(page.text.prefix(300))")
        let latest = (listed.last?["hrv"] as? [String: Any])?["rmssd_ms"] as? NSNumber
        #expect(page.text.contains("RMSSD \(Self.one(latest?.doubleValue ?? 0)) ms"), "\(listed)")
        let form = try HTTP.request("POST", daemon.base + "/workouts", headers: [
            "Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/x-www-form-urlencoded",
        ], body: Data("action=measure-hrv".utf8))
        #expect(form.status == 303, "\(form.text)")
        page = try HTTP.get(daemon.base + "/workouts")
        #expect(page.text.contains("data-hrv-measuring"), "\(page.text.prefix(300))")
    }

    /// What a user does: `pacenote hrv` while the strap sends (here, pushes with RR intervals
    /// each second): it waits out the reading and prints it. (30 s, the shortest reading.)
    @Test func pacenoteHRVMeasuresTheNextSeconds() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let cli = try PacenoteProcess(["hrv", "--seconds", "30", "--db", daemon.dir.file("pacenote.sqlite")], captureOutput: true)
        let beats = Self.rr(count: 40, base: 1000, seed: 11)
        let start = Date()
        for i in 0..<34 {
            #expect(try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": 60, "rr": [\#(Int(beats[i]))]}"#).status == 200)
            Thread.sleep(until: start.addingTimeInterval(Double(i + 1)))
        }
        #expect(try cli.wait(timeout: 20) == 0, "\(cli.stderr)")
        #expect(cli.stdout.contains("RMSSD") && cli.stdout.contains("0 outside 300–2000 ms"), "\(cli.stdout) \(cli.stderr)")
        let readings = try HTTP.get(daemon.base + "/api/v1/hrv").json?["readings"] as? [[String: Any]] ?? []
        let figures = readings.first?["hrv"] as? [String: Any]
        // The reading's window holds the beats sent in its 30 s, about 30 of those sent.
        #expect(readings.count == 1 && readings.first?["done"] as? Bool == true, "\(readings)")
        #expect(((figures?["beats"] as? Int) ?? 0) >= 28 && ((figures?["beats"] as? Int) ?? 99) <= 32, "\(readings)")
    }

    @Test func healthDataIsPrivate() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\ntrusted_networks = []\n")
        for path in ["/api/v1/training-load", "/api/v1/hrv", "/api/v1/hrv/1"] {
            #expect(try HTTP.get(daemon.base + path).status == 403, "\(path)")
        }
        #expect(try HTTP.get(daemon.base + "/api/v1/training-load", headers: ["Authorization": "Token \(daemon.apiKey)"]).status == 200)
        #expect(try HTTP.request("POST", daemon.base + "/api/v1/hrv", body: Data("{}".utf8)).status == 401)
    }

    static func one(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}

/// RMSSD and SDNN against hrv-analysis (PyPI), run by python3 on the same RR series
/// (Clients/hrv_reference.py; scripts/test installs the package): within 0.1 ms, and the same
/// intervals removed.
@Suite struct HRVReferenceTests {
    @Test func rmssdAndSDNNEqualHrvAnalysis() throws {
        var artefacts = TrainingLoadTests.rr(count: 300, base: 950, seed: 3)
        artefacts[0] = 250                     // out of range at the start
        artefacts[40] = 2300                   // a dropout
        artefacts[41] = 2350                   // two in a row
        artefacts[90] = 600                    // a premature beat …
        artefacts[91] = 1300                   // … and the pause after it
        artefacts[150] = 1900                  // a missed beat, in range
        artefacts[220] = 700
        artefacts[299] = 3000                  // out of range at the end
        let series: [[Double]] = [
            TrainingLoadTests.rr(count: 120, base: 1000, seed: 1),   // resting, clean
            artefacts,
            TrainingLoadTests.rr(count: 900, base: 420, seed: 5),    // running
        ]
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/hrv_reference.py").path
        let input = "[" + series.map { "[" + $0.map { String(Int($0)) }.joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        let out = try run(try Tools.require("python3"), [script], input: input)
        let reference = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [[String: Any]], "\(out.stderr)")
        #expect(reference.count == series.count)
        for (rr, ref) in zip(series, reference) {
            let ours = try #require(HeartRateVariability(rr: rr))
            let rmssd = (ref["rmssd"] as? NSNumber)?.doubleValue ?? .nan, sdnn = (ref["sdnn"] as? NSNumber)?.doubleValue ?? .nan
            #expect(abs(ours.rmssd - rmssd) < 0.1 && abs(ours.sdnn - sdnn) < 0.1, "ours \(ours), hrv-analysis \(ref)")
            #expect(ours.outliers == ref["outliers"] as? Int && ours.ectopic == ref["ectopic"] as? Int, "ours \(ours), hrv-analysis \(ref)")
        }
        #expect(reference[1]["outliers"] as? Int == 4, "\(reference[1])")
    }
}
