import Foundation
import PacenoteTestSupport
import Testing

/// Rules over HTTP with a real daemon (issue 19, point 3): an ignore rule keeps a matching
/// MPD play and a matching ListenBrainz submission out while the others are logged; a
/// retroactive rewrite's dry run lists exactly the plays it then changes, and its undo
/// gives them back.
@Suite struct RulesTests {
    static func send(_ daemon: PacenoteDaemon, _ method: String, _ path: String, _ body: String = "") throws -> HTTPResult {
        try HTTP.request(method, daemon.base + path, headers: ["X-API-Key": daemon.apiKey, "Content-Type": "application/json"],
                         body: Data(body.utf8))
    }

    static func submit(_ daemon: PacenoteDaemon, artist: String, title: String, at: Int) throws {
        let body = #"{"listen_type": "single", "payload": [{"listened_at": \#(at), "track_metadata": {"artist_name": "\#(artist)", "track_name": "\#(title)"}}]}"#
        let r = try daemon.post("/1/submit-listens", body: body)
        #expect(r.status == 200, "\(r.text)")
    }

    @Test func anIgnoreRuleKeepsAMatchingMPDPlayAndAMatchingSubmissionOut() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("a-podcast.flac", seconds: 2, title: "Episode 12", artist: "The Podcaster"),
                                           TestTrack("b-song.flac", seconds: 2, title: "Kept Song", artist: "Band")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n")
        #expect(try eventually(timeout: 10) { try daemon.mpdConnected() })
        let added = try Self.send(daemon, "POST", "/api/v1/rules", #"{"action": "ignore", "field": "artist", "match": "equals", "value": "the podcaster"}"#)
        #expect(added.status == 201, "\(added.text)")

        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        // The podcast plays first; once the song after it is logged, the podcast's turn is over.
        #expect(try eventually(timeout: 15) { try daemon.listens().contains { $0.title == "Kept Song" } })
        let now = Int(Date().timeIntervalSince1970)
        try Self.submit(daemon, artist: "The Podcaster", title: "Episode 13", at: now - 600)
        try Self.submit(daemon, artist: "Someone Else", title: "Submitted Song", at: now - 300)
        // Nothing is left to arrive: a submission is stored before its 200, and the podcast's
        // play was decided before Kept Song's, which is logged.
        let listens = try daemon.listens()
        #expect(listens.count == 2 && Set(listens.compactMap(\.title)) == ["Kept Song", "Submitted Song"], "\(listens)")
        #expect(!listens.contains { $0.artist == "The Podcaster" })
        // Not stored at all: no play, no hidden play.
        #expect(try daemon.sql("SELECT COUNT(*) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.artist = 'The Podcaster'") == "0\n")
        #expect(try daemon.sql("SELECT COUNT(*) FROM hidden_plays") == "0\n")
    }

    @Test func aRetroactiveRewritesDryRunListsExactlyThePlaysItThenChangesAndUndoRestoresThem() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let t0 = Int(Date().timeIntervalSince1970) - 7200
        for (i, (artist, title)) in [("Band", "Song - Remastered 2011"), ("Band", "Other"), ("Band", "Song - Remastered 2011"),
                                     ("Band", "Another - Remastered 1999")].enumerated() {
            try Self.submit(daemon, artist: artist, title: title, at: t0 + i * 600)
        }
        let before = try daemon.listens()
        #expect(before.count == 4)
        let rule = try #require(try Self.send(daemon, "POST", "/api/v1/rules",
                                              #"{"action": "rewrite", "field": "title", "value": " - Remastered \\d{4}$", "replacement": ""}"#).json)
        let id = try #require(rule["id"] as? Int)

        func ids(_ json: [String: Any]?) -> [Int] {
            (json?["changes"] as? [[String: Any]] ?? []).compactMap { ($0["listen"] as? [String: Any])?["id"] as? Int }
        }
        let preview = try Self.send(daemon, "POST", "/api/v1/rules/\(id)/preview")
        #expect(preview.status == 200, "\(preview.text)")
        let dryIDs = ids(preview.json)
        #expect(preview.json?["total"] as? Int == 3)
        let afterTitles = (preview.json?["changes"] as? [[String: Any]] ?? []).compactMap { ($0["after"] as? [String: Any])?["title"] as? String }
        #expect(afterTitles == ["Song", "Song", "Another"])
        #expect(try daemon.listens().map(\.title) == before.map(\.title), "a dry run changes nothing")

        let applied = try Self.send(daemon, "POST", "/api/v1/rules/\(id)/apply")
        #expect(applied.status == 200, "\(applied.text)")
        #expect(ids(applied.json) == dryIDs)
        let after = try daemon.listens()
        let changed = zip(before, after).filter { $0.title != $1.title }.compactMap { $0.0.json["id"] as? Int }
        #expect(Set(changed) == Set(dryIDs), "the dry run listed exactly the plays that changed")
        #expect(after.map(\.title) == ["Song", "Other", "Song", "Another"])

        let entry = try #require((applied.json?["curation"] as? [String: Any])?["id"] as? Int)
        let undo = try Self.send(daemon, "POST", "/api/v1/curation/\(entry)/undo")
        #expect(undo.status == 200, "\(undo.text)")
        #expect(try daemon.listens().map(\.title) == before.map(\.title))
        #expect(try daemon.listens().compactMap { $0.json["id"] as? Int } == before.compactMap { $0.json["id"] as? Int })
    }

    /// `[[rules]]` in the configuration file: stored at start, applied to submissions, listed
    /// as the configuration's and refused to the API's changes (409); a restart with another
    /// file replaces them and keeps the site's; `pacenote import` applies them too.
    @Test func configurationRulesApplyAreListedAsTheConfigurationsAndCannotBeEditedOverHTTP() throws {
        let config = #"""
            [[rules]]
            action = "ignore"
            field = "artist"
            value = "The Podcaster"
            [[rules]]
            action = "rewrite"
            field = "title"
            match = "regex"
            value = " - Remastered \\d{4}$"
            replacement = ""
            """#
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: config)
        #expect(daemon.process.stderr.contains("rules: 2 from the configuration"), "\(daemon.process.stderr)")
        let now = Int(Date().timeIntervalSince1970)
        try Self.submit(daemon, artist: "The Podcaster", title: "Episode 13", at: now - 900)
        try Self.submit(daemon, artist: "Band", title: "Song - Remastered 2011", at: now - 600)
        let listens = try daemon.listens()
        #expect(listens.map(\.title) == ["Song"] && listens.map(\.artist) == ["Band"], "\(listens)")
        #expect(try daemon.sql("SELECT COUNT(*) FROM tracks WHERE artist = 'The Podcaster'") == "0\n")
        #expect(try daemon.sql("SELECT COUNT(*) FROM hidden_plays") == "0\n")

        let listed = try Self.send(daemon, "GET", "/api/v1/rules")
        #expect(listed.status == 200, "\(listed.text)")
        let rules = listed.json?["rules"] as? [[String: Any]] ?? []
        #expect(rules.map { $0["origin"] as? String } == ["config", "config"], "\(listed.text)")
        #expect(Set(rules.compactMap { $0["action"] as? String }) == ["ignore", "rewrite"])
        let ignore = try #require(rules.first { $0["action"] as? String == "ignore" })
        #expect(ignore["value"] as? String == "The Podcaster" && ignore["match"] as? String == "equals" && ignore["enabled"] as? Bool == true)
        let id = try #require(ignore["id"] as? Int)
        let patched = try Self.send(daemon, "PATCH", "/api/v1/rules/\(id)", #"{"enabled": false}"#)
        #expect(patched.status == 409, "\(patched.text)")
        let deleted = try Self.send(daemon, "DELETE", "/api/v1/rules/\(id)")
        #expect(deleted.status == 409, "\(deleted.text)")
        #expect(try Self.send(daemon, "GET", "/api/v1/rules/\(id)").json?["enabled"] as? Bool == true)
        // The site's own rule, beside them.
        let added = try Self.send(daemon, "POST", "/api/v1/rules", #"{"action": "hide", "field": "genre", "value": "Sleep"}"#)
        #expect(added.status == 201 && added.json?["origin"] as? String == "site", "\(added.text)")

        // Another file: its rules replace the previous file's; the site's rule stays.
        try """
            [mpd]
            reconnect_initial_s = 0.2
            [[rules]]
            action = "ignore"
            field = "title"
            match = "prefix"
            value = "Jingle"
            """.write(toFile: daemon.dir.file("config.toml"), atomically: true, encoding: .utf8)
        try daemon.restart()
        #expect(daemon.process.stderr.contains("rules: 1 from the configuration"), "\(daemon.process.stderr)")
        let after = try Self.send(daemon, "GET", "/api/v1/rules").json?["rules"] as? [[String: Any]] ?? []
        #expect(after.map { "\($0["origin"] ?? "")/\($0["action"] ?? "")/\($0["value"] ?? "")" }
                == ["config/ignore/Jingle", "site/hide/Sleep"], "\(after)")
        try Self.submit(daemon, artist: "The Podcaster", title: "Episode 14", at: now - 300)
        try Self.submit(daemon, artist: "Radio", title: "Jingle 3", at: now - 200)
        #expect(try daemon.listens().map(\.title) == ["Song", "Episode 14"])

        // `pacenote import` stores the file's rules and applies them to what it imports.
        try daemon.stop()
        try """
            [[rules]]
            action = "ignore"
            field = "artist"
            value = "Imported Podcaster"
            """.write(toFile: daemon.dir.file("import.toml"), atomically: true, encoding: .utf8)
        let file = daemon.dir.file("listens.jsonl")
        try [CreditsTests.listen(1_706_000_000, artist: "Imported Podcaster", title: "Old Episode"),
             CreditsTests.listen(1_706_000_400, artist: "Imported Band", title: "Old Song")]
            .joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("import.toml"), "--db", daemon.db, file])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(try daemon.sql("SELECT t.artist FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.artist LIKE 'Imported %'")
                == "Imported Band\n")
        #expect(try daemon.sql("SELECT value, from_config FROM curation_rules ORDER BY from_config DESC, id")
                == "Imported Podcaster|1\nSleep|0\n")
    }
}
