import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// ListenBrainz's reads of the history (listens, listen-count, playing-now) and its
/// delete-listen, through the real server, in ListenBrainz's shapes and error dialect.
@Suite struct ListenBrainzHistoryTests {
    static let key = "test-key-0123456789"
    static let submitKey = "pn_submit_0123456789"
    /// 2026-01-01T20:00:00Z.
    static let t0 = 1_767_297_600

    /// Track A played once an hour from `t0`, counted and skipped in turn (counted at 0, 2,
    /// 4 and 6 h); track B counted at 7 h and 0.7 s. Five listens, three skips.
    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let web: WebServer
        let api: API
        let trackA: Int64
        let trackB: Int64
        var base: String { "http://127.0.0.1:\(web.port)" }

        init(nowPlaying: [NowPlaying] = []) throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            trackA = try store.saveTrack(Track(
                uri: "a.flac", title: "Alpha", artist: "Tester", album: "Firsts", trackNumber: 3, durationSeconds: 200.5,
                musicBrainz: MusicBrainzIDs(recording: "e225fb84-dc9a-419e-adcd-9890f59ec432",
                                            release: "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10", artist: "f59c5520-5f46-4d2c-b2c4-822eabf53419")))
            trackB = try store.saveTrack(Track(uri: "b.flac", title: "Beta", artist: nil))
            for i in 0..<7 {
                let start = Date(timeIntervalSince1970: Double(ListenBrainzHistoryTests.t0 + i * 3600))
                try store.insertPlay(Play(trackID: trackA, startedAt: start, endedAt: start.addingTimeInterval(150),
                                          playedSeconds: i % 2 == 0 ? 150 : 20, counted: i % 2 == 0, source: "mpd", player: "default"))
            }
            let start = Date(timeIntervalSince1970: Double(ListenBrainzHistoryTests.t0 + 7 * 3600) + 0.7)
            try store.insertPlay(Play(trackID: trackB, startedAt: start, endedAt: start.addingTimeInterval(60),
                                      playedSeconds: 60, counted: true, source: "listenbrainz", player: "phone"))
            let context = APIContext.forTests(version: "t", store: store, apiKey: ListenBrainzHistoryTests.key, players: {
                [PlayerStatus(name: "living-room", endpoint: "localhost:6600", connected: true, since: Date()),
                 PlayerStatus(name: "kitchen", endpoint: "kitchen:6600", connected: true, since: Date())]
            }, nowPlaying: { nowPlaying }, namedKey: { $0 == ListenBrainzHistoryTests.submitKey ? .submit : nil })
            api = API(context: context)
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0)), basePath: "", api: api,
                            logger: Logger(label: "test"))
            try web.start()
        }

        deinit {
            web.stop()
            try? store.close()
        }

        func get(_ path: String) throws -> (status: Int, json: [String: Any]) {
            let r = try HTTP.get(base + path)
            return (r.status, r.json ?? [:])
        }

        func payload(_ path: String) throws -> [String: Any] {
            let (status, json) = try get(path)
            #expect(status == 200, "\(path): \(json)")
            return json["payload"] as? [String: Any] ?? [:]
        }

        /// The listened_at of each listen answered, in order.
        func times(_ query: String) throws -> [Int] {
            ((try payload("/1/user/me/listens" + query))["listens"] as? [[String: Any]] ?? []).compactMap { $0["listened_at"] as? Int }
        }

        func delete(_ body: String, token: String? = ListenBrainzHistoryTests.key) throws -> (status: Int, json: [String: Any]) {
            var headers = ["Content-Type": "application/json"]
            if let token { headers["Authorization"] = "Token \(token)" }
            let r = try HTTP.request("POST", base + "/1/delete-listen", body: Array(body.utf8), headers: headers)
            return (r.status, r.json ?? [:])
        }
    }

    static func hours(_ h: [Int]) -> [Int] { h.map { t0 + $0 * 3600 } }

    @Test func listensAreCountedPlaysNewestFirstInListenBrainzShape() throws {
        let site = try Site()
        for prefix in ["", "/apis/listenbrainz"] {
            let payload = try site.payload(prefix + "/1/user/alice/listens")
            #expect(payload["user_id"] as? String == "alice")
            #expect(payload["count"] as? Int == 5)
            #expect(payload["latest_listen_ts"] as? Int == Self.t0 + 7 * 3600)
            #expect(payload["oldest_listen_ts"] as? Int == Self.t0)
            let listens = try #require(payload["listens"] as? [[String: Any]])
            #expect(listens.compactMap { $0["listened_at"] as? Int } == Self.hours([7, 6, 4, 2, 0]), "skips are left out")
            let b = listens[0]
            #expect(b["recording_msid"] as? String == PacenoteMSID.msid(trackID: site.trackB))
            #expect(b["user_name"] as? String == "alice")
            #expect(b["inserted_at"] as? Int == Self.t0 + 7 * 3600 + 60)
            let bMeta = try #require(b["track_metadata"] as? [String: Any])
            #expect(bMeta["track_name"] as? String == "Beta")
            #expect(bMeta["artist_name"] is NSNull)
            #expect((bMeta["additional_info"] as? [String: Any])?["media_player"] as? String == "phone")

            let a = try #require(listens[1]["track_metadata"] as? [String: Any])
            #expect(a["artist_name"] as? String == "Tester")
            #expect(a["track_name"] as? String == "Alpha")
            #expect(a["release_name"] as? String == "Firsts")
            let info = try #require(a["additional_info"] as? [String: Any])
            #expect(info["recording_msid"] as? String == PacenoteMSID.msid(trackID: site.trackA))
            #expect(info["recording_mbid"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
            #expect(info["release_mbid"] as? String == "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10")
            #expect(info["artist_mbids"] as? [String] == ["f59c5520-5f46-4d2c-b2c4-822eabf53419"])
            #expect(info["duration_ms"] as? Int == 200_500)
            #expect(info["tracknumber"] as? Int == 3)
            #expect(info["submission_client"] as? String == "Pacenote")
        }
    }

    /// `min_ts` and `max_ts` are exclusive, in whole seconds (a play at 7 h 0.7 s was listened
    /// at 7 h); with `min_ts` the listens just after it are answered, still newest first.
    @Test func boundsAreExclusiveAndMinTSPagesForward() throws {
        let site = try Site()
        #expect(try site.times("?max_ts=\(Self.t0 + 4 * 3600)") == Self.hours([2, 0]))
        #expect(try site.times("?max_ts=\(Self.t0 + 4 * 3600 + 1)") == Self.hours([4, 2, 0]))
        #expect(try site.times("?min_ts=\(Self.t0)") == Self.hours([7, 6, 4, 2]))
        #expect(try site.times("?min_ts=\(Self.t0 - 1)&count=2") == Self.hours([2, 0]), "the two just after min_ts")
        #expect(try site.times("?max_ts=\(Self.t0 + 7 * 3600)&count=2") == Self.hours([6, 4]), "the two just before max_ts")
        #expect(try site.times("?min_ts=\(Self.t0)&max_ts=\(Self.t0 + 6 * 3600)") == Self.hours([4, 2]))
        #expect(try site.times("?min_ts=\(Self.t0 + 7 * 3600 - 1)") == Self.hours([7]))
        #expect(try site.times("?min_ts=\(Self.t0 + 7 * 3600)") == [])
        #expect(try site.times("?count=0") == [])
        let empty = try site.payload("/1/user/me/listens?min_ts=\(Self.t0 + 8 * 3600)")
        #expect(empty["count"] as? Int == 0)
        #expect(empty["latest_listen_ts"] as? Int == Self.t0 + 7 * 3600, "of all the listens, not of the answer")
    }

    @Test func countDefaultsTo25AndIsCappedAt1000() throws {
        let site = try Site()
        let track = Track(title: "Many", artist: "Repeater")
        let listens = (0..<1100).map { (track: track, startedAt: Date(timeIntervalSince1970: Double(Self.t0 + 86_400 + $0 * 60)), client: String?.none) }
        _ = try site.store.recordListens(listens, source: "listenbrainz")
        #expect(try site.payload("/1/user/me/listens")["count"] as? Int == 25)
        #expect(try site.payload("/1/user/me/listens?count=1000")["count"] as? Int == 1000)
        #expect(try site.payload("/1/user/me/listens?count=5000")["count"] as? Int == 1000, "ListenBrainz answers at most 1000")
        #expect(try site.payload("/1/user/me/listen-count")["count"] as? Int == 1105)
    }

    @Test(arguments: [
        "?min_ts=yesterday", "?max_ts=1.5", "?count=-1", "?count=many", "?max_ts=-5",
        "?min_ts=1767297600&max_ts=1767297600", "?min_ts=1767300000&max_ts=1767297600", "?max_ts=99999999999999999999",
    ])
    func badParametersAre400InListenBrainzShape(query: String) throws {
        let (status, json) = try Site().get("/1/user/me/listens" + query)
        #expect(status == 400)
        #expect(json["code"] as? Int == 400)
        #expect(json["error"] is String, "\(json)")
        #expect(json.count == 2, "ListenBrainz's {code, error}: \(json)")
    }

    @Test func listenCountIsCountedPlays() throws {
        let site = try Site()
        for prefix in ["", "/apis/listenbrainz"] {
            let (status, json) = try site.get(prefix + "/1/user/anyone/listen-count")
            #expect(status == 200)
            #expect(json.keys.sorted() == ["payload"] && (json["payload"] as? [String: Any])?.keys.sorted() == ["count"], "\(json)")
            #expect((json["payload"] as? [String: Any])?["count"] as? Int == 5)
        }
    }

    @Test func playingNowIsTheDefaultPlayersSong() throws {
        let track = Track(id: 7, title: "On Air", artist: "Live", album: "Now", durationSeconds: 180)
        func now(_ player: String, _ state: NowPlaying.State) -> NowPlaying {
            NowPlaying(player: player, state: state, track: track, startedAt: Date(), playedSeconds: 5, elapsed: 5, duration: 180, at: Date())
        }
        let playing = try Site(nowPlaying: [now("kitchen", .play), now("living-room", .play)]).payload("/1/user/bob/playing-now")
        #expect(playing["count"] as? Int == 1)
        #expect(playing["user_id"] as? String == "bob")
        #expect(playing["playing_now"] as? Bool == true)
        let listen = try #require((playing["listens"] as? [[String: Any]])?.first)
        #expect(listen["playing_now"] as? Bool == true)
        #expect(listen["listened_at"] == nil, "a song still playing has no listened_at")
        let metadata = try #require(listen["track_metadata"] as? [String: Any])
        #expect(metadata["track_name"] as? String == "On Air")
        #expect(metadata["artist_name"] as? String == "Live")
        let info = try #require(metadata["additional_info"] as? [String: Any])
        #expect(info["recording_msid"] as? String == PacenoteMSID.msid(trackID: 7))
        #expect(info["media_player"] as? String == "living-room")

        for others in [[now("kitchen", .play)], [now("living-room", .pause)], []] {
            let nothing = try Site(nowPlaying: others).payload("/apis/listenbrainz/1/user/bob/playing-now")
            #expect(nothing["count"] as? Int == 0)
            #expect((nothing["listens"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func deleteListenRemovesThatListenOnce() throws {
        let site = try Site()
        let msidB = PacenoteMSID.msid(trackID: site.trackB)
        // Track B's play began at 7 h and 0.7 s: its listened_at is the whole second.
        var (status, json) = try site.delete(#"{"listened_at": \#(Self.t0 + 7 * 3600), "recording_msid": "\#(msidB)"}"#)
        #expect(status == 200)
        #expect(json.count == 1 && json["status"] as? String == "ok", "\(json)")
        #expect(try site.payload("/1/user/me/listen-count")["count"] as? Int == 4)
        #expect(try site.times("") == Self.hours([6, 4, 2, 0]))
        #expect(try site.store.plays(limit: 10).count == 7, "only that play is gone")

        (status, json) = try site.delete(#"{"listened_at": \#(Self.t0 + 7 * 3600), "recording_msid": "\#(msidB)"}"#)
        #expect(status == 404)
        #expect(json["code"] as? Int == 404 && json["error"] is String, "\(json)")

        let msidA = PacenoteMSID.msid(trackID: site.trackA)
        // A skip is no listen; neither is a recording Pacenote did not name, nor another second.
        for body in [#"{"listened_at": \#(Self.t0 + 3600), "recording_msid": "\#(msidA)"}"#,
                     #"{"listened_at": \#(Self.t0), "recording_msid": "d23f4719-9212-49f0-ad08-ddbfbfc50d6f"}"#,
                     #"{"listened_at": \#(Self.t0 + 1), "recording_msid": "\#(msidA)"}"#,
                     #"{"listened_at": \#(Self.t0), "recording_msid": "\#(PacenoteMSID.msid(trackID: 999))"}"#] {
            (status, json) = try site.delete(body)
            #expect(status == 404, "\(body)")
            #expect(json["code"] as? Int == 404, "\(body): \(json)")
        }
        // The digits of a number are a timestamp too, as ListenBrainz takes them.
        (status, _) = try site.delete(#"{"listened_at": "\#(Self.t0)", "recording_msid": "\#(msidA.uppercased())"}"#)
        #expect(status == 200)
        #expect(try site.times("") == Self.hours([6, 4, 2]))
    }

    @Test(arguments: [
        ("{oops", "Cannot parse JSON document."), ("[1, 2]", "Cannot parse JSON document."),
        (#"{"recording_msid": "00000000-0000-5000-8000-000000000001"}"#, "Listen timestamp missing."),
        (#"{"listened_at": null, "recording_msid": "00000000-0000-5000-8000-000000000001"}"#, "Listen timestamp missing."),
        (#"{"listened_at": "soon", "recording_msid": "00000000-0000-5000-8000-000000000001"}"#, "soon: Listen timestamp invalid."),
        (#"{"listened_at": true, "recording_msid": "00000000-0000-5000-8000-000000000001"}"#, nil),
        (#"{"listened_at": 1.5, "recording_msid": "00000000-0000-5000-8000-000000000001"}"#, nil),
        (#"{"listened_at": 1767297600}"#, "Recording MSID missing."),
        (#"{"listened_at": 1767297600, "recording_msid": "nope"}"#, "nope: Recording MSID format invalid."),
        (#"{"listened_at": 1767297600, "recording_msid": 5}"#, nil),
    ])
    func malformedDeletesAre400(body: String, message: String?) throws {
        let (status, json) = try Site().delete(body)
        #expect(status == 400)
        #expect(json["code"] as? Int == 400)
        if let message { #expect(json["error"] as? String == message) } else { #expect(json["error"] is String) }
    }

    /// The reads are private like the history (the key in ListenBrainz's `Authorization:
    /// Token …` opens them); deleting takes the admin key, in ListenBrainz's words.
    @Test func accessInListenBrainzWords() throws {
        let site = try Site()
        func ask(_ method: String, _ path: String, _ headers: [String: String], body: String = "") -> (Int, [String: Any]) {
            let response = site.api.handle(HTTPRequest(method: method, path: path, headers: headers.merging(["Host": "pacenote.example"]) { a, _ in a },
                                                       body: Array(body.utf8), peerAddress: "203.0.113.7"))
            return (response.status, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
        }
        for path in ["/1/user/me/listens", "/1/user/me/listen-count", "/1/user/me/playing-now",
                     "/apis/listenbrainz/1/user/me/listens"] {
            var (status, json) = ask("GET", path, [:])
            #expect(status == 403, "a stranger without the key: \(path)")
            #expect(json["code"] as? Int == 403 && json["error"] is String, "\(json)")
            (status, _) = ask("GET", path, ["Authorization": "Token \(Self.key)"])
            #expect(status == 200, "\(path) with the key as a ListenBrainz token")
            (status, json) = ask("GET", path, ["Authorization": "Token \(Self.submitKey)"])
            #expect(status == 403, "a submit key reads nothing: \(path)")
        }
        let body = #"{"listened_at": \#(Self.t0), "recording_msid": "\#(PacenoteMSID.msid(trackID: site.trackA))"}"#
        var (status, json) = ask("POST", "/1/delete-listen", [:], body: body)
        #expect(status == 401)
        #expect(json["error"] as? String == "You need to provide an Authorization header.")
        (status, json) = ask("POST", "/1/delete-listen", ["Authorization": "Token not-the-key-0123"], body: body)
        #expect(status == 401)
        #expect(json["error"] as? String == "Invalid authorization token.")
        (status, json) = ask("POST", "/apis/listenbrainz/1/delete-listen", ["Authorization": "Token \(Self.submitKey)"], body: body)
        #expect(status == 403 && json["code"] as? Int == 403, "a submit key adds listens, it does not delete them")
        #expect(try site.payload("/1/user/me/listen-count")["count"] as? Int == 5)
        (status, json) = ask("POST", "/apis/listenbrainz/1/delete-listen", ["Authorization": "Token \(Self.key)"], body: body)
        #expect(status == 200, "\(json)")
        #expect(try site.payload("/1/user/me/listen-count")["count"] as? Int == 4)
    }
}
