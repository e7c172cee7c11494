import Foundation
import Testing
@testable import PacenoteCore

/// Webhook payloads read into events, and the plays a source's start, pauses and stop add up
/// to by the play rule (`PendingPlays`). The payloads over HTTP: WebhookTests.
@Suite struct WebhookPayloadTests {
    let rule = PlayRule.lastFM
    let t0 = Date(timeIntervalSince1970: 1_780_000_000)
    func song(_ seconds: Double?) -> Track { Track(title: "Song", artist: "Band", durationSeconds: seconds) }
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }

    @Test func aStopJudgesTheSourcesPositionByTheRule() {
        var plays = PendingPlays()
        let start = PlaybackReport(.start, track: song(200), source: "jellyfin:Phone", player: "Phone", position: 0)
        #expect(plays.report(start, now: t0, rule: rule).isEmpty)
        // 99 s of 200 is not more than half: a skip, with its seconds.
        let skip = plays.report(PlaybackReport(.stop(completed: false), track: song(200), source: "jellyfin:Phone", player: "Phone",
                                               position: 99), now: at(99), rule: rule)
        #expect(skip == [ReportedPlay(track: song(200), startedAt: t0, player: "Phone", playedSeconds: 99, counted: false)])
        #expect(plays.count == 0)
        _ = plays.report(start, now: at(300), rule: rule)
        let counted = plays.report(PlaybackReport(.stop(completed: false), track: song(200), source: "jellyfin:Phone", player: "Phone",
                                                  position: 101), now: at(401), rule: rule)
        #expect(counted.map(\.counted) == [true] && counted.first?.startedAt == at(300))
    }

    @Test func withoutAPositionTheStopwatchCountsAndPausesStopIt() {
        var plays = PendingPlays()
        func r(_ kind: PlaybackReport.Kind) -> PlaybackReport { PlaybackReport(kind, track: song(100), source: "plex:TV", player: "TV") }
        _ = plays.report(r(.start), now: t0, rule: rule)
        _ = plays.report(r(.pause), now: at(30), rule: rule)
        _ = plays.report(r(.resume), now: at(500), rule: rule)  // paused for 470 s: not played
        let ended = plays.report(r(.stop(completed: false)), now: at(545), rule: rule)
        #expect(ended.map(\.playedSeconds) == [75] && ended.map(\.counted) == [true])
        _ = plays.report(r(.start), now: at(600), rule: rule)
        #expect(plays.report(r(.stop(completed: false)), now: at(640), rule: rule).map(\.counted) == [false])
    }

    @Test func aPassedMarkCountsOnceAndTheStopAddsNothing() {
        var plays = PendingPlays()
        func r(_ kind: PlaybackReport.Kind) -> PlaybackReport { PlaybackReport(kind, track: song(180), source: "plex:TV", player: "TV") }
        _ = plays.report(r(.start), now: t0, rule: rule)
        let scrobbled = plays.report(r(.passed(fraction: 0.9)), now: at(165), rule: rule)
        #expect(scrobbled.map(\.counted) == [true] && scrobbled.first?.startedAt == t0)
        #expect(scrobbled.first?.playedSeconds == 165)
        #expect(plays.report(r(.stop(completed: false)), now: at(180), rule: rule).isEmpty)
    }

    @Test func aStartOfAnotherSongEndsTheOpenOneAndAStopWithoutAStartStandsAlone() {
        var plays = PendingPlays()
        _ = plays.report(PlaybackReport(.start, track: song(100), source: "jellyfin:A", player: "A"), now: t0, rule: rule)
        let other = Track(title: "Other", artist: "Band", durationSeconds: 100)
        let ended = plays.report(PlaybackReport(.start, track: other, source: "jellyfin:A", player: "A"), now: at(70), rule: rule)
        #expect(ended.map(\.track.title) == ["Song"] && ended.map(\.counted) == [true])
        // A restart forgot the start: the stop's own position is judged, from its own start.
        var fresh = PendingPlays()
        let alone = fresh.report(PlaybackReport(.stop(completed: false), track: song(100), source: "jellyfin:B", player: "B", position: 20),
                                 now: at(1000), rule: rule)
        #expect(alone == [ReportedPlay(track: song(100), startedAt: at(980), player: "B", playedSeconds: 20, counted: false)])
        // Played to the end, with the position reset to 0: the whole length.
        let done = fresh.report(PlaybackReport(.stop(completed: true), track: song(100), source: "jellyfin:B", player: "B", position: 0),
                                now: at(2000), rule: rule)
        #expect(done.map(\.counted) == [true] && done.map(\.playedSeconds) == [100])
    }

    @Test func openPlaysAreBounded() {
        var plays = PendingPlays()
        for i in 0..<(PendingPlays.capacity + 10) {
            _ = plays.report(PlaybackReport(.start, track: song(100), source: "jellyfin:\(i)", player: "\(i)"), now: at(Double(i)), rule: rule)
        }
        #expect(plays.count == PendingPlays.capacity)
    }

    @Test func multipartPartsAreRead() throws {
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"payload\"\r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n--XyZ\r\nContent-Disposition: form-data; name=\"thumb\"; filename=\"t.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\u{1}\u{2}\r\n--XyZ--\r\n".utf8)
        let parts = try #require(Multipart.parts(body, contentType: "multipart/form-data; boundary=XyZ"))
        #expect(parts.map(\.name) == ["payload", "thumb"])
        #expect(parts[0].body == Array("{\"a\":1}".utf8) && parts[1].body == [1, 2])
        #expect(Multipart.parts(body, contentType: "multipart/form-data; boundary=\"XyZ\"")?.count == 2)
        #expect(Multipart.parts(body, contentType: "multipart/form-data") == nil, "no boundary")
        #expect(Multipart.parts(Array(body.prefix(60)), contentType: "multipart/form-data; boundary=XyZ") == nil, "no closing delimiter")
    }

    @Test func jellyfinPayloadsAreReadCaseInsensitivelyAndVideosIgnored() throws {
        let stop = #"{"notificationType":"PlaybackStop","ItemType":"Audio","Name":"T","Artist":"A","RunTimeTicks":"2000000000","PlaybackPositionTicks":1500000000,"PlayedToCompletion":false,"DeviceName":"Den","Provider_musicbrainztrack":"3c2c1f40-b22e-360e-a29a-1b1610190a8c"}"#
        guard case .playback(let r) = try WebhookPayloads.jellyfin(Array(stop.utf8)) else { Issue.record("not a playback"); return }
        #expect(r.kind == .stop(completed: false) && r.position == 150 && r.track.durationSeconds == 200)
        #expect(r.source == "jellyfin:Den" && r.track.musicBrainz.recording == "3c2c1f40-b22e-360e-a29a-1b1610190a8c")
        let movie = #"{"NotificationType":"PlaybackStart","ItemType":"Movie","Name":"Film"}"#
        #expect(try WebhookPayloads.jellyfin(Array(movie.utf8)) == .ignored("Jellyfin Movie: not music"))
        #expect(throws: WebhookPayloads.Rejection.self) { try WebhookPayloads.jellyfin(Array("[1]".utf8)) }
        #expect(throws: WebhookPayloads.Rejection.self) {
            try WebhookPayloads.jellyfin(Array(#"{"NotificationType":"PlaybackStop","ItemType":"Audio","Artist":"A"}"#.utf8))
        }
    }

    @Test func malojaScrobblesTakeEitherArtistForm() throws {
        let one = try WebhookPayloads.maloja(["artist": "A", "title": "T", "key": "k", "time": NSNumber(value: 1_780_000_000),
                                                  "duration": NSNumber(value: 40), "length": "200"])
        #expect(one.track.artist == "A" && one.played == 40 && one.track.durationSeconds == 200 && one.key == "k")
        let many = try WebhookPayloads.maloja(["artists": ["A", "B"], "title": "T", "apikey": "k"])
        #expect(many.track.listedCredit?.artists.map(\.name) == ["A", "B"] && many.key == "k")
        #expect(throws: WebhookPayloads.Rejection.self) { try WebhookPayloads.maloja(["title": "T"]) }
        #expect(throws: WebhookPayloads.Rejection.self) { try WebhookPayloads.maloja(["artist": "A", "title": "T", "duration": "long"]) }
    }

    @Test func listenBrainzDurationPlayedUnderTheRuleIsASkip() throws {
        func listen(_ extra: String) -> [UInt8] {
            Array(#"{"listen_type":"single","payload":[{"listened_at":1780000000,"track_metadata":{"artist_name":"A","track_name":"T","additional_info":{"duration":200\#(extra)}}}]}"#.utf8)
        }
        let now = Date(timeIntervalSince1970: 1_780_000_500)
        let skip = try ListenBrainzSubmission.parse(listen(#","duration_played":60"#), now: now).listens[0].play(rule: rule, now: now)
        #expect(!skip.counted && skip.playedSeconds == 60)
        let played = try ListenBrainzSubmission.parse(listen(#","duration_played":101"#), now: now).listens[0].play(rule: rule, now: now)
        #expect(played.counted && played.playedSeconds == 101)
        let whole = try ListenBrainzSubmission.parse(listen(""), now: now).listens[0].play(rule: rule, now: now)
        #expect(whole.counted && whole.playedSeconds == 200)
        #expect(throws: ListenBrainzSubmission.Rejection.self) { try ListenBrainzSubmission.parse(listen(#","duration_played":-5"#), now: now) }
    }
}
