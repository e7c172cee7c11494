import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// The curation API over loopback HTTP: plays deleted, edited and added, merges, the log
/// and its undo, and the errors for what it refuses.
@Suite struct CurationAPITests {
    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let web: WebServer
        static let key = "test-key-0123456789"
        var base: String { "http://127.0.0.1:\(web.port)/api/v1" }
        var tracks: [Int64] = []

        init() throws {
            dir = try TemporaryDirectory()
            let berlin = TimeZone(identifier: "Europe/Berlin")!
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: berlin)
            for (i, artist) in ["Florence + the Machine", "Florence and the Machine", "Beyoncé"].enumerated() {
                let id = try store.saveTrack(Track(uri: "m/\(i).flac", title: "Song \(i)", artist: artist, album: "Album \(i)",
                                                   trackNumber: 1, durationSeconds: 200))
                tracks.append(id)
                for day in 0..<3 {
                    let start = Date(timeIntervalSince1970: 1_767_297_600 + Double(day * 86_400 + i * 600))
                    try store.insertPlay(Play(trackID: id, startedAt: start, endedAt: start.addingTimeInterval(200),
                                              playedSeconds: 200, counted: true, source: "mpd", player: "default"))
                }
            }
            // A second track of album 0, for an album added back to back.
            _ = try store.saveTrack(Track(uri: "m/0b.flac", title: "Song 0b", artist: "Florence + the Machine", album: "Album 0",
                                          trackNumber: 2, durationSeconds: 100))
            // Events, as the daemon has: caches follow the changes.
            let context = APIContext.forTests(version: "t", store: store, timeZone: berlin, apiKey: Self.key, events: EventBus())
            let api = API(context: context)
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0)), basePath: "", api: api,
                            logger: Logger(label: "test"))
            try web.start()
        }

        deinit {
            web.stop()
            try? store.close()
        }

        func call(_ method: String, _ path: String, _ body: String? = nil, key: String? = Site.key) throws -> (Int, [String: Any]) {
            var headers = ["Content-Type": "application/json"]
            if let key { headers["Authorization"] = "Token \(key)" }
            let r = try HTTP.request(method, base + path, headers: headers, body: body.map { Data($0.utf8) })
            return (r.status, r.json ?? [:])
        }

        func stats(_ query: String) throws -> [String: Any] { try call("GET", "/stats?\(query)").1 }

        func topArtists() throws -> [(String, Int)] {
            let artists = try stats("range=all&limit=50")["top_artists"] as? [[String: Any]] ?? []
            return artists.map { ($0["artist"] as? String ?? "", $0["plays"] as? Int ?? -1) }
        }
    }

    @Test func deletingAPlayDropsTheDaysAndTheTracksCountsByOneAndUndoBringsItBack() throws {
        let site = try Site()
        let (_, list) = try site.call("GET", "/listens?limit=50")
        let listens = list["listens"] as? [[String: Any]] ?? []
        #expect(listens.count == 9)
        let first = try #require(listens.last)
        let id = try #require(first["id"] as? Int)
        let total = (try site.stats("range=all")["totals"] as? [String: Any])?["plays"] as? Int
        let (status, deleted) = try site.call("DELETE", "/listens/\(id)")
        #expect(status == 200)
        let entry = try #require(deleted["curation"] as? [String: Any])
        #expect(entry["kind"] as? String == "delete")
        #expect((deleted["listen"] as? [String: Any])?["id"] as? Int == id)
        #expect((try site.stats("range=all")["totals"] as? [String: Any])?["plays"] as? Int == total.map { $0 - 1 })
        #expect(try site.call("GET", "/listens/\(id)").0 == 404)
        #expect(try site.call("DELETE", "/listens/\(id)").0 == 404)
        // The log lists it, and its undo puts the play back.
        let log = try site.call("GET", "/curation").1["entries"] as? [[String: Any]] ?? []
        #expect(log.first?["id"] as? Int == entry["id"] as? Int)
        let (undone, body) = try site.call("POST", "/curation/\(entry["id"] as? Int ?? 0)/undo")
        #expect(undone == 200 && body["undone_at"] is String)
        #expect((try site.stats("range=all")["totals"] as? [String: Any])?["plays"] as? Int == total)
        #expect(try site.call("GET", "/listens/\(id)").0 == 200)
        #expect(try site.call("POST", "/curation/\(entry["id"] as? Int ?? 0)/undo").0 == 409)
    }

    @Test func mergingArtistsShowsOneEntryWithTheSummedPlays() throws {
        let site = try Site()
        let before = try site.topArtists()
        #expect(before.contains { $0 == ("Florence + the Machine", 3) } && before.contains { $0 == ("Florence and the Machine", 3) })
        let (status, entry) = try site.call("POST", "/merges", #"{"kind": "artist", "from": ["Florence + the Machine"], "into": "Florence and the Machine"}"#)
        #expect(status == 201, "\(entry)")
        #expect(entry["kind"] as? String == "merge")
        let after = try site.topArtists()
        #expect(after.filter { $0.0.hasPrefix("Florence") }.map(\.1) == [6])
        #expect(after.contains { $0 == ("Florence and the Machine", 6) })
        // Suggestions no longer list them; undo splits them again.
        let suggestions = try site.call("GET", "/merges/suggestions").1["suggestions"] as? [[String: Any]] ?? []
        #expect(!suggestions.contains { ($0["kind"] as? String) == "artist" })
        #expect(try site.call("POST", "/curation/\(entry["id"] as? Int ?? 0)/undo").0 == 200)
        #expect(try site.topArtists().sorted { $0.0 < $1.0 }.map(\.1) == before.sorted { $0.0 < $1.0 }.map(\.1))
        let again = try site.call("GET", "/merges/suggestions").1["suggestions"] as? [[String: Any]] ?? []
        #expect(again.contains { ($0["kind"] as? String) == "artist" && ($0["names"] as? [[String: Any]])?.count == 2 })
    }

    @Test func playsAreEditedAndAddedOneOrAWholeAlbumBackToBack() throws {
        let site = try Site()
        let listens = try site.call("GET", "/listens?limit=50").1["listens"] as? [[String: Any]] ?? []
        let id = try #require(listens.first?["id"] as? Int)
        var (status, body) = try site.call("PATCH", "/listens/\(id)", #"{"counted": false}"#)
        #expect(status == 200 && (body["listen"] as? [String: Any])?["counted"] as? Bool == false)
        (status, body) = try site.call("PATCH", "/listens/\(id)", #"{"track": {"title": "Right <Title>", "artist": "Right Artist"}}"#)
        #expect(status == 200)
        #expect(((body["listen"] as? [String: Any])?["track"] as? [String: Any])?["title"] as? String == "Right <Title>")
        (status, body) = try site.call("PATCH", "/listens/\(id)", #"{"track_id": \#(site.tracks[2])}"#)
        #expect(status == 200 || status == 409)
        // An album from the library, back to back from eight o'clock.
        (status, body) = try site.call("POST", "/listens", #"{"album_id": 1, "started_at": "2026-01-10T20:00:00+01:00"}"#)
        #expect(status == 201, "\(body)")
        let added = body["listens"] as? [[String: Any]] ?? []
        #expect(added.map { $0["started_at"] as? String } == ["2026-01-10T19:00:00.000Z", "2026-01-10T19:03:20.000Z"])
        // The same again is a conflict: nothing new.
        #expect(try site.call("POST", "/listens", #"{"album_id": 1, "started_at": "2026-01-10T20:00:00+01:00"}"#).0 == 409)
        (status, body) = try site.call("POST", "/listens", #"{"track": {"title": "Never Logged", "artist": "Someone"}, "started_at": 1767900000}"#)
        #expect(status == 201 && (body["listens"] as? [[String: Any]])?.count == 1)
    }

    @Test func badRequestsAreRefusedClearlyAndWriteNothing() throws {
        let site = try Site()
        let before = try site.call("GET", "/listens?limit=50").1["listens"] as? [[String: Any]] ?? []
        let cases: [(String, String, String?, Int, String)] = [
            ("POST", "/merges", "not json", 400, "invalid_json"),
            ("POST", "/merges", #"{"kind": "song", "from": [1], "into": 2}"#, 400, "invalid_kind"),
            ("POST", "/merges", #"{"kind": "track", "from": [], "into": 2}"#, 400, "invalid_from"),
            ("POST", "/merges", #"{"kind": "track", "from": [1], "into": 1}"#, 400, "invalid_merge"),
            ("POST", "/merges", #"{"kind": "track", "from": [1], "into": 999}"#, 404, "not_found"),
            ("POST", "/merges", #"{"kind": "album", "from": [true], "into": 1}"#, 400, "invalid_from"),
            ("POST", "/merges", #"{"kind": "album", "from": ["No Such Title"], "into": 1}"#, 404, "not_found"),
            ("POST", "/merges", #"{"kind": "artist", "from": ["Nobody"], "into": 1}"#, 404, "not_found"),
            ("PATCH", "/listens/1", #"{"counted": 1}"#, 400, "invalid_counted"),
            ("PATCH", "/listens/1", #"{}"#, 400, "invalid_edit"),
            ("PATCH", "/listens/1", #"{"track": {"title": ""}}"#, 400, "invalid_track"),
            ("PATCH", "/listens/999", #"{"counted": true}"#, 404, "not_found"),
            ("POST", "/listens", #"{"track_id": 1}"#, 400, "invalid_started_at"),
            ("POST", "/listens", #"{"track_id": 1, "started_at": "yesterday"}"#, 400, "invalid_started_at"),
            ("POST", "/listens", #"{"track_id": 1, "started_at": "2099-01-01T00:00:00Z"}"#, 400, "invalid_started_at"),
            ("POST", "/listens", #"{"track_id": 1, "album_id": 1, "started_at": 1767900000}"#, 400, "invalid_listen"),
            ("POST", "/listens", #"{"uri": "nowhere.flac", "started_at": 1767900000}"#, 404, "not_found"),
            ("POST", "/curation/999/undo", nil, 404, "not_found"),
            ("GET", "/curation?limit=0", nil, 400, "invalid_limit"),
        ]
        for (method, path, body, status, code) in cases {
            let (got, json) = try site.call(method, path, body)
            #expect(got == status, "\(method) \(path) \(body ?? "")")
            #expect((json["error"] as? [String: Any])?["code"] as? String == code, "\(method) \(path) \(body ?? ""): \(json)")
        }
        // Without the key from a stranger's address: refused.
        #expect(try site.call("DELETE", "/listens/1", key: nil).0 == 401)
        #expect(try site.call("GET", "/listens?limit=50").1["listens"] as? [[String: Any]] ?? [] == before)
    }
}

private func == (a: [[String: Any]], b: [[String: Any]]) -> Bool {
    a.map { "\($0["id"] ?? "")\($0["counted"] ?? "")" } == b.map { "\($0["id"] ?? "")\($0["counted"] ?? "")" }
}
