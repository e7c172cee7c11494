import Foundation
import PacenoteTestSupport
import Testing

/// Issue 21, points 3 and 4: a strap's readings reach the status and the event stream at
/// its own rate within 100 ms, and a workout in progress shows its figures so far — in the
/// API, on its page, and live on the event stream.
@Suite struct LiveWorkoutTests {
    /// Timestamps as the API writes them: UTC, milliseconds.
    static func iso(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    static func milliseconds(_ iso: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: iso).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    static func nowMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    static func sleep(untilMs ms: Int64) {
        let wait = ms - nowMs()
        if wait > 0 { usleep(UInt32(wait) * 1000) }
    }

    static func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// A workout's time in zone, average and maximum as `/api/v1/workouts/{id}` gives them.
    struct Figures: Equatable, CustomStringConvertible {
        var timeInZone: [Double]
        var average: Double?
        var maximum: Int?
        var inProgress: Bool

        init(_ json: [String: Any]) {
            timeInZone = (json["time_in_zone_s"] as? [NSNumber] ?? []).map(\.doubleValue)
            average = (json["hr_avg"] as? NSNumber)?.doubleValue
            maximum = json["hr_max"] as? Int
            inProgress = json["in_progress"] as? Bool ?? false
        }

        init(_ timeInZone: [Double], average: Double?, maximum: Int?, inProgress: Bool = true) {
            self.timeInZone = timeInZone
            self.average = average
            self.maximum = maximum
            self.inProgress = inProgress
        }

        var description: String {
            "\(timeInZone) avg \(average.map { "\($0)" } ?? "nil") max \(maximum.map { "\($0)" } ?? "nil")"
        }
    }

    static func figures(_ daemon: PacenoteDaemon, _ id: Int) throws -> Figures {
        let r = try HTTP.get(daemon.base + "/api/v1/workouts/\(id)")
        guard r.status == 200, let json = r.json else { throw HarnessError("workout \(id): \(r.status) \(r.text)") }
        return Figures(json)
    }

    /// Starts a workout by hand; its id and start (ms).
    static func startWorkout(_ daemon: PacenoteDaemon) throws -> (id: Int, startedMs: Int64) {
        let r = try daemon.post("/api/v1/workouts", body: #"{"name": "Intervals"}"#)
        guard r.status == 201, let id = r.json?["id"] as? Int else { throw HarnessError("start: \(r.status) \(r.text)") }
        let detail = try HTTP.get(daemon.base + "/api/v1/workouts/\(id)").json
        guard let started = (detail?["started_at"] as? String).flatMap(milliseconds) else { throw HarnessError("no start: \(detail ?? [:])") }
        return (id, started)
    }

    @Test func aWorkoutInProgressShowsItsFiguresSoFar() throws {
        // Zones of 200 bpm: Z1 from 100, Z2 120, Z3 140, Z4 160, Z5 180.
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[heart_rate]\nmax_hr = 200\n")
        let stream = try EventStreamClient(port: daemon.port)
        #expect(stream.waitUntilConnected())
        let (id, started) = try Self.startWorkout(daemon)
        // Nothing counted yet: zeros, no average, no maximum.
        #expect(try Self.figures(daemon, id) == Figures([0, 0, 0, 0, 0, 0], average: nil, maximum: nil))

        // A strap at 4 Hz from just after the start, each reading sent as it is taken:
        // 8 at 110 bpm (Z1), 4 at 150 (Z3), 5 at 170 (Z4).
        let readings: [(ms: Int64, bpm: Int)] = (0..<17).map { i in (started + 100 + Int64(i) * 250, i < 8 ? 110 : i < 12 ? 150 : 170) }
        func push(_ range: Range<Int>) throws {
            for (ms, bpm) in readings[range] {
                Self.sleep(untilMs: ms)
                let r = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": \#(bpm), "ts": \#(ms)}"#)
                #expect(r.status == 200 && r.json?["stored"] as? Int == 1, "\(r.text)")
            }
        }
        try push(0..<9)
        // Each reading counts until the next, the latest not yet: 8 × 0.25 s in Z1, the one
        // reading in Z3 nothing; (8 × 110 + 150) / 9 = 114.44 bpm.
        let midway = Figures([0, 2, 0, 0, 0, 0], average: 114.4, maximum: 150)
        #expect(try Self.figures(daemon, id) == midway)
        try push(9..<17)
        let soFar = Figures([0, 2, 0, 1, 1, 0], average: 137.1, maximum: 170)  // (8 × 110 + 4 × 150 + 5 × 170) / 17
        #expect(try Self.figures(daemon, id) == soFar)
        let listed = try #require(try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]])
        #expect(listed.count == 1 && Figures(listed[0]) == soFar, "\(listed)")

        // The event stream said the same after each reading, and carried each reading once, in order.
        #expect(stream.wait { $0.filter { $0.name == "workout_progress" }.count >= 17 })
        let progress = stream.events.filter { $0.name == "workout_progress" }.compactMap(\.json)
        #expect(progress.count == 17, "\(progress)")
        let carried = progress.flatMap { ($0["samples"] as? [[String: Any]]) ?? [] }
        #expect(carried.map { $0["at"] as? String } == readings.map { Self.iso($0.ms) })
        #expect(carried.map { $0["bpm"] as? Int } == readings.map(\.bpm))
        #expect(progress.allSatisfy { $0["id"] as? Int == id })
        #expect(progress.last.map(Figures.init) == Figures(soFar.timeInZone, average: soFar.average, maximum: soFar.maximum, inProgress: false),
                "\(progress.last ?? [:])")
        #expect(progress.last?["at"] as? String == Self.iso(readings[16].ms))
        #expect((progress.last?["duration_s"] as? NSNumber)?.doubleValue == 4)  // 4.1 s, to the second
        #expect(Figures(progress[8]) == Figures(midway.timeInZone, average: midway.average, maximum: midway.maximum, inProgress: false))

        // Its page shows the same figures, and follows the event stream from where it was made.
        let page = try HTTP.get(daemon.base + "/workouts/\(id)")
        #expect(page.status == 200)
        #expect(page.text.contains("data-live-workout=\"\(id)\""), "\(page.text)")
        #expect(page.text.contains("<span data-w-avg=\"\">137</span> bpm · max <span data-w-max=\"\">170</span>"), "\(page.text)")
        #expect(page.text.contains("/static/live.js"))
        let lastEvent = try #require(stream.events.last?.id)
        #expect(page.text.contains("data-last-event=\"\(lastEvent)\""), "\(page.text)")
        let zoneTexts = page.text.components(separatedBy: "<text class=\"value\"").dropFirst().map {
            String($0.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
        }
        #expect(zoneTexts == ["0 s", "2 s", "0 s", "1 s", "1 s", "0 s"], "\(zoneTexts)")

        // Stopped by hand a moment later: the same sum, the latest reading counted until the stop.
        usleep(300_000)
        #expect(try daemon.post("/api/v1/workouts/\(id)/stop", body: "").status == 200)
        let final = try Self.figures(daemon, id)
        #expect(!final.inProgress && final.average == 137.1 && final.maximum == 170, "\(final)")
        #expect(Array(final.timeInZone[0..<4]) == [0, 2, 0, 1] && final.timeInZone[5] == 0, "\(final)")
        #expect(final.timeInZone[4] >= 1.2 && final.timeInZone[4] <= 6, "\(final)")
        #expect(stream.wait { $0.contains { $0.name == "workout_ended" } })
        // The page is a finished workout's: no longer live.
        let done = try HTTP.get(daemon.base + "/workouts/\(id)").text
        #expect(!done.contains("data-live-workout") && !done.contains("/static/live.js"))
    }

    /// How long each of a window's readings took to arrive (ms), or why the window failed.
    struct Window {
        var latencies: [String: [Double]] = [:]
        var within100ms: Bool { latencies.values.allSatisfy { $0.allSatisfy { $0 < 100 } } }
        var description: String { latencies.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.map { Int($0.rounded()) })" }.joined(separator: "; ") }
    }

    /// Timing on a shared machine: the suite runs browsers, MPDs and daemons beside this test
    /// on two cores, and a descheduled process can stall any one reading for longer than the
    /// product does. Completeness and order are checked in every window; the 100 ms bound
    /// must hold for every reading of one whole window, within three.
    static func timed(_ what: String, attempts: Int = 3, _ window: (Int) throws -> Window?) throws {
        var tried: [String] = []
        for attempt in 1...attempts {
            guard let result = try window(attempt) else { return }  // already failed, with its own issues
            if result.within100ms {
                print("\(what), window \(attempt) (ms): \(result.description)")
                return
            }
            tried.append("window \(attempt): \(result.description)")
        }
        let report = tried.joined(separator: "\n")
        Issue.record(Comment(rawValue: "\(what): no window of readings all within 100 ms\n\(report)"))
    }

    /// A strap at 4 Hz for five seconds, over HTTP: every reading is on the status as soon as
    /// its request returns, and on the event stream — each one, in order, none merged —
    /// within 100 ms of being sent, at the strap's rate.
    @Test func everyReadingReachesTheStatusAndTheEventStreamWithin100ms() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let stream = try EventStreamClient(port: daemon.port)
        #expect(stream.waitUntilConnected())
        let (id, _) = try Self.startWorkout(daemon)
        try Self.timed("push → status and event stream") { attempt in
            let seen = stream.events.count
            var pushes: [(ms: Int64, bpm: Int, sent: UInt64)] = []
            var statusLatencies: [Double] = []
            let first = Self.nowMs() + 50
            for i in 0..<20 {
                Self.sleep(untilMs: first + Int64(i) * 250)
                // Within 30 bpm of each other: a bigger jump is held until the next reading confirms it.
                let bpm = 120 + (i * 7) % 20
                let ms = Self.nowMs()
                let sent = Self.uptime()
                let r = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": \#(bpm), "ts": \#(ms)}"#)
                #expect(r.status == 200, "\(r.text)")
                let live = try daemon.status()["heart_rate"] as? [String: Any]
                statusLatencies.append(Double(Self.uptime() - sent) / 1e6)
                #expect(live?["at"] as? String == Self.iso(ms), "\(live ?? [:])")
                #expect(live?["workout_id"] as? Int == id)
                pushes.append((ms, bpm, sent))
            }
            #expect(stream.wait { events in events.dropFirst(seen).filter { $0.name == "workout_progress" }.count >= pushes.count })
            let events = Array(stream.events.dropFirst(seen))
            let beats = events.filter { $0.name == "heart_rate" }
            #expect(beats.compactMap { $0.json?["at"] as? String } == pushes.map { Self.iso($0.ms) }, "\(beats.map(\.data))")
            let progress = events.filter { $0.name == "workout_progress" }
            let carried = progress.map { ($0.json?["samples"] as? [[String: Any]] ?? []).map { $0["at"] as? String ?? "" } }
            #expect(carried == pushes.map { [Self.iso($0.ms)] }, "\(progress.map(\.data))")
            guard beats.count == pushes.count, progress.count == pushes.count else { return nil }
            // At the strap's own rate: 19 intervals of a quarter second between the first and the last.
            let rate = Double(beats.count - 1) / (Double(beats.last!.arrived - beats.first!.arrived) / 1e9)
            #expect(rate > 3.5 && rate < 4.5, "received \(rate) readings/s")
            return Window(latencies: [
                "push → heart_rate": zip(beats, pushes).map { Double($0.arrived - $1.sent) / 1e6 },
                "push → workout_progress": zip(progress, pushes).map { Double($0.arrived - $1.sent) / 1e6 },
                "push → status": statusLatencies,
            ])
        }
    }

    /// The same from `pacenote hr-feed` reading a strap's lines on its standard input: each
    /// line is sent as it is read, and reaches the event stream within 100 ms.
    @Test func hrFeedSendsEachReadingAsItIsRead() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let stream = try EventStreamClient(port: daemon.port)
        #expect(stream.waitUntilConnected())
        let feed = Process()
        feed.executableURL = URL(fileURLWithPath: try PacenoteProcess.binary())
        feed.arguments = ["hr-feed", "--db", daemon.db, "--url", daemon.base + "/", "--format", "json", "--source", "strap"]
        feed.environment = PacenoteProcess.cleanEnvironment(["HOME": daemon.dir.path])
        let stdin = Pipe()
        feed.standardInput = stdin
        feed.standardError = FileHandle.nullDevice
        try feed.run()
        defer { if feed.isRunning { feed.terminate() } }
        var written = 0
        try Self.timed("hr-feed's standard input → event stream") { attempt in
            let seen = stream.events.count
            var lines: [(ms: Int64, written: UInt64)] = []
            let first = Self.nowMs() + 300
            for i in 0..<17 {
                Self.sleep(untilMs: first + Int64(i) * 250)
                let ms = Self.nowMs()
                let at = Self.uptime()
                stdin.fileHandleForWriting.write(Data(#"{"bpm": \#(130 + i % 3), "ts": \#(ms)}"#.utf8 + [10]))
                lines.append((ms, at))
            }
            written += lines.count
            #expect(stream.wait { $0.dropFirst(seen).filter { $0.name == "heart_rate" }.count >= lines.count })
            let beats = stream.events.dropFirst(seen).filter { $0.name == "heart_rate" }
            #expect(beats.compactMap { $0.json?["at"] as? String } == lines.map { Self.iso($0.ms) }, "\(beats.map(\.data))")
            guard beats.count == lines.count else { return nil }
            // The first line also starts hr-feed's HTTP client: timed from the second on.
            let latencies = zip(beats, lines).dropFirst(attempt == 1 ? 1 : 0).map { Double($0.arrived - $1.written) / 1e6 }
            return Window(latencies: ["stdin → heart_rate": latencies])
        }
        try stdin.fileHandleForWriting.close()
        feed.waitUntilExit()
        #expect(feed.terminationStatus == 0)
        #expect(try daemon.sql("SELECT COUNT(*) FROM hr_samples WHERE source = 'strap'") == "\(written)\n")
    }
}

/// A workout in progress in a real browser: its page follows the event stream, and its
/// curve, figures and time in zone change as readings arrive, without a reload.
@Suite struct LiveWorkoutBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/workout_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/workout-browser").path

    @Test func theWorkoutPageFollowsItsReadings() throws {
        let python = try SiteBrowserTests.python()
        let start = Date()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[heart_rate]\nmax_hr = 200\n")
        let (id, _) = try LiveWorkoutTests.startWorkout(daemon)
        // Two seconds of Z1 before the page is opened.
        for bpm in stride(from: 110, through: 124, by: 2) {
            #expect(try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": \#(bpm)}"#).status == 200)
            usleep(250_000)
        }
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, String(id), Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 12, "\(r.stdout)")
        #expect(summary?["screenshots"] as? [String] == ["workout-live.png"], "\(r.stdout)")
        let path = Self.artifacts + "/workout-live.png"
        let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
        #expect(modified >= start && (FileManager.default.contents(atPath: path)?.count ?? 0) > 16_000)
    }
}
