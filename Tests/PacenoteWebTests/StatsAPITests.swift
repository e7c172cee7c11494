import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

@Suite struct StatsAPITests {
    @Test func topTracksArtistsAndAlbumsWithTotals() throws {
        let dir = try TemporaryDirectory()
        let utc = TimeZone(identifier: "UTC")!
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a", title: "Alpha", artist: "Band", album: "First", durationSeconds: 100))
        let b = try store.saveTrack(Track(uri: "b", title: "Beta", artist: "band", album: "First", durationSeconds: 200))
        let c = try store.saveTrack(Track(uri: "c", title: "Gamma", artist: "Solo", album: "Other", durationSeconds: 300))
        let day = 1_767_225_600.0  // 2026-01-01T00:00Z
        func play(_ track: Int64, _ offset: Double, _ seconds: Double, counted: Bool = true) throws {
            try store.insertPlay(Play(trackID: track, startedAt: Date(timeIntervalSince1970: day + offset),
                                      endedAt: Date(timeIntervalSince1970: day + offset + seconds), playedSeconds: seconds,
                                      counted: counted, source: "mpd"))
        }
        try play(a, 0, 100); try play(a, 1000, 100); try play(b, 2000, 200); try play(c, 3000, 300)
        try play(c, 4000, 300); try play(c, 5000, 10, counted: false)
        try play(a, 86_400 * 40, 100)  // February
        let api = API(context: APIContext.forTests(version: "t", store: store, timeZone: utc, apiKey: "k", players: { [] }))
        func get(_ query: [String: String]) throws -> [String: Any] {
            let r = api.handle(HTTPRequest(method: "GET", path: "/api/v1/stats", query: query, headers: ["Host": "127.0.0.1"],
                                               peerAddress: "127.0.0.1"))
            #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
            return try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any] ?? [:]
        }
        let jan = try get(["range": "2026-01"])
        #expect((jan["totals"] as? [String: Any])?["plays"] as? Int == 5)
        #expect((jan["totals"] as? [String: Any])?["skips"] as? Int == 1)
        #expect((jan["totals"] as? [String: Any])?["listening_s"] as? Int == 1010)
        let tracks = jan["top_tracks"] as? [[String: Any]] ?? []
        // Alpha and Gamma both have 2 plays: more listening time ranks first.
        #expect(tracks.map { ($0["track"] as? [String: Any])?["title"] as? String } == ["Gamma", "Alpha", "Beta"])
        #expect(tracks.map { $0["rank"] as? Int } == [1, 2, 3])
        let artists = jan["top_artists"] as? [[String: Any]] ?? []
        #expect(artists.map { $0["plays"] as? Int } == [3, 2], "Band and band are one artist")
        let albums = jan["top_albums"] as? [[String: Any]] ?? []
        #expect(albums.first?["album"] as? String == "First")
        let all = try get([:])
        #expect((all["totals"] as? [String: Any])?["plays"] as? Int == 6)
        let custom = try get(["from": "2026-02-01", "to": "2026-02-28", "limit": "1"])
        #expect((custom["top_tracks"] as? [Any])?.count == 1)
        let bad = api.handle(HTTPRequest(method: "GET", path: "/api/v1/stats", query: ["range": "soon"], headers: ["Host": "127.0.0.1"],
                                         peerAddress: "127.0.0.1"))
        #expect(bad.status == 400)
    }
}

@Suite struct SOTDAPITests {
    @Test func theSongOfADayAcrossTheDisplayZoneAndPins() throws {
        let dir = try TemporaryDirectory()
        let berlin = TimeZone(identifier: "Europe/Berlin")!
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: berlin)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a", title: "Morning", artist: "X", durationSeconds: 100))
        let b = try store.saveTrack(Track(uri: "b", title: "Night <b>", artist: "Y", durationSeconds: 200))
        func play(_ track: Int64, _ at: Double, counted: Bool = true) throws {
            try store.insertPlay(Play(trackID: track, startedAt: Date(timeIntervalSince1970: at), endedAt: Date(timeIntervalSince1970: at + 100),
                                      playedSeconds: 100, counted: counted, source: "mpd"))
        }
        // 2026-03-29 in Berlin (the day clocks go forward): 22:30Z on the 28th is already the 29th.
        try play(a, 1_774_737_000)           // 2026-03-28T22:30Z = 23:30 CET, still the 28th
        try play(b, 1_774_740_600)           // 2026-03-28T23:30Z = 00:30 on the 29th
        try play(b, 1_774_744_200)
        try play(a, 1_774_747_800, counted: false)
        let api = API(context: APIContext.forTests(version: "t", store: store, timeZone: berlin, apiKey: "key-0123456789abcdef",
                                          players: { [] }))
        func call(_ method: String, _ path: String, _ body: String = "", key: Bool = false, query: [String: String] = [:]) throws -> (Int, [String: Any]) {
            let r = api.handle(HTTPRequest(method: method, path: path, query: query,
                                           headers: key ? ["X-API-Key": "key-0123456789abcdef"] : [:], body: Array(body.utf8), peerAddress: "8.8.8.8"))
            return (r.status, (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]) ?? [:])
        }
        var (status, json) = try call("GET", "/api/v1/sotd/2026-03-29")
        #expect(status == 200, "public, even from outside")
        #expect((json["track"] as? [String: Any])?["title"] as? String == "Night <b>")
        #expect(json["plays"] as? Int == 2 && json["pinned"] == nil, "a stranger sees what the share page shows")
        (status, json) = try call("GET", "/api/v1/sotd/2026-03-29", key: true)
        #expect(json["plays"] as? Int == 2 && json["pinned"] as? Bool == false)
        (status, json) = try call("GET", "/api/v1/sotd/2026-03-28")
        #expect((json["track"] as? [String: Any])?["title"] as? String == "Morning")
        #expect(try call("GET", "/api/v1/sotd/2026-03-30").0 == 404)
        #expect(try call("GET", "/api/v1/sotd/2026-02-30").0 == 400)
        #expect(try call("PUT", "/api/v1/sotd/2026-03-29", #"{"track_id": \#(a)}"#).0 == 401)
        (status, json) = try call("PUT", "/api/v1/sotd/2026-03-29", #"{"track_id": \#(a), "note": "for Sam"}"#, key: true)
        #expect(status == 200)
        #expect(json["pinned"] as? Bool == true && json["note"] as? String == "for Sam")
        #expect((json["track"] as? [String: Any])?["title"] as? String == "Morning")
        #expect(try call("PUT", "/api/v1/sotd/2026-03-29", #"{"track_id": 999}"#, key: true).0 == 404)
        #expect(try call("GET", "/api/v1/sotd", query: ["month": "2026-03"]).0 == 403, "the month list is private")
        (status, json) = try call("GET", "/api/v1/sotd", key: true, query: ["month": "2026-03"])
        #expect((json["days"] as? [[String: Any]])?.map { $0["day"] as? String } == ["2026-03-28", "2026-03-29"])
        #expect(try call("DELETE", "/api/v1/sotd/2026-03-29", key: true).0 == 200)
        #expect((try call("GET", "/api/v1/sotd/2026-03-29").1["track"] as? [String: Any])?["title"] as? String == "Night <b>")
    }
}
