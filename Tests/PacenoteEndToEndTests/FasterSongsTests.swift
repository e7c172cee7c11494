import Foundation
import PacenoteTestSupport
import Testing

/// The songs that made you faster (issue 54, point 5) through the real `pacenote`: three runs
/// imported as TCX over the API, each 20 minutes at 3 m/s but 3.3 m/s (10 % faster, cadence
/// 172 → 178) while "Push" plays; "Steady" plays at the runner's own pace. Plays come from
/// a ListenBrainz client after two of the runs were imported (measured again when they
/// arrive) and before the third (measured as it is imported). The effect is then in the
/// API, the workout page's pace column, the workouts list, the track page and the review.
@Suite struct FasterSongsTests {
    /// 2025-11-22T07:00:00Z, and the next two mornings.
    static let starts = [1_763_794_800, 1_763_794_800 + 86_400, 1_763_794_800 + 2 * 86_400]
    static let push = 600..<840, steady = 240..<480

    static func iso(_ t: Int) -> String { ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(t))) }

    /// Twenty minutes, a trackpoint a second, faster while "Push" plays.
    static func tcx(start: Int) -> String {
        var distance = 0.0
        let points = (0..<1200).map { t -> String in
            let fast = push.contains(t)
            defer { distance += fast ? 3.3 : 3.0 }
            return """
                <Trackpoint><Time>\(iso(start + t))</Time><DistanceMeters>\(distance)</DistanceMeters>
                  <HeartRateBpm><Value>\(130 + t / 60)</Value></HeartRateBpm>
                  <Extensions><ns3:TPX><ns3:Speed>\(fast ? 3.3 : 3.0)</ns3:Speed><ns3:RunCadence>\(fast ? 89 : 86)</ns3:RunCadence></ns3:TPX></Extensions>
                </Trackpoint>
                """
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
              <Activities><Activity Sport="Running"><Id>\(iso(start))</Id>
                <Lap StartTime="\(iso(start))"><TotalTimeSeconds>1199</TotalTimeSeconds><Track>
            \(points.joined(separator: "\n"))
                </Track></Lap>
              </Activity></Activities>
            </TrainingCenterDatabase>
            """
    }

    static func importRun(_ daemon: PacenoteDaemon, start: Int) throws -> Int {
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=run.tcx", headers: [
            "Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/vnd.garmin.tcx+xml",
        ], body: Data(tcx(start: start).utf8))
        guard r.status == 200, let id = r.json?["workout_id"] as? Int else { throw HarnessError("import: \(r.status) \(r.text)") }
        return id
    }

    /// The run's two songs as a phone's ListenBrainz client sends them.
    static func submitPlays(_ daemon: PacenoteDaemon, start: Int) throws {
        let listens = [("Push", push), ("Steady", steady)].map { title, range in
            """
            {"listened_at": \(start + range.lowerBound), "track_metadata": {"artist_name": "Runner", "track_name": "\(title)",
              "additional_info": {"duration_ms": \((range.upperBound - range.lowerBound) * 1000)}}}
            """
        }
        let r = try HTTP.request("POST", daemon.base + "/1/submit-listens", headers: [
            "Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json",
        ], body: Data("{\"listen_type\": \"import\", \"payload\": [\(listens.joined(separator: ","))]}".utf8))
        guard r.status == 200 else { throw HarnessError("submit: \(r.status) \(r.text)") }
    }

    static func number(_ any: Any?) -> Double { (any as? NSNumber)?.doubleValue ?? .nan }

    @Test func aSongThatMadeTheRunnerFasterShowsWithItsEffectEverywhere() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let auth = ["Authorization": "Token \(daemon.apiKey)"]
        // Two runs imported first, their songs sent afterwards; the third the other way round.
        let first = try Self.importRun(daemon, start: Self.starts[0])
        _ = try Self.importRun(daemon, start: Self.starts[1])
        try Self.submitPlays(daemon, start: Self.starts[0])
        try Self.submitPlays(daemon, start: Self.starts[1])
        try Self.submitPlays(daemon, start: Self.starts[2])
        _ = try Self.importRun(daemon, start: Self.starts[2])

        // Measured in the background once the plays are in: six plays over three runs.
        var songs: [[String: Any]] = []
        let measured = try eventually(timeout: 20) {
            songs = try HTTP.get(daemon.base + "/api/v1/faster-songs", headers: auth).json?["songs"] as? [[String: Any]] ?? []
            return songs.count == 2
        }
        let stored = try daemon.sql("SELECT * FROM pace_effects")
        #expect(measured, "\(songs) / \(stored)")
        let titles = songs.map { ($0["track"] as? [String: Any])?["title"] as? String }
        #expect(titles == ["Push", "Steady"], "fastest first: \(songs)")
        let pushed = try #require(songs.first)
        #expect(abs(Self.number(pushed["speed_change"]) - 0.1) < 0.005, "3.3 m/s against 3.0: \(pushed)")
        #expect(abs(Self.number(pushed["cadence_change"]) - 6) < 0.2, "172 → 178 steps/min: \(pushed)")
        #expect(pushed["plays"] as? Int == 3 && pushed["runs"] as? Int == 3 && pushed["shown"] as? Bool == true, "\(pushed)")
        #expect(abs(Self.number(songs[1]["speed_change"])) < 0.005, "at the runner's own pace: \(songs[1])")
        // The method is part of the answer, so a client can say what the numbers mean.
        let method = try #require(try HTTP.get(daemon.base + "/api/v1/faster-songs", headers: auth).json)
        #expect(Self.number(method["before_s"]) == 180 && method["min_plays"] as? Int == 3 && method["min_runs"] as? Int == 2)

        // One song's effect, and a range with a single run: too few plays to show.
        let pushID = try #require((pushed["track"] as? [String: Any])?["id"] as? Int)
        let one = try #require(try HTTP.get(daemon.base + "/api/v1/faster-songs?track_id=\(pushID)", headers: auth).json?["songs"] as? [[String: Any]])
        #expect(one.count == 1 && one.first?["plays"] as? Int == 3)
        let day = try #require(try HTTP.get(daemon.base + "/api/v1/faster-songs?from=2025-11-22&to=2025-11-22", headers: auth).json?["songs"] as? [[String: Any]])
        #expect(day.isEmpty, "one run's plays are not enough: \(day)")
        // Bad input: a clear 4xx.
        for query in ["track_id=abc", "track_id=999999", "from=2025-11-22", "limit=0", "from=2025-11-23&to=2025-11-22"] {
            let r = try HTTP.get(daemon.base + "/api/v1/faster-songs?\(query)", headers: auth)
            #expect((400...404).contains(r.status) && (r.json?["error"] as? [String: Any])?["code"] is String, "\(query): \(r.status) \(r.text)")
        }

        // The workout: each play with its effect, in the API and the page's pace column.
        let workout = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(first)", headers: auth).json)
        let plays = try #require(workout["plays"] as? [[String: Any]])
        let effects = Dictionary(uniqueKeysWithValues: plays.compactMap { p -> (String, [String: Any])? in
            guard let title = (p["track"] as? [String: Any])?["title"] as? String,
                  let effect = p["pace_effect"] as? [String: Any] else { return nil }
            return (title, effect)
        })
        #expect(abs(Self.number(effects["Push"]?["speed_change"]) - 0.1) < 0.005, "\(plays)")
        #expect(abs(Self.number(effects["Push"]?["speed_before_mps"]) - 3) < 0.01 && abs(Self.number(effects["Push"]?["speed_during_mps"]) - 3.3) < 0.01)
        let page = try HTTP.get(daemon.base + "/workouts/\(first)", headers: auth).text
        #expect(page.contains(">Pace</th>") && page.contains("data-pace-effect=\"0.1000\""), "the Push row: +10 %")
        #expect(page.contains(">+10 %<"), "shown as +10 %")

        // The workouts list, the track page and the review.
        let list = try HTTP.get(daemon.base + "/workouts", headers: auth).text
        #expect(list.contains("Songs that made you faster") && list.contains("10 % faster · +6 steps/min · 3 plays, 3 runs"), "\(list)")
        let trackPage = try HTTP.get(daemon.base + "/tracks/\(pushID)", headers: auth).text
        #expect(trackPage.contains("On runs: ") && trackPage.contains("10 % faster than in the 3 minutes before it (+6 steps/min), over 3 plays on 3 runs"))
        let review = try #require(try HTTP.get(daemon.base + "/api/v1/review?range=2025-11", headers: auth).json)
        let faster = try #require((review["heart_rate"] as? [String: Any])?["faster_songs"] as? [[String: Any]])
        #expect(faster.compactMap { ($0["track"] as? [String: Any])?["title"] as? String } == ["Push", "Steady"], "\(faster)")
        #expect(try HTTP.get(daemon.base + "/review?range=2025-11", headers: auth).text.contains("Songs that made you faster"))

        // A play deleted: its effect goes with it (two plays left: no longer shown).
        let pushPlay = try daemon.sql("SELECT id FROM plays WHERE track_id = \(pushID) ORDER BY started_at_ms LIMIT 1").trimmingCharacters(in: .whitespacesAndNewlines)
        let deleted = try HTTP.request("DELETE", daemon.base + "/api/v1/listens/\(pushPlay)", headers: auth)
        #expect((200...204).contains(deleted.status), "\(deleted.status) \(deleted.text)")
        #expect(try eventually(timeout: 10) {
            let now = try HTTP.get(daemon.base + "/api/v1/faster-songs", headers: auth).json?["songs"] as? [[String: Any]] ?? []
            return now.compactMap { ($0["track"] as? [String: Any])?["title"] as? String } == ["Steady"]
        })
    }
}
