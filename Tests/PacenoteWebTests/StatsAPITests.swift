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
        let api = API(context: APIContext(version: "t", startedAt: Date(), store: store, timeZone: utc, apiKey: "k", players: { [] }))
        func get(_ query: [String: String]) throws -> [String: Any] {
            let r = api.handle(HTTPRequest(method: "GET", path: "/api/v1/stats", query: query, peerAddress: "127.0.0.1"))
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
        let bad = api.handle(HTTPRequest(method: "GET", path: "/api/v1/stats", query: ["range": "soon"], peerAddress: "127.0.0.1"))
        #expect(bad.status == 400)
    }
}
