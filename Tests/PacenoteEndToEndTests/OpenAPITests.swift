import Foundation
import PacenoteTestSupport
import Testing

/// Real responses, in the states users see (MPD playing, heart rate streaming, errors),
/// checked against the OpenAPI document the server serves.
@Suite struct OpenAPITests {
    struct Exchange {
        var method: String
        var path: String
        var status: Int
        var contentType: String
        var body: Any
    }

    @Test func responsesMatchTheDocument() throws {
        let python = try Tools.require("python3")
        guard try run(python, ["-c", "import jsonschema, openapi_spec_validator, referencing"], allowFailure: true).status == 0 else {
            throw HarnessError("python3 needs jsonschema and openapi-spec-validator (scripts/test installs them)")
        }
        let mpd = try MPDInstance(tracks: [TestTrack("a.flac", seconds: 2, title: "Doc", artist: "Spec", album: "API", bpm: 128)])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n[share]\nnow = true\nnow_fields = [\"song\", \"artist\", \"album\", \"cover\", \"workout\"]\n")
        #expect(try eventually { try daemon.mpdConnected() })
        var exchanges: [Exchange] = []
        func record(_ method: String, _ template: String, _ url: String, headers: [String: String] = [:], body: String? = nil) throws {
            let r = try HTTP.request(method, daemon.base + url, headers: headers, body: body.map { Data($0.utf8) })
            let json = (try? JSONSerialization.jsonObject(with: r.body, options: [.fragmentsAllowed])) ?? r.text
            exchanges.append(Exchange(method: method, path: template, status: r.status, contentType: r.header("Content-Type") ?? "", body: json))
        }
        let key = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"]

        try record("GET", "/api/v1/status", "/api/v1/status")
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 130}"#)
        #expect(try eventually { (try daemon.status()["now_playing"] as? [String: Any]) != nil })
        try record("GET", "/api/v1/status", "/api/v1/status")
        // The now-playing card, as the song plays (or has just ended: blank, as documented too).
        try record("GET", "/now.json", "/now.json")
        try record("GET", "/now", "/now")
        try record("GET", "/now.svg", "/now.svg")
        try record("GET", "/now/cover", "/now/cover")
        #expect(try eventually { try daemon.listens().count == 1 })
        try record("GET", "/api/v1/listens", "/api/v1/listens?limit=1")
        try record("GET", "/api/v1/listens", "/api/v1/listens?from=yesterday")
        try record("GET", "/api/v1/stats", "/api/v1/stats?range=all")
        // The artist and the album of the play, by the ids the chart gives.
        let chart = try HTTP.get(daemon.base + "/api/v1/stats?range=all").json
        let artistID = try #require((chart?["top_artists"] as? [[String: Any]])?.first?["id"] as? Int)
        let albumID = try #require((chart?["top_albums"] as? [[String: Any]])?.first?["id"] as? Int)
        try record("GET", "/api/v1/artists/{id}", "/api/v1/artists/\(artistID)")
        try record("GET", "/api/v1/artists/{id}", "/api/v1/artists/999")
        try record("GET", "/api/v1/albums/{id}", "/api/v1/albums/\(albumID)")
        try record("GET", "/api/v1/albums/{id}", "/api/v1/albums/999")
        let today = String((try daemon.listens().first?.json["started_at"] as? String ?? "").prefix(10))
        try record("GET", "/api/v1/sotd/{day}", "/api/v1/sotd/\(today)")
        try record("GET", "/api/v1/sotd/{day}", "/api/v1/sotd/1999-01-01")
        try record("PUT", "/api/v1/sotd/{day}", "/api/v1/sotd/\(today)", headers: key, body: #"{"track_id": 1, "note": "docs"}"#)
        try record("PUT", "/api/v1/sotd/{day}", "/api/v1/sotd/\(today)", headers: key, body: #"{"track_id": "x"}"#)
        try record("GET", "/api/v1/sotd", "/api/v1/sotd?month=\(today.prefix(7))")
        try record("DELETE", "/api/v1/sotd/{day}", "/api/v1/sotd/\(today)", headers: key)
        try record("GET", "/api/v1/stats", "/api/v1/stats?range=never")
        try record("POST", "/api/v1/hr", "/api/v1/hr", headers: key, body: #"{"samples": [{"bpm": 131}, {"bpm": 999}]}"#)
        try record("POST", "/api/v1/hr", "/api/v1/hr", headers: key, body: #"{"bpm": "fast"}"#)
        try record("POST", "/api/v1/hr", "/api/v1/hr", body: #"{"bpm": 131}"#)
        try record("POST", "/api/v1/hr", "/api/v1/hr", body: #"{"bpm": 132, "speed": 3.1, "cadence": 170, "power": 9000}"#)
        try record("POST", "/api/v1/workouts", "/api/v1/workouts", headers: key, body: #"{"name": "Doc run"}"#)
        try record("GET", "/api/v1/workouts", "/api/v1/workouts")
        try record("GET", "/api/v1/workouts/{id}", "/api/v1/workouts/1")
        try record("GET", "/api/v1/workouts/{id}", "/api/v1/workouts/999")
        try record("POST", "/api/v1/workouts/{id}/stop", "/api/v1/workouts/1/stop", headers: key)
        try record("POST", "/api/v1/workouts/{id}/stop", "/api/v1/workouts/1/stop", headers: key)
        try record("GET", "/api/v1/workouts/{id}", "/api/v1/workouts/1")
        try record("GET", "/api/v1/workouts/{id}/export.tcx", "/api/v1/workouts/1/export.tcx")
        try record("GET", "/api/v1/workouts/{id}/export.tcx", "/api/v1/workouts/999/export.tcx")
        try record("GET", "/api/v1/workouts/{id}/export.gpx", "/api/v1/workouts/1/export.gpx")
        try record("GET", "/api/v1/workouts/{id}/samples", "/api/v1/workouts/1/samples")
        try record("GET", "/api/v1/workouts/{id}/samples", "/api/v1/workouts/999/samples")
        try record("GET", "/api/v1/training-load", "/api/v1/training-load")
        try record("GET", "/api/v1/training-load", "/api/v1/training-load?from=tomorrow")
        try record("GET", "/api/v1/faster-songs", "/api/v1/faster-songs")
        try record("GET", "/api/v1/faster-songs", "/api/v1/faster-songs?from=2025-01-01&to=2025-12-31&limit=5")
        try record("GET", "/api/v1/faster-songs", "/api/v1/faster-songs?track_id=abc")
        try record("GET", "/api/v1/faster-songs", "/api/v1/faster-songs?track_id=999999")
        try record("POST", "/api/v1/hrv", "/api/v1/hrv", headers: key, body: #"{"seconds": 30}"#)
        try record("POST", "/api/v1/hrv", "/api/v1/hrv", headers: key, body: #"{"start": \#(Int(Date().timeIntervalSince1970) - 120)}"#)
        try record("POST", "/api/v1/hrv", "/api/v1/hrv", headers: key, body: #"{"seconds": 1}"#)
        try record("GET", "/api/v1/hrv", "/api/v1/hrv")
        try record("GET", "/api/v1/hrv/{id}", "/api/v1/hrv/1")
        try record("GET", "/api/v1/hrv/{id}", "/api/v1/hrv/999")
        try record("GET", "/api/v1/recommendations/next", "/api/v1/recommendations/next?zone=0&limit=5")
        try record("GET", "/api/v1/recommendations/next", "/api/v1/recommendations/next?mode=cadence&cadence=128")
        try record("GET", "/api/v1/recommendations/next", "/api/v1/recommendations/next?zone=7")
        try record("PUT", "/api/v1/tracks/{id}/bpm", "/api/v1/tracks/1/bpm", headers: key, body: #"{"bpm": 128}"#)
        try record("PUT", "/api/v1/tracks/{id}/bpm", "/api/v1/tracks/1/bpm", headers: key, body: #"{"bpm": "fast"}"#)
        try record("PUT", "/api/v1/tracks/{id}/bpm", "/api/v1/tracks/999/bpm", headers: key, body: #"{"bpm": 128}"#)
        try record("PUT", "/api/v1/tracks/{id}/bpm", "/api/v1/tracks/1/bpm", body: #"{"bpm": 128}"#)
        let feeling = "/api/v1/tracks/{id}/feeling"
        try record("PUT", feeling, "/api/v1/tracks/1/feeling", headers: key, body: #"{"feeling": "dislike"}"#)
        try record("PUT", feeling, "/api/v1/tracks/1/feeling", headers: key, body: #"{"feeling": "love"}"#)
        try record("PUT", feeling, "/api/v1/tracks/999/feeling", headers: key, body: #"{"feeling": "like"}"#)
        try record("PUT", feeling, "/api/v1/tracks/1/feeling", body: #"{"feeling": "like"}"#)
        try record("POST", "/api/v1/recommendations/not-now", "/api/v1/recommendations/not-now", headers: key, body: #"{"track_id": 1}"#)
        // Rules (issue 19): a rewrite, its dry run and its apply; a bad rule; the hidden plays.
        try record("POST", "/api/v1/rules", "/api/v1/rules", headers: key,
                   body: #"{"action": "rewrite", "field": "title", "value": "^Doc$", "replacement": "Documented"}"#)
        try record("POST", "/api/v1/rules", "/api/v1/rules", headers: key, body: #"{"action": "ignore", "field": "title", "match": "regex", "value": "(["}"#)
        try record("GET", "/api/v1/rules", "/api/v1/rules")
        try record("GET", "/api/v1/rules/{id}", "/api/v1/rules/1")
        try record("POST", "/api/v1/rules/{id}/preview", "/api/v1/rules/1/preview", headers: key)
        try record("POST", "/api/v1/rules/{id}/apply", "/api/v1/rules/1/apply", headers: key)
        try record("POST", "/api/v1/rules/{id}/apply", "/api/v1/rules/1/apply", headers: key)
        try record("PATCH", "/api/v1/rules/{id}", "/api/v1/rules/1", headers: key, body: #"{"enabled": false}"#)
        try record("GET", "/api/v1/listens", "/api/v1/listens?hidden=true")
        try record("DELETE", "/api/v1/rules/{id}", "/api/v1/rules/1", headers: key)
        try record("GET", "/api/v1/rules/{id}", "/api/v1/rules/1")
        // Friends (issue 20): follow, read, refuse, unfollow; the public feed.
        try record("POST", "/api/v1/friends", "/api/v1/friends", headers: key, body: #"{"name": "Sam", "url": "http://127.0.0.1:1/sotd.atom"}"#)
        try record("POST", "/api/v1/friends", "/api/v1/friends", headers: key, body: #"{"name": "Sam", "url": "http://127.0.0.1:1/sotd.atom"}"#)
        try record("POST", "/api/v1/friends", "/api/v1/friends", headers: key, body: #"{"url": "ftp://x"}"#)
        try record("POST", "/api/v1/friends", "/api/v1/friends", body: #"{"url": "http://127.0.0.1:1/"}"#)
        try record("GET", "/api/v1/friends", "/api/v1/friends")
        try record("GET", "/api/v1/friends/{id}", "/api/v1/friends/1")
        try record("GET", "/api/v1/friends/{id}", "/api/v1/friends/999")
        try record("DELETE", "/api/v1/friends/{id}", "/api/v1/friends/1", headers: key)
        try record("DELETE", "/api/v1/friends/{id}", "/api/v1/friends/1", headers: key)
        try record("GET", "/sotd.atom", "/sotd.atom")
        try record("POST", "/api/v1/recommendations/not-now", "/api/v1/recommendations/not-now", headers: key, body: #"{"track_id": "x"}"#)
        try record("POST", "/api/v1/recommendations/not-now", "/api/v1/recommendations/not-now", headers: key, body: #"{"track_id": 999}"#)
        let lbFeedback = "/apis/listenbrainz/1/feedback/recording-feedback"
        try record("POST", lbFeedback, lbFeedback, headers: key, body: #"{"recording_msid": "00000000-0000-5000-8000-000000000001", "score": 1}"#)
        try record("POST", lbFeedback, lbFeedback, headers: key, body: #"{"recording_mbid": "11111111-2222-3333-4444-555555555555", "score": 1}"#)
        try record("POST", lbFeedback, lbFeedback, headers: key, body: #"{"recording_msid": "00000000-0000-5000-8000-000000000001", "score": 5}"#)
        try record("POST", lbFeedback, lbFeedback, body: #"{"score": 1}"#)
        let getFeedback = "/apis/listenbrainz/1/feedback/user/{name}/get-feedback"
        try record("GET", getFeedback, "/apis/listenbrainz/1/feedback/user/me/get-feedback?metadata=true")
        try record("GET", getFeedback, "/apis/listenbrainz/1/feedback/user/me/get-feedback?score=-1&count=5&offset=0")
        try record("GET", getFeedback, "/apis/listenbrainz/1/feedback/user/me/get-feedback?score=3")
        try record("GET", "/api/v1/stats", "/api/v1/stats?range=all&order=time")
        try record("GET", "/api/v1/stats", "/api/v1/stats?order=loudness")
        try record("GET", "/api/v1/stats", "/api/v1/stats?range=all&by=genre")
        try record("GET", "/api/v1/stats", "/api/v1/stats?by=mood")
        try record("GET", "/api/v1/stats/zones", "/api/v1/stats/zones?range=all&by=genre")
        try record("GET", "/api/v1/stats/zones", "/api/v1/stats/zones?by=artist")
        try record("POST", "/api/v1/queue", "/api/v1/queue", headers: key, body: #"{"track_id": 1}"#)
        try record("POST", "/api/v1/queue", "/api/v1/queue", headers: key, body: #"{"track_id": 999}"#)
        try record("POST", "/api/v1/queue", "/api/v1/queue", headers: key, body: #"{"track_id": "x"}"#)
        try record("POST", "/api/v1/queue", "/api/v1/queue", body: "{}")
        try record("GET", "/api/v1/tempo", "/api/v1/tempo")
        try record("GET", "/api/v1/cadence", "/api/v1/cadence")
        try record("POST", "/api/v1/cadence", "/api/v1/cadence", headers: key, body: #"{"step": 5}"#)
        try record("POST", "/api/v1/cadence", "/api/v1/cadence", headers: key, body: #"{"target": null}"#)
        try record("POST", "/api/v1/cadence", "/api/v1/cadence", headers: key, body: #"{"mode": "fast"}"#)
        try record("POST", "/api/v1/cadence", "/api/v1/cadence", body: #"{"step": 5}"#)
        // A player's controls (issue 57): read, pressed, refused by MPD (no mixer), and bad presses.
        try record("GET", "/api/v1/players/{name}", "/api/v1/players/default")
        try record("GET", "/api/v1/players/{name}", "/api/v1/players/kitchen")
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/pause", headers: key)
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/play", headers: key)
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/volume", headers: key, body: #"{"volume": 30}"#)
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/modes", headers: key, body: #"{"repeat": true}"#)
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/seek", headers: key, body: #"{"position": -1}"#)
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/eject", headers: key)
        try record("POST", "/api/v1/players/{name}/{action}", "/api/v1/players/default/pause")
        try record("POST", "/apis/listenbrainz/1/submit-listens", "/apis/listenbrainz/1/submit-listens", headers: key,
                   body: #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#)
        try record("POST", "/apis/listenbrainz/1/submit-listens", "/apis/listenbrainz/1/submit-listens", headers: key, body: "{}")
        try record("POST", "/apis/listenbrainz/1/submit-listens", "/apis/listenbrainz/1/submit-listens", body: "{}")
        // Webhooks (the key in the path or a header) and Maloja's scrobble API.
        let jellyfinStop = #"{"NotificationType": "PlaybackStop", "ItemType": "Audio", "Name": "Hook", "Artist": "Spec", "RunTimeTicks": 2000000000, "PlaybackPositionTicks": 1500000000, "DeviceName": "Phone"}"#
        try record("POST", "/webhooks/jellyfin/{key}", "/webhooks/jellyfin/\(daemon.apiKey)", body: jellyfinStop)
        try record("POST", "/webhooks/jellyfin/{key}", "/webhooks/jellyfin/\(daemon.apiKey)", body: "[]")
        try record("POST", "/webhooks/jellyfin/{key}", "/webhooks/jellyfin/pn_wrong", body: jellyfinStop)
        try record("POST", "/webhooks/webscrobbler", "/webhooks/webscrobbler", headers: key, body: #"{"eventName": "paused", "time": 1, "data": {"song": {"parsed": {"track": "Hook", "artist": "Spec"}}}}"#)
        try record("POST", "/webhooks/plex", "/webhooks/plex", headers: key, body: #"{"event": "media.rate"}"#)
        try record("POST", "/webhooks/plex/{key}", "/webhooks/plex/\(daemon.apiKey)", headers: ["Content-Type": "multipart/form-data; boundary=b"],
                   body: "--b\r\nContent-Disposition: form-data; name=\"payload\"\r\n\r\n{\"event\": \"media.pause\", \"Metadata\": {\"type\": \"track\", \"title\": \"Hook\", \"grandparentTitle\": \"Spec\"}}\r\n--b--\r\n")
        try record("POST", "/webhooks/jellyfin", "/webhooks/jellyfin", headers: key, body: jellyfinStop)
        try record("POST", "/webhooks/webscrobbler/{key}", "/webhooks/webscrobbler/\(daemon.apiKey)", body: #"{"eventName": "unknown", "data": {}}"#)
        try record("POST", "/apis/mlj_1/newscrobble", "/apis/mlj_1/newscrobble", headers: ["Content-Type": "application/json"],
                   body: #"{"artist": "Spec", "title": "Maloja", "duration": 10, "length": 200, "key": "\#(daemon.apiKey)"}"#)
        try record("POST", "/apis/mlj_1/newscrobble", "/apis/mlj_1/newscrobble", headers: ["Content-Type": "application/json"],
                   body: #"{"artist": "Spec", "title": "Maloja", "key": "pn_wrong"}"#)
        try record("GET", "/apis/mlj_1/serverinfo", "/apis/mlj_1/serverinfo")
        try record("GET", "/apis/mlj_1/test", "/apis/mlj_1/test?key=pn_wrong")
        // ListenBrainz's reads of the history, and deleting the listen just submitted.
        let lbUser = "/apis/listenbrainz/1/user/{name}"
        try record("GET", lbUser + "/listens", "/apis/listenbrainz/1/user/me/listens?count=5")
        try record("GET", lbUser + "/listens", "/apis/listenbrainz/1/user/me/listens?min_ts=1763794799&max_ts=1763794801")
        try record("GET", lbUser + "/listens", "/apis/listenbrainz/1/user/me/listens?min_ts=5&max_ts=5")
        try record("GET", lbUser + "/listen-count", "/apis/listenbrainz/1/user/me/listen-count")
        try record("GET", lbUser + "/playing-now", "/apis/listenbrainz/1/user/me/playing-now")
        // ListenBrainz's statistics of the same history: a chart, a page past its end, an
        // unknown range, a range without plays (204).
        for entity in ["artists", "recordings", "releases"] {
            let template = "/apis/listenbrainz/1/stats/user/{name}/\(entity)", url = "/apis/listenbrainz/1/stats/user/me/\(entity)"
            try record("GET", template, url + "?count=2")
            try record("GET", template, url + "?range=this_year&offset=50")
            try record("GET", template, url + "?range=fortnight")
        }
        try record("GET", "/apis/listenbrainz/1/stats/user/{name}/artists", "/apis/listenbrainz/1/stats/user/me/artists?count=-1")
        try record("GET", "/apis/listenbrainz/1/stats/user/{name}/artists", "/apis/listenbrainz/1/stats/user/me/artists?range=quarter")
        // Listening and daily activity of the same history, whom this Pacenote follows, and the
        // metadata look-up (the track has no MusicBrainz ids: `{}`), with and without a token.
        for kind in ["listening-activity", "daily-activity"] {
            let template = "/apis/listenbrainz/1/stats/user/{name}/\(kind)", url = "/apis/listenbrainz/1/stats/user/me/\(kind)"
            try record("GET", template, url)
            try record("GET", template, url + "?range=week")
            try record("GET", template, url + "?range=fortnight")
        }
        try record("GET", "/apis/listenbrainz/1/user/{name}/following", "/apis/listenbrainz/1/user/me/following")
        try record("GET", "/apis/listenbrainz/1/user/{name}/followers", "/apis/listenbrainz/1/user/me/followers")
        let lookup = "/apis/listenbrainz/1/metadata/lookup"
        try record("GET", lookup, lookup + "?artist_name=Spec&recording_name=Doc", headers: key)
        try record("GET", lookup, lookup + "?recording_name=Doc", headers: key)
        try record("GET", lookup, lookup + "?artist_name=Spec&recording_name=Doc")
        let submitted = try HTTP.get(daemon.base + "/1/user/me/listens?min_ts=1763794799&max_ts=1763794801", headers: key).json
        let msid = try #require(((submitted?["payload"] as? [String: Any])?["listens"] as? [[String: Any]])?.first?["recording_msid"] as? String)
        let deleteListen = "/apis/listenbrainz/1/delete-listen"
        try record("POST", deleteListen, deleteListen, headers: key, body: #"{"listened_at": 1763794800, "recording_msid": "\#(msid)"}"#)
        try record("POST", deleteListen, deleteListen, headers: key, body: #"{"listened_at": 1763794800, "recording_msid": "\#(msid)"}"#)
        try record("POST", deleteListen, deleteListen, headers: key, body: #"{"listened_at": "soon"}"#)
        try record("POST", deleteListen, deleteListen, body: "{}")
        try record("GET", "/apis/listenbrainz/1/validate-token", "/apis/listenbrainz/1/validate-token?token=\(daemon.apiKey)")
        try record("GET", "/apis/listenbrainz/1/validate-token", "/apis/listenbrainz/1/validate-token?token=no")
        try record("POST", "/api/v1/import", "/api/v1/import?name=doc.jsonl", headers: key,
                   body: #"{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}"# + "\n{\"listened_at\"")
        try record("POST", "/api/v1/import", "/api/v1/import", headers: key, body: "hello")
        try record("POST", "/api/v1/import", "/api/v1/import?name=feedback.jsonl", headers: key,
                   body: #"{"recording_msid": "00000000-0000-5000-8000-000000000001", "score": 1, "track_metadata": null}"# + "\n")
        try record("POST", "/api/v1/import", "/api/v1/import?format=mp3", headers: key, body: "a,b")
        // Corrections: a play read, added, edited and deleted; a merge and its undo.
        let doc = try #require(try daemon.listens().first { $0.title == "Documented" })  // the rewrite rule above renamed it
        let playID = try #require(doc.json["id"] as? Int)
        let docTrack = try #require(doc.track["id"] as? Int)
        let listen = "/api/v1/listens/{id}"
        try record("GET", listen, "/api/v1/listens/\(playID)")
        try record("GET", listen, "/api/v1/listens/999999")
        try record("POST", "/api/v1/listens", "/api/v1/listens", headers: key, body: #"{"track_id": \#(docTrack), "started_at": 1763700000}"#)
        try record("POST", "/api/v1/listens", "/api/v1/listens", headers: key, body: #"{"track_id": \#(docTrack), "started_at": 1763700000}"#)
        try record("POST", "/api/v1/listens", "/api/v1/listens", headers: key,
                   body: #"{"track": {"title": "Added", "artist": "By Hand"}, "started_at": "2025-11-20T08:00:00+01:00"}"#)
        try record("POST", "/api/v1/listens", "/api/v1/listens", headers: key, body: #"{"track_id": 1}"#)
        try record("POST", "/api/v1/listens", "/api/v1/listens", headers: key, body: #"{"uri": "nowhere.flac", "started_at": 1763700000}"#)
        try record("PATCH", listen, "/api/v1/listens/\(playID)", headers: key, body: #"{"counted": false}"#)
        try record("PATCH", listen, "/api/v1/listens/\(playID)", headers: key, body: #"{"counted": "no"}"#)
        try record("PATCH", listen, "/api/v1/listens/999999", headers: key, body: #"{"counted": true}"#)
        try record("DELETE", listen, "/api/v1/listens/\(playID)", headers: key)
        try record("DELETE", listen, "/api/v1/listens/\(playID)", headers: key)
        try record("DELETE", listen, "/api/v1/listens/\(playID)")
        try record("GET", "/api/v1/merges/suggestions", "/api/v1/merges/suggestions")
        try record("GET", "/api/v1/merges/suggestions", "/api/v1/merges/suggestions?limit=0")
        let added = try #require(try daemon.listens().first { $0.title == "Added" }?.track["id"] as? Int)
        let merge = try daemon.post("/api/v1/merges", body: #"{"kind": "track", "from": [\#(added)], "into": \#(docTrack)}"#)
        exchanges.append(Exchange(method: "POST", path: "/api/v1/merges", status: merge.status, contentType: merge.header("Content-Type") ?? "",
                                  body: (try? JSONSerialization.jsonObject(with: merge.body)) ?? merge.text))
        try record("POST", "/api/v1/merges", "/api/v1/merges", headers: key, body: #"{"kind": "track", "from": [\#(docTrack)], "into": \#(docTrack)}"#)
        try record("POST", "/api/v1/merges", "/api/v1/merges", headers: key, body: #"{"kind": "album", "from": [999999], "into": 1}"#)
        try record("POST", "/api/v1/merges", "/api/v1/merges", headers: key, body: #"{"kind": "track", "from": [\#(added)], "into": \#(docTrack)}"#)
        try record("POST", "/api/v1/merges", "/api/v1/merges", body: "{}")
        try record("GET", "/api/v1/curation", "/api/v1/curation?limit=5")
        // A refused 1.2 handshake and a ListenBrainz now-playing fill the submission log.
        _ = try HTTP.request("GET", daemon.base + "/apis/audioscrobbler_legacy/?hs=true&p=1.2&c=tst&v=1&u=me&t=1&a=x")
        _ = try HTTP.request("POST", daemon.base + "/apis/listenbrainz/1/submit-listens", headers: key, body: Data("""
            {"listen_type": "playing_now", "payload": [{"track_metadata": {"artist_name": "Spec", "track_name": "Elsewhere"}}]}
            """.utf8))
        try record("GET", "/api/v1/submissions", "/api/v1/submissions")
        try record("GET", "/api/v1/submissions", "/api/v1/submissions", headers: ["X-API-Key": "wrong-key-0123456789"])
        try record("GET", "/api/v1/curation", "/api/v1/curation?before=x")
        let undo = "/api/v1/curation/{id}/undo"
        let mergeID = try #require(merge.json?["id"] as? Int)
        try record("POST", undo, "/api/v1/curation/\(mergeID)/undo", headers: key)
        try record("POST", undo, "/api/v1/curation/\(mergeID)/undo", headers: key)
        try record("POST", undo, "/api/v1/curation/999999/undo", headers: key)
        // The year in review, and publishing and withdrawing a share of it.
        try record("GET", "/api/v1/review", "/api/v1/review")
        try record("GET", "/api/v1/review", "/api/v1/review?range=never")
        try record("POST", "/api/v1/review/shares", "/api/v1/review/shares", headers: key, body: #"{"range": "year", "sections": ["totals", "heart_rate"]}"#)
        try record("POST", "/api/v1/review/shares", "/api/v1/review/shares", headers: key, body: #"{"sections": ["pulse"]}"#)
        try record("GET", "/api/v1/review/shares", "/api/v1/review/shares")
        let shares = try HTTP.get(daemon.base + "/api/v1/review/shares").json?["shares"] as? [[String: Any]]
        let token = try #require(shares?.first?["token"] as? String)
        try record("PUT", "/api/v1/review/shares/{token}", "/api/v1/review/shares/\(token)", headers: key)
        try record("DELETE", "/api/v1/review/shares/{token}", "/api/v1/review/shares/\(token)", headers: key)
        try record("PUT", "/api/v1/review/shares/{token}", "/api/v1/review/shares/\(token)", headers: key)
        try record("DELETE", "/api/v1/review/shares/{token}", "/api/v1/review/shares/\(token)", headers: key)
        try record("GET", "/healthz", "/healthz")
        try record("GET", "/metrics", "/metrics")
        try record("GET", "/login", "/login")

        // A private session, a listen it hides, and that listen shown again.
        try record("GET", "/api/v1/private-session", "/api/v1/private-session")
        try record("POST", "/api/v1/private-session", "/api/v1/private-session", headers: key, body: #"{"minutes": 1, "seconds": 1}"#)
        try record("POST", "/api/v1/private-session", "/api/v1/private-session", headers: key, body: #"{"minutes": 30}"#)
        let quiet = #"{"listen_type": "single", "payload": [{"listened_at": \#(Int(Date().timeIntervalSince1970) + 1), "track_metadata": {"artist_name": "Spec", "track_name": "Kept Quiet"}}]}"#
        #expect(try daemon.post("/1/submit-listens", body: quiet).status == 200)
        try record("GET", "/now.json", "/now.json")
        try record("DELETE", "/api/v1/private-session", "/api/v1/private-session", headers: key)
        let hidden = try HTTP.get(daemon.base + "/api/v1/listens?hidden=true").json?["listens"] as? [[String: Any]] ?? []
        let hiddenID = try #require(hidden.first?["id"] as? Int, "\(hidden)")
        try record("POST", "/api/v1/hidden-listens/{id}/unhide", "/api/v1/hidden-listens/\(hiddenID)/unhide", headers: key)
        try record("POST", "/api/v1/hidden-listens/{id}/unhide", "/api/v1/hidden-listens/\(hiddenID)/unhide", headers: key)

        // Plans (issue 55): made, refused, read, changed, copied, exported, imported from Zwift;
        // the pre-run playlist; a workout following one, pressed, stopped.
        func lastID(_ field: String = "id") throws -> Int {
            try #require((exchanges.last?.body as? [String: Any])?[field] as? Int, "\(exchanges.last.map { "\($0.status) \($0.body)" } ?? "")")
        }
        try record("POST", "/api/v1/plans", "/api/v1/plans", headers: key,
                   body: #"{"name": "Doc plan", "sport": "running", "text": "5 min Z2 \"warm-up\", 2 × [1 min Z4, 1 min Z2 → Z3], open Z1"}"#)
        let planID = try lastID()
        try record("POST", "/api/v1/plans", "/api/v1/plans", headers: key, body: #"{"name": "Z7", "text": "10 min Z7"}"#)
        try record("POST", "/api/v1/plans", "/api/v1/plans", headers: key, body: #"{"name": "doc PLAN", "text": "1 min Z1"}"#)
        try record("GET", "/api/v1/plans", "/api/v1/plans")
        try record("GET", "/api/v1/plans/{id}", "/api/v1/plans/\(planID)")
        try record("GET", "/api/v1/plans/{id}", "/api/v1/plans/999")
        try record("PUT", "/api/v1/plans/{id}", "/api/v1/plans/\(planID)", headers: key,
                   body: #"{"name": "Doc plan", "steps": [{"seconds": 300, "target": {"type": "heart_rate", "low": 130, "high": 150}, "label": "easy"}, "#
                       + #"{"repeat": 2, "steps": [{"seconds": 60, "target": {"type": "cadence", "low": 170, "high": 180}}, "#
                       + #"{"seconds": 60, "target": {"type": "tempo", "low": 120, "high": 130}}]}, {"open": true, "target": {"type": "free"}}]}"#)
        try record("POST", "/api/v1/plans/{id}/duplicate", "/api/v1/plans/\(planID)/duplicate", headers: key)
        let copyID = try lastID()
        try record("GET", "/api/v1/plans/{id}/export", "/api/v1/plans/\(planID)/export")
        let xml = key.merging(["Content-Type": "application/xml"], uniquingKeysWith: { $1 })
        try record("POST", "/api/v1/plans/import", "/api/v1/plans/import?name=Doc", headers: xml,
                   body: #"<workout_file><workout><Warmup Duration="120" PowerLow="0.5" PowerHigh="0.7"/><SteadyState Duration="300" Power="0.8"/></workout></workout_file>"#)
        try record("POST", "/api/v1/plans/import", "/api/v1/plans/import", headers: key, body: "hello")
        try record("DELETE", "/api/v1/plans/{id}", "/api/v1/plans/\(copyID)", headers: key)
        try record("DELETE", "/api/v1/plans/{id}", "/api/v1/plans/\(copyID)", headers: key)
        try record("POST", "/api/v1/plans/{id}/playlist", "/api/v1/plans/\(planID)/playlist", headers: key)
        try record("POST", "/api/v1/plans/{id}/playlist", "/api/v1/plans/\(planID)/playlist", headers: key, body: #"{"swap": {"index": "x"}}"#)
        try record("POST", "/api/v1/plans/{id}/playlist/save", "/api/v1/plans/\(planID)/playlist/save", headers: key, body: #"{"tracks": []}"#)
        try record("POST", "/api/v1/plans/{id}/playlist/save", "/api/v1/plans/\(planID)/playlist/save", headers: key,
                   body: #"{"tracks": [\#(docTrack)], "queue": true}"#)
        let plan = "/api/v1/workouts/{id}/plan"
        try record("GET", plan, "/api/v1/workouts/1/plan")  // a workout that follows no plan: 404 no_plan
        try record("POST", plan, "/api/v1/workouts/1/plan", headers: key, body: #"{"action": "next"}"#)  // ended: 409
        try record("POST", "/api/v1/plans/{id}/start", "/api/v1/plans/\(planID)/start", headers: key)
        let planned = try lastID("workout_id")
        try record("GET", plan, "/api/v1/workouts/\(planned)/plan")
        try record("POST", plan, "/api/v1/workouts/\(planned)/plan", headers: key, body: #"{"action": "next"}"#)
        try record("POST", plan, "/api/v1/workouts/\(planned)/plan", headers: key, body: #"{"action": "pause"}"#)
        try record("POST", plan, "/api/v1/workouts/\(planned)/plan", headers: key, body: #"{"action": "pause"}"#)
        try record("POST", plan, "/api/v1/workouts/\(planned)/plan", headers: key, body: #"{"action": "resume"}"#)
        try record("POST", plan, "/api/v1/workouts/\(planned)/plan", headers: key, body: #"{"action": "jump"}"#)
        try record("POST", "/api/v1/workouts/{id}/stop", "/api/v1/workouts/\(planned)/stop", headers: key)
        try record("GET", plan, "/api/v1/workouts/\(planned)/plan")
        try record("GET", plan, "/api/v1/workouts/999/plan")
        // The planned workout's report, and its plan with the run in its history.
        try record("GET", "/api/v1/workouts/{id}", "/api/v1/workouts/\(planned)")
        try record("GET", "/api/v1/plans/{id}", "/api/v1/plans/\(planID)")

        // The player (issue 57): the library, the queue, stored and smart playlists, JSPF and
        // ListenBrainz's playlist reads.
        try record("GET", "/api/v1/library/artists", "/api/v1/library/artists")
        let libraryArtist = try #require(((exchanges.last?.body as? [String: Any])?["artists"] as? [[String: Any]])?.first?["id"] as? Int)
        let libraryName = try #require(((exchanges.last?.body as? [String: Any])?["artists"] as? [[String: Any]])?.first?["name"] as? String)
        try record("GET", "/api/v1/library/artists", "/api/v1/library/artists?limit=0")
        try record("GET", "/api/v1/library/search", "/api/v1/library/search?q=" + (String(libraryName.prefix(3)).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        #expect(((exchanges.last?.body as? [String: Any])?["artists"] as? [[String: Any]])?.first?["name"] as? String == libraryName)
        try record("GET", "/api/v1/library/search", "/api/v1/library/search?q=%20")
        try record("GET", "/api/v1/library/artists/{id}", "/api/v1/library/artists/\(libraryArtist)")
        let libraryAlbum = try #require(((exchanges.last?.body as? [String: Any])?["albums"] as? [[String: Any]])?.first?["id"] as? Int)
        try record("GET", "/api/v1/library/albums/{id}", "/api/v1/library/albums/\(libraryAlbum)")
        let libraryTrack = try #require((((exchanges.last?.body as? [String: Any])?["tracks"] as? [[String: Any]])?.first?["track"]
            as? [String: Any])?["id"] as? Int)
        try record("GET", "/api/v1/library/albums/{id}", "/api/v1/library/albums/999")
        let queue = "/api/v1/players/default/queue"
        try record("GET", "/api/v1/players/{name}/queue", queue)
        try record("POST", "/api/v1/players/{name}/queue", queue, headers: key, body: #"{"album_id": \#(libraryAlbum), "at": "next"}"#)
        let queued = try #require(((exchanges.last?.body as? [String: Any])?["songs"] as? [[String: Any]])?.last?["id"] as? Int)
        try record("POST", "/api/v1/players/{name}/queue", queue, headers: key, body: #"{"track_ids": [999999]}"#)
        try record("POST", "/api/v1/players/{name}/queue", queue, headers: key, body: #"{"at": "later"}"#)
        try record("POST", "/api/v1/players/{name}/queue/{id}/{action}", "\(queue)/\(queued)/move", headers: key, body: #"{"position": 0}"#)
        try record("POST", "/api/v1/players/{name}/queue/{id}/{action}", "\(queue)/\(queued)/shuffle", headers: key)
        try record("DELETE", "/api/v1/players/{name}/queue/{id}", "\(queue)/\(queued)", headers: key)
        try record("DELETE", "/api/v1/players/{name}/queue/{id}", "\(queue)/\(queued)", headers: key)
        try record("POST", "/api/v1/playlists", "/api/v1/playlists", headers: key, body: #"{"name": "Doc list", "track_ids": [\#(libraryTrack)]}"#)
        try record("POST", "/api/v1/playlists", "/api/v1/playlists", headers: key, body: #"{"name": "../x"}"#)
        try record("GET", "/api/v1/playlists", "/api/v1/playlists")
        try record("GET", "/api/v1/playlists/{name}", "/api/v1/playlists/Doc%20list")
        try record("GET", "/api/v1/playlists/{name}", "/api/v1/playlists/Doc%20list.jspf")
        try record("GET", "/api/v1/playlists/{name}", "/api/v1/playlists/Nothing")
        try record("POST", "/api/v1/playlists/{name}/{action}", "/api/v1/playlists/Doc%20list/songs", headers: key, body: #"{"track_ids": [\#(libraryTrack)]}"#)
        try record("POST", "/api/v1/playlists/{name}/{action}", "/api/v1/playlists/Doc%20list/move", headers: key, body: #"{"from": 1, "to": 0}"#)
        try record("POST", "/api/v1/playlists/{name}/{action}", "/api/v1/playlists/Doc%20list/remove", headers: key, body: #"{"position": 1}"#)
        try record("POST", "/api/v1/playlists/{name}/{action}", "/api/v1/playlists/Doc%20list/rename", headers: key, body: #"{"to": "Doc two"}"#)
        let lbID = try #require(((exchanges.filter { $0.path == "/api/v1/playlists" && $0.method == "GET" }.first?.body as? [String: Any])?["playlists"]
            as? [[String: Any]])?.first { $0["name"] as? String == "Doc list" }?["identifier"] as? String,
            "\(exchanges.filter { $0.path.hasPrefix("/api/v1/playlists") }.map { "\($0.method) \($0.status) \($0.body)" })")
        try record("GET", "/apis/listenbrainz/1/user/{name}/playlists", "/apis/listenbrainz/1/user/doc/playlists", headers: key)
        try record("GET", "/api/v1/playlists", "/api/v1/playlists")
        let twoID = try #require(((exchanges.last?.body as? [String: Any])?["playlists"] as? [[String: Any]])?
            .first { $0["name"] as? String == "Doc two" }?["identifier"] as? String)
        try record("GET", "/apis/listenbrainz/1/playlist/{id}", "/apis/listenbrainz/1/playlist/\(twoID)", headers: key)
        try record("GET", "/apis/listenbrainz/1/playlist/{id}", "/apis/listenbrainz/1/playlist/\(lbID)", headers: key)  // renamed since: 404
        try record("POST", "/api/v1/smart-playlists", "/api/v1/smart-playlists", headers: key,
                   body: #"{"name": "Doc smart", "rules": {"bpm_min": 120, "bpm_max": 130, "length_s": 600}}"#)
        let smartID = try lastID()
        try record("POST", "/api/v1/smart-playlists", "/api/v1/smart-playlists", headers: key, body: #"{"name": "Doc bad", "rules": {"bpm_min": "fast"}}"#)
        try record("POST", "/api/v1/smart-playlists", "/api/v1/smart-playlists", headers: key, body: #"{"name": "Doc two", "rules": {}}"#)
        try record("GET", "/api/v1/smart-playlists", "/api/v1/smart-playlists")
        try record("GET", "/api/v1/smart-playlists/{id}", "/api/v1/smart-playlists/\(smartID)")
        try record("PUT", "/api/v1/smart-playlists/{id}", "/api/v1/smart-playlists/\(smartID)", headers: key, body: #"{"name": "Doc smarter"}"#)
        try record("POST", "/api/v1/playlists/{name}/{action}", "/api/v1/playlists/Doc%20smarter/clear", headers: key)  // a smart one: 409
        try record("POST", "/api/v1/playlists/{name}/{action}", "/api/v1/playlists/Doc%20two/play", headers: key, body: #"{"at": "end"}"#)
        try record("DELETE", "/api/v1/smart-playlists/{id}", "/api/v1/smart-playlists/\(smartID)", headers: key)
        try record("DELETE", "/api/v1/smart-playlists/{id}", "/api/v1/smart-playlists/\(smartID)", headers: key)
        try record("DELETE", "/api/v1/playlists/{name}", "/api/v1/playlists/Doc%20two", headers: key)
        try record("DELETE", "/api/v1/players/{name}/queue", queue, headers: key)

        // A workout with readings (a watch's late upload, two hours ago), exported: last, so that
        // nothing above sees it.
        let past = Int(Date().timeIntervalSince1970) - 7200
        let beats = (0..<120).map { #"{"bpm": 120, "ts": \#(past + $0)}"# }.joined(separator: ",")
        #expect(try daemon.post("/api/v1/hr?source=watch", body: "[\(beats)]").status == 200)
        let uploaded = try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]] ?? []
        let late = try #require(uploaded.first { ($0["duration_s"] as? NSNumber)?.doubleValue == 119 }?["id"] as? Int, "\(uploaded)")
        try record("GET", "/api/v1/workouts/{id}/export.tcx", "/api/v1/workouts/\(late)/export.tcx")
        #expect(exchanges.last?.status == 200, "\(exchanges.last.map { "\($0.status) \($0.body)" } ?? "")")

        let served = try HTTP.get(daemon.base + "/api/v1/openapi.json")
        #expect(served.status == 200 && served.header("Content-Type") == "application/json; charset=utf-8")
        let dir = try TemporaryDirectory()
        try served.body.write(to: URL(fileURLWithPath: dir.file("openapi.json")))
        let payload = exchanges.map { ["method": $0.method, "path": $0.path, "status": $0.status, "content_type": $0.contentType, "body": $0.body] as [String: Any] }
        try JSONSerialization.data(withJSONObject: payload).write(to: URL(fileURLWithPath: dir.file("exchanges.json")))
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/validate_openapi.py").path
        let result = try run("/bin/sh", ["-c", "'\(python)' '\(script)' '\(dir.file("openapi.json"))' < '\(dir.file("exchanges.json"))'"],
                             allowFailure: true)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr.contains("\(exchanges.count) responses checked, 0 problems"), "\(result.stderr)")
        // Every documented operation was exercised.
        let documented = try #require(try JSONSerialization.jsonObject(with: served.body) as? [String: Any])["paths"] as? [String: [String: Any]] ?? [:]
        let operations = Set(documented.flatMap { path, ops in ops.keys.map { "\($0.uppercased()) \(path)" } })
        let exercised = Set(exchanges.map { "\($0.method) \($0.path)" })
        #expect(operations.subtracting(exercised).subtracting(["GET /api/v1/events", "POST /login", "POST /logout"]).isEmpty, "\(operations.subtracting(exercised))")
    }
}
