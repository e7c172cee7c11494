import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

@Suite struct ListensAPITests {
    /// 7 plays, one per hour from 2026-01-01T20:00Z, alternating counted/skip.
    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let web: WebServer
        var base: String { "http://127.0.0.1:\(web.port)/api/v1/listens" }

        init() throws {
            dir = try TemporaryDirectory()
            let berlin = TimeZone(identifier: "Europe/Berlin")!
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: berlin)
            let track = try store.saveTrack(Track(uri: "a/b.flac", title: "Song <script>", artist: "Ärtist", durationSeconds: 200,
                                                  bpm: BPM(value: 128, source: .tag)))
            for i in 0..<7 {
                let start = Date(timeIntervalSince1970: 1_767_297_600 + Double(i) * 3600)
                try store.insertPlay(Play(trackID: track, startedAt: start, endedAt: start.addingTimeInterval(150),
                                          playedSeconds: i % 2 == 0 ? 150 : 20, counted: i % 2 == 0, source: "mpd", player: "default"))
            }
            let api = API(context: APIContext.forTests(version: "t", store: store, timeZone: berlin, apiKey: "test-key-0123456789", players: { [] }))
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0)), basePath: "", api: api,
                            logger: Logger(label: "test"))
            try web.start()
        }

        deinit {
            web.stop()
            try? store.close()
        }

        func get(_ query: String) throws -> (Int, [String: Any]) {
            let r = try HTTP.get(base + query)
            return (r.status, r.json ?? [:])
        }
    }

    @Test func pagesNewestFirstWithACursor() throws {
        let site = try Site()
        var (status, json) = try site.get("?limit=3")
        #expect(status == 200)
        var listens = json["listens"] as? [[String: Any]] ?? []
        #expect(listens.map { $0["started_at"] as? String } == ["2026-01-02T02:00:00.000Z", "2026-01-02T01:00:00.000Z", "2026-01-02T00:00:00.000Z"])
        var seen = listens.count
        while let cursor = json["next_cursor"] as? String {
            (status, json) = try site.get("?limit=3&cursor=\(cursor)")
            listens = json["listens"] as? [[String: Any]] ?? []
            seen += listens.count
        }
        #expect(seen == 7)
        #expect(listens.last?["started_at"] as? String == "2026-01-01T20:00:00.000Z")
    }

    /// Listens are answered from a kept response (`ResponseCache`) until this process commits
    /// anything: each kind of change is in the next answer, with a new ETag.
    @Test func aKeptAnswerFollowsEveryCommit() throws {
        let site = try Site()
        func fetch(_ query: String = "?limit=3") throws -> (first: [String: Any], etag: String) {
            let r = try HTTP.get(site.base + query)
            #expect(r.status == 200)
            let listens = (r.json?["listens"] as? [[String: Any]]) ?? []
            return (try #require(listens.first), try #require(r.headers["Etag"] ?? r.headers["ETag"]))
        }
        let first = try fetch()
        #expect(try fetch().etag == first.etag, "the same data, the same tag")
        let unchanged = try HTTP.get(site.base + "?limit=3", headers: ["If-None-Match": first.etag])
        #expect(unchanged.status == 304)

        // A play stored through the API (ListenBrainz), newer than the others: first at once.
        let body = #"{"listen_type":"single","payload":[{"listened_at":1767400000,"track_metadata":{"artist_name":"New","track_name":"Arrival"}}]}"#
        let submitted = try HTTP.request("POST", "http://127.0.0.1:\(site.web.port)/1/submit-listens", body: Array(body.utf8),
                                         headers: ["Authorization": "Token test-key-0123456789", "Content-Type": "application/json"])
        #expect(submitted.status == 200)
        let afterSubmit = try fetch()
        #expect((afterSubmit.first["track"] as? [String: Any])?["title"] as? String == "Arrival")
        #expect(afterSubmit.etag != first.etag)
        #expect(try HTTP.get(site.base + "?limit=3", headers: ["If-None-Match": first.etag]).status == 200, "the old tag is stale")
        // The same query in another order shares the answer, and sees the change too.
        #expect(try fetch("?limit=3&from=2026-01-01").etag == fetch("?from=2026-01-01&limit=3").etag)

        // A write to the store that announces nothing on this test's bus: heart-rate tagging of the plays.
        let id = try #require(afterSubmit.first["id"] as? Int)
        let at = Date(timeIntervalSince1970: 1_767_400_000)
        try site.store.insertSamples((0..<60).map { HeartRateSample(at: at.addingTimeInterval(Double($0)), bpm: 150) }, source: "t")
        #expect(try site.store.tagPlays(from: at, to: at.addingTimeInterval(59)) { _, _ in .z4 }.count >= 1)
        let tagged = try fetch()
        #expect(tagged.first["id"] as? Int == id && tagged.first["zone"] as? Int == 4)
        #expect(tagged.etag != afterSubmit.etag)

        // A deleted play is gone from the next answer.
        _ = try APIContext.forTests(version: "t", store: site.store, apiKey: "k", players: { [] }).operations.deletePlay(id: Int64(id))
        let afterDelete = try fetch()
        #expect(afterDelete.first["id"] as? Int != id)
        #expect(afterDelete.etag == first.etag, "back to the first answer's data, so to its tag")
    }

    @Test func aListenHasEveryDocumentedField() throws {
        let site = try Site()
        let (_, json) = try site.get("?limit=1")
        let listen = try #require((json["listens"] as? [[String: Any]])?.first)
        for key in ["id", "started_at", "ended_at", "played_s", "counted", "source", "player", "zone", "hr_avg", "hr_max", "workout_id", "track"] {
            #expect(listen.keys.contains(key), "missing \(key)")
        }
        let track = try #require(listen["track"] as? [String: Any])
        #expect(track["title"] as? String == "Song <script>")
        #expect(track["artist"] as? String == "Ärtist")
        #expect(track["uri"] as? String == "a/b.flac")
        #expect(track["duration_s"] as? Int == 200)
        #expect(track["bpm"] as? Int == 128)
        #expect(listen["zone"] is NSNull)
        let raw = try HTTP.get(site.base + "?limit=1").text
        #expect(!raw.contains("<script>"), "markup characters are escaped in JSON")
    }

    @Test func filtersByLocalDaysAndInstants() throws {
        let site = try Site()
        // In Berlin (UTC+1) 2026-01-01 ends at 23:00Z: the plays at 20, 21 and 22Z.
        var (_, json) = try site.get("?to=2026-01-01")
        #expect((json["listens"] as? [Any])?.count == 3)
        (_, json) = try site.get("?from=2026-01-02")
        #expect((json["listens"] as? [Any])?.count == 4)
        (_, json) = try site.get("?from=2026-01-01T21:30:00Z&to=2026-01-02T00:00:00%2B00:00")
        #expect((json["listens"] as? [Any])?.count == 2)
        (_, json) = try site.get("?from=1767312000")  // Unix seconds: 2026-01-02T00:00Z
        #expect((json["listens"] as? [Any])?.count == 3)
    }

    @Test func searchesTitlesArtistsAndAlbums() throws {
        let site = try Site()
        let other = try site.store.saveTrack(Track(uri: "c.flac", title: "Quiet Night", artist: "Someone", album: "Calm"))
        try site.store.insertPlay(Play(trackID: other, startedAt: Date(timeIntervalSince1970: 1_767_400_000),
                                       endedAt: Date(timeIntervalSince1970: 1_767_400_100), playedSeconds: 100, counted: true, source: "mpd"))
        func count(_ q: String) throws -> Int {
            let (status, json) = try site.get("?q=" + (q.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? q))
            #expect(status == 200, "\(q): \(json)")
            return (json["listens"] as? [Any])?.count ?? -1
        }
        #expect(try count("artist") == 7)           // accents folded: Ärtist
        #expect(try count("son") == 7)              // a prefix of "Song"
        #expect(try count("quiet calm") == 1)       // every word, title and album
        #expect(try count("quiet artist") == 0)
        #expect(try count("\" OR * NEAR(") == 0)    // operators are only text
        #expect(try count("   ") == 8)              // no words: no filter
    }

    @Test(arguments: [
        ("?limit=0", "invalid_limit"), ("?limit=501", "invalid_limit"), ("?limit=ten", "invalid_limit"),
        ("?from=yesterday", "invalid_from"), ("?to=2026-02-30", "invalid_to"), ("?from=2026-13-01", "invalid_from"),
        ("?from=2026-01-02&to=2026-01-01", "invalid_range"), ("?cursor=bm9wZQ", "invalid_cursor"), ("?cursor=%FF", "invalid_cursor"),
    ])
    func badParametersAre400WithTheirName(query: String, code: String) throws {
        let (status, json) = try Site().get(query)
        #expect(status == 400)
        #expect((json["error"] as? [String: Any])?["code"] as? String == code)
    }
}
