import Foundation
import PacenoteTestSupport
import Testing

/// The reads apps make besides scrobbling, by the clients that make them: pylast over Last.fm
/// 2.0 (recent tracks, charts, loves both ways, play counts, who may read, Last.fm's error
/// codes) and liblistenbrainz over ListenBrainz (listening and daily activity, following and
/// followers, the metadata look-up from a real MPD library's MusicBrainz tags).
@Suite struct ClientReadsTests {
    static var clients: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients") }

    static func python(needing module: String) throws -> String {
        let python = try Tools.require("python3")
        guard try run(python, ["-c", "import \(module)"], allowFailure: true).status == 0 else {
            throw HarnessError("\(module) is not installed: python3 -m pip install \(module) (scripts/test does)")
        }
        return python
    }

    static func addKey(_ daemon: PacenoteDaemon, _ name: String, _ scope: String) throws -> String {
        let r = try PacenoteProcess.run(["key", "add", name, "--scope", scope, "--db", daemon.db])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func listen(_ title: String, _ artist: String, _ album: String?, at t: Int) -> String {
        let release = album.map { #", "release_name": "\#($0)""# } ?? ""
        return #"{"listened_at": \#(t), "track_metadata": {"artist_name": "\#(artist)", "track_name": "\#(title)"\#(release)}}"#
    }

    /// pylast's own calls against a history stored over ListenBrainz, with one track liked on
    /// Pacenote's side first; its loves come back as Pacenote's likes, in ListenBrainz's
    /// feedback too.
    @Test func pylastReadsTheHistoryAndLovesAreLikesBothWays() throws {
        let python = try Self.python(needing: "pylast")
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[[friends]]\nname = \"Ada\"\nurl = \"http://127.0.0.1:9/sotd.atom\"\n",
                                        arguments: ["--trusted-networks", "none", "--timezone", "UTC"])
        let submitKey = try Self.addKey(daemon, "phone", "submit")
        let readKey = try Self.addKey(daemon, "widget", "read")
        let clientKey = try Self.addKey(daemon, "pano", "client")
        let now = Int(Date().timeIntervalSince1970)
        let old = now - 400 * 86_400
        let history = [
            Self.listen("Vantablack", "Dool", "Summerland", at: now - 7200), Self.listen("Vantablack", "Dool", "Summerland", at: now - 6900),
            Self.listen("Vantablack", "Dool", "Summerland", at: now - 6600), Self.listen("Carrion Flowers", "Chelsea Wolfe", "Abyss", at: now - 6000),
            Self.listen("Carrion Flowers", "Chelsea Wolfe", "Abyss", at: now - 5700), Self.listen("Marked for Death", "Emma Ruth Rundle", nil, at: old),
        ]
        let submitted = try daemon.post("/1/submit-listens", body: #"{"listen_type": "import", "payload": [\#(history.joined(separator: ","))]}"#)
        #expect(submitted.status == 200, "\(submitted.text)")
        let carrion = try daemon.sql("SELECT id FROM tracks WHERE title = 'Carrion Flowers'").trimmingCharacters(in: .whitespacesAndNewlines)
        let liked = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(carrion)/feeling",
                                     headers: ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"],
                                     body: Data(#"{"feeling": "like"}"#.utf8))
        #expect(liked.status == 200, "\(liked.text)")

        let r = try run(python, [Self.clients.appendingPathComponent("pylast_reads.py").path, "127.0.0.1:\(daemon.port)", daemon.apiKey,
                                 submitKey, readKey, clientKey], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\n\(r.stderr)")
        func list(_ key: String) -> [[String]] { (out[key] as? [[Any]] ?? []).map { $0.map { "\($0)" } } }

        // Recent tracks: newest first, without the now-playing one unless asked for.
        #expect(list("recent") == [["Chelsea Wolfe", "Carrion Flowers", "Abyss", String(now - 5700)],
                                   ["Chelsea Wolfe", "Carrion Flowers", "Abyss", String(now - 6000)],
                                   ["Dool", "Vantablack", "Summerland", String(now - 6600)],
                                   ["Dool", "Vantablack", "Summerland", String(now - 6900)]], "\(out)")
        #expect((out["recent_now_first"] as? [Any])?.prefix(2).map { "\($0)" } == ["Dool", "The Alpha Man"], "\(out)")
        #expect((out["recent_now_first"] as? [Any])?.last is NSNull)
        #expect(out["now_playing"] as? [String] == ["Dool", "The Alpha Man"])
        #expect(out["recent_all"] as? Int == 6)
        #expect(out["recent_paged"] as? Int == 7, "pages of two: six plays and the one playing now")

        // Charts over periods, from the rollups.
        #expect(list("top_artists") == [["Dool", "3"], ["Chelsea Wolfe", "2"], ["Emma Ruth Rundle", "1"]], "\(out)")
        #expect(list("top_artists_7day") == [["Dool", "3"], ["Chelsea Wolfe", "2"]])
        #expect(list("top_tracks") == [["Dool", "Vantablack", "3"], ["Chelsea Wolfe", "Carrion Flowers", "2"],
                                       ["Emma Ruth Rundle", "Marked for Death", "1"]])
        #expect(list("top_albums") == [["Dool", "Summerland", "3"], ["Chelsea Wolfe", "Abyss", "2"]])
        #expect(out["playcount"] as? Int == 6)
        #expect(out["registered"] as? Int == old)

        // Loves are likes both ways.
        #expect(list("loved_before") == [["Chelsea Wolfe", "Carrion Flowers"]], "the like made on Pacenote's side")
        #expect(out["userplaycount"] as? Int == 3)
        #expect(out["userloved_before"] as? Bool == false && out["userloved_after"] as? Bool == true)
        #expect(list("loved_after") == [["Dool", "Vantablack"], ["Chelsea Wolfe", "Carrion Flowers"]])
        #expect(list("loved_after_unlove") == [["Dool", "Vantablack"]])
        #expect(out["love_unknown"] as? String == "6" && out["info_unknown"] as? String == "6" && out["bad_period"] as? String == "6")
        let feedback = try HTTP.get(daemon.base + "/1/feedback/user/pacenote/get-feedback?metadata=true",
                                    headers: ["Authorization": "Token \(daemon.apiKey)"])
        let loved = (feedback.json?["feedback"] as? [[String: Any]] ?? []).map {
            (($0["track_metadata"] as? [String: Any])?["track_name"] as? String ?? "", $0["score"] as? Int ?? 0)
        }
        #expect(loved.map(\.0) == ["Marked for Death", "Vantablack"] && loved.allSatisfy { $0.1 == 1 }, "\(feedback.text)")
        #expect(try daemon.sql("SELECT DISTINCT source FROM track_feelings") == "audioscrobbler\n")

        // Who may read and love.
        #expect(out["submit_session_reads"] as? String == "4" && out["submit_session_loves"] as? String == "no error", "\(out)")
        #expect(out["read_key_reads"] as? Int == 3 && out["admin_key_as_api_key_reads"] as? Int == 2)
        #expect(out["stranger_reads"] as? String == "10")

        // An app's client key: the same reads and loves through its own session, and the friends.
        #expect(list("client_recent") == [["Chelsea Wolfe", "Carrion Flowers"], ["Chelsea Wolfe", "Carrion Flowers"]], "\(out)")
        #expect(list("client_top_artists") == [["Dool", "3"], ["Chelsea Wolfe", "2"], ["Emma Ruth Rundle", "1"]])
        #expect(list("client_loved") == [["Chelsea Wolfe", "Carrion Flowers"], ["Emma Ruth Rundle", "Marked for Death"], ["Dool", "Vantablack"]])
        #expect(list("client_loved_after_unlove") == [["Emma Ruth Rundle", "Marked for Death"], ["Dool", "Vantablack"]])
        #expect(out["client_userplaycount"] as? Int == 3)
        #expect(out["client_friends"] as? [String] == ["Ada"])
        let friends = ((out["json_friends"] as? [Any])?.last as? [String: Any])?["friends"] as? [String: Any]
        #expect(((friends?["user"] as? [[String: Any]])?.map { $0["name"] as? String }) == ["Ada"], "\(String(describing: friends))")
        #expect((friends?["@attr"] as? [String: Any])?["total"] as? String == "1")
        // It cannot delete a listen, neither with ListenBrainz's call nor the site's API.
        let carrionPlay = try daemon.sql("SELECT started_at_ms / 1000 FROM plays ORDER BY started_at_ms DESC LIMIT 1")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let delete = try HTTP.request("POST", daemon.base + "/1/delete-listen",
                                      headers: ["Authorization": "Token \(clientKey)", "Content-Type": "application/json"],
                                      body: Data(#"{"listened_at": \#(carrionPlay), "recording_msid": "x"}"#.utf8))
        #expect(delete.status == 401 || delete.status == 403, "\(delete.status) \(delete.text)")
        #expect(delete.json?["error"] != nil || delete.json?["message"] != nil, "a JSON error: \(delete.text)")
        #expect(try daemon.sql("SELECT count(*) FROM plays") == "6\n", "nothing deleted")

        // Last.fm's JSON shapes and error codes.
        let recent = try #require(((out["json_recent"] as? [Any])?.last as? [String: Any])?["recenttracks"] as? [String: Any], "\(out)")
        let tracks = recent["track"] as? [[String: Any]] ?? []
        #expect(tracks.count == 3 && (tracks.first?["@attr"] as? [String: Any])?["nowplaying"] as? String == "true", "\(recent)")
        #expect((tracks.last?["artist"] as? [String: Any])?["#text"] as? String == "Chelsea Wolfe")
        #expect((tracks.last?["date"] as? [String: Any])?["uts"] as? String == String(now - 6000))
        #expect((recent["@attr"] as? [String: Any])?["total"] as? String == "6" && (recent["@attr"] as? [String: Any])?["totalPages"] as? String == "3")
        let top = ((out["json_top_artists"] as? [Any])?.last as? [String: Any])?["topartists"] as? [String: Any]
        #expect(((top?["artist"] as? [[String: Any]])?.first?["@attr"] as? [String: Any])?["rank"] as? String == "1", "\(String(describing: top))")
        let info = ((out["json_track_info"] as? [Any])?.last as? [String: Any])?["track"] as? [String: Any]
        #expect(info?["userplaycount"] as? String == "3" && info?["userloved"] as? String == "1" && info?["playcount"] as? String == "3",
                "\(String(describing: info))")
        #expect((info?["artist"] as? [String: Any])?["name"] as? String == "Dool")
        let user = ((out["json_user_info"] as? [Any])?.last as? [String: Any])?["user"] as? [String: Any]
        #expect(user?["playcount"] as? String == "6" && (user?["registered"] as? [String: Any])?["unixtime"] as? String == String(old))
        func failure(_ key: String) -> (Int, Int?) {
            let pair = out[key] as? [Any] ?? []
            return (pair.first as? Int ?? 0, (pair.last as? [String: Any])?["error"] as? Int)
        }
        let unsigned = out["unsigned_love"] as? [Any] ?? []
        #expect(unsigned.first as? Int == 403 && (unsigned.last as? String ?? "").contains(#"<error code="13">"#), "\(unsigned)")
        #expect(failure("bad_session_love") == (403, 9) && failure("bad_session_read") == (403, 9))
        #expect(failure("unknown_method") == (400, 3))
        let badLimit = out["bad_limit"] as? [Any] ?? []
        #expect(badLimit.first as? Int == 400 && (badLimit.last as? String ?? "").contains(#"<error code="6">"#), "\(badLimit)")
    }

    /// liblistenbrainz's request path for the reads it has no method for, against a history
    /// it submitted and a real MPD's library tagged with MusicBrainz ids.
    @Test func liblistenbrainzReadsActivityFriendsAndLooksUpTheLibrary() throws {
        let python = try Self.python(needing: "liblistenbrainz")
        let recording = "e225fb84-dc9a-419e-adcd-9890f59ec432", release = "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10"
        let artist = "f59c5520-5f46-4d2c-b2c4-822eabf53419"
        let mpd = try MPDInstance(tracks: [
            TestTrack("v.flac", seconds: 1, title: "Vantablack", artist: "Dool", album: "Summerland",
                      tags: ["MUSICBRAINZ_TRACKID": recording, "MUSICBRAINZ_ALBUMID": release, "MUSICBRAINZ_ARTISTID": artist]),
            TestTrack("o.flac", seconds: 1, title: "Vantablack", artist: "Dool", album: "Here Now, There Then"),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)",
                                        config: "[[friends]]\nname = \"Ada\"\nurl = \"http://127.0.0.1:9/sotd.atom\"\n",
                                        arguments: ["--trusted-networks", "none", "--timezone", "UTC"])
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1") == "2\n" })
        let submitKey = try Self.addKey(daemon, "scrobbler", "submit")
        let clientKey = try Self.addKey(daemon, "pano", "client")
        let r = try run(python, [Self.clients.appendingPathComponent("listenbrainz_reads.py").path, daemon.base, daemon.apiKey, submitKey, clientKey],
                        allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let out = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)\n\(r.stderr)")
        func payload(_ key: String) -> [String: Any] { (out[key] as? [String: Any])?["payload"] as? [String: Any] ?? [:] }
        func same(_ a: Any?, _ b: Any?) -> Bool {
            guard let a, let b else { return false }
            return (try? JSONSerialization.data(withJSONObject: a, options: .sortedKeys)) == (try? JSONSerialization.data(withJSONObject: b, options: .sortedKeys))
        }

        #expect((out["before_any_listen"] as? [String: Any])?["status"] as? Int == 204)
        #expect(((out["submit"] as? [String: Any])?["status"] as? String) == "ok", "\(out)")
        for range in ["week", "this_month", "all_time"] {
            #expect(same(payload(range)["listening_activity"], out[range + "_expected"]),
                    "\(range): \(payload(range)["listening_activity"] ?? "none") against \(out[range + "_expected"] ?? "none")")
            #expect(payload(range)["user_id"] as? String == "pacenote" && payload(range)["range"] as? String == range)
        }
        let week = payload("week")
        #expect((week["from_ts"] as? Int).map { $0 % 86_400 == 0 } == true && (week["to_ts"] as? Int).map { $0 % 86_400 == 0 } == true)
        #expect((out["bad_range"] as? [String: Any])?["status"] as? Int == 400)
        #expect(same(payload("daily")["daily_activity"], out["daily_expected"]), "\(payload("daily"))")
        #expect(same(out["following"], ["following": ["Ada"], "user": "pacenote"]), "\(out["following"] ?? "none")")
        #expect(same(out["followers"], ["followers": [String](), "user": "pacenote"]))

        // The look-up, from the library's tags: the tagged file of the two with that title.
        let expected: [String: Any] = ["artist_credit_name": "Dool", "artist_mbids": [artist], "recording_mbid": recording,
                                       "recording_name": "Vantablack", "release_mbid": release, "release_name": "Summerland"]
        #expect(same(out["lookup"], expected), "\(out["lookup"] ?? "none")")
        #expect(same(out["lookup_with_release"], expected.merging(["metadata": [String: Any]()]) { a, _ in a }))
        #expect(same(out["lookup_unknown"], [String: Any]()))
        #expect((out["lookup_without_artist"] as? [String: Any])?["status"] as? Int == 400)
        #expect((out["lookup_too_long"] as? [String: Any])?["status"] as? Int == 400)
        #expect(out["lookup_without_token"] as? Int == 401)
        #expect((out["activity_with_submit_token"] as? [String: Any])?["status"] as? Int == 403)

        // A client token reads what the admin token read, submits, and cannot delete.
        #expect(same(payload("client_all_time")["listening_activity"], out["all_time_expected"]), "\(out["client_all_time"] ?? "none")")
        #expect(same(payload("client_daily")["daily_activity"], out["daily_expected"]))
        #expect(same(out["client_following"], ["following": ["Ada"], "user": "pacenote"]))
        #expect(same(out["client_lookup"], expected))
        #expect(((out["client_submit"] as? [String: Any])?["status"] as? String) == "ok", "\(out["client_submit"] ?? "none")")
        #expect((out["client_newest"] as? [Any])?.first as? String == "From The App", "\(out["client_newest"] ?? "none")")
        #expect(out["client_delete"] as? Int == 403, "\(out["client_delete"] ?? "none")")
        #expect(out["client_newest_after_delete"] as? [String] == ["From The App"])
        #expect(try daemon.sql("SELECT count(*) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.title = 'From The App'") == "1\n")
    }
}
