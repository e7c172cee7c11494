import Foundation
import PacenoteTestSupport
import Testing

/// Issue 58, points 1 and 2: pages on other sites (`server.cors_origins`, CORS answered from the
/// route table) and the `client` key scope, against the real daemon over loopback, then in
/// headless Chromium with the page served by a second HTTP server on another loopback port.
@Suite struct CrossOriginTests {
    static let site = "http://127.0.0.1:8001"

    static func listen(_ title: String, at: Int = 1_764_590_400) -> String {
        #"{"listen_type": "single", "payload": [{"listened_at": \#(at), "track_metadata": {"artist_name": "App", "track_name": "\#(title)"}}]}"#
    }

    static func addKey(_ daemon: PacenoteDaemon, _ name: String, scope: String) throws -> String {
        let r = try PacenoteProcess.run(["key", "add", name, "--scope", scope, "--db", daemon.db])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A client key scrobbles (ListenBrainz, now-playing, Audioscrobbler 2.0's login), reads the
    /// history, stats and feedback, sends likes; it deletes, imports, curates and administers nothing.
    @Test func aClientKeySubmitsReadsAndLikesButDeletesNothing() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        let phone = try Self.addKey(daemon, "phone", scope: "client")
        #expect(phone.hasPrefix("pn_"))
        let listed = try PacenoteProcess.run(["key", "list", "--db", daemon.db])
        #expect(listed.stdout.contains("phone") && listed.stdout.contains("client"), "\(listed.stdout)")

        let token = ["Authorization": "Token \(phone)"]
        #expect(try daemon.post("/1/submit-listens", body: Self.listen("From the phone"), key: phone).status == 200)
        let playing = #"{"listen_type": "playing_now", "payload": [{"track_metadata": {"artist_name": "App", "track_name": "Now"}}]}"#
        #expect(try daemon.post("/apis/listenbrainz/1/submit-listens", body: playing, key: phone).status == 200)
        #expect(try HTTP.get(daemon.base + "/1/validate-token", headers: token).json?["valid"] as? Bool == true)
        #expect(try daemon.post("/api/v1/hr", body: #"{"bpm": 91}"#, key: phone).status == 200)

        let history = try HTTP.get(daemon.base + "/api/v1/listens", headers: token)
        #expect(history.status == 200 && history.text.contains("From the phone"), "\(history.text)")
        let listens = history.json?["listens"] as? [[String: Any]] ?? []
        let playID = try #require(listens.first?["id"] as? Int)
        let trackID = try #require((listens.first?["track"] as? [String: Any])?["id"] as? Int)
        #expect(try HTTP.get(daemon.base + "/api/v1/stats?range=all", headers: token).status == 200)
        #expect(try HTTP.get(daemon.base + "/1/user/pacenote/listens", headers: token).text.contains("From the phone"))

        // Likes: ListenBrainz feedback and Pacenote's own; then read back.
        let msid = try #require(((try HTTP.get(daemon.base + "/1/user/pacenote/listens", headers: token).json?["payload"] as? [String: Any])?["listens"]
            as? [[String: Any]])?.first?["recording_msid"] as? String)
        let feedback = try daemon.post("/1/feedback/recording-feedback", body: #"{"recording_msid": "\#(msid)", "score": 1}"#, key: phone)
        #expect(feedback.status == 200, "\(feedback.text)")
        let got = try HTTP.get(daemon.base + "/1/feedback/user/pacenote/get-feedback", headers: token)
        #expect(got.status == 200 && got.json?["count"] as? Int == 1, "\(got.text)")
        let like = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(trackID)/feeling", headers: token.merging(["Content-Type": "application/json"]) { $1 },
                                    body: Data(#"{"feeling": "dislike"}"#.utf8))
        #expect(like.status == 200, "\(like.text)")
        #expect(try daemon.sql("SELECT feeling, source FROM track_feelings") == "dislike|api\n")

        // Nothing that takes away or rewrites: 403 with the scope's words.
        func refused(_ r: HTTPResult, _ what: String) {
            #expect(r.status == 403, "\(what): \(r.status) \(r.text)")
        }
        refused(try HTTP.request("DELETE", daemon.base + "/api/v1/listens/\(playID)", headers: token), "DELETE /api/v1/listens/{id}")
        let scoped = try HTTP.request("DELETE", daemon.base + "/api/v1/listens/\(playID)", headers: token)
        #expect((scoped.json?["error"] as? [String: Any])?["code"] as? String == "insufficient_scope", "\(scoped.text)")
        refused(try daemon.post("/1/delete-listen", body: #"{"listened_at": 1764590400, "recording_msid": "\#(msid)"}"#, key: phone), "delete-listen")
        refused(try daemon.post("/api/v1/import", body: #"[{"listened_at": 1, "track_metadata": {"artist_name": "A", "track_name": "B"}}]"#, key: phone),
                "import")
        refused(try daemon.post("/api/v1/merges", body: "{}", key: phone), "merge")
        refused(try daemon.post("/api/v1/rules", body: "{}", key: phone), "a rule")
        refused(try HTTP.request("PATCH", daemon.base + "/api/v1/listens/\(playID)", headers: token, body: Data("{}".utf8)), "an edit")
        let login = try HTTP.request("POST", daemon.base + "/login", headers: ["Content-Type": "application/x-www-form-urlencoded"],
                                     body: Data("key=\(phone)".utf8))
        #expect(login.status == 403 && login.header("Set-Cookie") == nil, "a client key opens no session")
        #expect(try daemon.sql("SELECT count(*) FROM plays") == "1\n", "the listen is still there")
    }

    /// Preflights and answers over plain HTTP: an allowed origin gets the headers, another
    /// origin and a site form get none.
    @Test func preflightsAndAnswersCarryTheHeadersForAllowedOriginsOnly() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[server]\ncors_origins = [\"\(Self.site)\"]\n")
        let phone = try Self.addKey(daemon, "page", scope: "client")
        func preflight(_ path: String, _ method: String, origin: String = Self.site) throws -> HTTPResult {
            try HTTP.request("OPTIONS", daemon.base + path, headers: [
                "Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization,content-type",
            ])
        }
        let allowed = try preflight("/1/submit-listens", "POST")
        #expect(allowed.status == 204)
        #expect(allowed.header("Access-Control-Allow-Origin") == Self.site)
        #expect(allowed.header("Access-Control-Allow-Methods") == "POST")
        #expect(allowed.header("Access-Control-Allow-Headers")?.contains("Authorization") == true)
        #expect(allowed.header("Access-Control-Allow-Headers")?.contains("Content-Type") == true)
        #expect(allowed.header("Access-Control-Max-Age") == "600")
        #expect(allowed.header("Vary") == "Origin")
        #expect(allowed.header("Access-Control-Allow-Credentials") == nil)
        #expect(try preflight("/api/v1/listens", "GET").header("Access-Control-Allow-Methods") == "GET, HEAD")

        // The actual request: the listen is taken and the answer readable by that origin.
        let sent = try HTTP.request("POST", daemon.base + "/1/submit-listens", headers: [
            "Origin": Self.site, "Authorization": "Token \(phone)", "Content-Type": "application/json"], body: Data(Self.listen("Cross").utf8))
        #expect(sent.status == 200 && sent.header("Access-Control-Allow-Origin") == Self.site && sent.header("Vary") == "Origin")
        let read = try HTTP.get(daemon.base + "/api/v1/listens", headers: ["Origin": Self.site, "Authorization": "Bearer \(phone)"])
        #expect(read.status == 200 && read.text.contains("Cross") && read.header("Access-Control-Allow-Origin") == Self.site)
        // Errors too, so the page can read the JSON; and the loopback's trust is not the page's.
        let noKey = try HTTP.get(daemon.base + "/api/v1/listens", headers: ["Origin": Self.site])
        #expect(noKey.status == 403 && noKey.header("Access-Control-Allow-Origin") == Self.site, "\(noKey.text)")
        #expect(try HTTP.get(daemon.base + "/api/v1/listens").status == 200, "the same request from no page: the trusted loopback")

        // An origin not in the list: refused preflight, no headers on answers.
        let other = try preflight("/1/submit-listens", "POST", origin: "http://127.0.0.1:8002")
        #expect(other.status == 403 && other.header("Access-Control-Allow-Origin") == nil)
        #expect((other.json?["error"] as? [String: Any])?["code"] as? String == "cross_origin_refused", "\(other.text)")
        let otherRead = try HTTP.get(daemon.base + "/api/v1/listens", headers: ["Origin": "http://127.0.0.1:8002", "Authorization": "Bearer \(phone)"])
        #expect(otherRead.header("Access-Control-Allow-Origin") == nil)

        // Site forms, the login and admin writes never answer another site, even an allowed one.
        for (path, method) in [("/history", "POST"), ("/login", "POST"), ("/logout", "POST"), ("/api/v1/listens/1", "DELETE"),
                               ("/api/v1/import", "POST"), ("/1/delete-listen", "POST")] {
            let r = try preflight(path, method)
            #expect(r.status == 403 && r.header("Access-Control-Allow-Origin") == nil, "\(method) \(path): \(r.status)")
        }
        let form = try HTTP.request("POST", daemon.base + "/history", headers: [
            "Origin": Self.site, "Content-Type": "application/x-www-form-urlencoded"], body: Data("action=delete&id=1".utf8))
        #expect(form.header("Access-Control-Allow-Origin") == nil && form.status == 303, "\(form.status)")
        #expect(try daemon.sql("SELECT count(*) FROM plays") == "1\n")
    }

    /// `*` and anything that is no origin are refused when the configuration is read.
    @Test func aWildcardOriginIsRefused() throws {
        let dir = try TemporaryDirectory("pacenote-cors")
        for (value, words) in [("[\"*\"]", "wildcard"), ("[\"null\"]", "null"), ("[\"https://example.org/page\"]", "not an origin")] {
            try "[server]\ncors_origins = \(value)\n".write(toFile: dir.file("c.toml"), atomically: true, encoding: .utf8)
            let r = try PacenoteProcess.run(["config", "--config", dir.file("c.toml"), "--db", dir.file("p.sqlite")])
            #expect(r.status != 0 && r.stderr.contains("cors_origins") && r.stderr.contains(words), "\(value): \(r.stderr)")
        }
        try "[server]\ncors_origins = [\"https://Example.org:443/\"]\n".write(toFile: dir.file("c.toml"), atomically: true, encoding: .utf8)
        let shown = try PacenoteProcess.run(["config", "--config", dir.file("c.toml"), "--db", dir.file("p.sqlite")])
        #expect(shown.status == 0 && shown.stdout.contains(#"["https://example.org"]"#), "\(shown.stdout)\(shown.stderr)")
    }

    /// The issue's "done when": a real Chromium page served from another origin sends a listen
    /// with a client key (preflight and all) and reads /api/v1/listens; from an origin not in the
    /// list the browser refuses; a site form never works cross-origin. The page reads the
    /// now-playing card's JSON and frames its page (`[share] now`).
    @Test func aChromiumPageOnAnotherOriginSubmitsAndReads() throws {
        let python = try SiteBrowserTests.python()
        // Loopback is trusted (the default), so that the page's refusal without a key shows that
        // the browser's network does not count for another site's page.
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let steps = try TemporaryDirectory("pacenote-steps")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/cors_browser.py").path
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: python)
        browser.arguments = [script, daemon.base, EmptyStatesTests.artifacts, steps.path]
        let out = Pipe(), err = Pipe()
        browser.standardOutput = out
        browser.standardError = err
        try browser.run()
        defer { if browser.isRunning { browser.terminate() } }

        // The page server's port names the allowed origin: the daemon restarts with it listed.
        #expect(eventually(timeout: 60, interval: 0.1) { FileManager.default.fileExists(atPath: steps.file("port")) || !browser.isRunning })
        let port = try String(contentsOfFile: steps.file("port"), encoding: .utf8)
        let config = try String(contentsOfFile: daemon.dir.file("config.toml"), encoding: .utf8)
        try (config + "\n[server]\ncors_origins = [\"http://127.0.0.1:\(port)\"]\n[share]\nnow = true\n")
            .write(toFile: daemon.dir.file("config.toml"), atomically: true, encoding: .utf8)
        try daemon.restart(samePort: true)
        let phone = try Self.addKey(daemon, "page", scope: "client")
        let spec = try JSONSerialization.data(withJSONObject: ["client_key": phone, "admin_key": daemon.apiKey])
        try spec.write(to: URL(fileURLWithPath: steps.file("ready.tmp")))
        try FileManager.default.moveItem(atPath: steps.file("ready.tmp"), toPath: steps.file("ready"))

        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        #expect(browser.terminationStatus == 0, "cors_browser.py: \(errors)")
        let result = (try? JSONSerialization.jsonObject(with: output) as? [String: Any]) ?? [:]
        #expect((result["checked"] as? Int ?? 0) >= 21, "\(String(decoding: output, as: UTF8.self))")

        // What the pages did, in the database: the allowed page's listen and like; nothing from
        // the refused origin; no feeling from the site form.
        #expect(try daemon.sql("SELECT t.title FROM plays p JOIN tracks t ON t.id = p.track_id ORDER BY t.title") == "Sent From Another Origin\n")
        #expect(try daemon.sql("SELECT feeling, source FROM track_feelings") == "like|api\n")
    }
}
