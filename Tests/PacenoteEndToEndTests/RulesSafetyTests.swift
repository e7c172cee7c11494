import Foundation
import PacenoteTestSupport
import Testing

/// A rule that stalled the server (issue 51, point 2): the owner's rewrite `(a+)+$` and a
/// submitted title of 100 × `a` + `!` held ICU's backtracking engine for 66.8 s inside the
/// write lock. With the linear engine the play is stored at once while `/healthz` and other
/// submits answer within a second; a pattern that does run out of steps is skipped for that
/// play, which is stored unchanged, and reported on `/api/v1/rules` and the Rules page; a
/// stored pattern the engine refuses is skipped and flagged; saving a slow pattern warns.
@Suite struct RulesSafetyTests {
    static func send(_ daemon: PacenoteDaemon, _ method: String, _ path: String, _ body: String = "") throws -> HTTPResult {
        try HTTP.request(method, daemon.base + path, headers: ["X-API-Key": daemon.apiKey, "Content-Type": "application/json"],
                         body: Data(body.utf8))
    }

    static func listen(title: String, at: Int) -> String {
        #"{"listen_type": "single", "payload": [{"listened_at": \#(at), "track_metadata": {"artist_name": "Stranger", "track_name": "\#(title)"}}]}"#
    }

    static func rules(_ daemon: PacenoteDaemon) throws -> [[String: Any]] {
        try #require(try Self.send(daemon, "GET", "/api/v1/rules").json?["rules"] as? [[String: Any]])
    }

    @Test func thePathologicalRuleAndTitleStallNothingAndThePlayIsStored() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let added = try Self.send(daemon, "POST", "/api/v1/rules",
                                  #"{"action": "rewrite", "field": "title", "value": "(a+)+$", "replacement": "[$1]"}"#)
        #expect(added.status == 201, "\(added.text)")
        #expect(added.json?["warning"] is NSNull, "the linear engine takes (a+)+$ in stride: \(added.text)")
        #expect((added.json?["stress_steps"] as? Int ?? .max) < 100_000)

        // The test's client (URLSession on Linux) takes ~0.7 s the first time two of its requests
        // run at once, whatever the server: a pair before the timed part, so that the times
        // below are the server's.
        DispatchQueue.concurrentPerform(iterations: 2) { _ in _ = try? HTTP.get(daemon.base + "/healthz") }

        let now = Int(Date().timeIntervalSince1970)
        let evil = String(repeating: "a", count: 100) + "!"
        let group = DispatchGroup()
        let evilResult = Locked<(status: Int, seconds: Double)?>(nil)
        DispatchQueue.global().async(group: group) {
            let start = Date()
            let r = try? daemon.post("/1/submit-listens", body: Self.listen(title: evil, at: now - 900))
            evilResult.set((r?.status ?? 0, Date().timeIntervalSince(start)))
        }
        // While it is processed: the health check and another submit answer within a second.
        for i in 0..<3 {
            var start = Date()
            #expect(try HTTP.get(daemon.base + "/healthz").status == 200)
            #expect(Date().timeIntervalSince(start) < 1)
            start = Date()
            #expect(try daemon.post("/1/submit-listens", body: Self.listen(title: "Other \(i)", at: now - 600 + i)).status == 200)
            #expect(Date().timeIntervalSince(start) < 1)
        }
        #expect(group.wait(timeout: .now() + 5) == .success)
        let result = try #require(evilResult.get())
        #expect(result.status == 200 && result.seconds < 1, "\(result)")

        // Stored as it came (the pattern does not match a title ending in `!`), and a title
        // it matches is rewritten as ICU would have.
        #expect(try daemon.post("/1/submit-listens", body: Self.listen(title: "Song aaa", at: now - 300)).status == 200)
        let titles = try daemon.listens().compactMap(\.title)
        #expect(titles.contains(evil) && titles.contains("Song [aaa]"), "\(titles)")
        #expect(titles.count == 5)
        #expect(try Self.rules(daemon).allSatisfy { $0["overrun"] is NSNull && $0["problem"] is NSNull })
    }

    @Test func aRuleOverItsBudgetIsSkippedReportedAndThePlayStoredUnchanged() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        // A program of ~1,000 instructions: on 1,024 characters it passes 1,000,000 steps.
        let added = try Self.send(daemon, "POST", "/api/v1/rules",
                                  #"{"action": "rewrite", "field": "title", "value": "(a{1,50}){1,10}$", "replacement": "short"}"#)
        #expect(added.status == 201, "\(added.text)")
        let warning = try #require(added.json?["warning"] as? String, "\(added.text)")
        #expect(warning.contains("skipped and reported"), "\(warning)")
        let id = try #require(added.json?["id"] as? Int)
        // A second rule after it still applies.
        #expect(try Self.send(daemon, "POST", "/api/v1/rules",
                              #"{"action": "rewrite", "field": "title", "value": "!$", "replacement": "?"}"#).status == 201)

        let long = String(repeating: "a", count: 1_023) + "!"
        let start = Date()
        let r = try daemon.post("/1/submit-listens", body: Self.listen(title: long, at: Int(Date().timeIntervalSince1970) - 60))
        // The budget (1,000,000 steps for the field) bounds the work, not the clock: this debug
        // build's engine took 1.2–2.0 s for it on this two-core box (over 2 s once in CI, beside
        // the unit tests and the release build); ICU took 51 s of CPU on a shorter text.
        let took = Date().timeIntervalSince(start)
        print("a submit with a rule over its budget: \(Int(took * 1000)) ms")
        #expect(r.status == 200 && took < 4, "\(Int(took * 1000)) ms: \(r.text)")
        #expect(try daemon.listens().map(\.title) == [String(repeating: "a", count: 1_023) + "?"])

        let rule = try #require(try Self.rules(daemon).first { $0["id"] as? Int == id })
        let overrun = try #require(rule["overrun"] as? [String: Any], "\(rule)")
        #expect(overrun["field"] as? String == "title" && overrun["count"] as? Int == 1)
        #expect((overrun["steps"] as? Int ?? 0) > 1_000_000 && overrun["at"] is String)
        let page = try HTTP.get(daemon.base + "/rules")
        #expect(page.text.contains("Ran out of steps"), "the Rules page reports it")
        // Short text is within budget: the rule applies, and the report stays until the rule changes.
        #expect(try daemon.post("/1/submit-listens", body: Self.listen(title: "aaa", at: Int(Date().timeIntervalSince1970) - 30)).status == 200)
        #expect(try daemon.listens().compactMap(\.title).contains("short"))
        #expect(try Self.send(daemon, "PATCH", "/api/v1/rules/\(id)", #"{"value": "a+$"}"#).status == 200)
        #expect(try Self.rules(daemon).first { $0["id"] as? Int == id }?["overrun"] is NSNull)
    }

    @Test func aStoredRuleTheEngineRefusesIsSkippedAndFlagged() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        // As an older version stored it (ICU took lookaheads); the API refuses it now.
        let refused = try Self.send(daemon, "POST", "/api/v1/rules", #"{"action": "ignore", "field": "title", "match": "regex", "value": "^(?!Live)"}"#)
        #expect(refused.status == 400 && refused.text.contains("lookahead"), "\(refused.text)")
        _ = try daemon.sql("""
            INSERT INTO curation_rules (position, action, field, match, value, replacement, enabled, from_config, created_at_ms)
            VALUES (1, 'ignore', 'title', 'regex', '^(?!Live)', NULL, 1, 0, 0);
            INSERT INTO meta (key, value) VALUES ('rules_generation', '1') ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1;
            """)
        let rule = try #require(try Self.rules(daemon).first)
        #expect((rule["problem"] as? String)?.contains("lookahead") == true, "\(rule)")
        #expect(try daemon.post("/1/submit-listens", body: Self.listen(title: "Studio", at: Int(Date().timeIntervalSince1970) - 60)).status == 200)
        #expect(try daemon.listens().map(\.title) == ["Studio"], "skipped: the play it would have ignored is stored")
        #expect(try HTTP.get(daemon.base + "/rules").text.contains("Skipped: "))
        // The dry run says why instead of failing.
        let id = try #require(rule["id"] as? Int)
        let preview = try Self.send(daemon, "POST", "/api/v1/rules/\(id)/preview")
        #expect(preview.status == 400 && preview.text.contains("lookahead"), "\(preview.text)")
    }

    /// A slow pattern in the configuration's `[[rules]]` is said at start, as saving one on the site does.
    @Test func aSlowConfigurationRuleIsWarnedAboutAtStart() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: """
            [[rules]]
            action = "ignore"
            field = "title"
            match = "regex"
            value = "(a{1,50}){1,10}$"
            [[rules]]
            action = "rewrite"
            field = "title"
            value = "(a+)+$"
            replacement = ""
            """)
        let log = daemon.process.stderr
        #expect(log.contains("rules[1]: on 1024 characters"), "\(log)")
        #expect(!log.contains("rules[2]:"), "\(log)")
        #expect(try Self.rules(daemon).count == 2)
    }
}

/// A value shared with a background submit.
final class Locked<T>: @unchecked Sendable {
    // Guarded by `lock`; the test reads it only after the group is done.
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T { lock.withLock { value } }
}
