import Foundation
import PacenoteTestSupport
import Testing

/// The Liked playlist and the feeling stickers in a real MPD, after likes, clears and an
/// import; likes through `pacenote import --loved` and `pacenote export --feedback`.
@Suite struct LikesMPDTests {
    static let mbid = "5b11f4ce-a62d-471e-81fc-a69a8278c7da"

    /// The stored playlist's files, nil when MPD has no such playlist.
    func playlist(_ mpd: MPDInstance, _ name: String = "Liked") -> [String]? {
        guard let reply = try? mpd.command("listplaylist \(name)") else { return nil }
        return reply.split(separator: "\n").compactMap { $0.hasPrefix("file: ") ? String($0.dropFirst(6)) : nil }
    }

    func sticker(_ mpd: MPDInstance, _ uri: String) -> String? {
        guard let reply = try? mpd.command("sticker get song \"\(uri)\" feeling") else { return nil }
        return reply.split(separator: "\n").first { $0.hasPrefix("sticker: ") }.map { String($0.dropFirst("sticker: feeling=".count)) }
    }

    @Test func theLikedPlaylistFollowsLikesClearsAndAnImport() throws {
        let mpd = try MPDInstance(tracks: [
            TestTrack("a.flac", seconds: 1, title: "Alpha", artist: "Ann"),
            TestTrack("b.flac", seconds: 1, title: "Beta", artist: "Bob"),
            TestTrack("c.flac", seconds: 1, title: "Gamma", artist: "Cat"),
            TestTrack("d.flac", seconds: 1, title: "Delta", artist: "Dan", tags: ["MUSICBRAINZ_TRACKID": Self.mbid]),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1") == "4\n" })
        var ids: [String: Int64] = [:]
        for line in try daemon.sql("SELECT uri, id FROM tracks").split(separator: "\n") {
            let parts = line.split(separator: "|")
            ids[String(parts[0])] = Int64(parts[1])
        }
        #expect(try daemon.sql("SELECT mb_recording_id FROM tracks WHERE uri = 'd.flac'") == Self.mbid + "\n")
        let key = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"]
        func feel(_ uri: String, _ feeling: String) throws {
            let r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(ids[uri]!)/feeling", headers: key,
                                     body: Data(#"{"feeling": "\#(feeling)"}"#.utf8))
            #expect(r.status == 200, "\(r.text)")
        }
        // No likes yet: no playlist made.
        #expect(playlist(mpd) == nil)

        try feel("a.flac", "like")
        usleep(20_000)  // a later millisecond for b's like: the playlist is newest like first
        try feel("b.flac", "like")
        try feel("c.flac", "dislike")
        #expect(eventually { playlist(mpd) == ["b.flac", "a.flac"] }, "\(playlist(mpd) ?? [])")
        #expect(eventually { sticker(mpd, "c.flac") == "dislike" && sticker(mpd, "a.flac") == "like" })

        try feel("a.flac", "none")
        #expect(eventually { playlist(mpd) == ["b.flac"] }, "\(playlist(mpd) ?? [])")
        #expect(eventually { sticker(mpd, "a.flac") == nil })

        // An import of ListenBrainz feedback: by recording MBID, by track metadata, one unknown.
        let feedback = [
            #"{"created": 1700000000, "recording_mbid": "\#(Self.mbid)", "recording_msid": "0c5fd0a4-8c2e-4b3c-9e7d-0a1b2c3d4e5f", "score": 1, "track_metadata": null, "user_id": "me"}"#,
            #"{"created": 1700000001, "recording_mbid": null, "recording_msid": "1c5fd0a4-8c2e-4b3c-9e7d-0a1b2c3d4e5f", "score": 1, "track_metadata": {"artist_name": "ann", "track_name": "ALPHA"}, "user_id": "me"}"#,
            #"{"created": 1700000002, "recording_mbid": null, "recording_msid": "2c5fd0a4-8c2e-4b3c-9e7d-0a1b2c3d4e5f", "score": 1, "track_metadata": null, "user_id": "me"}"#,
        ].joined(separator: "\n") + "\n"
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=feedback.jsonl", headers: key, body: Data(feedback.utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["format"] as? String == "listenbrainz_feedback")
        let feelings = r.json?["feelings"] as? [String: Any]
        #expect(feelings?["liked"] as? Int == 2 && feelings?["unmatched"] as? Int == 1, "\(r.text)")
        #expect(eventually { Set(playlist(mpd) ?? []) == ["a.flac", "b.flac", "d.flac"] && playlist(mpd)?.count == 3 },
                "\(playlist(mpd) ?? [])")
        #expect(eventually { sticker(mpd, "d.flac") == "like" })
        #expect(try daemon.sql("SELECT uri FROM tracks JOIN track_feelings ON track_id = id WHERE feeling = 'like' ORDER BY uri")
                == "a.flac\nb.flac\nd.flac\n")
    }

    @Test func anEmptyPlaylistNameKeepsMPDsPlaylistsAlone() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("a.flac", seconds: 1, title: "Alpha", artist: "Ann")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[likes]\nplaylist = \"\"\n")
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1") == "1\n" })
        let id = try daemon.sql("SELECT id FROM tracks").trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(id)/feeling",
                                 headers: ["Authorization": "Token \(daemon.apiKey)"], body: Data(#"{"feeling": "like"}"#.utf8))
        #expect(r.status == 200)
        #expect(eventually { sticker(mpd, "a.flac") == "like" }, "the sticker is still set")
        #expect(playlist(mpd) == nil)
        #expect((try? mpd.command("listplaylists"))?.contains("playlist: ") == false)
    }

    @Test func lovedTracksAndFeedbackRoundTripThroughTheCommands() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let listens = [
            #"{"listened_at": 1700000000, "track_metadata": {"artist_name": "Ann", "track_name": "Alpha"}}"#,
            #"{"listened_at": 1700000300, "track_metadata": {"artist_name": "Bob", "track_name": "Beta", "additional_info": {"recording_mbid": "\#(Self.mbid)"}}}"#,
            #"{"listened_at": 1700000600, "track_metadata": {"artist_name": "Cat", "track_name": "Gamma"}}"#,
        ].joined(separator: "\n") + "\n"
        try listens.write(toFile: dir.file("listens.jsonl"), atomically: true, encoding: .utf8)
        var r = try PacenoteProcess.run(["import", "--db", db, dir.file("listens.jsonl")])
        #expect(r.status == 0, "\(r.stderr)")
        // lastfm.ghan.nl's loved tracks layout: one known, one not.
        try """
            uts,utc_time,artist,artist_mbid,track,track_mbid
            1700000000,"14 Nov 2023, 22:13",ann,,alpha,
            1700000100,"14 Nov 2023, 22:15",Nobody,,Missing,
            """.write(toFile: dir.file("loved.csv"), atomically: true, encoding: .utf8)
        r = try PacenoteProcess.run(["import", "--db", db, "--loved", dir.file("loved.csv")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("liked 1, disliked 0, unmatched 1"), "\(r.stdout)")
        try #"{"recording_mbid": "\#(Self.mbid)", "score": -1}"#.write(toFile: dir.file("feedback.jsonl"), atomically: true, encoding: .utf8)
        r = try PacenoteProcess.run(["import", "--db", db, dir.file("feedback.jsonl")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("disliked 1"), "\(r.stdout)")
        let sqlite = try Tools.require("sqlite3")
        let query = "SELECT t.artist, t.title, f.feeling, f.source FROM track_feelings f JOIN tracks t ON t.id = f.track_id ORDER BY t.title"
        let before = try run(sqlite, [db, query]).stdout
        #expect(before == "Ann|Alpha|like|import\nBob|Beta|dislike|import\n", "\(before)")

        r = try PacenoteProcess.run(["export", "--db", db, "--format", "listenbrainz", "--output", dir.file("out.jsonl"),
                                     "--feedback", dir.file("out-feedback.jsonl")])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = try String(contentsOfFile: dir.file("out-feedback.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.contains { $0.contains(#""score":-1"#) && $0.contains(Self.mbid) })
        // Back into a new database: the same feelings.
        let copy = dir.file("copy.sqlite")
        #expect(try PacenoteProcess.run(["import", "--db", copy, dir.file("out.jsonl")]).status == 0)
        r = try PacenoteProcess.run(["import", "--db", copy, dir.file("out-feedback.jsonl")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try run(sqlite, [copy, query]).stdout == before)
    }
}
