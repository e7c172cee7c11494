import Foundation
import PacenoteTestSupport
import Testing

/// `[[forward]]` with real peers on loopback: other Pacenotes (over the ListenBrainz and the
/// Audioscrobbler 2.0 APIs), a real Maloja, and a service that limits requests. Plays come
/// from a private MPD; the outbox must deliver each counted play exactly once whatever stops.
@Suite(.serialized) struct ForwardingTests {
    static let quick = "[plays]\nmin_track_s = 1\n"
    static var clients: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients") }

    static func listenBrainz(_ name: String, url: String, token: String, extra: String = "") -> String {
        "\n[[forward]]\nname = \"\(name)\"\nkind = \"listenbrainz\"\nurl = \"\(url)\"\ntoken = \"\(token)\"\n\(extra)"
    }

    static func tracks(_ prefix: String, _ count: Int, seconds: Double = 2) -> [TestTrack] {
        (1...count).map { TestTrack("\(prefix)\($0).flac", seconds: seconds, title: "\(prefix) Song \($0)", artist: "Forwarder",
                                    album: "Outbox", frequency: 300 + 40 * $0) }
    }

    /// Plays the whole queue once, and waits until the daemon logged `count` counted plays.
    static func playAll(_ mpd: MPDInstance, _ daemon: PacenoteDaemon, counted count: Int, files: [String] = ["/"]) throws {
        guard try eventually(timeout: 10, { try daemon.mpdConnected() }) else { throw HarnessError("pacenote did not connect to mpd") }
        try mpd.mpc("clear")
        for file in files { try mpd.mpc("add", file) }
        try mpd.mpc("play")
        guard try eventually(timeout: 40, { try daemon.listens().filter(\.counted).count >= count }) else {
            throw HarnessError("MPD's plays were not logged: \(try daemon.listens())")
        }
    }

    /// What two histories are compared by: the song and its start, to the second.
    static func keys(_ listens: [PacenoteDaemon.Listen]) -> [String] {
        listens.filter(\.counted).map { "\($0.title ?? "?")@\(Int($0.startedAt?.timeIntervalSince1970 ?? 0))" }.sorted()
    }

    static func forwardStatus(_ daemon: PacenoteDaemon) throws -> [String: Any] {
        try #require((try daemon.status()["forward"] as? [[String: Any]])?.first)
    }

    /// MPD → A → B → C: A forwards to B over the ListenBrainz API, B forwards on to C; a skip
    /// stays on A. Each ends with the same counted plays, once.
    @Test func aChainOfPacenotesEndsWithTheSamePlays() throws {
        let c = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let b = try PacenoteDaemon(mpd: "127.0.0.1:1", config: Self.listenBrainz("c", url: c.base, token: c.apiKey))
        let mpd = try MPDInstance(tracks: Self.tracks("Chain", 3) + [TestTrack("skip.flac", seconds: 30, title: "Skipped", artist: "Forwarder")])
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)",
                                   config: Self.quick + Self.listenBrainz("b", url: b.base, token: b.apiKey))
        try Self.playAll(mpd, a, counted: 3)
        // The long song, skipped after a second.
        try mpd.mpc("play", String(try mpd.mpc("playlist", "-f", "%title%").split(separator: "\n").firstIndex(of: "Skipped")! + 1))
        Thread.sleep(forTimeInterval: 1.2)  // the time it plays, under the rule's minimum: a skip
        try mpd.mpc("stop")
        #expect(try eventually(timeout: 10) { try a.listens().contains { !$0.counted } }, "\(String(describing: try? a.listens()))")
        let expected = Self.keys(try a.listens())
        #expect(expected.count >= 3)
        #expect(try eventually(timeout: 20) { Self.keys(try c.listens()) == expected }, "\(String(describing: try? c.listens()))")
        #expect(Self.keys(try b.listens()) == expected)
        #expect(try b.listens().allSatisfy { $0.counted && $0.json["source"] as? String == "listenbrainz" })
        #expect(try c.listens().count == expected.count, "the skip never leaves, nothing twice")
        let status = try Self.forwardStatus(a)
        #expect(status["sent"] as? Int == expected.count && status["queued"] as? Int == 0, "\(status)")
        #expect(status["last_success_at"] is String)
        // The CLI beside the running server says the same.
        let cli = try PacenoteProcess.run(["forward", "status", "--json", "--config", a.dir.file("config.toml"), "--db", a.db])
        let targets = try #require((try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])?["targets"] as? [[String: Any]], "\(cli.stderr)")
        #expect(targets.first?["sent"] as? Int == expected.count, "\(targets)")
    }

    /// The target is down while MPD plays, Pacenote is SIGKILLed with plays queued and
    /// started again, then the target comes back: it ends with every counted play once.
    @Test func theOutboxSurvivesATargetDownAndSIGKILL() throws {
        let b = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let bKey = b.apiKey, bBase = b.base
        try b.stop()
        let mpd = try MPDInstance(tracks: Self.tracks("Outage", 3))
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)",
                                   config: Self.quick + Self.listenBrainz("b", url: bBase, token: bKey))
        try Self.playAll(mpd, a, counted: 3)
        #expect(try eventually(timeout: 10) {
            let s = try Self.forwardStatus(a)
            return s["queued"] as? Int == 3 && (s["last_error"] as? String)?.contains("onnect") == true
        }, "\(String(describing: try? Self.forwardStatus(a)))")
        #expect(try Self.forwardStatus(a)["next_attempt_at"] is String)
        try a.restart(kill9: true)
        #expect(try Self.forwardStatus(a)["queued"] as? Int == 3, "the queue outlives SIGKILL")
        try b.restart(samePort: true)
        let expected = Self.keys(try a.listens())
        #expect(try eventually(timeout: 30) { Self.keys(try b.listens()) == expected }, "\(String(describing: try? b.listens()))")
        // The outbox empty, every play marked sent: nothing is left to send twice.
        #expect(try eventually(timeout: 10) {
            let status = try Self.forwardStatus(a)
            return status["queued"] as? Int == 0 && status["sent"] as? Int == 3
        }, "\(String(describing: try? Self.forwardStatus(a)))")
        #expect(try b.listens().count == 3)
    }

    /// A `lastfm` target: before `forward login` the plays wait; the login asks for the
    /// password once and keeps only the session; then they go, and the song playing now too.
    @Test func anAudioscrobblerTargetLogsInThenScrobbles() throws {
        let b = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let mpd = try MPDInstance(tracks: Self.tracks("Scrobbled", 2) + [TestTrack("long.flac", seconds: 60, title: "Still Playing", artist: "Forwarder")])
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: Self.quick + """

            [[forward]]
            name = "b"
            kind = "lastfm"
            url = "\(b.base)/apis/audioscrobbler/2.0/"
            api_key = "pacenote-test-key"
            api_secret = "pacenote-test-secret"
            """)
        try Self.playAll(mpd, a, counted: 2, files: ["Scrobbled1.flac", "Scrobbled2.flac"])
        #expect(try eventually(timeout: 10) { (try Self.forwardStatus(a)["last_error"] as? String)?.contains("forward login") == true },
                "\(String(describing: try? Self.forwardStatus(a)))")
        #expect(try b.listens().isEmpty)
        let wrong = try PacenoteProcess.run(["forward", "login", "b", "--username", "alice", "--config", a.dir.file("config.toml"),
                                             "--db", a.db], input: "not-a-key\n")
        #expect(wrong.status != 0 && wrong.stderr.contains("refused"), "\(wrong)")
        let login = try PacenoteProcess.run(["forward", "login", "b", "--username", "alice", "--config", a.dir.file("config.toml"),
                                             "--db", a.db], input: b.apiKey + "\n")
        #expect(login.status == 0 && login.stdout.contains("logged in as alice"), "\(login)")
        #expect(try !a.sql("SELECT count(*) FROM forward_targets WHERE session_key IS NOT NULL").contains("0"))
        #expect(try !String(contentsOfFile: a.db, encoding: .isoLatin1).contains(b.apiKey), "the password is never stored")
        let expected = Self.keys(try a.listens())
        #expect(try eventually(timeout: 20) { Self.keys(try b.listens()) == expected }, "\(String(describing: try? b.listens()))")
        #expect(try b.listens().allSatisfy { $0.json["source"] as? String == "audioscrobbler" && $0.player == "alice" })
        #expect(try Self.forwardStatus(a)["logged_in_as"] as? String == "alice")
        // Now playing is sent live (never queued).
        try mpd.mpc("add", "long.flac")
        try mpd.mpc("play", "3")
        #expect(try eventually(timeout: 15) {
            let elsewhere = try b.status()["now_playing_elsewhere"] as? [[String: Any]] ?? []
            return elsewhere.contains { ($0["track"] as? [String: Any])?["title"] as? String == "Still Playing" }
        }, "\(String(describing: try? b.status()))")
    }

    /// A play the target refuses is parked with the reason and the others go on; `retry`
    /// queues it again. Imported history is not forwarded until `backfill`, which never
    /// sends a play twice.
    @Test func refusedPlaysAreParkedAndTheHistoryIsBackfilledOnce() throws {
        let b = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let mpd = try MPDInstance(tracks: [TestTrack("untagged.flac", seconds: 2, title: "No Artist"),
                                           TestTrack("tagged.flac", seconds: 2, title: "With Artist", artist: "Forwarder")])
        let config = Self.quick + Self.listenBrainz("b", url: b.base, token: b.apiKey)
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: config)
        let history = a.dir.file("history.jsonl")
        try (0..<5).map { i in
            #"{"listened_at": \#(1_600_000_000 + i * 600), "track_metadata": {"artist_name": "Past", "track_name": "Old \#(i)"}}"#
        }.joined(separator: "\n").write(toFile: history, atomically: true, encoding: .utf8)
        let imported = try PacenoteProcess.run(["import", history, "--config", a.dir.file("config.toml"), "--db", a.db])
        #expect(imported.status == 0, "\(imported.stderr)")
        try Self.playAll(mpd, a, counted: 7)
        #expect(try eventually(timeout: 15) { try b.listens().map(\.title) == ["With Artist"] }, "\(String(describing: try? b.listens()))")
        // The refused play is parked when the sender gets to it: on a loaded box that can be
        // after the other has arrived.
        var status: [String: Any] = [:]
        #expect(try eventually(timeout: 15) {
            status = try Self.forwardStatus(a)
            return status["parked"] as? Int == 1
        }, "\(status)")
        #expect((status["last_error"] as? String)?.contains("no artist") == true, "\(status)")
        let cli = try PacenoteProcess.run(["forward", "status", "--config", a.dir.file("config.toml"), "--db", a.db])
        #expect(cli.stdout.contains("parked") && cli.stdout.contains("No Artist") && cli.stdout.contains("no artist name"), "\(cli.stdout)")
        // The site says the same (the submissions page's "Forwarded" section).
        let page = try HTTP.get(a.base + "/submissions")
        #expect(page.status == 200 && page.text.contains("Forwarded") && page.text.contains("Refused plays")
                && page.text.contains("No Artist") && page.text.contains("no artist name"), "\(page.text.prefix(3000))")
        let retry = try PacenoteProcess.run(["forward", "retry", "--config", a.dir.file("config.toml"), "--db", a.db])
        #expect(retry.stdout.contains("1 parked play queued again"), "\(retry)")
        #expect(try eventually(timeout: 15) { try Self.forwardStatus(a)["parked"] as? Int == 1 }, "parked again, for the same reason")
        // The page's "Send again" (shown to whoever may write) does the same.
        let owned = try HTTP.get(a.base + "/submissions", headers: ["Authorization": "Token \(a.apiKey)"])
        #expect(owned.text.contains(#"name="action" value="retry""#), "\(owned.text.prefix(3000))")
        let again = try a.post("/submissions", body: "target=b&action=retry", contentType: "application/x-www-form-urlencoded")
        #expect(again.status == 200 && again.text.contains("1 refused play queued again for b"), "\(again.status) \(again.text.prefix(2000))")
        #expect(try eventually(timeout: 15) { try Self.forwardStatus(a)["parked"] as? Int == 1 })

        let unknown = try PacenoteProcess.run(["forward", "backfill", "nowhere", "--from", "2020-01-01",
                                               "--config", a.dir.file("config.toml"), "--db", a.db])
        #expect(unknown.status != 0 && unknown.stderr.contains("no [[forward]] target is named 'nowhere'"), "\(unknown)")
        let backfill = try PacenoteProcess.run(["forward", "backfill", "b", "--from", "2020-01-01",
                                                "--config", a.dir.file("config.toml"), "--db", a.db])
        #expect(backfill.stdout.contains("5 plays queued for b"), "\(backfill)")
        #expect(try eventually(timeout: 20) { try b.listens().count == 6 }, "\(String(describing: try? b.listens()))")
        let twice = try PacenoteProcess.run(["forward", "backfill", "b", "--from", "2000-01-01",
                                             "--config", a.dir.file("config.toml"), "--db", a.db])
        #expect(twice.stdout.contains("0 plays queued for b"), "\(twice)")
        status = try Self.forwardStatus(a)
        #expect(status["sent"] as? Int == 6 && status["queued"] as? Int == 0, "\(status)")
    }

    /// A service that limits requests: the first answer is 429 with Retry-After; Pacenote
    /// waits as asked, names itself, and then sends the backlog in batches.
    @Test func retryAfterIsHonouredAndEveryRequestNamesItself() throws {
        let python = try Tools.require("python3")
        let dir = try TemporaryDirectory("limited")
        let port = try Ports.free()
        let service = Process()
        service.executableURL = URL(fileURLWithPath: python)
        service.arguments = [Self.clients.appendingPathComponent("limited_service.py").path, String(port), dir.file("requests.jsonl")]
        service.standardOutput = FileHandle.nullDevice
        try service.run()
        defer {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        try Ports.waitUntilListening(port)
        let a = try PacenoteDaemon(mpd: "127.0.0.1:1", config: Self.listenBrainz("limited", url: "http://127.0.0.1:\(port)", token: "t0ken"))
        let body = (0..<3).map { i in
            #"{"listened_at": \#(1_700_000_000 + i * 600), "track_metadata": {"artist_name": "Limited", "track_name": "Song \#(i)"}}"#
        }.joined(separator: ",")
        let r = try a.post("/1/submit-listens", body: #"{"listen_type": "import", "payload": [\#(body)]}"#)
        #expect(r.status == 200, "\(r.text)")
        func requests() -> [[String: Any]] {
            ((try? String(contentsOfFile: dir.file("requests.jsonl"), encoding: .utf8)) ?? "").split(separator: "\n")
                .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        #expect(eventually(timeout: 20) { requests().contains { $0["status"] as? Int == 200 } }, "\(requests())")
        let seen = requests()
        let first = try #require(seen.first), accepted = try #require(seen.first { $0["status"] as? Int == 200 })
        #expect(first["status"] as? Int == 429)
        let waited = (accepted["at"] as? Double ?? 0) - (first["at"] as? Double ?? 0)
        #expect(waited >= 1.9, "Retry-After: 2 was honoured (\(waited) s)")
        #expect(seen.allSatisfy { ($0["user_agent"] as? String)?.hasPrefix("Pacenote/") == true }, "\(seen)")
        #expect(seen.allSatisfy { $0["authorization"] as? String == "Token t0ken" })
        #expect(accepted["listen_type"] as? String == "import" && accepted["listens"] as? Int == 3, "one batch: \(accepted)")
        #expect(try eventually(timeout: 5) { try Self.forwardStatus(a)["sent"] as? Int == 3 })
    }
}

/// A real Maloja (PyPI's malojaserver) as the target, through its ListenBrainz API and its
/// Audioscrobbler 2.0 API (Clients/maloja_server.py starts it on loopback, offline).
@Suite(.serialized) struct MalojaForwardingTests {
    struct Maloja {
        let dir: TemporaryDirectory
        let port: UInt16
        let apiKey: String
        let script = ForwardingTests.clients.appendingPathComponent("maloja_server.py").path

        static func started() throws -> Maloja {
            try Maloja(dir: try TemporaryDirectory("maloja"), port: try Ports.free(), apiKey: "").start()
        }

        private init(dir: TemporaryDirectory, port: UInt16, apiKey: String) {
            self.dir = dir
            self.port = port
            self.apiKey = apiKey
        }

        func start() throws -> Maloja {
            let r = try run(try Tools.require("python3"), [script, "start", "--dir", dir.path, "--port", String(port)], allowFailure: true)
            guard r.status == 0, let json = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
                  let key = json["apikey"] as? String else {
                throw HarnessError("Maloja did not start (scripts/test installs it with ensure_maloja): \(r.stderr)")
            }
            return Maloja(dir: dir, port: port, apiKey: key)
        }

        func stop() throws {
            try run(try Tools.require("python3"), [script, "stop", "--dir", dir.path])
        }

        /// Every scrobble Maloja holds, as `title@unix-seconds`.
        func scrobbles() throws -> [String] {
            let r = try run(try Tools.require("python3"), [script, "scrobbles", "--dir", dir.path, "--port", String(port)])
            let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]] ?? []
            return list.map { "\($0["title"] as? String ?? "?")@\($0["time"] as? Int ?? 0)" }.sorted()
        }
    }

    @Test func malojaGetsEveryCountedPlayOnceThroughItsListenBrainzAPI() throws {
        let maloja = try Maloja.started()
        defer { try? maloja.stop() }
        let mpd = try MPDInstance(tracks: ForwardingTests.tracks("Maloja", 4))
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: ForwardingTests.quick + ForwardingTests.listenBrainz(
            "maloja", url: "http://127.0.0.1:\(maloja.port)/apis/listenbrainz", token: maloja.apiKey, extra: "batch_size = 1\n"))
        try ForwardingTests.playAll(mpd, a, counted: 2, files: ["Maloja1.flac", "Maloja2.flac"])
        #expect(try eventually(timeout: 20) { try maloja.scrobbles() == ForwardingTests.keys(try a.listens()) },
                "\(String(describing: try? maloja.scrobbles()))")
        // Maloja goes away; MPD plays on; Pacenote is killed with the plays queued.
        try maloja.stop()
        try mpd.mpc("clear")
        try mpd.mpc("add", "Maloja3.flac")
        try mpd.mpc("add", "Maloja4.flac")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 30) { try a.listens().filter(\.counted).count >= 4 })
        #expect(try eventually(timeout: 10) { try ForwardingTests.forwardStatus(a)["queued"] as? Int == 2 })
        try a.restart(kill9: true)
        _ = try maloja.start()
        let expected = ForwardingTests.keys(try a.listens())
        #expect(expected.count == 4)
        // 90 s: the queue drains one play at a time, through a restarted Maloja (Python) that,
        // with the whole suite running on two cores, once took over 40 s for the last one.
        #expect(try eventually(timeout: 90) { try maloja.scrobbles() == expected },
                "Maloja has \(String(describing: try? maloja.scrobbles())); forwarding: \(String(describing: try? ForwardingTests.forwardStatus(a)))")
        // The outbox empty: nothing is left to send twice.
        #expect(try eventually(timeout: 10) { try ForwardingTests.forwardStatus(a)["queued"] as? Int == 0 },
                "\(String(describing: try? ForwardingTests.forwardStatus(a)))")
        #expect(try maloja.scrobbles() == expected, "each once")
    }

    @Test func malojaGetsPlaysThroughItsAudioscrobblerAPI() throws {
        let maloja = try Maloja.started()
        defer { try? maloja.stop() }
        let mpd = try MPDInstance(tracks: ForwardingTests.tracks("Scrobbler", 2))
        let a = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: ForwardingTests.quick + """

            [[forward]]
            name = "maloja"
            kind = "lastfm"
            url = "http://127.0.0.1:\(maloja.port)/apis/audioscrobbler/2.0/"
            api_key = "any"
            api_secret = "any"
            batch_size = 1
            """)
        let login = try PacenoteProcess.run(["forward", "login", "maloja", "--username", "me", "--config", a.dir.file("config.toml"),
                                             "--db", a.db], input: maloja.apiKey + "\n")
        #expect(login.status == 0, "\(login)")
        try ForwardingTests.playAll(mpd, a, counted: 2)
        let expected = ForwardingTests.keys(try a.listens())
        #expect(try eventually(timeout: 30) { try maloja.scrobbles() == expected }, "\(String(describing: try? maloja.scrobbles()))")
    }
}
