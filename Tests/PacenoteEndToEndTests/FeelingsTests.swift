import Foundation
import PacenoteTestSupport
import Testing

/// Likes and dislikes end to end: ListenBrainz's own client sets a like that the API and
/// the site show; a disliked song never comes back from the recommender.
@Suite struct FeelingsEndToEndTests {
    static var feedbackScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/listenbrainz_feedback.py").path
    }

    @Test func liblistenbrainzFeedbackSetsALikeThatTheAPIAndTheSiteShow() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let listenedAt = Int(Date().timeIntervalSince1970) - 7200
        let r = try run(try ListenBrainzTests.python(), [Self.feedbackScript, daemon.base + "/", daemon.apiKey, String(listenedAt)],
                        allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        for key in ["love", "hate", "clear"] {
            #expect((result[key] as? [String: Any])?["status"] as? String == "ok", "\(key): \(result)")
        }
        #expect((result["unknown"] as? [Any])?.first as? Int == 404, "\(result)")
        #expect((result["bad_score"] as? [Any])?.first as? Int == 400, "\(result)")

        let listens = try daemon.listens()
        let loved = try #require(listens.first { $0.title == "Vantablack" })
        let lovedID = try #require((loved.track["id"] as? NSNumber)?.int64Value)
        #expect(try daemon.sql("SELECT track_id, feeling, source FROM track_feelings") == "\(lovedID)|like|listenbrainz\n")

        for prefix in ["", "/apis/listenbrainz"] {
            let got = try HTTP.get(daemon.base + prefix + "/1/feedback/user/pacenote/get-feedback?metadata=true",
                                   headers: ["Authorization": "Token \(daemon.apiKey)"])
            #expect(got.status == 200, "\(got.text)")
            let feedback = got.json?["feedback"] as? [[String: Any]] ?? []
            #expect(got.json?["total_count"] as? Int == 1 && feedback.count == 1, "\(got.text)")
            #expect(feedback.first?["score"] as? Int == 1)
            #expect(feedback.first?["recording_mbid"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
            let msid = try #require(feedback.first?["recording_msid"] as? String)
            #expect(msid.hasSuffix(String(lovedID, radix: 16)))
            #expect((feedback.first?["track_metadata"] as? [String: Any])?["track_name"] as? String == "Vantablack")
        }
        // The hated-then-cleared one has no feeling; -1 filters to nothing.
        let hated = try HTTP.get(daemon.base + "/1/feedback/user/pacenote/get-feedback?score=-1",
                                 headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(hated.json?["count"] as? Int == 0, "\(hated.text)")

        // The site shows it (a trusted reader sees the mark; a writer gets the form).
        let page = try HTTP.get(daemon.base + "/tracks/\(lovedID)", headers: ["Accept": "text/html"])
        #expect(page.status == 200)
        #expect(page.text.contains(#"class="feeling liked""#), "\(page.text)")
        let history = try HTTP.get(daemon.base + "/history", headers: ["Accept": "text/html"])
        #expect(history.text.components(separatedBy: #"class="feeling liked""#).count == 2, "one liked row")

        // The msid it gave out names the track when sent back: clear by msid.
        let msid = "00000000-0000-5000-8000-" + String(repeating: "0", count: 12 - String(lovedID, radix: 16).count) + String(lovedID, radix: 16)
        let cleared = try daemon.post("/1/feedback/recording-feedback", body: #"{"recording_msid": "\#(msid)", "score": 0}"#)
        #expect(cleared.status == 200, "\(cleared.text)")
        #expect(try daemon.sql("SELECT count(*) FROM track_feelings") == "0\n")
    }

    @Test func theHeartFormsOnThePagesSetAndClearWithTheSession() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", arguments: ["--trusted-networks", "none"])
        #expect(try daemon.post("/1/submit-listens", body: #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "T"}}]}"#).status == 200)
        let id = try daemon.sql("SELECT id FROM tracks").trimmingCharacters(in: .whitespacesAndNewlines)
        let login = LoginTests()
        let form = ["Content-Type": "application/x-www-form-urlencoded"]
        let ok = try login.raw(daemon, "POST", "/login", headers: form, body: "key=\(daemon.apiKey)")
        let cookieLine = try #require(ok.split(separator: "\r\n").first { $0.hasPrefix("Set-Cookie: ") })
        let cookie = String(cookieLine.dropFirst("Set-Cookie: ".count).split(separator: ";")[0])
        let session = ["Cookie": cookie, "Origin": "http://127.0.0.1:\(daemon.port)"]
        // The pages carry the heart as a form for the logged-in owner.
        for page in ["/history", "/tracks/\(id)"] {
            let html = try login.raw(daemon, "GET", page, headers: session)
            #expect(html.contains(#"<form method="post" action="/tracks/\#(id)" class="feeling""#), "\(page): \(html)")
            #expect(html.contains(#"name="feeling" value="like""#))
        }
        var r = try login.raw(daemon, "POST", "/tracks/\(id)", headers: session.merging(form) { $1 },
                              body: "back=%2Fhistory%3Fq%3DT&feeling=like")
        #expect(r.hasPrefix("HTTP/1.1 303") && r.contains("Location: /history?q=T"), "\(r)")
        #expect(try daemon.sql("SELECT feeling, source FROM track_feelings") == "like|site\n")
        let liked = try login.raw(daemon, "GET", "/tracks/\(id)", headers: session)
        #expect(liked.contains(#"aria-pressed="true""#) && liked.contains(#"value="none""#), "the like shows pressed, and pressing it clears: \(liked)")
        // Another site's form is refused; a way back to another host is not followed.
        r = try login.raw(daemon, "POST", "/tracks/\(id)", headers: ["Cookie": cookie, "Origin": "http://evil.example"].merging(form) { $1 },
                          body: "feeling=dislike")
        #expect(r.contains("Location: /login"), "\(r)")
        #expect(try daemon.sql("SELECT feeling FROM track_feelings") == "like\n")
        r = try login.raw(daemon, "POST", "/tracks/\(id)", headers: session.merging(form) { $1 }, body: "feeling=none&back=%2F%2Fevil.example")
        #expect(r.contains("Location: /tracks/\(id)\r\n"), "\(r)")
        #expect(try daemon.sql("SELECT count(*) FROM track_feelings") == "0\n")
        // The tempo form still sets the tempo.
        r = try login.raw(daemon, "POST", "/tracks/\(id)", headers: session.merging(form) { $1 }, body: "bpm=128")
        #expect(r.hasPrefix("HTTP/1.1 303"), "\(r)")
        #expect(try daemon.sql("SELECT bpm FROM tracks") == "128.0\n")
    }

    @Test func pacenotesOwnFeelingRouteValidates() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        #expect(try daemon.post("/1/submit-listens", body: #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "T"}}]}"#).status == 200)
        let id = try #require((try daemon.listens().first?.track["id"] as? NSNumber)?.int64Value)
        let key = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"]
        var r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(id)/feeling", headers: key, body: Data(#"{"feeling": "dislike"}"#.utf8))
        #expect(r.status == 200 && r.json?["feeling"] as? String == "dislike", "\(r.text)")
        r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(id)/feeling", headers: key, body: Data(#"{"feeling": "love"}"#.utf8))
        #expect(r.status == 400 && (r.json?["error"] as? [String: Any])?["code"] as? String == "invalid_feeling", "\(r.text)")
        r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/999/feeling", headers: key, body: Data(#"{"feeling": "like"}"#.utf8))
        #expect(r.status == 404, "\(r.text)")
        r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(id)/feeling", headers: ["Content-Type": "application/json"],
                             body: Data(#"{"feeling": "like"}"#.utf8))
        #expect(r.status == 401, "a write needs the key")
        #expect(try daemon.sql("SELECT feeling, source FROM track_feelings") == "dislike|api\n")
    }

    @Test func aDislikedSongIsNeverRecommendedALikedOneIsFavoured() throws {
        let tracks = (0..<8).map { i in
            TestTrack("z4/\(i).flac", seconds: 1, title: "Song \(i)", artist: "Artist \(i)", bpm: 132 + i)
        }
        let mpd = try MPDInstance(tracks: tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 20) {
            try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1 AND bpm IS NOT NULL") == "8\n"
        })
        func suggested() throws -> [(id: Int64, reasons: [String])] {
            let r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?zone=4&limit=10")
            #expect(r.status == 200, "\(r.text)")
            return (r.json?["suggestions"] as? [[String: Any]] ?? []).map { s in
                (((s["track"] as? [String: Any])?["id"] as? NSNumber)?.int64Value ?? 0,
                 (s["reasons"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String })
            }
        }
        let before = try suggested()
        #expect(before.count == 8, "\(before)")
        let disliked = try #require(before.first?.id)
        let liked = try #require(before.last?.id)
        let key = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"]
        for (id, feeling) in [(disliked, "dislike"), (liked, "like")] {
            let r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(id)/feeling", headers: key, body: Data(#"{"feeling": "\#(feeling)"}"#.utf8))
            #expect(r.status == 200, "\(r.text)")
        }
        for _ in 0..<60 {
            let ids = try suggested()
            #expect(!ids.contains { $0.id == disliked }, "the disliked track \(disliked) came back: \(ids)")
            #expect(ids.count == 7)
        }
        let after = try suggested()
        #expect(after.first?.id == liked, "the liked track leads: \(after)")
        #expect(after.first?.reasons.contains("liked") == true)

        // Not now: lowered (below the others), not removed.
        let r = try daemon.post("/api/v1/recommendations/not-now", body: #"{"track_id": \#(liked)}"#)
        #expect(r.status == 200, "\(r.text)")
        let lowered = try suggested()
        #expect(lowered.last?.id == liked && lowered.last?.reasons.contains("not_now") == true, "\(lowered)")
        // Cleared: it may come back.
        let clear = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(disliked)/feeling", headers: key, body: Data(#"{"feeling": "none"}"#.utf8))
        #expect(clear.status == 200)
        #expect(try suggested().contains { $0.id == disliked })
    }
}
