import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// Plans through the real entry points (issue 55): `/api/v1/plans` over HTTP (made as JSON
/// and in the notation, changed, copied, exported and imported back, Zwift and FIT files
/// imported, impossible plans refused with the reason), and `pacenote plan` on the same
/// database.
@Suite struct PlansTests {
    static let zwo = """
        <workout_file><name>Over-unders</name><sportType>run</sportType><workout>
          <Warmup Duration="300" PowerLow="0.5" PowerHigh="0.7"/>
          <IntervalsT Repeat="3" OnDuration="60" OffDuration="90" OnPower="1.1" OffPower="0.65"/>
          <Cooldown Duration="120" PowerLow="0.6" PowerHigh="0.5"/>
        </workout></workout_file>
        """

    func send(_ daemon: PacenoteDaemon, _ method: String, _ path: String, _ body: String? = nil, key: Bool = true,
              type: String = "application/json") throws -> HTTPResult {
        var headers = ["Content-Type": type]
        if key { headers["Authorization"] = "Token \(daemon.apiKey)" }
        return try HTTP.request(method, daemon.base + path, headers: headers, body: body.map { Data($0.utf8) })
    }

    func code(_ r: HTTPResult) -> String? { (r.json?["error"] as? [String: Any])?["code"] as? String }
    func message(_ r: HTTPResult) -> String { ((r.json?["error"] as? [String: Any])?["message"] as? String) ?? r.text }

    @Test func plansAreMadeChangedCopiedExportedAndImportedOverHTTP() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        // As JSON, the API's own shape.
        let intervals = #"{"name": "Intervals", "sport": "running", "steps": [{"seconds": 600, "target": {"type": "zone", "zone": 2}, "label": "warm-up"}, {"repeat": 6, "steps": [{"seconds": 120, "target": {"type": "zone", "zone": 5}}, {"seconds": 180, "target": {"type": "zone", "zone": 2}}]}, {"open": true, "target": {"type": "zone", "zone": 1}, "label": "cool-down"}]}"#
        var r = try send(daemon, "POST", "/api/v1/plans", intervals)
        #expect(r.status == 201, "\(r.text)")
        let first = try #require(r.json?["id"] as? Int, "\(r.text)")
        #expect(r.json?["seconds"] as? Int == 600 + 6 * 300 && r.json?["open_ended"] as? Bool == true && r.json?["segments"] as? Int == 14)
        #expect(r.json?["text"] as? String == #"10 min Z2 "warm-up", 6 × [2 min Z5, 3 min Z2], open Z1 "cool-down""#, "\(r.text)")
        let timeline = try #require(r.json?["timeline"] as? [[String: Any]])
        #expect(timeline.count == 14 && timeline[1]["offset_s"] as? Int == 600 && timeline[1]["target_text"] as? String == "Z5")
        #expect(timeline[13]["seconds"] is NSNull && timeline[2]["rounds"] as? [Int] == [1])
        // In the notation, as the editor and `pacenote plan add` write it.
        r = try send(daemon, "POST", "/api/v1/plans", #"{"name": "Build", "text": "10 min Z2, 20 min Z2 -> Z4, 5 min 170-180 spm"}"#)
        #expect(r.status == 201 && r.json?["seconds"] as? Int == 2100, "\(r.text)")
        let build = try #require(r.json?["id"] as? Int)

        // Impossible plans: 400 with the reason, and nothing saved.
        let refused: [(String, String)] = [
            (#"{"name": "None", "steps": []}"#, "steps: a plan needs at least one segment"),
            (#"{"name": "Zero", "text": "0 s Z2"}"#, "a segment lasts at least one second"),
            (#"{"name": "Z7", "text": "10 min Z7"}"#, "zone 7 does not exist"),
            (#"{"name": "Day", "text": "30 h Z1"}"#, "over the 24 hours"),
            (#"{"name": "", "text": "10 min Z1"}"#, "a plan needs a name"),
            (#"{"name": "Bad", "steps": [{"seconds": 60, "target": {"type": "zone", "zone": "two"}}]}"#, "steps[0].target.zone: a whole number"),
            (#"{"name": "Both", "steps": [{"seconds": 60, "open": true}]}"#, "open-ended or lasts some seconds, not both"),
        ]
        for (body, reason) in refused {
            r = try send(daemon, "POST", "/api/v1/plans", body)
            #expect(r.status == 400 && code(r) == "invalid_plan" && message(r).contains(reason), "\(body): \(r.text)")
        }
        r = try send(daemon, "POST", "/api/v1/plans", "{not json")
        #expect(r.status == 400 && code(r) == "invalid_json", "\(r.text)")
        // A name is taken whatever its case.
        r = try send(daemon, "POST", "/api/v1/plans", #"{"name": "intervals", "text": "1 min Z1"}"#)
        #expect(r.status == 409 && code(r) == "plan_exists", "\(r.text)")
        // Writes need the key; reads from loopback (a trusted network) do not.
        #expect(try send(daemon, "POST", "/api/v1/plans", #"{"name": "X", "text": "1 min Z1"}"#, key: false).status == 401)
        var list = try #require(try HTTP.get(daemon.base + "/api/v1/plans").json?["plans"] as? [[String: Any]])
        #expect(list.map { $0["name"] as? String } == ["Build", "Intervals"])

        // Changed, then copied under a free name.
        r = try send(daemon, "PUT", "/api/v1/plans/\(build)", #"{"name": "Build up", "text": "10 min Z2, 20 min Z2 -> Z4"}"#)
        #expect(r.status == 200 && r.json?["name"] as? String == "Build up" && r.json?["seconds"] as? Int == 1800, "\(r.text)")
        #expect(try send(daemon, "PUT", "/api/v1/plans/999", #"{"name": "N", "text": "1 min Z1"}"#).status == 404)
        r = try send(daemon, "POST", "/api/v1/plans/\(first)/duplicate")
        #expect(r.status == 201 && r.json?["name"] as? String == "Intervals (copy)", "\(r.text)")
        r = try send(daemon, "POST", "/api/v1/plans/\(first)/duplicate")
        #expect(r.json?["name"] as? String == "Intervals (copy 2)", "\(r.text)")

        // Exported as a file, deleted, imported back: the same plan.
        let exported = try HTTP.get(daemon.base + "/api/v1/plans/\(first)/export")
        #expect(exported.status == 200 && exported.header("Content-Disposition")?.contains("Intervals.plan.json") == true, "\(exported.headers)")
        let before = try #require(try HTTP.get(daemon.base + "/api/v1/plans/\(first)").json?["plan"] as? [String: Any])
        r = try send(daemon, "DELETE", "/api/v1/plans/\(first)")
        #expect(r.status == 200, "\(r.text)")
        #expect(try HTTP.get(daemon.base + "/api/v1/plans/\(first)").status == 404)
        r = try send(daemon, "POST", "/api/v1/plans/import", exported.text)
        #expect(r.status == 201, "\(r.text)")
        let after = try #require(r.json?["plan"] as? [String: Any])
        #expect(NSDictionary(dictionary: after).isEqual(to: before), "\(after) vs \(before)")

        // A Zwift workout: power bands become zones, the ramps ramps.
        r = try send(daemon, "POST", "/api/v1/plans/import", Self.zwo, type: "application/xml")
        #expect(r.status == 201 && r.json?["name"] as? String == "Over-unders" && r.json?["seconds"] as? Int == 300 + 3 * 150 + 120, "\(r.text)")
        #expect(r.json?["text"] as? String == #"5 min Z1 → Z2 "warm-up", 3 × [1 min Z5 "on", 1:30 Z2 "off"], 2 min Z2 → Z1 "cool-down""#
                && r.json?["segments"] as? Int == 8, "\(r.text)")
        // Malformed files: 400 with the reason.
        for (body, reason) in [("<workout_file><workout/></workout_file>", "at least one segment"), ("hello", "not a plan file"),
                               (#"{"name": "x"}"#, "steps")] {
            r = try send(daemon, "POST", "/api/v1/plans/import", body, type: "application/octet-stream")
            #expect(r.status == 400 && code(r) == "invalid_plan" && message(r).contains(reason), "\(body): \(r.text)")
        }
        list = try #require(try HTTP.get(daemon.base + "/api/v1/plans").json?["plans"] as? [[String: Any]])
        #expect(list.count == 5, "\(list)")
    }

    @Test func aFITWorkoutImportsOverHTTPAndThePlanCommandWorksOnTheSameDatabase() throws {
        let python = try PlanFileImportTests.fitTool()
        let dir = try TemporaryDirectory("pacenote-plans")
        try run(python, [PlanFileImportTests.clients + "/fit_workout.py", dir.file("w.fit")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let fit = Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("w.fit"))))
        var r = try HTTP.request("POST", daemon.base + "/api/v1/plans/import", body: fit,
                                 headers: ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/vnd.ant.fit"])
        #expect(r.status == 201 && r.json?["name"] as? String == "6 x 2 min" && r.json?["segments"] as? Int == 23, "\(r.text)")
        #expect(r.json?["seconds"] as? Int == 600 + 6 * 300 + 1200 + 4 * 60)

        func pacenote(_ args: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try PacenoteProcess.run(args + ["--db", daemon.db], environment: ["HOME": daemon.dir.path])
        }
        try Self.zwo.write(toFile: dir.file("over.zwo"), atomically: true, encoding: .utf8)
        var out = try pacenote(["plan", "import", dir.file("over.zwo")])
        #expect(out.status == 0 && out.stdout.contains("Over-unders"), "\(out)")
        out = try pacenote(["plan", "add", "Tempo run", "10 min Z2, 20 min tempo 150-160, 5 min Z1", "--sport", "running"])
        #expect(out.status == 0, "\(out)")
        out = try pacenote(["plan", "list"])
        #expect(out.stdout.contains("6 x 2 min") && out.stdout.contains("Over-unders") && out.stdout.contains("Tempo run  35:00"), "\(out)")
        out = try pacenote(["plan", "show", "tempo RUN"])
        #expect(out.status == 0 && out.stdout.contains("10:00  20:00  tempo 150-160"), "\(out)")
        // What the server lists is what the command saved.
        let names = (try HTTP.get(daemon.base + "/api/v1/plans").json?["plans"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["6 x 2 min", "Over-unders", "Tempo run"], "\(String(describing: names))")
        // Exported, and imported back under another name after a delete.
        out = try pacenote(["plan", "export", "Tempo run"])
        try out.stdout.write(toFile: dir.file("tempo.json"), atomically: true, encoding: .utf8)
        #expect(try pacenote(["plan", "delete", "Tempo run"]).status == 0)
        out = try pacenote(["plan", "import", dir.file("tempo.json")])
        #expect(out.status == 0 && out.stdout.contains("Tempo run, 35:00"), "\(out)")
        // Clear refusals: a file that is no plan, an impossible plan, a name taken, an unknown plan.
        try "hello".write(toFile: dir.file("x.txt"), atomically: true, encoding: .utf8)
        out = try pacenote(["plan", "import", dir.file("x.txt")])
        #expect(out.status != 0 && out.stderr.contains("not a plan file"), "\(out)")
        out = try pacenote(["plan", "add", "Silly", "10 min Z9"])
        #expect(out.status != 0 && out.stderr.contains("zone 9 does not exist"), "\(out)")
        out = try pacenote(["plan", "add", "over-UNDERS", "1 min Z1"])
        #expect(out.status != 0 && out.stderr.contains("exists already"), "\(out)")
        out = try pacenote(["plan", "show", "Nothing"])
        #expect(out.status != 0 && out.stderr.contains("no plan named 'Nothing'"), "\(out)")
    }
}

/// A template across the weeks (issue 55, point 4): two runs of "2 min Z2" three weeks apart,
/// their readings sent as a watch uploads them late; the plan's history has each run's
/// compliance, its trend the first and the latest week's, and /plans says it in words.
@Suite struct PlanTrendTests {
    @Test func aPlansComplianceAcrossTheWeeksIsInItsHistoryAndOnThePlansPage() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        var r = try daemon.post("/api/v1/plans", body: #"{"name": "Steady", "text": "2 min Z2"}"#)
        let plan = try #require(r.json?["id"] as? Int)
        let now = Int(Date().timeIntervalSince1970)
        // Three weeks ago: a minute under Z2 (100 bpm is Z1 at the default max of 190), then a
        // minute in it; two hours ago: two minutes in Z2. A reading counts until the next (1 s).
        for (start, low) in [(now - 21 * 86_400, 60), (now - 7_200, 0)] {
            let beats = (0..<120).map { #"{"bpm": \#($0 < low ? 100 : 122), "ts": \#(start + $0)}"# }.joined(separator: ",")
            r = try daemon.post("/api/v1/hr?source=watch", body: "[\(beats)]")
            #expect(r.status == 200, "\(r.text)")
            #expect(try eventually {
                try daemon.sql("SELECT count(*) FROM workouts WHERE started_at_ms = \(start * 1000) AND ended_at_ms IS NOT NULL") == "1\n"
            })
            // No API starts a plan in the past: the run is given the plan as `start` would have.
            _ = try daemon.sql("""
                UPDATE workouts SET plan_id = \(plan), plan_json = (SELECT plan_json FROM plans WHERE id = \(plan)),
                  plan_started_at_ms = started_at_ms WHERE started_at_ms = \(start * 1000)
                """)
        }
        r = try HTTP.get(daemon.base + "/api/v1/plans/\(plan)")
        let history = try #require(r.json?["history"] as? [[String: Any]], "\(r.text)")
        // 59 of the 119 counted seconds in Z2 (the last reading counts until the run's end), then all.
        #expect(history.compactMap { ($0["compliance"] as? NSNumber)?.doubleValue } == [49.6, 100], "\(history)")
        let trend = try #require(r.json?["trend"] as? [String: Any], "\(r.text)")
        #expect((trend["first"] as? NSNumber)?.doubleValue == 49.6 && (trend["latest"] as? NSNumber)?.doubleValue == 100, "\(trend)")
        #expect((trend["weeks"] as? [[String: Any]])?.count == 2, "\(trend)")
        // The workout's own report says the same.
        let first = try #require(history.first?["workout_id"] as? Int)
        let report = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(first)").json?["plan_report"] as? [String: Any])
        #expect((report["compliance"] as? NSNumber)?.doubleValue == 49.6, "\(report)")
        #expect(((report["segments"] as? [[String: Any]])?.first?["hr_max"] as? Int) == 122, "\(report)")
        // In words, on the plans page.
        let month = DateFormatter()
        month.locale = Locale(identifier: "en_US_POSIX")
        month.timeZone = TimeZone(identifier: "UTC")
        month.dateFormat = "LLLL"
        var since = month.string(from: Date(timeIntervalSince1970: Double(now - 21 * 86_400)))
        month.dateFormat = "yyyy"
        let year = month.string(from: Date(timeIntervalSince1970: Double(now - 21 * 86_400)))
        if year != month.string(from: Date()) { since += " \(year)" }  // early January: last year's month
        let page = try HTTP.get(daemon.base + "/plans")
        #expect(page.text.contains("compliance 49.6 % → 100 % since \(since)"), "\(page.text.components(separatedBy: "data-plan-trend").last?.prefix(300) ?? "")")
        // The run's page draws the plan behind the curve and lists its segment.
        let workoutPage = try HTTP.get(daemon.base + "/workouts/\(first)")
        #expect(workoutPage.text.contains("class=\"plan-band\"") && workoutPage.text.contains("data-compliance=\"49.6\""))
    }
}
