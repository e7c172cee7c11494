import Foundation
import PacenoteTestSupport
import Testing

/// The ListenBrainz-compatible API, driven by ListenBrainz's own client library.
@Suite struct ListenBrainzTests {
    static var clientScript: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/listenbrainz_client.py").path
    }

    /// python3 with liblistenbrainz (scripts/test installs it); missing is a failure, not a skip.
    static func python() throws -> String {
        let python = try Tools.require("python3")
        let check = try run(python, ["-c", "import liblistenbrainz"], allowFailure: true)
        guard check.status == 0 else {
            throw HarnessError("liblistenbrainz is not installed: python3 -m pip install liblistenbrainz (scripts/test does)")
        }
        return python
    }

    @Test func liblistenbrainzSubmitsSinglePlayingNowAndImport() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let listenedAt = Int(Date().timeIntervalSince1970) - 7200
        let r = try run(try Self.python(), [Self.clientScript, daemon.base + "/", daemon.apiKey, String(listenedAt)], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        #expect(result["token_valid"] as? Bool == true)
        for key in ["single", "single_again", "playing_now", "import"] {
            #expect((result[key] as? [String: Any])?["status"] as? String == "ok", "\(key): \(result)")
        }
        #expect(result["bad_token"] as? String == "invalid")
        #expect((result["bad_submit"] as? [Any])?.first as? Int == 401, "\(result)")
        #expect((result["bad_submit"] as? [Any])?.last as? String == "Invalid authorization token.")

        let listens = try daemon.listens()
        #expect(listens.count == 6, "\(listens)")   // single (once) + 5 imported; playing_now is not a play
        let single = try #require(listens.first)
        #expect(single.title == "Vantablack" && single.artist == "Dool")
        #expect(single.json["source"] as? String == "listenbrainz")
        #expect(single.player == "liblistenbrainz test")
        #expect(single.counted)
        #expect(single.startedAt == Date(timeIntervalSince1970: Double(listenedAt)))
        #expect(single.playedSeconds == 215.5)
        #expect((single.track["musicbrainz_recording_id"] as? String) == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect(listens.dropFirst().map(\.title) == (0..<5).map { "Song \($0)" })
    }

    /// liblistenbrainz reads the history back (get_listens with its bounds, the listen
    /// count, what plays now on a real MPD) and deletes a listen with delete_listen; Pacenote's
    /// own API no longer has it.
    @Test func liblistenbrainzReadsTheHistoryAndDeletesAListen() throws {
        let mpd = try MPDInstance(tracks: [TestTrack("live.flac", seconds: 40, title: "Live Song", artist: "Now Artist")])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually { try daemon.mpdConnected() })
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        #expect(try eventually { (try daemon.status()["now_playing"] as? [String: Any]) != nil })

        let t0 = Int(Date().timeIntervalSince1970) - 7200
        let script = URL(fileURLWithPath: Self.clientScript).deletingLastPathComponent().appendingPathComponent("listenbrainz_history.py").path
        let r = try run(try Self.python(), [script, daemon.base + "/", daemon.apiKey, String(t0)], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        func times(_ key: String) -> [Int] { (result[key] as? [[String: Any]] ?? []).compactMap { $0["listened_at"] as? Int } }

        #expect(result["count_before"] as? Int == 3, "\(result)")
        #expect(times("newest") == [t0 + 1200, t0 + 600, t0])
        #expect(times("window") == [t0 + 1200, t0 + 600, t0])
        #expect(times("before_max") == [t0], "max_ts is exclusive")
        #expect(times("after_min") == [t0 + 600], "min_ts is exclusive; the listen just after it")
        let middle = try #require((result["window"] as? [[String: Any]])?.dropFirst().first)
        #expect(middle["track_name"] as? String == "History 1" && middle["artist_name"] as? String == "Curator")
        #expect(middle["release_name"] as? String == "Corrections")
        #expect(middle["recording_mbid"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect((middle["recording_msid"] as? String)?.hasPrefix("00000000-0000-5000-8000-") == true, "\(middle)")

        #expect((result["delete"] as? [String: Any])?["status"] as? String == "ok", "\(result)")
        #expect(result["count_after"] as? Int == 2)
        #expect(times("window_after") == [t0 + 1200, t0])
        #expect((result["delete_again"] as? [Any])?.first as? Int == 404, "\(result)")

        let playing = try #require(result["playing_now"] as? [String: Any], "\(result)")
        #expect(playing["track_name"] as? String == "Live Song" && playing["artist_name"] as? String == "Now Artist")
        #expect(playing["listened_at"] is NSNull)

        // Pacenote's own API agrees: the listen is gone, the others stay (oldest first).
        let listens = try daemon.listens().filter { $0.json["source"] as? String == "listenbrainz" }
        #expect(listens.map(\.title) == ["History 0", "History 2"], "\(listens)")
        // The delete is a correction like any other: in the log, from ListenBrainz, undoable.
        #expect(try daemon.sql("SELECT kind, source, undone_at_ms IS NULL FROM curation_log") == "delete|listenbrainz|1\n")
    }

    /// liblistenbrainz's get_user_artists, get_user_recordings and get_user_releases read
    /// Pacenote's charts: a history of known counts submitted with the same library, the
    /// charts of all time, this week and the week before (weeks from the configured day, in
    /// UTC) equal to what the script works out from the listens, paged with count and
    /// offset; no statistics before any listen; an unknown range and a request without the
    /// token refused as ListenBrainz refuses them.
    @Test func liblistenbrainzReadsTheChartsAsListenBrainzStatistics() throws {
        let weekStart = Self.weekStartAwayFromToday()
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", config: "[site]\nweek_starts = \"\(weekStart.name)\"\n",
                                        arguments: ["--timezone", "UTC", "--trusted-networks", "none"])
        let script = URL(fileURLWithPath: Self.clientScript).deletingLastPathComponent().appendingPathComponent("listenbrainz_stats.py").path
        let r = try run(try Self.python(), [script, daemon.base + "/", daemon.apiKey, weekStart.name], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        #expect(result["before_any_listen"] is NSNull, "204 before any listen: liblistenbrainz answers None")
        #expect((result["import"] as? [String: Any])?["status"] as? String == "ok")
        #expect(result["week_starts_on"] as? String == weekStart.name.capitalized)

        // Each chart is what the listens make: the same entries and counts, most played first.
        let charts = try #require(result["charts"] as? [String: [String: [[Any]]]])
        let expected = try #require(result["expected"] as? [String: [String: [[Any]]]])
        func pairs(_ list: [[Any]]) -> [String] { list.map { "\($0[0]) \($0[1])" } }
        for range in ["all_time", "this_week", "week"] {
            for entity in ["artists", "recordings", "releases"] {
                let got = try #require(charts[range]?[entity]), want = try #require(expected[range]?[entity])
                #expect(pairs(got).sorted() == pairs(want).sorted(), "\(range) \(entity)")
                let counts = got.compactMap { $0[1] as? Int }
                #expect(counts == counts.sorted(by: >), "\(range) \(entity): most played first")
                let totals = result["totals"] as? [String: [String: Int]]
                #expect(totals?[range]?[entity] == want.count, "\(range) \(entity): the whole chart's length")
            }
        }
        #expect(pairs(charts["all_time"]?["artists"] ?? []).prefix(2) == ["Many 6", "Dool 4"])
        #expect(pairs(charts["week"]?["artists"] ?? []) == ["Then Band 2"], "the week before this one, from \(weekStart.name)")
        let thisWeek = Set(pairs(charts["this_week"]?["artists"] ?? []))
        #expect(thisWeek.isSuperset(of: ["Alpha 3", "Beta 3"]), "a featured artist counts")

        let payloads = try #require(result["payloads"] as? [String: [String: Any]])
        let dool = try #require(payloads["this_week recordings"]?["first"] as? [String: Any])
        #expect(dool["track_name"] as? String == "Vantablack" && dool["artist_name"] as? String == "Dool")
        #expect(dool["release_name"] as? String == "Summerland")
        #expect(dool["recording_mbid"] as? String == "e225fb84-dc9a-419e-adcd-9890f59ec432")
        #expect(dool["release_mbid"] as? String == "0b3a5e0c-7d2f-4c1e-9c55-6f0d6bbd2f10")
        #expect(dool["artist_mbids"] as? [String] == ["f59c5520-5f46-4d2c-b2c4-822eabf53419"])
        let week = try #require(payloads["week artists"])
        #expect(week["range"] as? String == "week" && week["user_id"] as? String == "pacenote")
        let fromTS = try #require(week["from_ts"] as? Int)
        #expect(week["to_ts"] as? Int == fromTS + 7 * 86_400)
        #expect(Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!,
                                                                from: Date(timeIntervalSince1970: Double(fromTS))).weekday == weekStart.calendarWeekday)
        #expect(fromTS % 86_400 == 0, "midnight UTC")

        // Three at a time: the pages make the whole chart, in the same order.
        let pages = try #require(result["pages"] as? [[String: Any]])
        #expect(pages.compactMap { $0["count"] as? Int } == [3, 3, 3, 2])
        #expect(pages.compactMap { $0["offset"] as? Int } == [0, 3, 6, 9])
        let paged = pages.flatMap { $0["names"] as? [String] ?? [] }
        #expect(paged == (charts["all_time"]?["recordings"] ?? []).compactMap { $0[0] as? String })
        if result["nothing_last_year"] as? String == nil { #expect(result["nothing_last_year"] is NSNull, "no listens last year: 204") }

        let bad = try #require(result["bad_range"] as? [Any])
        #expect(bad.first as? Int == 400)
        #expect((bad.last as? [String: Any])?["error"] as? String == "Invalid range: fortnight")
        #expect((result["without_token"] as? [Any])?.first as? Int == 403, "\(result["without_token"] ?? "")")
    }

    @Test func errorsAreListenBrainzShapedOnBothPaths() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        for prefix in ["/apis/listenbrainz", ""] {
            let url = daemon.base + prefix + "/1/submit-listens"
            var r = try HTTP.request("POST", url, headers: ["Authorization": "Token \(daemon.apiKey)"], body: Data("{oops".utf8))
            #expect(r.status == 400)
            #expect(r.json?["code"] as? Int == 400)
            #expect((r.json?["error"] as? String)?.contains("Cannot parse JSON") == true, "\(r.text)")
            r = try HTTP.request("POST", url, body: Data("{}".utf8))
            #expect(r.status == 401)
            #expect(r.json?["error"] as? String == "You need to provide an Authorization header.")
            let valid = try HTTP.get(daemon.base + prefix + "/1/validate-token?token=\(daemon.apiKey)")
            #expect(valid.json?["valid"] as? Bool == true)
            let invalid = try HTTP.get(daemon.base + prefix + "/1/validate-token", headers: ["Authorization": "Token nope"])
            #expect(invalid.status == 200)
            #expect(invalid.json?["valid"] as? Bool == false)
        }
        // A ListenBrainz import batch may be larger than the 1 MiB default limit.
        let listen = #"{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "\#(String(repeating: "x", count: 1500))"}}"#
        let body = #"{"listen_type": "import", "payload": ["# + Array(repeating: listen, count: 1000).joined(separator: ",") + "]}"
        #expect(body.utf8.count > 1 << 20)
        let r = try HTTP.request("POST", daemon.base + "/1/submit-listens", headers: ["Authorization": "Token \(daemon.apiKey)"],
                                 body: Data(body.utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(try daemon.listens().count == 1)  // the same listen 1000 times: stored once
    }
}

extension ListenBrainzTests {
    /// A `[site] week_starts` day (Sunday when it fits) whose week, in UTC, began yesterday or
    /// earlier and does not end tonight: "this week" holds a day of listens before now and the
    /// test cannot straddle a week's boundary, whatever day and hour it runs (it used to wait
    /// up to 200 s just after Sunday 00:00 UTC).
    static func weekStartAwayFromToday(now: Date = Date()) -> (name: String, calendarWeekday: Int) {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        let today = utc.component(.weekday, from: now)  // 1 = Sunday … 7 = Saturday
        let tomorrow = today % 7 + 1
        let choices = [("sunday", 1), ("monday", 2), ("saturday", 7)]
        return choices.first { $0.1 != today && $0.1 != tomorrow }.map { (name: $0.0, calendarWeekday: $0.1) }!
    }

    /// On every day of a week, at its first and last second, the chosen week began at least a
    /// day before and ends at least a day after.
    @Test func theChosenWeekStartIsADayAwayOnEveryDay() {
        let sunday = Date(timeIntervalSince1970: 1_796_515_200)  // 2026-12-06 00:00 UTC, a Sunday
        for day in 0..<7 {
            for second in [0, 86_399] {
                let now = sunday.addingTimeInterval(Double(day * 86_400 + second))
                let chosen = Self.weekStartAwayFromToday(now: now)
                let sinceStart = ((day + 1 - chosen.calendarWeekday) % 7 + 7) % 7  // whole days since its first day
                #expect((1...5).contains(sinceStart), "day \(day) (\(second) s): \(chosen.name) began \(sinceStart) days ago")
            }
        }
    }
}
