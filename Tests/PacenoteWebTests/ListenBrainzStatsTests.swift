import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// ListenBrainz's user statistics (`/1/stats/user/{name}/artists|recordings|releases`)
/// through the real server: the charts in ListenBrainz's shapes, its ranges with weeks from
/// `[site] week_starts`, paging, its errors and status codes, and the history's privacy.
@Suite struct ListenBrainzStatsTests {
    static let key = "test-key-0123456789"
    static let submitKey = "pn_submit_0123456789"
    static let utc = TimeZone(identifier: "UTC")!

    /// Counted plays now (this week): Alpha ×4, "Beta feat. Gamma" ×3, Delta ×1 (a skip of
    /// it too); in the week before this one (weeks from Sunday): Delta ×2; two years and more
    /// ago: Epsilon ×5.
    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let web: WebServer
        var ids: [String: Int64] = [:]
        var base: String { "http://127.0.0.1:\(web.port)" }
        let now = Date()

        init(trusted: Bool = true, plays: Bool = true) throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: ListenBrainzStatsTests.utc)
            let local = LocalTime(timeZone: ListenBrainzStatsTests.utc, weekStart: .sunday)
            let lastWeek = StatsRange.listenBrainz("week", now: now, in: local)!.instants(in: local)!.from.addingTimeInterval(3 * 86_400)
            let tracks: [(String, Track, [(Date, Bool)])] = [
                ("alpha", Track(uri: "a.flac", title: "Alpha", artist: "Tester", album: "Firsts", albumArtist: "Tester",
                                musicBrainz: MusicBrainzIDs(recording: "e225fb84-dc9a-419e-adcd-9890f59ec432",
                                                            release: "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10",
                                                            artist: "f59c5520-5f46-4d2c-b2c4-822eabf53419")),
                 Array(repeating: (now, true), count: 4)),
                ("beta", Track(uri: "b.flac", title: "Beta", artist: "Beta feat. Gamma", album: "Seconds"),
                 Array(repeating: (now, true), count: 3)),
                ("delta", Track(uri: "d.flac", title: "Delta", artist: "Tester", album: "Firsts", albumArtist: "Tester",
                                musicBrainz: MusicBrainzIDs(release: "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10")),
                 [(now, true), (now, false), (lastWeek, true), (lastWeek, true)]),
                ("epsilon", Track(uri: "e.flac", title: "Epsilon", artist: "Old Friend"),
                 Array(repeating: (now.addingTimeInterval(-800 * 86_400), true), count: 5)),
            ]
            for (name, track, times) in tracks {
                let id = try store.saveTrack(track)
                ids[name] = id
                guard plays else { continue }
                for (i, (start, counted)) in times.enumerated() {
                    // A second apart, each a play of its own.
                    let begin = start.addingTimeInterval(-Double(i + 1))
                    _ = try store.insertPlay(Play(trackID: id, startedAt: begin, endedAt: begin.addingTimeInterval(1),
                                                  playedSeconds: counted ? 200 : 5, counted: counted, source: "mpd"))
                }
            }
            let context = APIContext.forTests(version: "t", store: store, timeZone: ListenBrainzStatsTests.utc,
                                              apiKey: ListenBrainzStatsTests.key,
                                              namedKey: { $0 == ListenBrainzStatsTests.submitKey ? .submit : nil }, configure: { settings in
                settings.weekStart = .sunday
                if !trusted { settings.trustedNetworks = [] }
            })
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0)), basePath: "",
                            api: API(context: context), logger: Logger(label: "test"))
            try web.start()
        }

        deinit {
            web.stop()
            try? store.close()
        }

        func get(_ path: String, token: String? = nil) throws -> HTTPResult {
            try HTTP.get(base + path, headers: token.map { ["Authorization": "Token \($0)"] } ?? [:])
        }

        func payload(_ path: String) throws -> [String: Any] {
            let r = try get(path)
            #expect(r.status == 200, "\(path): \(r.text)")
            return r.json?["payload"] as? [String: Any] ?? [:]
        }

        /// (name, listen_count) of each entry answered.
        func chart(_ entity: String, _ query: String = "") throws -> [String] {
            let key = entity == "artists" ? "artist_name" : entity == "recordings" ? "track_name" : "release_name"
            return ((try payload("/1/stats/user/me/\(entity)" + query))[entity] as? [[String: Any]] ?? []).map {
                "\($0[key] as? String ?? "?") \($0["listen_count"] as? Int ?? -1)"
            }
        }
    }

    @Test func theChartsOfAllTimeInListenBrainzShapes() throws {
        let site = try Site()
        for prefix in ["", "/apis/listenbrainz"] {
            let artists = try site.payload(prefix + "/1/stats/user/alice/artists")
            #expect(artists["user_id"] as? String == "alice")
            #expect(artists["range"] as? String == "all_time")
            #expect(artists["count"] as? Int == 4 && artists["offset"] as? Int == 0)
            #expect(artists["total_artist_count"] as? Int == 4)
            let updated = try #require(artists["last_updated"] as? Int)
            #expect(abs(Double(updated) - Date().timeIntervalSince1970) < 60)
            // all_time runs from the oldest listen to the newest: its start as stored (to the
            // millisecond, rounded), in whole seconds. (Not the test's clock cut to seconds:
            // within half a millisecond of a whole second the two differ by one.)
            let begin = site.now.addingTimeInterval(-800 * 86_400).addingTimeInterval(-5)
            let oldest = Int((Double(Int64((begin.timeIntervalSince1970 * 1000).rounded())) / 1000).rounded(.down))
            #expect(artists["from_ts"] as? Int == oldest, "\(artists)")
            let list = try #require(artists["artists"] as? [[String: Any]])
            #expect(list.compactMap { $0["artist_name"] as? String } == ["Tester", "Old Friend", "Beta", "Gamma"])
            #expect(list.map { $0["listen_count"] as? Int } == [7, 5, 3, 3])
            #expect(list[0]["artist_mbid"] as? String == "f59c5520-5f46-4d2c-b2c4-822eabf53419")
            #expect(list[0]["artist_mbids"] as? [String] == ["f59c5520-5f46-4d2c-b2c4-822eabf53419"])
            #expect(list[2]["artist_mbid"] is NSNull && (list[2]["artist_mbids"] as? [String]) == [])
        }
        #expect(try site.chart("artists") == ["Tester 7", "Old Friend 5", "Beta 3", "Gamma 3"], "a featured artist counts too")

        let recordings = try site.payload("/1/stats/user/me/recordings")
        #expect(recordings["total_recording_count"] as? Int == 4)
        let tracks = try #require(recordings["recordings"] as? [[String: Any]])
        #expect(tracks.map { "\($0["track_name"] as? String ?? "") \($0["listen_count"] as? Int ?? 0)" }
                == ["Epsilon 5", "Alpha 4", "Delta 3", "Beta 3"], "ties by listening time (Delta's skip adds 5 s)")
        let alpha = tracks[1]
        #expect(alpha["artist_name"] as? String == "Tester" && alpha["release_name"] as? String == "Firsts")
        #expect(alpha["recording_mbid"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect(alpha["release_mbid"] as? String == "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10")
        #expect(alpha["artist_mbids"] as? [String] == ["f59c5520-5f46-4d2c-b2c4-822eabf53419"])
        #expect(alpha["recording_msid"] as? String == PacenoteMSID.msid(trackID: site.ids["alpha"]!))
        #expect(alpha["caa_id"] is NSNull && alpha["artists"] is NSNull)
        #expect(tracks[0]["release_name"] is NSNull && tracks[0]["release_mbid"] is NSNull)

        let releases = try site.payload("/1/stats/user/me/releases")
        #expect(releases["total_release_count"] as? Int == 2)
        let albums = try #require(releases["releases"] as? [[String: Any]])
        #expect(albums.map { "\($0["release_name"] as? String ?? "") \($0["listen_count"] as? Int ?? 0)" } == ["Firsts 7", "Seconds 3"])
        #expect(albums[0]["artist_name"] as? String == "Tester")
        #expect(albums[0]["release_mbid"] as? String == "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10")
        #expect(albums[0]["artist_mbids"] as? [String] == ["f59c5520-5f46-4d2c-b2c4-822eabf53419"])
    }

    @Test func rangesAreLocalPeriodsWithWeeksFromTheConfiguredDay() throws {
        let site = try Site()
        #expect(try site.chart("artists", "?range=this_week") == ["Tester 5", "Beta 3", "Gamma 3"])
        #expect(try site.chart("artists", "?range=week") == ["Tester 2"], "the week before, from Sunday")
        #expect(try site.chart("recordings", "?range=this_year").first == "Alpha 4")
        let week = try site.payload("/1/stats/user/me/artists?range=week")
        let local = LocalTime(timeZone: Self.utc, weekStart: .sunday)
        let bounds = try #require(StatsRange.listenBrainz("week", now: Date(), in: local)?.instants(in: local))
        #expect(week["from_ts"] as? Int == Int(bounds.from.timeIntervalSince1970))
        #expect(week["to_ts"] as? Int == Int(bounds.from.timeIntervalSince1970) + 7 * 86_400)
        #expect(Calendar(identifier: .gregorian).dateComponents(in: Self.utc, from: bounds.from).weekday == 1, "a Sunday")
        #expect(week["range"] as? String == "week" && week["total_artist_count"] as? Int == 1)
        // Two years ago is in no range but all time: nothing played last year, no statistics.
        let lastYear = try site.get("/1/stats/user/me/artists?range=year")
        #expect(lastYear.status == 204 && lastYear.body.isEmpty, "\(lastYear.text)")
    }

    @Test func countAndOffsetPageThroughTheChart() throws {
        let site = try Site()
        let all = try site.chart("recordings")
        var paged: [String] = []
        for offset in stride(from: 0, to: 6, by: 2) {
            let page = try site.payload("/1/stats/user/me/recordings?count=2&offset=\(offset)")
            #expect(page["offset"] as? Int == offset && page["total_recording_count"] as? Int == 4)
            #expect(page["count"] as? Int == min(2, max(0, 4 - offset)))
            paged += try site.chart("recordings", "?count=2&offset=\(offset)")
        }
        #expect(paged == all && all.count == 4)
        #expect(try site.chart("artists", "?count=0").isEmpty)
        #expect(try site.payload("/1/stats/user/me/artists?offset=99")["count"] as? Int == 0, "past the end: an empty page")
        let far = try site.payload("/1/stats/user/me/artists?offset=\(Int.max)&count=1000")
        #expect(far["count"] as? Int == 0 && far["offset"] as? Int == Int.max && far["total_artist_count"] as? Int == 4)
        // As far on every range, whichever way it is read (whole periods, ranked prefixes of
        // months and years, days summed): an empty page, never a chart read that deep.
        for range in ["all_time", "this_week", "this_month", "this_year", "week", "month", "quarter", "half_yearly", "year"] {
            for entity in ["artists", "recordings", "releases"] {
                let answer = try site.get("/1/stats/user/me/\(entity)?range=\(range)&offset=\(Int.max / 2 + 1)&count=1000")
                #expect(answer.status == 204 || answer.status == 200, "\(entity) \(range): \(answer.status)")
                if answer.status == 200 {
                    #expect(try site.payload("/1/stats/user/me/\(entity)?range=\(range)&offset=\(Int.max / 2 + 1)&count=1000")["count"] as? Int == 0)
                }
            }
        }
        #expect(try site.chart("recordings", "?offset=3&count=1") == [all[3]], "the last one")
        #expect(try site.payload("/1/stats/user/me/artists?count=5000")["count"] as? Int == 4, "more than 1000 is 1000")
    }

    @Test func badParametersAreListenBrainzErrors() throws {
        let site = try Site()
        for (query, message) in [("?range=fortnight", "Invalid range: fortnight"), ("?range=", "Invalid range: "),
                                 ("?count=-1", "'count' should be a non-negative integer"),
                                 ("?offset=two", "'offset' should be a non-negative integer")] {
            let r = try site.get("/1/stats/user/me/releases" + query)
            #expect(r.status == 400, "\(query)")
            #expect(r.json?["code"] as? Int == 400 && r.json?["error"] as? String == message, "\(query): \(r.text)")
        }
        let nothing = try Site(plays: false)
        let r = try nothing.get("/1/stats/user/me/artists")
        #expect(r.status == 204 && r.body.isEmpty, "no plays: no statistics")
    }

    @Test func privateLikeTheHistory() throws {
        let site = try Site(trusted: false)
        for entity in ListenBrainzStatsEntity.allCases {
            let refused = try site.get("/1/stats/user/me/\(entity.rawValue)")
            #expect(refused.status == 403, "\(entity): \(refused.text)")
            #expect(refused.json?["code"] as? Int == 403 && refused.json?["error"] is String, "ListenBrainz's shape")
            #expect(try site.get("/1/stats/user/me/\(entity.rawValue)", token: Self.submitKey).status == 403,
                    "a submit key reads nothing")
            #expect(try site.get("/1/stats/user/me/\(entity.rawValue)", token: "wrong").status == 403, "a wrong key: as a stranger")
            #expect(try site.get("/1/stats/user/me/\(entity.rawValue)", token: Self.key).status == 200)
        }
    }
}
