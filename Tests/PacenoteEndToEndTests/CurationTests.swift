import Foundation
import PacenoteTestSupport
import Testing

/// Corrections to the history through the real binary (issue 19): a real MPD plays,
/// ListenBrainz submissions arrive over HTTP, and plays are deleted, artists merged and
/// the merge undone through the API.
@Suite struct CurationTests {
    static func submit(_ daemon: PacenoteDaemon, artist: String, title: String, at seconds: Int) throws {
        let body = #"{"listen_type": "single", "payload": [{"listened_at": \#(seconds), "track_metadata": {"artist_name": "\#(artist)", "track_name": "\#(title)"}}]}"#
        let r = try daemon.post("/1/submit-listens", body: body)
        guard r.status == 200 else { throw HarnessError("submit-listens answered \(r.status): \(r.text)") }
    }

    static func totals(_ daemon: PacenoteDaemon, _ range: String) throws -> (plays: Int, top: [String: Int]) {
        let r = try HTTP.get(daemon.base + "/api/v1/stats?range=\(range)&limit=100")
        let plays = (r.json?["totals"] as? [String: Any])?["plays"] as? Int ?? -1
        var top: [String: Int] = [:]
        for row in r.json?["top_tracks"] as? [[String: Any]] ?? [] {
            top[(row["track"] as? [String: Any])?["title"] as? String ?? "?"] = row["plays"] as? Int ?? -1
        }
        return (plays, top)
    }

    @Test func deleteMergeAndUndoOverHTTPWithRealPlaysAndSubmissions() throws {
        let mpd = try MPDInstance(tracks: [
            TestTrack("01.flac", seconds: 2, title: "Dog Days", artist: "Florence + the Machine"),
            TestTrack("02.flac", seconds: 2, title: "Shake It Out", artist: "Florence and the Machine"),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: CreditsTests.quickRule)
        guard try eventually(timeout: 10, { try daemon.mpdConnected() }) else { throw HarnessError("pacenote did not connect to mpd") }
        _ = try mpd.mpc("add", "/")
        _ = try mpd.mpc("play")
        guard try eventually(timeout: 20, { try daemon.listens().count >= 2 }) else { throw HarnessError("MPD's plays were not logged") }

        // Delete one play: the day's and the track's counts drop by one.
        try Self.submit(daemon, artist: "Someone", title: "Twice", at: 1_767_607_200)  // 2026-01-05 10:00 UTC
        try Self.submit(daemon, artist: "Someone", title: "Twice", at: 1_767_610_800)
        let day = try Self.totals(daemon, "2026-01-05")
        #expect(day.plays == 2 && day.top["Twice"] == 2, "\(day)")
        let twice = try #require(try daemon.listens().first { $0.title == "Twice" })
        let deleted = try HTTP.request("DELETE", daemon.base + "/api/v1/listens/\(twice.json["id"] as? Int ?? 0)",
                                       headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(deleted.status == 200, "\(deleted.text)")
        let after = try Self.totals(daemon, "2026-01-05")
        #expect(after.plays == 1 && after.top["Twice"] == 1, "\(after)")

        // Merge the two spellings: top artists shows one entry with the summed plays.
        let before = try CreditsTests.topArtists(daemon)
        #expect(before["Florence + the Machine"] == 1 && before["Florence and the Machine"] == 1, "\(before)")
        let merge = try daemon.post("/api/v1/merges", body: #"{"kind": "artist", "from": ["Florence + the Machine"], "into": "Florence and the Machine"}"#)
        #expect(merge.status == 201, "\(merge.text)")
        var top = try CreditsTests.topArtists(daemon)
        #expect(top["Florence and the Machine"] == 2 && top["Florence + the Machine"] == nil, "\(top)")

        // A new submission and a new MPD play under the merged name count for the kept one.
        try Self.submit(daemon, artist: "Florence + the Machine", title: "Cosmic Love", at: 1_767_700_000)
        let logged = try daemon.listens().count
        _ = try mpd.mpc("play", "1")
        guard try eventually(timeout: 20, { try daemon.listens().count > logged }) else { throw HarnessError("the new MPD play was not logged") }
        top = try CreditsTests.topArtists(daemon)
        #expect(top["Florence and the Machine"] == 4 && top["Florence + the Machine"] == nil, "\(top)")

        // Undo the merge: both come back as they were, the plays under each name with it.
        let entry = try #require(merge.json?["id"] as? Int)
        let undo = try daemon.post("/api/v1/curation/\(entry)/undo", body: "")
        #expect(undo.status == 200, "\(undo.text)")
        top = try CreditsTests.topArtists(daemon)
        #expect(top["Florence + the Machine"] == 3 && top["Florence and the Machine"] == 1, "\(top)")
        // The log has both entries, the merge marked undone.
        let log = try HTTP.get(daemon.base + "/api/v1/curation").json?["entries"] as? [[String: Any]] ?? []
        #expect(log.map { $0["kind"] as? String } == ["merge", "delete"], "\(log)")
        #expect(log.first?["undone_at"] is String && log.last?["undone_at"] is NSNull, "\(log)")
    }
}

extension CurationTests {
    /// `pacenote export --curation` → `pacenote import` then `import --curation` into an empty
    /// database: the merge is made again there, and later plays under the alias follow it.
    @Test func anExportedMergeIsReplayedInARebuiltDatabase() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        try Self.submit(daemon, artist: "Florence + the Machine", title: "Dog Days", at: 1_767_607_200)
        try Self.submit(daemon, artist: "Florence and the Machine", title: "Shake It Out", at: 1_767_608_200)
        try Self.submit(daemon, artist: "Beyoncé", title: "Halo", at: 1_767_609_200)
        // The live page hears of every correction (it reloads its figures).
        let stream = try RawHTTPConnection(port: daemon.port, request: RawHTTPConnection.get("/api/v1/events"))
        #expect(stream.waitFor(": connected"), "\(stream.received)")
        let merge = try daemon.post("/api/v1/merges", body: #"{"kind": "artist", "from": ["Florence + the Machine"], "into": "Florence and the Machine"}"#)
        #expect(merge.status == 201, "\(merge.text)")
        let entry = try #require(merge.json?["id"] as? Int)
        #expect(stream.waitFor("event: curated\ndata: {\"id\":\(entry),\"undone\":false}"), "\(stream.received)")
        // A rule of the site's travels with the log.
        let rule = try daemon.post("/api/v1/rules", body: #"{"action": "hide", "field": "artist", "value": "White Noise"}"#)
        #expect(rule.status == 201, "\(rule.text)")
        try daemon.stop()
        let dir = try TemporaryDirectory()
        let plays = dir.file("plays.jsonl"), log = dir.file("curation.jsonl"), copy = dir.file("copy.sqlite")
        var r = try PacenoteProcess.run(["export", "--db", daemon.db, "--format", "listenbrainz", "--output", plays, "--curation", log])
        #expect(r.status == 0 && r.stderr.contains("1 curation entry, 1 rule"), "\(r.stderr)")
        let line = try String(contentsOfFile: log, encoding: .utf8)
        #expect(line.contains(#""kind":"merge""#) && line.contains(#""into_key":"florence and the machine""#), "\(line)")
        r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("config.toml"), "--db", copy, plays])
        #expect(r.status == 0 && r.stdout.contains("imported 3"), "\(r.stdout) \(r.stderr)")
        r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("config.toml"), "--db", copy, "--curation", log])
        #expect(r.status == 0 && r.stdout.contains("1 merge made again, 1 rule added, 0 skipped"), "\(r.stdout) \(r.stderr)")
        let sqlite = try Tools.require("sqlite3")
        let artists = "SELECT a.name, r.plays FROM rollup_artist_total r JOIN artists a ON a.id = r.artist_id ORDER BY 1"
        #expect(try run(sqlite, [copy, artists]).stdout == "Beyoncé|1\nFlorence and the Machine|2\n")
        // The export named the merged plays by the kept name (issue 52, row 8); the replay made
        // the merged name an alias again, for later plays under it.
        #expect(!(try String(contentsOfFile: plays, encoding: .utf8)).contains("Florence + the Machine"))
        #expect(try run(sqlite, [copy, "SELECT merged_into IS NOT NULL FROM artists WHERE name_key = 'florence + the machine'"]).stdout == "1\n")
        // Again: merged already, nothing to do.
        r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("config.toml"), "--db", copy, "--curation", log])
        #expect(r.status == 0 && r.stdout.contains("0 merges made again, 0 rules added, 1 skipped"), "\(r.stdout) \(r.stderr)")
        #expect(try run(sqlite, [copy, "SELECT action, field, value FROM curation_rules"]).stdout == "hide|artist|White Noise\n")
    }
}

/// The corrections in a real browser: the history page's delete (and its undo), edit, and
/// the corrections page's one-click merge of a suggested duplicate (and its undo).
@Suite struct CurationBrowserTests {
    static let script =
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/curation_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/curation-browser").path

    @Test func deleteUndoEditAndMergeFromThePages() throws {
        let python = try SiteBrowserTests.python()
        let start = Date()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: CreditsTests.quickRule)
        for (i, (artist, title)) in [("Florence + the Machine", "Dog Days"), ("Florence and the Machine", "Shake It Out"),
                                     ("Beyoncé", "Halo"), ("Beyoncé", "Formation")].enumerated() {
            try CurationTests.submit(daemon, artist: artist, title: title, at: 1_767_607_200 + i * 600)
        }
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 15, "\(r.stdout)")
        let saved = Set(summary?["screenshots"] as? [String] ?? [])
        #expect(saved == ["history-deleted.png", "curation.png", "curation-undone.png"], "\(saved)")
        for name in saved.sorted() {
            let path = Self.artifacts + "/" + name
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast
            #expect(modified >= start && (FileManager.default.contents(atPath: path)?.count ?? 0) > 16_000, "\(name)")
        }
        // What the pages did is in the database: the edit stands, the delete and merge were undone.
        #expect(try daemon.sql("SELECT COUNT(*) FROM plays") == "4\n")
        #expect(try daemon.sql("SELECT kind, undone_at_ms IS NOT NULL FROM curation_log ORDER BY id") == "delete|1\nedit|0\nmerge|1\n")
    }
}
