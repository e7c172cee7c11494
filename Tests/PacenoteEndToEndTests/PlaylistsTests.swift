import Foundation
import PacenoteTestSupport
import Testing

/// The queue, stored playlists, smart playlists and moods (issue 57) against a real MPD with a
/// `playlist_directory`: what Pacenote writes is what `mpc` reads, and what `mpc` writes is
/// what Pacenote shows.
@Suite(.serialized)
struct PlaylistsTests {
    /// Four-minute songs at 122–140 bpm and a 100-second one, one album.
    static let tracks = [
        TestTrack("a.flac", seconds: 240, title: "Alpha", artist: "Tempo", album: "Smart", bpm: 122, tags: ["Track": "1"]),
        TestTrack("b.flac", seconds: 240, title: "Bravo", artist: "Tempo", album: "Smart", bpm: 125, tags: ["Track": "2"], frequency: 550),
        TestTrack("c.flac", seconds: 240, title: "Charlie", artist: "Tempo", album: "Smart", bpm: 128, tags: ["Track": "3"], frequency: 660),
        TestTrack("d.flac", seconds: 200, title: "Delta", artist: "Tempo", album: "Smart", bpm: 140, tags: ["Track": "4"], frequency: 770),
        TestTrack("e.flac", seconds: 100, title: "Echo", artist: "Tempo", album: "Smart", bpm: 126, tags: ["Track": "5"], frequency: 880),
    ]

    /// A daemon whose library mirror has the five songs; their track ids by title.
    static func started(_ tracks: [TestTrack] = tracks) throws -> (MPDInstance, PacenoteDaemon, [String: Int]) {
        let mpd = try MPDInstance(tracks: tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        var ids: [String: Int] = [:]
        #expect(try eventually(timeout: 20) {
            guard let artist = (try HTTP.get(daemon.base + "/api/v1/library/artists", headers: daemon.keyHeader).json?["artists"]
                as? [[String: Any]])?.first?["id"] as? Int,
                let album = (try HTTP.get(daemon.base + "/api/v1/library/artists/\(artist)", headers: daemon.keyHeader).json?["albums"]
                    as? [[String: Any]])?.first?["id"] as? Int,
                let rows = try HTTP.get(daemon.base + "/api/v1/library/albums/\(album)", headers: daemon.keyHeader).json?["tracks"]
                    as? [[String: Any]] else { return false }
            ids = [:]
            for row in rows {
                if let track = row["track"] as? [String: Any], let title = track["title"] as? String, let id = track["id"] as? Int { ids[title] = id }
            }
            return ids.count == tracks.count
        })
        return (mpd, daemon, ids)
    }

    func like(_ daemon: PacenoteDaemon, _ id: Int?, _ feeling: String = "like") throws {
        let r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(id ?? 0)/feeling", headers: daemon.keyHeader,
                                 body: Data(#"{"feeling": "\#(feeling)"}"#.utf8))
        #expect(r.status == 200, "\(r.text)")
    }

    /// `mpc playlist NAME`'s titles ([] when MPD has no such playlist).
    func titles(_ mpd: MPDInstance, _ name: String) -> [String] {
        ((try? mpd.mpc("-f", "%title%", "playlist", name)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func aSmartPlaylistIsKeptInMPDAndFollowsTheLikes() throws {
        let (mpd, daemon, ids) = try Self.started()
        for title in ["Alpha", "Bravo", "Charlie", "Delta"] { try like(daemon, ids[title]) }
        var r = try daemon.post("/api/v1/smart-playlists",
                                body: #"{"name": "Tempo run", "rules": {"liked": true, "bpm_min": 120, "bpm_max": 130, "length_s": 600}}"#)
        #expect(r.status == 201, "\(r.text)")
        let id = try #require(r.json?["id"] as? Int)
        #expect(r.json?["summary"] as? String == "liked, 120–130 bpm, 10 minutes", "\(r.text)")
        // Liked and 120–130 bpm: Alpha, Bravo and Charlie (Delta is 140); 10 minutes hold two
        // of the four-minute songs (a third would make 12): within one song of the length.
        #expect(eventually(timeout: 10) { (try? mpd.mpc("lsplaylists"))?.split(separator: "\n").contains("Tempo run") == true })
        #expect(eventually(timeout: 10) { titles(mpd, "Tempo run").count == 2 }, "\(titles(mpd, "Tempo run"))")
        let first = titles(mpd, "Tempo run")
        #expect(Set(first).isSubset(of: ["Alpha", "Bravo", "Charlie"]), "\(first)")

        // A like changes: the playlist follows. Echo (100 s, 126 bpm) fits beside the two.
        try like(daemon, ids["Echo"])
        #expect(eventually(timeout: 10) { titles(mpd, "Tempo run").contains("Echo") }, "\(titles(mpd, "Tempo run"))")
        #expect(titles(mpd, "Tempo run").count == 3)
        // The first song unliked: out, and the third four-minute song takes its place.
        try like(daemon, ids[first[0]], "none")
        #expect(eventually(timeout: 10) { !titles(mpd, "Tempo run").contains(first[0]) }, "\(titles(mpd, "Tempo run"))")
        let now = titles(mpd, "Tempo run")
        #expect(Set(now) == Set(["Alpha", "Bravo", "Charlie", "Echo"]).subtracting([first[0]]), "\(now)")
        // Pacenote shows the same songs and how MPD's copy stands.
        r = try HTTP.get(daemon.base + "/api/v1/smart-playlists/\(id)", headers: daemon.keyHeader)
        #expect((r.json?["songs"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == now, "\(r.text)")
        #expect((r.json?["in_mpd"] as? [String: Any])?["error"] is NSNull, "\(r.text)")
        // Its songs are its rules': editing them as a stored playlist is refused.
        r = try daemon.post("/api/v1/playlists/Tempo%20run/clear", body: "")
        #expect(r.status == 409 && (r.json?["error"] as? [String: Any])?["code"] as? String == "smart_playlist", "\(r.text)")
        // Renamed: MPD's copy follows; deleted: it goes.
        r = try HTTP.request("PUT", daemon.base + "/api/v1/smart-playlists/\(id)", headers: daemon.keyHeader, body: Data(#"{"name": "Tempo"}"#.utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(eventually(timeout: 10) {
            let names = ((try? mpd.mpc("lsplaylists")) ?? "").split(separator: "\n")
            return names.contains("Tempo") && !names.contains("Tempo run")
        })
        r = try HTTP.request("DELETE", daemon.base + "/api/v1/smart-playlists/\(id)", headers: daemon.keyHeader, body: nil)
        #expect(r.status == 200, "\(r.text)")
        #expect(eventually(timeout: 10) { !((try? mpd.mpc("lsplaylists")) ?? "").split(separator: "\n").contains("Tempo") })

        // Moods: "Fast" (125–130 bpm) and "Loved" (liked), combined.
        for body in [#"{"name": "Fast", "kind": "mood", "rules": {"bpm_min": 125, "bpm_max": 130}}"#,
                     #"{"name": "Loved", "kind": "mood", "rules": {"liked": true}}"#] {
            #expect(try daemon.post("/api/v1/smart-playlists", body: body).status == 201)
        }
        func songs(_ body: String) throws -> Set<String> {
            let made = try daemon.post("/api/v1/smart-playlists", body: body)
            #expect(made.status == 201, "\(made.text)")
            return Set((made.json?["songs"] as? [[String: Any]])?.compactMap { $0["title"] as? String } ?? [])
        }
        let loved = Set(["Alpha", "Bravo", "Charlie", "Delta", "Echo"]).subtracting([first[0]])
        let fast: Set = ["Bravo", "Charlie", "Echo"]
        #expect(try songs(#"{"name": "Either", "kind": "mood", "rules": {"moods": ["Fast", "Loved"], "combine": "union"}}"#) == fast.union(loved))
        #expect(try songs(#"{"name": "Both", "kind": "mood", "rules": {"moods": ["Fast", "Loved"], "combine": "intersection"}}"#)
                == fast.intersection(loved))
        // Refused: a mood of itself, an unknown mood, combine without moods, a bad rule.
        for (body, code) in [(#"{"name": "Loop", "rules": {"moods": ["Loop", "Fast"], "combine": "union"}}"#, "invalid_rules"),
                             (#"{"name": "X", "rules": {"moods": ["Fast", "Nope"], "combine": "union"}}"#, "invalid_rules"),
                             (#"{"name": "X", "rules": {"combine": "union"}}"#, "invalid_rules"),
                             (#"{"name": "X", "rules": {"liked": 1}}"#, "invalid_rules"),
                             (#"{"name": "X", "rules": {"tempo": 1}}"#, "invalid_rules"),
                             (#"{"name": "Fast", "rules": {}}"#, "name_taken"),
                             (#"{"name": "a/b", "rules": {}}"#, "invalid_name")] {
            r = try daemon.post("/api/v1/smart-playlists", body: body)
            #expect((r.json?["error"] as? [String: Any])?["code"] as? String == code, "\(body): \(r.text)")
        }
        // A mood another combines cannot go or be renamed; a cycle through another is refused;
        // a name MPD already has is refused (the sync would overwrite the user's playlist).
        let fastID = try #require(((try HTTP.get(daemon.base + "/api/v1/smart-playlists", headers: daemon.keyHeader).json?["smart_playlists"]
            as? [[String: Any]])?.first { $0["name"] as? String == "Fast" })?["id"] as? Int)
        r = try HTTP.request("DELETE", daemon.base + "/api/v1/smart-playlists/\(fastID)", headers: daemon.keyHeader, body: nil)
        #expect(r.status == 409 && (r.json?["error"] as? [String: Any])?["code"] as? String == "in_use", "\(r.text)")
        r = try HTTP.request("PUT", daemon.base + "/api/v1/smart-playlists/\(fastID)", headers: daemon.keyHeader,
                             body: Data(#"{"rules": {"moods": ["Either", "Loved"], "combine": "union"}}"#.utf8))
        #expect(r.status == 400 && (r.json?["error"] as? [String: Any])?["message"] as? String == "moods: 'Fast' would contain itself", "\(r.text)")
        _ = try mpd.mpc("save", "Mine")
        r = try daemon.post("/api/v1/smart-playlists", body: #"{"name": " Mine ", "rules": {}}"#)
        #expect(r.status == 409 && (r.json?["error"] as? [String: Any])?["code"] as? String == "name_taken", "\(r.text)")
        // The moods are in MPD too.
        #expect(eventually(timeout: 10) { Set(titles(mpd, "Both")) == fast.intersection(loved) }, "\(titles(mpd, "Both"))")
        // Without write access nothing is defined; a stranger reads nothing.
        r = try HTTP.request("POST", daemon.base + "/api/v1/smart-playlists", headers: [:], body: Data(#"{"name": "Y", "rules": {}}"#.utf8))
        #expect(r.status == 401, "\(r.text)")
        let stranger = ["Authorization": "Token pn_wrong_key_0123456789"]
        let refused = try HTTP.get(daemon.base + "/api/v1/smart-playlists", headers: stranger)
        #expect(refused.status == 403, "\(refused.status) \(refused.text)")
        #expect(try HTTP.get(daemon.base + "/api/v1/playlists", headers: stranger).status == 403)
        #expect(try HTTP.get(daemon.base + "/playlists", headers: stranger).status != 200)
    }

    @Test func storedPlaylistsAndTheQueueBothWays() throws {
        let (mpd, daemon, ids) = try Self.started()
        // A playlist made with mpc shows in Pacenote, and an edit with mpc too.
        _ = try mpd.mpc("add", "a.flac")
        _ = try mpd.mpc("add", "b.flac")
        _ = try mpd.mpc("save", "Mine")
        func shown(_ name: String) throws -> [String] {
            (try HTTP.get(daemon.base + "/api/v1/playlists/\(name)", headers: daemon.keyHeader).json?["songs"] as? [[String: Any]])?
                .compactMap { $0["title"] as? String } ?? []
        }
        #expect(try shown("Mine") == ["Alpha", "Bravo"])
        let listed = try HTTP.get(daemon.base + "/api/v1/playlists", headers: daemon.keyHeader)
        #expect((listed.json?["playlists"] as? [[String: Any]])?.contains { $0["name"] as? String == "Mine" } == true, "\(listed.text)")
        _ = try mpd.mpc("add", "c.flac")
        _ = try mpd.mpc("rm", "Mine")
        _ = try mpd.mpc("save", "Mine")
        #expect(try shown("Mine") == ["Alpha", "Bravo", "Charlie"])
        // Edited in Pacenote: mpc sees it.
        var r = try daemon.post("/api/v1/playlists/Mine/songs", body: #"{"track_ids": [\#(ids["Echo"] ?? 0)], "position": 0}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(titles(mpd, "Mine") == ["Echo", "Alpha", "Bravo", "Charlie"])
        _ = try daemon.post("/api/v1/playlists/Mine/move", body: #"{"from": 0, "to": 3}"#)
        _ = try daemon.post("/api/v1/playlists/Mine/remove", body: #"{"position": 0}"#)
        #expect(titles(mpd, "Mine") == ["Bravo", "Charlie", "Echo"])
        r = try daemon.post("/api/v1/playlists/Mine/rename", body: #"{"to": "Ours"}"#)
        #expect(r.status == 200 && titles(mpd, "Ours") == ["Bravo", "Charlie", "Echo"], "\(r.text)")
        r = try daemon.post("/api/v1/playlists", body: #"{"name": "Album", "album_id": \#(try albumID(daemon))}"#)
        #expect(r.status == 201 && titles(mpd, "Album") == ["Alpha", "Bravo", "Charlie", "Delta", "Echo"], "\(r.text)")
        r = try daemon.post("/api/v1/playlists", body: #"{"name": "Ours"}"#)
        #expect(r.status == 409, "MPD has it: \(r.text)")
        // No songs: an empty playlist in MPD (MPD 0.23 has no command for one).
        r = try daemon.post("/api/v1/playlists", body: #"{"name": "Empty"}"#)
        #expect(try r.status == 201 && mpd.mpc("lsplaylists").split(separator: "\n").contains("Empty"), "\(r.text)")
        #expect(try titles(mpd, "Empty").isEmpty && mpd.mpc("playlist", "Empty").isEmpty, "no placeholder left")
        r = try HTTP.request("DELETE", daemon.base + "/api/v1/playlists/Empty", headers: daemon.keyHeader, body: nil)
        #expect(try r.status == 200 && !mpd.mpc("lsplaylists").contains("Empty"), "\(r.text)")
        // JSPF and ListenBrainz's reads.
        let jspf = try HTTP.get(daemon.base + "/api/v1/playlists/Ours.jspf", headers: daemon.keyHeader)
        #expect(jspf.header("Content-Type")?.hasPrefix("application/jspf+json") == true)
        let tracks = ((jspf.json?["playlist"] as? [String: Any])?["track"] as? [[String: Any]]) ?? []
        #expect(tracks.compactMap { $0["title"] as? String } == ["Bravo", "Charlie", "Echo"], "\(jspf.text)")
        #expect(tracks.first?["duration"] as? Int == 240_000, "\(jspf.text)")
        let lists = try HTTP.get(daemon.base + "/1/user/me/playlists", headers: daemon.keyHeader).json
        #expect(lists?["playlist_count"] as? Int == 2, "\(String(describing: lists))")
        let identifier = try #require((((lists?["playlists"] as? [[String: Any]])?.last?["playlist"] as? [String: Any])?["identifier"] as? String))
        let one = try HTTP.get(daemon.base + "/1/playlist/\(identifier.split(separator: "/").last ?? "")", headers: daemon.keyHeader).json
        #expect((one?["playlist"] as? [String: Any])?["title"] as? String == "Ours", "\(String(describing: one))")
        #expect(try HTTP.get(daemon.base + "/1/user/me/playlists", headers: ["Authorization": "Token pn_wrong_key_0123456789"]).status == 403,
                "private like the history")
        r = try HTTP.request("DELETE", daemon.base + "/api/v1/playlists/Album", headers: daemon.keyHeader, body: nil)
        #expect(r.status == 200 && !((try? mpd.mpc("lsplaylists")) ?? "").contains("Album"), "\(r.text)")

        // The queue: a song plays; an album next, a track now, one at the end.
        _ = try mpd.mpc("clear")
        _ = try mpd.mpc("add", "d.flac")
        _ = try mpd.mpc("play")
        let queue = "/api/v1/players/default/queue"
        r = try daemon.post(queue, body: #"{"track_ids": [\#(ids["Echo"] ?? 0)]}"#)
        #expect(r.status == 201, "\(r.text)")
        r = try daemon.post(queue, body: #"{"track_ids": [\#(ids["Alpha"] ?? 0), \#(ids["Bravo"] ?? 0)], "at": "next"}"#)
        #expect(try mpd.mpc("-f", "%title%", "playlist").split(separator: "\n") == ["Delta", "Alpha", "Bravo", "Echo"])
        let songs = try #require(r.json?["songs"] as? [[String: Any]])
        #expect(songs.first?["current"] as? Bool == true && songs.first?["bpm"] as? Double == 140, "\(r.text)")
        #expect(songs[1]["zone_fit"] as? [Int] != nil, "\(r.text)")
        r = try daemon.post(queue, body: #"{"track_ids": [\#(ids["Charlie"] ?? 0)], "at": "now"}"#)
        #expect(eventually(timeout: 5) { ((try? mpd.mpc("-f", "%title%", "current")) ?? "").hasPrefix("Charlie") })
        let echo = try #require((r.json?["songs"] as? [[String: Any]])?.first { $0["title"] as? String == "Echo" }?["id"] as? Int)
        r = try daemon.post("\(queue)/\(echo)/move", body: #"{"position": 0}"#)
        #expect(try mpd.mpc("-f", "%title%", "playlist").split(separator: "\n").first == "Echo", "\(r.text)")
        r = try HTTP.request("DELETE", daemon.base + "\(queue)/\(echo)", headers: daemon.keyHeader, body: nil)
        #expect(try r.status == 200 && !mpd.mpc("-f", "%title%", "playlist").contains("Echo"), "\(r.text)")
        r = try HTTP.request("DELETE", daemon.base + "\(queue)/\(echo)", headers: daemon.keyHeader, body: nil)
        #expect(r.status == 404 || r.status == 409, "gone already: \(r.text)")
        r = try daemon.post(queue, body: #"{"track_ids": [999999]}"#)
        #expect(r.status == 409 && (r.json?["error"] as? [String: Any])?["code"] as? String == "not_in_library", "\(r.text)")
        r = try daemon.post(queue, body: #"{"playlist": "Ours", "at": "end"}"#)
        #expect(try mpd.mpc("-f", "%title%", "playlist").split(separator: "\n").suffix(3) == ["Bravo", "Charlie", "Echo"], "\(r.text)")
        r = try HTTP.request("DELETE", daemon.base + queue, headers: daemon.keyHeader, body: nil)
        #expect(try r.status == 200 && mpd.mpc("playlist").isEmpty, "\(r.text)")
        // Without write access: nothing.
        _ = try mpd.mpc("add", "a.flac")
        r = try HTTP.request("DELETE", daemon.base + queue, headers: [:], body: nil)
        #expect(try r.status == 401 && !mpd.mpc("playlist").isEmpty)
        r = try HTTP.request("POST", daemon.base + "/api/v1/playlists/Ours/clear", headers: [:], body: Data())
        #expect(r.status == 401 && titles(mpd, "Ours").count == 3)

        // The library's search: the site's full-text search over the library mirror.
        r = try HTTP.get(daemon.base + "/api/v1/library/search?q=BRAV", headers: daemon.keyHeader)
        let found = try #require(r.json?["tracks"] as? [[String: Any]], "\(r.text)")
        #expect(found.compactMap { ($0["track"] as? [String: Any])?["title"] as? String } == ["Bravo"], "\(r.text)")
        #expect((r.json?["artists"] as? [Any])?.isEmpty == true && (r.json?["albums"] as? [Any])?.isEmpty == true, "\(r.text)")
        r = try HTTP.get(daemon.base + "/api/v1/library/search?q=smart%20temp", headers: daemon.keyHeader)
        #expect((r.json?["albums"] as? [[String: Any]])?.map { $0["title"] as? String } == ["Smart"], "\(r.text)")
        #expect((r.json?["tracks"] as? [Any])?.count == 5, "every word anywhere: \(r.text)")
        r = try HTTP.get(daemon.base + "/api/v1/library/search?q=bra%00vo", headers: daemon.keyHeader)
        #expect(r.status == 200 && (r.json?["tracks"] as? [Any])?.isEmpty == true, "a NUL is a gap between words: \(r.text)")
        r = try HTTP.get(daemon.base + "/library?q=%00%22*", headers: daemon.keyHeader)
        #expect(r.status == 200 && r.text.contains("No track matches."), "\(r.status)")
        r = try HTTP.get(daemon.base + "/api/v1/library/search?q=%0A", headers: daemon.keyHeader)
        #expect(r.status == 400, "\(r.text)")
        r = try HTTP.get(daemon.base + "/api/v1/library/search?q=", headers: daemon.keyHeader)
        #expect(r.status == 400 && (r.json?["error"] as? [String: Any])?["code"] as? String == "invalid_q", "\(r.text)")
        r = try HTTP.get(daemon.base + "/api/v1/library/search?q=bravo", headers: ["Authorization": "Token pn_wrong_key_0123456789"])
        #expect(r.status == 403 && r.json?["tracks"] == nil, "a stranger reads none of it: \(r.text)")
    }

    func albumID(_ daemon: PacenoteDaemon) throws -> Int {
        let artist = try #require((try HTTP.get(daemon.base + "/api/v1/library/artists", headers: daemon.keyHeader).json?["artists"]
            as? [[String: Any]])?.first?["id"] as? Int)
        return try #require((try HTTP.get(daemon.base + "/api/v1/library/artists/\(artist)", headers: daemon.keyHeader).json?["albums"]
            as? [[String: Any]])?.first?["id"] as? Int)
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/queue_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/queue-browser").path

    /// Headless Chromium: "Play next" on an album page puts its tracks after the current song;
    /// the player page shows the queue and removes a song; the library and playlists pages
    /// browse and make a smart playlist that reaches MPD.
    @Test func playNextAndTheQueueInABrowser() throws {
        let python = try SiteBrowserTests.python()
        _ = try Tools.require("mpc")
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let (mpd, daemon, _) = try Self.started()
        _ = try mpd.mpc("add", "d.flac")
        _ = try mpd.mpc("add", "b.flac")
        _ = try mpd.mpc("play")
        let album = try albumID(daemon)
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, String(mpd.port), String(album), Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 8, "\(r.stdout)")
    }
}
