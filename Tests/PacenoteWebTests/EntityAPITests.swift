import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// `GET /api/v1/artists/{id}` and `/api/v1/albums/{id}`, and the ids the charts carry.
@Suite struct EntityAPITests {
    @Test func artistsAndAlbumsByIdWithTheirFigures() throws {
        let dir = try TemporaryDirectory()
        let utc = TimeZone(identifier: "UTC")!
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let a = try store.saveTrack(Track(uri: "a", title: "Alpha", artist: "Band", album: "First", albumArtist: "Band",
                                          trackNumber: 2, durationSeconds: 100, musicBrainz: MusicBrainzIDs(release: "rel-first")))
        let b = try store.saveTrack(Track(uri: "b", title: "Beta", artist: "Band feat. Guest", album: "First", albumArtist: "Band",
                                          trackNumber: 1, durationSeconds: 200, musicBrainz: MusicBrainzIDs(release: "rel-first")))
        let day = 1_767_225_600.0  // 2026-01-01T00:00Z
        func play(_ track: Int64, _ offset: Double, _ seconds: Double, zone: Zone? = nil, counted: Bool = true) throws {
            try store.insertPlay(Play(trackID: track, startedAt: Date(timeIntervalSince1970: day + offset),
                                      endedAt: Date(timeIntervalSince1970: day + offset + seconds), playedSeconds: seconds,
                                      counted: counted, source: "mpd", zone: zone))
        }
        try play(a, 0, 100, zone: .z3); try play(a, 1000, 100, zone: .z3); try play(b, 2000, 200, zone: .z4)
        try play(b, 86_400 * 40, 5, counted: false)
        let api = API(context: APIContext.forTests(version: "t", store: store, timeZone: utc, apiKey: "k", players: { [] }))
        func get(_ path: String, _ query: [String: String] = [:]) -> (status: Int, json: [String: Any]) {
            let r = api.handle(HTTPRequest(method: "GET", path: path, query: query, headers: ["Host": "127.0.0.1"], peerAddress: "127.0.0.1"))
            return (r.status, (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any]) ?? [:])
        }
        let stats = get("/api/v1/stats", ["range": "all"]).json
        let artists = stats["top_artists"] as? [[String: Any]] ?? []
        let guestID = try #require(artists.first { $0["artist"] as? String == "Guest" }?["id"] as? Int)
        let bandID = try #require(artists.first { $0["artist"] as? String == "Band" }?["id"] as? Int)
        let albumID = try #require((stats["top_albums"] as? [[String: Any]])?.first?["id"] as? Int)
        #expect((stats["top_tracks"] as? [[String: Any]])?.allSatisfy { ($0["track"] as? [String: Any])?["album_id"] as? Int == albumID } == true)

        let band = get("/api/v1/artists/\(bandID)")
        #expect(band.status == 200)
        #expect(band.json["name"] as? String == "Band" && band.json["plays"] as? Int == 3 && band.json["skips"] as? Int == 1)
        #expect(band.json["listening_s"] as? Int == 405)
        #expect(band.json["first_played"] as? String == "2026-01-01T00:00:00.000Z")
        #expect((band.json["months"] as? [[String: Any]])?.map { "\($0["month"]!) \($0["plays"]!)" } == ["2026-01 3", "2026-02 0"])
        #expect((band.json["zones"] as? [[String: Any]])?.map { $0["plays"] as? Int } == [0, 0, 0, 2, 1, 0])
        #expect((band.json["albums"] as? [[String: Any]])?.map { $0["id"] as? Int } == [albumID])
        let guest = get("/api/v1/artists/\(guestID)").json
        let guestTracks = guest["top_tracks"] as? [[String: Any]] ?? []
        #expect(guestTracks.map { $0["featured"] as? Bool } == [true] && guest["plays"] as? Int == 1)

        let album = get("/api/v1/albums/\(albumID)")
        #expect(album.status == 200)
        #expect(album.json["title"] as? String == "First" && album.json["artist_id"] as? Int == bandID)
        #expect(album.json["musicbrainz_release_id"] as? String == "rel-first" && album.json["plays"] as? Int == 3)
        // In track order, each with its plays.
        let tracks = album.json["tracks"] as? [[String: Any]] ?? []
        #expect(tracks.map { ($0["track"] as? [String: Any])?["title"] as? String } == ["Beta", "Alpha"])
        #expect(tracks.map { $0["plays"] as? Int } == [1, 2])

        for path in ["/api/v1/artists/999", "/api/v1/albums/999", "/api/v1/artists/abc", "/api/v1/albums/0"] {
            let missing = get(path)
            #expect(missing.status == 404, "\(path)")
            #expect((missing.json["error"] as? [String: Any])?["code"] as? String == "not_found", "\(path)")
        }
    }
}
