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
        usleep(300_000)
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
}
