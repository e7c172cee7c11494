import Foundation
import PacenoteTestSupport
import Testing

/// Artist credits and MusicBrainz identity (issue 17) through the real binary: a real MPD
/// reporting several `Artist` values, `pacenote import` of credit text and of ListenBrainz's
/// `artist_names`, `pacenote credits --preview/--apply`, and export → import.
@Suite struct CreditsTests {
    static let quickRule = "[plays]\nmin_track_s = 1\n"

    /// `GET /api/v1/stats?range=all`'s top_artists as name → plays.
    static func topArtists(_ daemon: PacenoteDaemon) throws -> [String: Int] {
        let r = try HTTP.get(daemon.base + "/api/v1/stats?range=all&limit=100")
        guard r.status == 200, let rows = r.json?["top_artists"] as? [[String: Any]] else {
            throw HarnessError("stats answered \(r.status): \(r.text)")
        }
        var out: [String: Int] = [:]
        for row in rows { out[row["artist"] as? String ?? "?"] = row["plays"] as? Int ?? -1 }
        return out
    }

    static func stats(_ daemon: PacenoteDaemon, _ key: String) throws -> [[String: Any]] {
        let r = try HTTP.get(daemon.base + "/api/v1/stats?range=all&limit=100")
        return r.json?[key] as? [[String: Any]] ?? []
    }

    /// The artist's page, through the address by name, which redirects to the artist's id.
    static func artistPage(_ daemon: PacenoteDaemon, _ name: String) throws -> HTTPResult {
        let byName = try HTTP.get(daemon.base + "/artist?name=" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name))
        guard byName.status == 301, let location = byName.header("Location"), location.hasPrefix("/artists/") else {
            throw HarnessError("/artist?name=\(name) answered \(byName.status) \(byName.header("Location") ?? "")")
        }
        return try HTTP.get(daemon.base + location)
    }

    @Test func severalArtistTagsFromMPDCountForEachArtist() throws {
        let album = ["ALBUM": "Shared Album", "ALBUMARTIST": "Ana Alpha"]
        let mpd = try MPDInstance(tracks: [
            TestTrack("01.flac", seconds: 2, title: "Duet", tags: album.merging(["MUSICBRAINZ_TRACKID": "11111111-1111-4111-8111-111111111111"]) { a, _ in a },
                      repeatedTags: ["ARTIST=Ana Alpha", "ARTIST=Ben Beta"]),
            TestTrack("02.flac", seconds: 2, title: "Solo", artist: "Ana Alpha", tags: album),
            // The same artist and title twice, two recordings.
            TestTrack("03.flac", seconds: 2, title: "Twice", artist: "Ana Alpha",
                      tags: album.merging(["MUSICBRAINZ_TRACKID": "33333333-3333-4333-8333-333333333333"]) { a, _ in a }),
            TestTrack("04.flac", seconds: 2, title: "Twice", artist: "Ana Alpha",
                      tags: album.merging(["MUSICBRAINZ_TRACKID": "44444444-4444-4444-8444-444444444444"]) { a, _ in a }),
        ])
        // MPD itself reports both Artist values (one line each), and the album artist once.
        let info = try mpd.command("lsinfo 01.flac")
        #expect(info.contains("Artist: Ana Alpha\n") && info.contains("Artist: Ben Beta\n"), "\(info)")
        #expect(info.contains("AlbumArtist: Ana Alpha\n"), "\(info)")

        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: Self.quickRule)
        guard try eventually(timeout: 10, { try daemon.mpdConnected() }) else { throw HarnessError("pacenote did not connect to mpd") }
        _ = try mpd.mpc("add", "/")
        _ = try mpd.mpc("play")
        var listens: [PacenoteDaemon.Listen] = []
        _ = try eventually(timeout: 20) {
            listens = try daemon.listens()
            return listens.count >= 4
        }
        #expect(listens.map(\.title) == ["Duet", "Solo", "Twice", "Twice"], "\(listens)")
        #expect(listens.allSatisfy { $0.counted }, "\(listens)")
        // The credit text as MPD's values read together.
        #expect(listens.first?.artist == "Ana Alpha & Ben Beta", "\(listens)")

        // Each artist has the play: Ana all four, Ben the duet; no "Ana Alpha & Ben Beta".
        let top = try Self.topArtists(daemon)
        #expect(top == ["Ana Alpha": 4, "Ben Beta": 1], "\(top)")
        // One album, not one per credit: one entity, whose page and API list all four songs.
        let albums = try Self.stats(daemon, "top_albums")
        #expect(albums.count == 1 && albums.first?["album"] as? String == "Shared Album" && albums.first?["plays"] as? Int == 4, "\(albums)")
        let albumID = try #require(albums.first?["id"] as? Int)
        #expect(try daemon.sql("SELECT COUNT(DISTINCT album_id), COUNT(*) FROM tracks") == "1|4\n")
        let albumJSON = try HTTP.get(daemon.base + "/api/v1/albums/\(albumID)")
        #expect(albumJSON.status == 200 && albumJSON.json?["title"] as? String == "Shared Album" && albumJSON.json?["artist"] as? String == "Ana Alpha"
                && albumJSON.json?["plays"] as? Int == 4 && (albumJSON.json?["tracks"] as? [Any])?.count == 4, "\(albumJSON.text)")
        // Both artists are entities with the play: Ben's API lists the duet, and only it.
        let ben = try #require(try Self.stats(daemon, "top_artists").first { $0["artist"] as? String == "Ben Beta" }?["id"] as? Int)
        let benJSON = try HTTP.get(daemon.base + "/api/v1/artists/\(ben)")
        let benTracks = (benJSON.json?["top_tracks"] as? [[String: Any]] ?? []).compactMap { ($0["track"] as? [String: Any])?["title"] as? String }
        #expect(benJSON.status == 200 && benJSON.json?["plays"] as? Int == 1 && benTracks == ["Duet"], "\(benJSON.text)")
        #expect((benJSON.json?["albums"] as? [[String: Any]])?.first?["id"] as? Int == albumID, "\(benJSON.text)")
        // The two recordings of "Twice" are two tracks.
        let tracks = try Self.stats(daemon, "top_tracks").compactMap { ($0["track"] as? [String: Any])?["title"] as? String }
        #expect(tracks.filter { $0 == "Twice" }.count == 2, "\(tracks)")
        #expect(try daemon.sql("SELECT mb_recording_id FROM tracks WHERE title = 'Twice' ORDER BY uri")
                == "33333333-3333-4333-8333-333333333333\n44444444-4444-4444-8444-444444444444\n")
        // A listen of "Twice" with the second file's recording id is that file's, not the first's.
        let line = Self.listen(1_706_000_000, artist: "Ana Alpha", title: "Twice", recording: "44444444-4444-4444-8444-444444444444")
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=listens.jsonl",
                                 headers: ["Authorization": "Token \(daemon.apiKey)"], body: Data((line + "\n").utf8))
        #expect(r.status == 200 && r.json?["imported"] as? Int == 1, "\(r.text)")
        #expect(try daemon.sql("SELECT t.uri, COUNT(p.id) FROM tracks t JOIN plays p ON p.track_id = t.id WHERE t.title = 'Twice' GROUP BY t.id ORDER BY t.uri")
                == "03.flac|1\n04.flac|2\n")
        // The listed credit is stored as listed, both primary.
        #expect(try daemon.sql("SELECT a.name, a.role, a.listed FROM track_artists a JOIN tracks t ON t.id = a.track_id WHERE t.title = 'Duet' ORDER BY a.position")
                == "Ana Alpha|primary|1\nBen Beta|primary|1\n")

        // Both artists' pages show the duet.
        for name in ["Ana Alpha", "Ben Beta"] {
            let page = try Self.artistPage(daemon, name)
            #expect(page.status == 200 && page.text.contains("Duet"), "\(name): \(page.status)")
        }
        let benPage = try Self.artistPage(daemon, "Ben Beta")
        #expect(!benPage.text.contains("Solo"))
        // The history links the credit text as MPD's values read together: it leads to the
        // first credited artist.
        let joined = try Self.artistPage(daemon, "Ana Alpha & Ben Beta")
        #expect(joined.status == 200 && joined.text.contains("<h1 data-artist-id=") && joined.text.contains(">Ana Alpha</h1>"), "\(joined.text)")
    }

    /// One ListenBrainz JSONL line.
    static func listen(_ at: Int, artist: String, title: String, names: [String]? = nil, mbids: [String]? = nil,
                       recording: String? = nil) -> String {
        var info: [String: Any] = ["duration_ms": 200_000]
        if let names { info["artist_names"] = names }
        if let mbids { info["artist_mbids"] = mbids }
        if let recording { info["recording_mbid"] = recording }
        let object: [String: Any] = ["listened_at": at, "track_metadata": ["artist_name": artist, "track_name": title, "additional_info": info]]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// "TEXT — TITLE: A | B -> C | D (N plays)" → (before, after, plays)
    static func parseChange(_ line: Substring) -> (before: [String], after: [String], plays: Int)? {
        guard let colon = line.range(of: ": ", options: .backwards), let open = line.range(of: " (", options: .backwards),
              let arrow = line.range(of: " -> ", range: colon.upperBound..<open.lowerBound),
              let plays = Int(line[open.upperBound...].prefix { $0.isNumber }) else { return nil }
        let names = { (s: Substring) in s.isEmpty ? [] : s.components(separatedBy: " | ") }
        return (names(line[colon.upperBound..<arrow.lowerBound]), names(line[arrow.upperBound..<open.lowerBound]), plays)
    }

    @Test func importedCreditsSeparatorsAndRecordings() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let file = dir.file("listens.jsonl")
        let recA = "aaaaaaaa-0000-4000-8000-00000000000a", recB = "bbbbbbbb-0000-4000-8000-00000000000b"
        let lines = [
            Self.listen(1_706_000_000, artist: "Alice feat. Bob", title: "Guest Spot"),
            Self.listen(1_706_000_400, artist: "Simon & Garfunkel", title: "The Boxer"),
            Self.listen(1_706_000_800, artist: "Simon & Garfunkel", title: "The Boxer"),
            Self.listen(1_706_001_200, artist: "Crosby, Stills, Nash & Young", title: "Ohio"),
            Self.listen(1_706_001_600, artist: "Xavier & Yolanda", title: "Listed", names: ["Xavier", "Yolanda"],
                        mbids: ["00000000-0000-4000-8000-0000000000a1", "00000000-0000-4000-8000-0000000000a2"]),
            Self.listen(1_706_002_000, artist: "Same Band", title: "Same Song", recording: recA),
            Self.listen(1_706_002_400, artist: "Same Band", title: "Same Song", recording: recB),
            Self.listen(1_706_002_800, artist: "Same Band", title: "Same Song", recording: recB),
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)

        // A daemon's database, imported into while the daemon is stopped.
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        try daemon.stop()
        var r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, file])
        #expect(r.status == 0 && r.stdout.contains("imported 8"), "\(r.stdout) \(r.stderr)")
        try daemon.restart()

        // Default separators: feat. splits, & and , do not; listed artists are taken as listed.
        let before = try Self.topArtists(daemon)
        #expect(before == ["Alice": 1, "Bob": 1, "Simon & Garfunkel": 2, "Crosby, Stills, Nash & Young": 1,
                           "Xavier": 1, "Yolanda": 1, "Same Band": 3], "\(before)")
        #expect(try daemon.sql("SELECT a.name, a.role FROM track_artists a JOIN tracks t ON t.id = a.track_id WHERE t.title = 'Guest Spot' ORDER BY a.position")
                == "Alice|primary\nBob|featured\n")
        #expect(try daemon.sql("SELECT a.name, a.listed, a.mbid FROM track_artists a JOIN tracks t ON t.id = a.track_id WHERE t.title = 'Listed' ORDER BY a.position")
                == "Xavier|1|00000000-0000-4000-8000-0000000000a1\nYolanda|1|00000000-0000-4000-8000-0000000000a2\n")
        // Two recordings, two tracks, each with its plays.
        #expect(try daemon.sql("SELECT t.mb_recording_id, COUNT(p.id) FROM tracks t JOIN plays p ON p.track_id = t.id WHERE t.title = 'Same Song' GROUP BY t.id ORDER BY 1")
                == "\(recA)|1\n\(recB)|2\n")
        // Again: every listen a duplicate, the recordings still apart.
        r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, file])
        #expect(r.status == 0 && r.stdout.contains("imported 0, duplicates 8"), "\(r.stdout) \(r.stderr)")

        // What enabling "&" would change: only text credits containing "&".
        r = try PacenoteProcess.run(["credits", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, "--preview", "--separators", "&"])
        #expect(r.status == 0, "\(r.stderr)")
        let preview = r.stdout.split(separator: "\n").filter { $0.contains(" -> ") }
        #expect(preview.count == 2, "\(r.stdout)")
        #expect(preview.contains { $0.hasPrefix("Simon & Garfunkel — The Boxer: Simon & Garfunkel -> Simon | Garfunkel (2 plays)") }, "\(r.stdout)")
        #expect(preview.contains { $0.hasPrefix("Crosby, Stills, Nash & Young — Ohio: Crosby, Stills, Nash & Young -> Crosby, Stills, Nash | Young (1 play)") },
                "\(r.stdout)")
        #expect(r.stdout.contains("would split 2 tracks differently"), "\(r.stdout)")
        // The preview changed nothing.
        #expect(try Self.topArtists(daemon) == before)

        // Apply, with the configuration saying the same (the daemon splits as configured at start).
        try daemon.stop()
        try ("\n[credits]\nseparators = [\"&\"]\n").append(toFile: daemon.dir.file("config.toml"))
        r = try PacenoteProcess.run(["credits", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, "--apply"])
        #expect(r.status == 0, "\(r.stderr)")
        let applied = r.stdout.split(separator: "\n").filter { $0.contains(" -> ") }
        #expect(applied == preview, "\(r.stdout)")
        try daemon.restart()
        #expect(!daemon.process.stderr.contains("split"), "the daemon split again: \(daemon.process.stderr)")

        // The artist charts moved exactly as previewed.
        var expected = before
        for line in preview {
            guard let change = Self.parseChange(line) else { Issue.record("unreadable preview line: \(line)"); continue }
            for name in change.before { expected[name, default: 0] -= change.plays }
            for name in change.after { expected[name, default: 0] += change.plays }
        }
        expected = expected.filter { $0.value != 0 }
        let after = try Self.topArtists(daemon)
        #expect(after == expected, "\(after) vs \(expected)")
        #expect(after["Simon"] == 2 && after["Garfunkel"] == 2 && after["Simon & Garfunkel"] == nil, "\(after)")
        // Listed credits are never split again; new imports split with the new separators.
        #expect(after["Xavier"] == 1 && after["Yolanda"] == 1)
        #expect((try Self.artistPage(daemon, "Garfunkel")).text.contains("The Boxer"))

        // Export → import into an empty database: the same credits and the recordings apart.
        try daemon.stop()
        let out = dir.file("export.jsonl")
        r = try PacenoteProcess.run(["export", "--db", daemon.db, "--format", "listenbrainz", "--output", out])
        #expect(r.status == 0, "\(r.stderr)")
        let copy = dir.file("copy.sqlite")
        r = try PacenoteProcess.run(["import", "--config", daemon.dir.file("config.toml"), "--db", copy, out])
        #expect(r.status == 0 && r.stdout.contains("imported 8"), "\(r.stdout) \(r.stderr)")
        let credits = "SELECT t.title, group_concat(a.name, '|') FROM tracks t JOIN (SELECT * FROM track_artists ORDER BY track_id, position) a ON a.track_id = t.id GROUP BY t.id ORDER BY t.title, t.mb_recording_id"
        let original = try run(sqlite, [daemon.db, credits]).stdout
        let copied = try run(sqlite, [copy, credits]).stdout
        #expect(copied == original, "\(copied) vs \(original)")
        #expect(original.contains("Listed|Xavier|Yolanda") && original.contains("The Boxer|Simon|Garfunkel"), "\(original)")
        #expect(try run(sqlite, [copy, "SELECT t.mb_recording_id, COUNT(p.id) FROM tracks t JOIN plays p ON p.track_id = t.id WHERE t.title = 'Same Song' GROUP BY t.id ORDER BY 1"]).stdout
                == "\(recA)|1\n\(recB)|2\n")
    }
}

extension String {
    func append(toFile path: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(utf8))
    }
}
