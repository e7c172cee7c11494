import Foundation
import PacenoteTestSupport
import Testing

/// `pacenote serve` as users run it: the built binary, a real MPD, real HTTP.
@Suite struct ServeTests {
    typealias Daemon = PacenoteDaemon

    @Test func statusFollowsMPDComingAndGoing() throws {
        let mpd = try MPDInstance(start: false)
        let daemon = try Daemon(mpd: "127.0.0.1:\(mpd.port)")
        let status = try daemon.status()
        #expect(status["version"] as? String == "0.1.0")
        #expect(try daemon.mpdConnected() == false)
        // The watcher's first attempt may still be under way when the server first answers.
        #expect(try eventually(timeout: 10) {
            ((try daemon.status()["mpd"] as? [String: Any])?["error"] as? String)?.contains("refused") == true
        }, "status never showed MPD's refusal")

        try mpd.start()
        #expect(try eventually(timeout: 10) { try daemon.mpdConnected() }, "status never showed mpd.connected = true")
        let version = (try daemon.status()["mpd"] as? [String: Any])?["server_version"] as? String
        #expect(version?.hasPrefix("0.") == true)

        mpd.stop()
        #expect(try eventually(timeout: 10) { try !daemon.mpdConnected() }, "status never showed mpd.connected = false")

        try mpd.start()
        #expect(try eventually(timeout: 10) { try daemon.mpdConnected() }, "pacenote did not reconnect")

        try daemon.stop()
    }

    @Test func connectsThroughAUnixSocketWithAPassword() throws {
        let mpd = try MPDInstance(password: "s3cret")
        let good = try Daemon(mpd: "s3cret@\(mpd.socketPath)")
        #expect(try eventually(timeout: 10) { try good.mpdConnected() })
        #expect((try good.status()["mpd"] as? [String: Any])?["endpoint"] as? String == mpd.socketPath)

        let bad = try Daemon(mpd: "wrong@127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 5) {
            ((try bad.status()["mpd"] as? [String: Any])?["error"] as? String)?.contains("password") == true
        })
        #expect(try bad.mpdConnected() == false)
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalsShutDownCleanly(signal: Int32) throws {
        let daemon = try Daemon(mpd: "127.0.0.1:1")
        _ = try daemon.status()
        daemon.process.signal(signal)
        #expect(try daemon.process.wait() == 0)
        #expect(daemon.process.stderr.contains("shutting down"))
        #expect(daemon.process.stderr.contains("stopped"))
        // Closed cleanly: the WAL was checkpointed into the database and removed.
        let wal = (try? FileManager.default.attributesOfItem(atPath: daemon.db + "-wal")[.size] as? Int) ?? 0
        #expect(wal == 0)
        let check = try run(try Tools.require("sqlite3"), [daemon.db, "PRAGMA integrity_check; SELECT COUNT(*) FROM grdb_migrations"])
        #expect(check.stdout == "ok\n39\n")  // every migration through v34.playlists-loudness
    }

    @Test func usesTheXDGDataDirectoryByDefault() throws {
        let home = try TemporaryDirectory("pacenote-home")
        let process = try PacenoteProcess(["--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"],
                                          environment: ["HOME": home.path, "XDG_DATA_HOME": home.file("data")])
        let db = home.file("data/pacenote/pacenote.sqlite")
        #expect(eventually(timeout: 15) { process.stderr.contains("serving http://") })
        #expect(FileManager.default.fileExists(atPath: db))
        let mode = try FileManager.default.attributesOfItem(atPath: home.file("data/pacenote"))[.posixPermissions] as? Int
        #expect(mode == 0o700)
        let fileMode = try FileManager.default.attributesOfItem(atPath: db)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)
        process.signal(SIGTERM)
        #expect(try process.wait() == 0)
    }
}

/// Startup errors: one line naming the key, exit status 1, never a stack trace.
@Suite struct StartupErrorTests {
    private func expectOneLineError(_ arguments: [String], mentions fragments: [String], config: String? = nil) throws {
        let dir = try TemporaryDirectory()
        var args = arguments
        if let config {
            try config.write(toFile: dir.file("c.toml"), atomically: true, encoding: .utf8)
            args += ["--config", dir.file("c.toml")]
        }
        if !args.contains("--db") { args += ["--db", dir.file("p.sqlite")] }
        let r = try PacenoteProcess.run(args, environment: ["HOME": dir.path])
        #expect(r.status == 1, "exit status for \(args): \(r.status), stderr: \(r.stderr)")
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "expected one line, got: \(r.stderr)")
        for fragment in fragments {
            #expect(r.stderr.contains(fragment), "\(fragment) missing in: \(r.stderr)")
        }
        #expect(!r.stderr.contains("Fatal error") && !r.stderr.contains("Stack dump"))
    }

    @Test func badHTTPFlag() throws {
        try expectOneLineError(["serve", "--http", "nowhere"], mentions: ["pacenote: config error: server.http (--http)"])
    }

    @Test func portInUse() throws {
        let blocker = try PacenoteProcess(["serve", "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1", "--db", "/tmp/pacenote-blocker-\(getpid()).sqlite"])
        defer {
            blocker.signal(SIGTERM)
            _ = try? blocker.wait()
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: "/tmp/pacenote-blocker-\(getpid()).sqlite\(suffix)") }
        }
        #expect(eventually(timeout: 15) { blocker.stderr.contains("serving http://127.0.0.1:") })
        let text = blocker.stderr
        let port = text[text.range(of: "serving http://127.0.0.1:")!.upperBound...].prefix { $0.isNumber }
        try expectOneLineError(["serve", "--http", "127.0.0.1:\(port)", "--mpd", "127.0.0.1:1"],
                               mentions: ["--http 127.0.0.1:\(port): cannot listen: Address already in use"])
    }

    @Test func unusableDatabasePath() throws {
        try expectOneLineError(["serve", "--db", "/nonexistent/dir/p.sqlite", "--http", "127.0.0.1:0"],
                               mentions: ["database.path (--db)", "does not exist"])
        try expectOneLineError(["migrate", "--db", "/nonexistent/dir/p.sqlite"], mentions: ["database.path (--db)"])
        try expectOneLineError(["serve", "--db", "/", "--http", "127.0.0.1:0"], mentions: ["database.path", "directory"])
    }

    @Test func badConfigFileValue() throws {
        try expectOneLineError(["serve"], mentions: ["mpd.port", "c.toml:3", "expected an integer"],
                               config: "[mpd]\nhost = \"localhost\"\nport = \"sixty-six\"\n")
        try expectOneLineError(["migrate"], mentions: ["display.timezone", "c.toml:2"],
                               config: "[display]\ntimezone = \"Nowhere/Special\"\n")
        try expectOneLineError(["serve"], mentions: ["config", "line 1"], config: "this is not toml\n")
    }
}

@Suite struct CommandLineTests {
    @Test func versionAndHelp() throws {
        let version = try PacenoteProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == "0.1.0\n")
        let help = try PacenoteProcess.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("serve (default)"))
        let serveHelp = try PacenoteProcess.run(["serve", "--help"])
        for flag in ["--config", "--db", "--http", "--mpd", "--base-path"] {
            #expect(serveHelp.stdout.contains(flag), "serve --help lacks \(flag)")
        }
        #expect(try PacenoteProcess.run(["migrate", "--help"]).stdout.contains("--db"))
    }

    @Test func migrateIsIdempotent() throws {
        let dir = try TemporaryDirectory()
        let first = try PacenoteProcess.run(["migrate", "--db", dir.file("p.sqlite")])
        #expect(first.status == 0)
        #expect(first.stdout.contains("applied  v1.plays"))
        let second = try PacenoteProcess.run(["migrate", "--db", dir.file("p.sqlite")])
        #expect(second.stdout == first.stdout)
    }

    @Test func configShowsEffectiveValuesAndOrigins() throws {
        let dir = try TemporaryDirectory()
        try "[server]\nhttp = \"127.0.0.1:7000\"\n".write(toFile: dir.file("c.toml"), atomically: true, encoding: .utf8)
        let r = try PacenoteProcess.run(["config", "--config", dir.file("c.toml"), "--mpd", "secret@music.lan"],
                                        environment: ["MPD_PORT": "6601", "HOME": dir.path])
        #expect(r.status == 0)
        #expect(r.stdout.contains("http = \"127.0.0.1:7000\""))
        #expect(r.stdout.contains("c.toml:2"))
        #expect(r.stdout.contains("# env MPD_PORT"))
        #expect(r.stdout.contains("# --mpd"))
        #expect(!r.stdout.contains("secret"))
    }
}

/// History and heart rate are private: trusted networks read them, others need the key.
@Suite struct PrivacyTests {
    @Test func untrustedClientsNeedTheKeyForPrivateReads() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 90}"#)
        for path in ["/api/v1/listens", "/api/v1/workouts", "/api/v1/workouts/1"] {
            let r = try HTTP.get(daemon.base + path)
            #expect(r.status == 403, "\(path)")
            #expect((r.json?["error"] as? [String: Any])?["code"] as? String == "forbidden")
        }
        #expect(try HTTP.get(daemon.base + "/api/v1/listens", headers: ["Authorization": "Token \(daemon.apiKey)"]).status == 200)
        // The status stays public: the version and whether all is well, nothing more.
        let status = try #require(try HTTP.get(daemon.statusURL).json)
        #expect(Set(status.keys) == ["version", "healthy"])
        #expect(status["version"] as? String == "0.1.0")
        let withKey = try #require(try HTTP.get(daemon.statusURL, headers: ["X-API-Key": daemon.apiKey]).json)
        #expect((withKey["heart_rate"] as? [String: Any])?["bpm"] as? Int == 90)
    }

    @Test func forwardedForIsBelievedOnlyFromTrustedProxies() throws {
        let direct = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\ntrusted_networks = [\"10.0.0.0/8\"]\n")
        // Anyone can send the header: without a trusted proxy it is ignored.
        #expect(try HTTP.get(direct.base + "/api/v1/listens", headers: ["X-Forwarded-For": "10.1.2.3"]).status == 403)
        let proxied = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [server]
            trusted_networks = ["10.0.0.0/8"]
            trusted_proxies = ["127.0.0.1"]
            """)
        #expect(try HTTP.get(proxied.base + "/api/v1/listens", headers: ["X-Forwarded-For": "10.1.2.3"]).status == 200)
        #expect(try HTTP.get(proxied.base + "/api/v1/listens", headers: ["X-Forwarded-For": "10.1.2.3, 8.8.8.8"]).status == 403)
        #expect(try HTTP.get(proxied.base + "/api/v1/listens").status == 403)  // the proxy itself is not trusted
        // A client's forged line before the proxy's own: the proxy's (last) entry counts.
        let request = "GET /api/v1/listens HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Forwarded-For: 10.0.0.1\r\nX-Forwarded-For: 8.8.8.8\r\n\r\n"
        let forged = try RawHTTPConnection(port: proxied.port, request: request)
        #expect(forged.waitFor("403 Forbidden"), "\(forged.received)")
    }

    @Test func homeNetworksAreTrustedByDefault() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        #expect(try HTTP.get(daemon.base + "/api/v1/listens").status == 200)
    }
}

@Suite struct StaticAndHealthTests {
    @Test func servesPublicFilesAndRefusesTraversal() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let icon = try HTTP.get(daemon.base + "/favicon.svg")
        #expect(icon.status == 200)
        #expect(icon.header("Content-Type") == "image/svg+xml")
        #expect(icon.text.contains("<svg"))
        // Browsers and bots ask for /favicon.ico on their own: an ICO of PNGs, not a 404.
        let ico = try HTTP.get(daemon.base + "/favicon.ico")
        #expect(ico.status == 200 && ico.header("Content-Type") == "image/x-icon")
        #expect(Array(ico.body.prefix(4)) == [0, 0, 1, 0])
        let robots = try HTTP.get(daemon.base + "/static/robots.txt")
        #expect(robots.status == 200 && robots.header("Content-Type") == "text/plain; charset=utf-8")
        #expect(try HTTP.get(daemon.base + "/static/robots.txt", headers: ["If-None-Match": robots.header("ETag") ?? ""]).status == 304)
        for path in ["/static/../Package.swift", "/static/%2e%2e/Package.swift", "/static/..%2fPackage.swift",
                     "/static/%2e%2e%2f%2e%2e%2fetc/passwd", "/static//etc/passwd", "/static/.hidden", "/static/"] {
            let r = try HTTP.get(daemon.base + path)
            #expect(r.status == 404, "\(path): \(r.status)")
            #expect(!r.text.contains("swift-tools-version") && !r.text.contains("root:"), "\(path)")
        }
    }

    @Test func metricsCountRequestsPlaysAndSamples() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        _ = try daemon.status()
        _ = try daemon.post("/api/v1/hr", body: #"{"samples": [{"bpm": 80}, {"bpm": 81, "ts": 1763794800}]}"#)
        _ = try HTTP.request("POST", daemon.base + "/1/submit-listens", headers: ["Authorization": "Token \(daemon.apiKey)"],
                             body: Data(#"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#.utf8))
        let r = try HTTP.get(daemon.base + "/metrics")
        #expect(r.status == 200)
        #expect(r.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        for line in [#"pacenote_http_requests_total{route="status",status="200"} 1"#, "pacenote_hr_samples_total 2",
                     #"pacenote_plays_logged_total{source="listenbrainz",counted="true"} 1"#, #"pacenote_mpd_connected{player="default"} 0"#] {
            #expect(r.text.contains(line), "missing \(line) in\n\(r.text)")
        }
        let untrusted = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        #expect(try HTTP.get(untrusted.base + "/metrics").status == 403)
    }

    @Test func healthzAnswersAlways() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let r = try HTTP.get(daemon.base + "/healthz")
        #expect(r.status == 200)
        #expect(r.json?["status"] as? String == "ok")
    }
}

/// Logging in from a browser: a session cookie instead of the key.
@Suite struct LoginTests {
    func raw(_ daemon: PacenoteDaemon, _ method: String, _ path: String, headers: [String: String] = [:], body: String = "") throws -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        let connection = try RawHTTPConnection(port: daemon.port, request: text + "\r\n" + body)
        _ = connection.waitFor("\u{0}", timeout: 3)  // read until the server closes
        return connection.received
    }

    @Test func aSessionCookieReadsPrivateDataAndWritesFromThePageOnly() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        #expect(try raw(daemon, "GET", "/login").contains("<form method=\"post\""))
        let wrong = try raw(daemon, "POST", "/login", headers: form, body: "key=nope&next=%2Fstats")
        #expect(wrong.hasPrefix("HTTP/1.1 401"))
        #expect(!wrong.contains("Set-Cookie"))
        let ok = try raw(daemon, "POST", "/login", headers: form, body: "key=\(daemon.apiKey)&next=%2Fstats")
        #expect(ok.hasPrefix("HTTP/1.1 303"), "\(ok)")
        #expect(ok.contains("Location: /stats"))
        let cookieLine = try #require(ok.split(separator: "\r\n").first { $0.hasPrefix("Set-Cookie: ") })
        #expect(cookieLine.contains("HttpOnly") && cookieLine.contains("SameSite=Strict"))
        let cookie = String(cookieLine.dropFirst("Set-Cookie: ".count).split(separator: ";")[0])

        #expect(try raw(daemon, "GET", "/api/v1/listens", headers: ["Cookie": cookie]).hasPrefix("HTTP/1.1 200"))
        let hr = ["Cookie": cookie, "Content-Type": "application/json"]
        let sameOrigin = try raw(daemon, "POST", "/api/v1/hr", headers: hr.merging(["Origin": "http://127.0.0.1:\(daemon.port)"]) { $1 },
                                 body: #"{"bpm": 80}"#)
        #expect(sameOrigin.hasPrefix("HTTP/1.1 200"), "\(sameOrigin)")
        for extra in [["Origin": "http://evil.example"], ["Sec-Fetch-Site": "cross-site"]] {
            let forged = try raw(daemon, "POST", "/api/v1/hr", headers: hr.merging(extra) { $1 }, body: #"{"bpm": 81}"#)
            #expect(forged.hasPrefix("HTTP/1.1 401"), "\(extra): \(forged)")
        }
        // A new key ends the sessions made with the old one.
        let rotated = try PacenoteProcess.run(["key", "--new", "--db", daemon.db])
        #expect(rotated.status == 0)
        #expect(try eventually(timeout: 5) {
            try raw(daemon, "GET", "/api/v1/listens", headers: ["Cookie": cookie]).hasPrefix("HTTP/1.1 403")
        })
        let newKey = rotated.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let again = try raw(daemon, "POST", "/login", headers: form, body: "key=\(newKey)")
        let fresh = String((again.split(separator: "\r\n").first { $0.hasPrefix("Set-Cookie: ") } ?? "").dropFirst("Set-Cookie: ".count)
            .split(separator: ";").first ?? "")
        #expect(try raw(daemon, "GET", "/api/v1/listens", headers: ["Cookie": fresh]).hasPrefix("HTTP/1.1 200"))
        let out = try raw(daemon, "POST", "/logout", headers: ["Cookie": fresh])
        #expect(out.contains("Max-Age=0"))
        #expect(try raw(daemon, "GET", "/api/v1/listens", headers: ["Cookie": fresh]).hasPrefix("HTTP/1.1 403"))
    }

    @Test func guessingTheKeyInAHeaderIsLockedOutToo() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        var last = ""
        for _ in 0..<11 { last = try raw(daemon, "GET", "/api/v1/listens", headers: ["X-API-Key": "pn_guess_0123456789"]) }
        #expect(last.hasPrefix("HTTP/1.1 429"), "\(last)")
        #expect(try raw(daemon, "GET", "/apis/listenbrainz/1/validate-token?token=\(daemon.apiKey)").hasPrefix("HTTP/1.1 429"))
    }

    @Test func noOpenRedirectsAndNoGuessing() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        for next in ["%2F%2Fevil.example", "https%3A%2F%2Fevil.example", "%2F%5Cevil.example", "%2F%09%2Fevil.example"] {
            let r = try raw(daemon, "POST", "/login", headers: form, body: "key=\(daemon.apiKey)&next=\(next)")
            #expect(r.contains("Location: /\r\n"), "\(next): \(r)")
        }
        var last = ""
        for _ in 0..<11 { last = try raw(daemon, "POST", "/login", headers: form, body: "key=guess") }
        #expect(last.hasPrefix("HTTP/1.1 429"), "\(last)")
        // Even the right key waits out the minute.
        #expect(try raw(daemon, "POST", "/login", headers: form, body: "key=\(daemon.apiKey)").hasPrefix("HTTP/1.1 429"))
    }
}
