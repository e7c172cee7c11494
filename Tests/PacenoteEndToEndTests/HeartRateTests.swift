import Foundation
import PacenoteTestSupport
import Testing

/// Heart rate through the real entry points: POST /api/v1/hr, `pacenote hr-feed`, and plays
/// on a real MPD while samples stream in.
@Suite struct HeartRateIngestTests {
    @Test func everyShapeAppsSendIsStored() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let now = Int(Date().timeIntervalSince1970)
        let bodies: [(String, String)] = [
            (#"{"bpm": 70, "ts": \#(now - 100)}"#, "application/json"),
            (#"{"hr": 71, "ts": \#(now - 99)}"#, "application/json"),
            (#"{"heart_rate": 72, "time": \#((now - 98) * 1000)}"#, "application/json"),
            (#"{"heartRate": 73, "ts": "\#(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(now - 97))))"}"#, "application/json"),
            (#"{"heartrate": 74, "ts": \#(now - 96)}"#, "application/json"),
            (#"{"measured_at": \#((now - 95) * 1000), "data": {"heart_rate": 75}}"#, "application/json"),
            (#"{"payload": {"bpm": 76, "ts": \#(now - 94), "rr": [800, 790]}}"#, "application/json"),
            ("heartRate:77", "text/plain"),
            ("bpm=78", "application/x-www-form-urlencoded"),
        ]
        for (i, (body, type)) in bodies.enumerated() {
            let r = try daemon.post("/api/v1/hr?source=app\(i)", body: body, contentType: type)
            #expect(r.status == 200, "\(body): \(r.text)")
            #expect(r.json?["stored"] as? Int == 1, "\(body): \(r.text)")
        }
        #expect(try daemon.sql("SELECT group_concat(bpm) FROM (SELECT bpm FROM hr_samples ORDER BY bpm)") == "70,71,72,73,74,75,76,77,78\n")
        #expect(try daemon.sql("SELECT rr_ms FROM hr_samples WHERE bpm = 76") == "[800.0,790.0]\n")
        let status = try daemon.status()["heart_rate"] as? [String: Any]
        #expect(status?["bpm"] as? Int != nil)
    }

    @Test func batchesDuplicatesAndBadInput() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let base = Int(Date().timeIntervalSince1970 * 1000) - 60_000
        let samples = (0..<10_000).map { #"{"bpm": \#(60 + $0 % 100), "ts": \#(base + $0)}"# }.joined(separator: ",")
        var r = try daemon.post("/api/v1/hr", body: #"{"source": "strap", "samples": [\#(samples)]}"#)
        #expect(r.status == 200)
        #expect(r.json?["stored"] as? Int == 10_000)
        // The same batch again: stored once.
        r = try daemon.post("/api/v1/hr", body: #"{"source": "strap", "samples": [\#(samples)]}"#)
        #expect(r.json?["stored"] as? Int == 0)
        #expect(r.json?["duplicates"] as? Int == 10_000)
        // Over the limit.
        r = try daemon.post("/api/v1/hr", body: "[" + Array(repeating: "70", count: 10_001).joined(separator: ",") + "]")
        #expect(r.status == 400)
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "invalid_samples")
        // Some bad samples: the good ones stored, the bad ones named by index and field.
        r = try daemon.post("/api/v1/hr", body: #"{"samples": [{"bpm": 90}, {"bpm": 20}, {"bpm": 91, "ts": 99999999999999}]}"#)
        #expect(r.status == 200)
        #expect(r.json?["stored"] as? Int == 1)
        let rejected = r.json?["rejected"] as? [[String: Any]] ?? []
        #expect(rejected.map { $0["index"] as? Int } == [1, 2])
        #expect(rejected.map { $0["field"] as? String } == ["bpm", "ts"])
        // Nothing usable: 400 naming the field; the database is untouched.
        let before = try daemon.sql("SELECT COUNT(*) FROM hr_samples")
        for (body, type, code) in [("{bpm: 7", "application/json", "invalid_body"), (#"{"bpm": 300}"#, "application/json", "invalid_bpm"),
                                   (#"{"rate": 80}"#, "application/json", "invalid_bpm"), ("<script>", "text/plain", "invalid_bpm"),
                                   (#"{"bpm": 80, "ts": "yesterday"}"#, "application/json", "invalid_ts")] {
            r = try daemon.post("/api/v1/hr", body: body, contentType: type)
            #expect(r.status == 400, "\(body)")
            #expect((r.json?["error"] as? [String: Any])?["code"] as? String == code, "\(body): \(r.text)")
        }
        #expect(try daemon.sql("SELECT COUNT(*) FROM hr_samples") == before)
    }

    @Test func writesNeedTheKey() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        var r = try HTTP.request("POST", daemon.base + "/api/v1/hr", body: Data(#"{"bpm": 70}"#.utf8))
        #expect(r.status == 401)
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "unauthorized")
        r = try daemon.post("/api/v1/hr", body: #"{"bpm": 70}"#, key: "pn_wrong")
        #expect(r.status == 401)
        #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "invalid_key")
        r = try HTTP.request("POST", daemon.base + "/api/v1/hr", headers: ["X-API-Key": daemon.apiKey], body: Data(#"{"bpm": 70}"#.utf8))
        #expect(r.status == 200)
        let mode = try FileManager.default.attributesOfItem(atPath: daemon.dir.file("api-key"))[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let shown = try PacenoteProcess.run(["key", "--db", daemon.db])
        #expect(shown.stdout == daemon.apiKey + "\n")
    }

    @Test func hrFeedReadsEveryLineFormat() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        /// hr-feed's standard error; `run` fails the test when it exits non-zero.
        func feed(_ lines: [String], format: String, source: String) throws -> String {
            let input = daemon.dir.file("in-\(source).txt")
            try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
            return try run("/bin/sh", ["-c", "'\(try PacenoteProcess.binary())' hr-feed --db '\(daemon.db)' --url \(daemon.base)/ --format \(format) --source \(source) < '\(input)'"]).stderr
        }
        var logs: [String: String] = [:]
        logs["auto"] = try feed(["61", "heartRate:62", #"{"bpm": 63}"#, "", "Notification handle = 0x000f value: 06 40"], format: "auto", source: "auto")
        logs["number"] = try feed(["65", "66"], format: "number", source: "number")
        logs["text"] = try feed(["heartRate: 67"], format: "text", source: "text")
        logs["json"] = try feed([#"{"hr": 68, "rr": [900]}"#], format: "json", source: "json")
        // BLE: uint8 with RR; uint16 with energy and RR; contact supported but not detected (dropped).
        logs["ble"] = try feed(["16 45 00 04", "19 46 00 10 00 00 04 00 02", "04 47", "Characteristic value was written successfully"],
                               format: "ble", source: "ble")
        // The reading without skin contact is dropped with its line named; blank lines and
        // gatttool's own chatter are not readings and pass silently.
        let problems = logs.mapValues { $0.split(separator: "\n").filter { $0.contains(": line ") } }
        #expect(problems == ["auto": [], "number": [], "text": [], "json": [],
                             "ble": ["pacenote hr-feed: line 3: contact: the sensor reports no skin contact"]], "\(logs)")
        let rows = try daemon.sql("SELECT source || ':' || bpm || ':' || COALESCE(rr_ms, '') FROM hr_samples ORDER BY source, bpm")
        #expect(rows.split(separator: "\n") == [
            "auto:61:", "auto:62:", "auto:63:", "auto:64:",
            "ble:69:[1000.0]", "ble:70:[1000.0,500.0]",
            "json:68:[900.0]", "number:65:", "number:66:", "text:67:",
        ])
    }

    @Test func hrFeedKeepsReadingsWhenTheKeyIsRefused() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let input = daemon.dir.file("in.txt")
        try "91\n92\n93\n".write(toFile: input, atomically: true, encoding: .utf8)
        func feed(key: String) throws -> (status: Int32, stdout: String, stderr: String) {
            try run("/bin/sh", ["-c", "'\(try PacenoteProcess.binary())' hr-feed --db '\(daemon.db)' --url \(daemon.base)/ < '\(input)'"],
                    environment: PacenoteProcess.cleanEnvironment(["PACENOTE_API_KEY": key, "HOME": daemon.dir.path]), allowFailure: true)
        }
        let refused = try feed(key: "pn_not_the_key_0123456789")
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("refused the API key"), "\(refused.stderr)")
        #expect(try daemon.sql("SELECT COUNT(*) FROM hr_samples") == "0\n")
        let buffered = try String(contentsOfFile: daemon.dir.file("hr-feed-buffer.jsonl"), encoding: .utf8)
        #expect(buffered.split(separator: "\n").count == 3)
        // With the right key, the buffered readings go first, then the new ones.
        try "94\n".write(toFile: input, atomically: true, encoding: .utf8)
        let sent = try feed(key: daemon.apiKey)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(try daemon.sql("SELECT group_concat(bpm) FROM (SELECT bpm FROM hr_samples ORDER BY at_ms)") == "91,92,93,94\n")
        #expect(!FileManager.default.fileExists(atPath: daemon.dir.file("hr-feed-buffer.jsonl")))
    }

    @Test func hrFeedLosesNothingAcrossAServerRestart() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let port = daemon.port
        // hr-feed reads from a pipe we write to, line by line, with pauses.
        let feed = Process()
        feed.executableURL = URL(fileURLWithPath: try PacenoteProcess.binary())
        feed.arguments = ["hr-feed", "--db", daemon.db, "--url", "http://127.0.0.1:\(port)/", "--batch", "5"]
        feed.environment = PacenoteProcess.cleanEnvironment(["HOME": daemon.dir.path])
        let stdin = Pipe()
        feed.standardInput = stdin
        feed.standardError = FileHandle.nullDevice
        try feed.run()
        func send(_ values: ClosedRange<Int>) {
            for v in values {
                stdin.fileHandleForWriting.write(Data("\(v)\n".utf8))
                usleep(20_000)
            }
        }
        send(60...79)
        // Each reading is sent as it comes: the server has the first 20 before it stops.
        #expect(eventually { (try? daemon.sql("SELECT COUNT(*) FROM hr_samples")) == "20\n" })
        try daemon.stop()                     // the server goes away...
        send(80...109)                        // ...while readings keep coming
        // hr-feed found it away and keeps the 30 in its buffer beside the database (with, at
        // the most, the last batch before the stop again, whose answer the stop may have cut).
        let buffer = daemon.dir.file("hr-feed-buffer.jsonl")
        func buffered() -> [Int] {
            ((try? String(contentsOfFile: buffer, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["bpm"] as? Int
            }
        }
        #expect(eventually { buffered().filter { $0 >= 80 } == Array(80...109) }, "\(buffered())")
        try daemon.restart(pause: 0, samePort: true)
        send(110...119)
        try stdin.fileHandleForWriting.close()
        feed.waitUntilExit()
        #expect(feed.terminationStatus == 0)
        #expect(try daemon.sql("SELECT COUNT(*), MIN(bpm), MAX(bpm) FROM hr_samples") == "60|60|119\n")
    }

    /// Stopped by a service manager (SIGTERM) or Ctrl-C (SIGINT, to the process alone)
    /// while the server is away: hr-feed exits cleanly with every reading in its buffer.
    @Test(arguments: [SIGTERM, SIGINT])
    func hrFeedStoppedByASignalKeepsItsReadings(signal: Int32) throws {
        let dir = try TemporaryDirectory()
        let buffer = dir.file("buffer.jsonl")
        let feed = Process()
        feed.executableURL = URL(fileURLWithPath: try PacenoteProcess.binary())
        feed.arguments = ["hr-feed", "--db", dir.file("p.sqlite"), "--url", "http://127.0.0.1:1/", "--buffer", buffer]
        feed.environment = PacenoteProcess.cleanEnvironment(["HOME": dir.path])
        let stdin = Pipe()
        let stderr = Pipe()
        feed.standardInput = stdin
        feed.standardError = stderr
        try feed.run()
        defer { if feed.isRunning { kill(feed.processIdentifier, SIGKILL) } }
        for v in 70...74 { stdin.fileHandleForWriting.write(Data("\(v)\n".utf8)) }
        // Running, and it found the server away: its buffer file is written.
        #expect(eventually { FileManager.default.fileExists(atPath: buffer) })
        // Sent again each second until it ends: a process started by one that ignores the
        // signal (a test process that handles its own) ignores it too until hr-feed takes it
        // over, and on a loaded box that can be later than half a second.
        var stopped = false
        for _ in 0..<15 where !stopped {
            kill(feed.processIdentifier, signal)
            stopped = eventually(timeout: 1) { !feed.isRunning }
        }
        #expect(stopped)
        feed.waitUntilExit()
        let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(feed.terminationReason == .exit && feed.terminationStatus == 0, "\(log)")
        #expect(log.contains("5 readings kept in \(buffer)"), "\(log)")
        let kept = try String(contentsOfFile: buffer, encoding: .utf8).split(separator: "\n")
        #expect(kept.count == 5 && kept.allSatisfy { $0.hasPrefix("{\"bpm\":7") }, "\(kept)")
        try stdin.fileHandleForWriting.close()
    }
}
