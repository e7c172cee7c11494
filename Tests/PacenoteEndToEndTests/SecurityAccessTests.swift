import Foundation
import Glibc
import PacenoteTestSupport
import Testing

/// Issue 15's attacks on who may do what, against the real binary on loopback
/// (`--trusted-networks none` stands for a client outside the trusted networks): each row
/// of the table, shown closed.
@Suite struct SecurityAccessTests {
    /// One request on its own connection, as bytes (a header may hold NULs); the status and
    /// the whole answer.
    static func raw(_ port: UInt16, _ head: [UInt8], body: [UInt8] = []) throws -> (status: Int, text: String) {
        guard let fd = Ports.connect(port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        defer { close(fd) }
        let bytes = head + body
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        let text = String(decoding: received, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return (status, text)
    }

    static func request(_ port: UInt16, _ path: String, method: String = "GET", host: String? = nil,
                        headers: [(String, String)] = [], body: String = "") throws -> (status: Int, text: String) {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return try raw(port, Array((text + "\r\n").utf8), body: Array(body.utf8))
    }

    static func json(_ text: String) -> [String: Any]? {
        guard let start = text.range(of: "\r\n\r\n")?.upperBound else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(text[start...].utf8))) as? [String: Any]
    }

    static func listen(_ title: String, at: Date = Date().addingTimeInterval(-60)) -> String {
        #"{"listen_type": "single", "payload": [{"listened_at": \#(Int(at.timeIntervalSince1970)), "#
            + #""track_metadata": {"artist_name": "Ada", "track_name": "\#(title)", "release_name": "Tones"}}]}"#
    }

    /// Row 3: a web page that re-points its own name at 127.0.0.1 (DNS rebinding) sends its
    /// name in Host: no trusted-network privilege for it, on the API, the pages and the stream.
    @Test func aRebindingHostGetsNoTrustedPrivileges() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let port = daemon.port
        let evil = "rebind.attacker.example:\(port)"
        #expect(try Self.request(port, "/api/v1/listens").status == 200, "loopback by its address is trusted")
        #expect(try Self.request(port, "/api/v1/listens", host: "localhost:\(port)").status == 200)
        let listens = try Self.request(port, "/api/v1/listens", host: evil)
        #expect(listens.status == 403, "\(listens.text)")
        let page = try Self.request(port, "/history", host: evil, headers: [("Accept", "text/html")])
        #expect(page.status == 303 && page.text.contains("Location: /login?next=%2Fhistory"), "\(page.text)")
        let events = try Self.request(port, "/api/v1/events", host: evil, headers: [("Accept", "text/event-stream")])
        #expect(events.status == 403 && !events.text.contains("text/event-stream"), "\(events.text)")
        let status = try #require(Self.json(try Self.request(port, "/api/v1/status", host: evil).text))
        #expect(Set(status.keys) == ["version", "healthy"])
        #expect(try Self.request(port, "/api/v1/listens", host: evil, headers: [("X-API-Key", daemon.apiKey)]).status == 200,
                "the key does not depend on the name")
    }

    /// Row 4: forwarding headers from a peer that is no configured proxy make the request
    /// untrusted (a proxy on the same host would otherwise open everything), warned once.
    @Test func forwardingHeadersWithoutAConfiguredProxyAreNotTrusted() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        for header in [("X-Forwarded-For", "203.0.113.5"), ("Forwarded", "for=203.0.113.5"), ("X-Forwarded-Proto", "https")] {
            let r = try Self.request(daemon.port, "/api/v1/listens", headers: [header])
            #expect(r.status == 403, "\(header.0): \(r.text)")
        }
        #expect(try Self.request(daemon.port, "/api/v1/listens").status == 200)
        let warnings = daemon.process.stderr.components(separatedBy: "is not in server.trusted_proxies").count - 1
        #expect(warnings == 1, "warned once: \(daemon.process.stderr)")
    }

    /// Row 7: behind a trusted proxy, ten wrong logins from one client lock out that client,
    /// not the proxy: the owner, from another client, logs in with the right key.
    @Test func theLockoutFollowsTheRealClient() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\ntrusted_proxies = [\"127.0.0.1\"]\n",
                                        arguments: ["--trusted-networks", "none"])
        let form = ("Content-Type", "application/x-www-form-urlencoded")
        var last = 0
        for _ in 0..<11 {
            last = try Self.request(daemon.port, "/login", method: "POST", headers: [form, ("X-Forwarded-For", "203.0.113.5")], body: "key=guess").status
        }
        #expect(last == 429)
        let attacker = try Self.request(daemon.port, "/login", method: "POST", headers: [form, ("X-Forwarded-For", "203.0.113.5")],
                                        body: "key=\(daemon.apiKey)")
        #expect(attacker.status == 429, "the locked-out client waits even with the right key")
        let owner = try Self.request(daemon.port, "/login", method: "POST", headers: [form, ("X-Forwarded-For", "198.51.100.7")],
                                     body: "key=\(daemon.apiKey)")
        #expect(owner.status == 303 && owner.text.contains("Set-Cookie: pacenote_session="), "\(owner.text)")
        #expect(try Self.request(daemon.port, "/api/v1/listens", headers: [("X-Forwarded-For", "198.51.100.7"),
                                                                           ("X-API-Key", daemon.apiKey)]).status == 200)
    }

    /// Row 9: strangers see the share page's worth and no more: a reduced status, the song
    /// of the day without its file, id, tempo or listening time; a forged log line stays one line.
    @Test func strangersSeeOnlyWhatIsPublic() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none", "--timezone", "UTC", "--log-level", "debug"])
        let listened = Date().addingTimeInterval(-60)
        #expect(try daemon.post("/1/submit-listens", body: Self.listen("Sine", at: listened)).status == 200)
        let status = try #require(try HTTP.get(daemon.statusURL).json)
        #expect(Set(status.keys) == ["version", "healthy"], "\(status)")
        #expect(status["healthy"] as? Bool == false, "the player is not connected")
        let full = try #require(try HTTP.get(daemon.statusURL, headers: ["X-API-Key": daemon.apiKey]).json)
        #expect(full["mpd"] != nil && full["database"] != nil)

        // The listen's own day (UTC), also in the first minute after midnight.
        let day = String(ISO8601DateFormatter().string(from: listened).prefix(10))
        let sotd = try HTTP.get(daemon.base + "/api/v1/sotd/\(day)")
        #expect(sotd.status == 200, "\(sotd.text)")
        let body = try #require(sotd.json)
        #expect(Set(body.keys) == ["day", "note", "plays", "track", "cover", "share_url"], "\(body)")
        #expect(Set((body["track"] as? [String: Any] ?? [:]).keys) == ["title", "artist", "album"])
        for secret in ["\"id\"", "uri", "bpm", "listening_s", "duration", "pinned"] {
            #expect(!sotd.text.contains(secret), "\(secret) in \(sotd.text)")
        }
        // All of it is on the share page already.
        let share = try HTTP.get(daemon.base + "/sotd/\(day)")
        #expect(share.status == 200 && share.text.contains("Sine") && share.text.contains("Ada") && share.text.contains("Tones"))
        let owner = try #require(try HTTP.get(daemon.base + "/api/v1/sotd/\(day)", headers: ["X-API-Key": daemon.apiKey]).json)
        #expect(owner["listening_s"] != nil && (owner["track"] as? [String: Any])?["id"] != nil)

        // A path with an encoded newline: one escaped line in the access log, no forged one.
        _ = try Self.request(daemon.port, "/api/v1/status%0a127.0.0.1%20GET%20/forged%20200%20ok")
        #expect(eventually(timeout: 3) { daemon.process.stderr.contains(#"\n127.0.0.1 GET /forged 200 ok"#) }, "\(daemon.process.stderr)")
        let forged = daemon.process.stderr.split(separator: "\n").filter { $0.hasPrefix("127.0.0.1 GET /forged") }
        #expect(forged.isEmpty, "\(forged)")
    }

    /// Row 9: a server error's body never names the database; the log has the details.
    @Test func serverErrorsKeepTheirDetailsInTheLog() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none", "--timezone", "UTC"])
        #expect(try daemon.post("/1/submit-listens", body: Self.listen("Sine")).status == 200)
        let day = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        // Another program takes the database away (a table renamed under the running server).
        _ = try daemon.sql("ALTER TABLE sotd_pins RENAME TO sotd_pins_gone")
        let stranger = try HTTP.get(daemon.base + "/api/v1/sotd/\(day)")
        #expect(stranger.status >= 500, "\(stranger.status) \(stranger.text)")
        #expect(!stranger.text.contains(daemon.db) && !stranger.text.contains("sotd_pins") && !stranger.text.contains("sqlite"),
                "\(stranger.text)")
        let owner = try HTTP.get(daemon.base + "/api/v1/sotd/\(day)", headers: ["X-API-Key": daemon.apiKey])
        #expect(owner.status == stranger.status && owner.text.contains("sotd_pins"), "the owner is told why: \(owner.text)")
        #expect(daemon.process.stderr.contains("sotd_pins"), "the details are in the log")
    }

    /// Row 10: the key followed by 256 NUL bytes is another key (the old comparison kept only
    /// 8 bits of the length difference: 256 looked like 0). NULs survive in what is
    /// percent-decoded — the query, the login form, JSON — and are compared there. In a header
    /// line libmicrohttpd 0.9.75 itself ends the value at the first NUL (its `_n` accessors
    /// report the cut length, strict mode or not), so Pacenote never sees padding there: such
    /// a header carries exactly the key's bytes and nothing to guess with.
    @Test func aPaddedKeyIsRefused() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let nuls = String(repeating: "%00", count: 256)
        let token = try HTTP.get(daemon.base + "/1/validate-token?token=\(daemon.apiKey)\(nuls)")
        #expect(token.status == 200 && token.json?["valid"] as? Bool == false, "\(token.text)")
        let form = try Self.request(daemon.port, "/login", method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                                    body: "key=\(daemon.apiKey)\(nuls)")
        #expect(form.status == 401 && !form.text.contains("Set-Cookie"), "\(form.text)")
        let json = try Self.request(daemon.port, "/login", method: "POST", headers: [("Content-Type", "application/json")],
                                    body: #"{"key": "\#(daemon.apiKey)\#(String(repeating: "\\u0000", count: 256))"}"#)
        #expect(json.status == 401 && !json.text.contains("Set-Cookie"), "\(json.text)")
        // Any other padding in a header is another key too.
        let padded = Array(daemon.apiKey.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 256)
        let head = Array("POST /api/v1/hr HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 11\r\nX-API-Key: ".utf8)
            + padded + Array("\r\n\r\n".utf8)
        let write = try Self.raw(daemon.port, head, body: Array(#"{"bpm": 99}"#.utf8))
        #expect(write.status == 401, "\(write.text)")
        #expect(try daemon.sql("SELECT COUNT(*) FROM hr_samples") == "0\n")
        // And the right key, for contrast, is taken.
        #expect(try HTTP.get(daemon.base + "/1/validate-token?token=\(daemon.apiKey)").json?["valid"] as? Bool == true)
    }

    /// Row 11: a submit key sends listens, now-playing and heart rate and nothing else; a
    /// read key reads; a revoked key is refused at once, by the running server.
    @Test func scopedKeysDoWhatTheirScopeSays() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        func add(_ name: String, _ scope: String) throws -> String {
            let r = try PacenoteProcess.run(["key", "add", name, "--scope", scope, "--db", daemon.db])
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let phone = try add("phone", "submit")
        let widget = try add("widget", "read")
        #expect(phone.hasPrefix("pn_") && widget.hasPrefix("pn_") && phone != widget)

        #expect(try daemon.post("/1/submit-listens", body: Self.listen("From the phone"), key: phone).status == 200)
        let playing = #"{"listen_type": "playing_now", "payload": [{"track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#
        #expect(try daemon.post("/apis/listenbrainz/1/submit-listens", body: playing, key: phone).status == 200)
        #expect(try daemon.post("/api/v1/hr", body: #"{"bpm": 91}"#, key: phone).status == 200)
        #expect(try HTTP.get(daemon.base + "/1/validate-token", headers: ["Authorization": "Token \(phone)"]).json?["valid"] as? Bool == true)
        let key = ["Authorization": "Token \(phone)"]
        for path in ["/api/v1/listens", "/api/v1/stats", "/api/v1/workouts", "/metrics"] {
            #expect(try HTTP.get(daemon.base + path, headers: key).status == 403, "\(path)")
        }
        let imported = try daemon.post("/api/v1/import", body: #"[{"listened_at": 1, "track_metadata": {"artist_name": "A", "track_name": "B"}}]"#, key: phone)
        #expect(imported.status == 403 && (imported.json?["error"] as? [String: Any])?["code"] as? String == "insufficient_scope")
        #expect(try daemon.post("/api/v1/queue", body: "{}", key: phone).status == 403)
        #expect(try HTTP.request("PUT", daemon.base + "/api/v1/sotd/2026-01-01", headers: key, body: Data(#"{"track_id": 1}"#.utf8)).status == 403)
        let login = try Self.request(daemon.port, "/login", method: "POST", headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "key=\(phone)")
        #expect(login.status == 403 && !login.text.contains("Set-Cookie"), "\(login.text)")

        let reader = ["X-API-Key": widget]
        let history = try HTTP.get(daemon.base + "/api/v1/listens", headers: reader)
        #expect(history.status == 200 && history.text.contains("From the phone"))
        #expect(try daemon.post("/api/v1/hr", body: #"{"bpm": 92}"#, key: widget).status == 403)
        #expect(try daemon.post("/1/submit-listens", body: Self.listen("From the widget"), key: widget).status == 403)

        #expect(try PacenoteProcess.run(["key", "revoke", "phone", "--db", daemon.db]).status == 0)
        let refused = try daemon.post("/1/submit-listens", body: Self.listen("After revoking"), key: phone)
        #expect(refused.status == 401, "refused at once, no waiting: \(refused.text)")
        #expect(try HTTP.get(daemon.base + "/api/v1/listens", headers: reader).status == 200, "other keys still work")
        let list = try PacenoteProcess.run(["key", "list", "--db", daemon.db])
        let phoneLine = try #require(list.stdout.split(separator: "\n").first { $0.hasPrefix("phone ") })
        #expect(!phoneLine.contains("never") && phoneLine.contains("submit"), "last use recorded: \(list.stdout)")
        #expect(!list.stdout.contains(phone), "the key itself is never shown again")
        #expect(try daemon.sql("SELECT COUNT(*) FROM api_keys WHERE key_hash LIKE 'pn_%'") == "0\n", "stored hashed")
    }
}
