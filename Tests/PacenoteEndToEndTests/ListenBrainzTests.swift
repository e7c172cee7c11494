import Foundation
import PacenoteTestSupport
import Testing

/// The ListenBrainz-compatible API, driven by ListenBrainz's own client library.
@Suite struct ListenBrainzTests {
    static var clientScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/listenbrainz_client.py").path
    }

    /// python3 with liblistenbrainz (scripts/test installs it); missing is a failure, not a skip.
    static func python() throws -> String {
        let python = try Tools.require("python3")
        let check = try run(python, ["-c", "import liblistenbrainz"], allowFailure: true)
        guard check.status == 0 else {
            throw HarnessError("liblistenbrainz is not installed: python3 -m pip install liblistenbrainz (scripts/test does)")
        }
        return python
    }

    @Test func liblistenbrainzSubmitsSinglePlayingNowAndImport() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let listenedAt = Int(Date().timeIntervalSince1970) - 7200
        let r = try run(try Self.python(), [Self.clientScript, daemon.base + "/", daemon.apiKey, String(listenedAt)], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        #expect(result["token_valid"] as? Bool == true)
        for key in ["single", "single_again", "playing_now", "import"] {
            #expect((result[key] as? [String: Any])?["status"] as? String == "ok", "\(key): \(result)")
        }
        #expect(result["bad_token"] as? String == "invalid")
        #expect((result["bad_submit"] as? [Any])?.first as? Int == 401, "\(result)")
        #expect((result["bad_submit"] as? [Any])?.last as? String == "Invalid authorization token.")

        let listens = try daemon.listens()
        #expect(listens.count == 6, "\(listens)")   // single (once) + 5 imported; playing_now is not a play
        let single = try #require(listens.first)
        #expect(single.title == "Vantablack" && single.artist == "Dool")
        #expect(single.json["source"] as? String == "listenbrainz")
        #expect(single.player == "liblistenbrainz test")
        #expect(single.counted)
        #expect(single.startedAt == Date(timeIntervalSince1970: Double(listenedAt)))
        #expect(single.playedSeconds == 215.5)
        #expect((single.track["musicbrainz_recording_id"] as? String) == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect(listens.dropFirst().map(\.title) == (0..<5).map { "Song \($0)" })
    }

    /// liblistenbrainz reads the history back (get_listens with its bounds, the listen
    /// count, what plays now on a real MPD) and deletes a listen with delete_listen; Pacenote's
    /// own API no longer has it.
    @Test func liblistenbrainzReadsTheHistoryAndDeletesAListen() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("live.flac", seconds: 40, title: "Live Song", artist: "Now Artist")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually { try daemon.mpdConnected() })
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        #expect(try eventually { (try daemon.status()["now_playing"] as? [String: Any]) != nil })

        let t0 = Int(Date().timeIntervalSince1970) - 7200
        let script = URL(fileURLWithPath: Self.clientScript).deletingLastPathComponent().appendingPathComponent("listenbrainz_history.py").path
        let r = try run(try Self.python(), [script, daemon.base + "/", daemon.apiKey, String(t0)], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        func times(_ key: String) -> [Int] { (result[key] as? [[String: Any]] ?? []).compactMap { $0["listened_at"] as? Int } }

        #expect(result["count_before"] as? Int == 3, "\(result)")
        #expect(times("newest") == [t0 + 1200, t0 + 600, t0])
        #expect(times("window") == [t0 + 1200, t0 + 600, t0])
        #expect(times("before_max") == [t0], "max_ts is exclusive")
        #expect(times("after_min") == [t0 + 600], "min_ts is exclusive; the listen just after it")
        let middle = try #require((result["window"] as? [[String: Any]])?.dropFirst().first)
        #expect(middle["track_name"] as? String == "History 1" && middle["artist_name"] as? String == "Curator")
        #expect(middle["release_name"] as? String == "Corrections")
        #expect(middle["recording_mbid"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect((middle["recording_msid"] as? String)?.hasPrefix("00000000-0000-5000-8000-") == true, "\(middle)")

        #expect((result["delete"] as? [String: Any])?["status"] as? String == "ok", "\(result)")
        #expect(result["count_after"] as? Int == 2)
        #expect(times("window_after") == [t0 + 1200, t0])
        #expect((result["delete_again"] as? [Any])?.first as? Int == 404, "\(result)")

        let playing = try #require(result["playing_now"] as? [String: Any], "\(result)")
        #expect(playing["track_name"] as? String == "Live Song" && playing["artist_name"] as? String == "Now Artist")
        #expect(playing["listened_at"] is NSNull)

        // Pacenote's own API agrees: the listen is gone, the others stay (oldest first).
        let listens = try daemon.listens().filter { $0.json["source"] as? String == "listenbrainz" }
        #expect(listens.map(\.title) == ["History 0", "History 2"], "\(listens)")
        // The delete is a correction like any other: in the log, from ListenBrainz, undoable.
        #expect(try daemon.sql("SELECT kind, source, undone_at_ms IS NULL FROM curation_log") == "delete|listenbrainz|1\n")
    }

    @Test func errorsAreListenBrainzShapedOnBothPaths() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        for prefix in ["/apis/listenbrainz", ""] {
            let url = daemon.base + prefix + "/1/submit-listens"
            var r = try HTTP.request("POST", url, headers: ["Authorization": "Token \(daemon.apiKey)"], body: Data("{oops".utf8))
            #expect(r.status == 400)
            #expect(r.json?["code"] as? Int == 400)
            #expect((r.json?["error"] as? String)?.contains("Cannot parse JSON") == true, "\(r.text)")
            r = try HTTP.request("POST", url, body: Data("{}".utf8))
            #expect(r.status == 401)
            #expect(r.json?["error"] as? String == "You need to provide an Authorization header.")
            let valid = try HTTP.get(daemon.base + prefix + "/1/validate-token?token=\(daemon.apiKey)")
            #expect(valid.json?["valid"] as? Bool == true)
            let invalid = try HTTP.get(daemon.base + prefix + "/1/validate-token", headers: ["Authorization": "Token nope"])
            #expect(invalid.status == 200)
            #expect(invalid.json?["valid"] as? Bool == false)
        }
        // A ListenBrainz import batch may be larger than the 1 MiB default limit.
        let listen = #"{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "\#(String(repeating: "x", count: 1500))"}}"#
        let body = #"{"listen_type": "import", "payload": ["# + Array(repeating: listen, count: 1000).joined(separator: ",") + "]}"
        #expect(body.utf8.count > 1 << 20)
        let r = try HTTP.request("POST", daemon.base + "/1/submit-listens", headers: ["Authorization": "Token \(daemon.apiKey)"],
                                 body: Data(body.utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(try daemon.listens().count == 1)  // the same listen 1000 times: stored once
    }
}
