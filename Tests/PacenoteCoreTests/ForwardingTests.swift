import Foundation
import PacenoteCore
import Testing

@Suite struct ForwardingCoreTests {
    let track = Track(title: "Vantablack", artist: "Dool", album: "Summerland", durationSeconds: 301.4,
                      musicBrainz: MusicBrainzIDs(recording: "3c8b0e76-7e4b-4b38-9a43-6b3d0f1b2a11", release: "not-an-mbid"))

    @Test func listenBrainzBodiesCarryTheSongAndNothingElse() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let body = Forwarding.listenBrainzBody([(track, start)], type: .single)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        #expect(json["listen_type"] as? String == "single")
        let listen = try #require((json["payload"] as? [[String: Any]])?.first)
        #expect(listen["listened_at"] as? Int == 1_700_000_000)
        let metadata = try #require(listen["track_metadata"] as? [String: Any])
        #expect(metadata["artist_name"] as? String == "Dool" && metadata["track_name"] as? String == "Vantablack")
        #expect(metadata["release_name"] as? String == "Summerland")
        let info = try #require(metadata["additional_info"] as? [String: Any])
        #expect(info["duration_ms"] as? Int == 301_400)
        #expect(info["recording_mbid"] as? String == "3c8b0e76-7e4b-4b38-9a43-6b3d0f1b2a11")
        #expect(info["release_mbid"] == nil, "an invalid MBID is dropped")
        #expect(info["submission_client"] as? String == "Pacenote")
        let now = try #require(try JSONSerialization.jsonObject(with: Data(Forwarding.listenBrainzBody([(track, nil)], type: .playingNow))) as? [String: Any])
        #expect(now["listen_type"] as? String == "playing_now")
        #expect((now["payload"] as? [[String: Any]])?.first?["listened_at"] == nil)
    }

    /// The signature of https://www.last.fm/api/authspec: every field but format, sorted by
    /// name, names and values run together, then the secret, MD5'd.
    @Test func signedCallsFollowTheAuthSpec() {
        let body = String(decoding: Forwarding.signedForm([("method", "track.scrobble"), ("artist", "Mötley Crüe & Co")],
                                                          apiKey: "KEY", secret: "SECRET", sessionKey: "SK"), as: UTF8.self)
        let expected = MD5.hex("api_keyKEYartistMötley Crüe & Comethodtrack.scrobbleskSK" + "SECRET")
        #expect(body.contains("api_sig=\(expected)"))
        #expect(body.contains("artist=M%C3%B6tley%20Cr%C3%BCe%20%26%20Co"))
        #expect(body.hasSuffix("&format=json"))
    }

    @Test func oneScrobbleIsUnnumberedAndABatchIsIndexed() {
        let listen = { (i: Int) in Forwarding.Listen(playID: Int64(i), track: self.track, startedAt: Date(timeIntervalSince1970: Double(1_000 * i)),
                                                    playedSeconds: 300, source: "mpd", player: nil) }
        let one = Forwarding.scrobbleFields([listen(1)])
        #expect(one.contains { $0 == ("timestamp", "1000") } && one.contains { $0 == ("artist", "Dool") })
        let two = Forwarding.scrobbleFields([listen(1), listen(2)])
        #expect(two.contains { $0 == ("timestamp[1]", "2000") } && two.contains { $0 == ("track[0]", "Vantablack") })
        #expect(Forwarding.unsendable(Track(title: "x", artist: " ")) != nil)
        #expect(Forwarding.unsendable(track) == nil)
    }

    @Test func answersDecideWhatHappensToTheQueue() {
        let ok = Forwarding.listenBrainzOutcome(status: 200, body: Array(#"{"status":"ok"}"#.utf8), headers: [:])
        #expect(ok == .delivered(ignored: [:]))
        #expect(Forwarding.listenBrainzOutcome(status: 429, body: [], headers: ["retry-after": "7"]) == .retry(reason: "429: HTTP 429", after: 7))
        #expect(Forwarding.listenBrainzOutcome(status: 401, body: Array(#"{"code":401,"error":"Invalid token"}"#.utf8), headers: [:])
                == .unauthorized(reason: "401: Invalid token"))
        #expect(Forwarding.listenBrainzOutcome(status: 400, body: Array(#"{"error":"bad"}"#.utf8), headers: [:]) == .refused(reason: "400: bad"))
        if case .retry = Forwarding.listenBrainzOutcome(status: 503, body: [], headers: [:]) {} else { Issue.record("503 is retried") }

        let scrobbled = Array(##"{"scrobbles":{"@attr":{"accepted":1,"ignored":1},"scrobble":[{"ignoredMessage":{"code":"0","#text":""}},{"ignoredMessage":{"code":"3","#text":"Timestamp too old"}}]}}"##.utf8)
        #expect(Forwarding.scrobbleOutcome(status: 200, body: scrobbled, headers: [:], count: 2) == .delivered(ignored: [1: "ignored (3): Timestamp too old"]))
        let single = Array(#"{"scrobbles":{"@attr":{"ignored":0},"scrobble":{"ignoredMessage":{"code":"0"}}}}"#.utf8)
        #expect(Forwarding.scrobbleOutcome(status: 200, body: single, headers: [:], count: 1) == .delivered(ignored: [:]))
        #expect(Forwarding.scrobbleOutcome(status: 403, body: Array(#"{"error":9,"message":"Invalid session key"}"#.utf8), headers: [:], count: 1)
                == .unauthorized(reason: "error 9: Invalid session key"))
        #expect(Forwarding.scrobbleOutcome(status: 200, body: Array(#"{"error":29,"message":"Rate limit"}"#.utf8), headers: [:], count: 1)
                == .retry(reason: "error 29: Rate limit", after: nil))
        #expect(Forwarding.scrobbleOutcome(status: 500, body: Array(#"{"error":8,"message":"Operation failed"}"#.utf8), headers: [:], count: 1)
                == .failed(reason: "error 8: Operation failed"))
        #expect(Forwarding.mobileSession(status: 200, body: Array(#"{"session":{"name":"alice","key":"abc"}}"#.utf8)) == .session(key: "abc", name: "alice"))
        #expect(Forwarding.mobileSession(status: 401, body: Array(#"{"error":4,"message":"Invalid credentials"}"#.utf8)) == .refused("error 4: Invalid credentials"))
    }

    @Test func rateLimitHeadersPaceTheBacklog() {
        #expect(Forwarding.retryAfter(["x-ratelimit-remaining": "0", "x-ratelimit-reset-in": "12"]) == 12)
        #expect(Forwarding.retryAfter(["x-ratelimit-remaining": "3"]) == nil)
        #expect(Forwarding.pace(["x-ratelimit-remaining": "2", "x-ratelimit-reset-in": "10"]) == 5)
        #expect(Forwarding.pace(["x-ratelimit-remaining": "50", "x-ratelimit-reset-in": "10"]) == nil)
    }
}
