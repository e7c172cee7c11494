import Foundation
import PacenoteTestSupport
import Testing

/// A planned workout with a real MPD (issue 55): the pre-run playlist built from a library
/// of generated songs (20–40 s, tagged BPMs) fits each segment's tempo and the plan's length,
/// a swap keeps the songs before it and refits the rest, the playlist is saved as MPD's stored
/// playlist and queued; the plan is started with `pacenote workout start`, moved with next,
/// pause and resume, follows time when no heart rate comes, and stops.
@Suite struct PlanWorkoutTests {
    /// Default tempo windows (`TempoTable.defaults`): Z1 115–125, Z2 120–130, Z5 135–145.
    static let windows: [String: ClosedRange<Double>] = ["Z1": 115...125, "Z2": 120...130, "Z5": 135...145]

    static let tracks: [TestTrack] = {
        let songs: [(Int, Int?)] = [(30, 125), (25, 122), (35, 128), (40, 124), (20, 126), (30, 121), (30, 129),
                                    (30, 140), (25, 138), (35, 142), (30, 144), (30, 118), (25, 116), (30, nil)]
        return songs.enumerated().map { i, song in
            TestTrack("s\(i).flac", seconds: Double(song.0), title: "Song \(i)", artist: "Artist \(i)", bpm: song.1,
                      frequency: 300 + 20 * i)
        }
    }()

    func entries(_ r: HTTPResult) -> [[String: Any]] { r.json?["entries"] as? [[String: Any]] ?? [] }

    /// Every song fits its segment's tempo when it says so, and the songs fill the plan to
    /// within one song.
    func checkFits(_ list: [[String: Any]], planSeconds: Int, timeline: [[String: Any]]) {
        var start = 0
        for e in list {
            #expect(e["start_s"] as? Int == start, "\(e)")
            start += e["seconds"] as? Int ?? 0
            guard e["reason"] as? String == "tempo_fits", let target = e["target_text"] as? String,
                  let bpm = (e["effective_bpm"] as? NSNumber)?.doubleValue else { continue }
            #expect(Self.windows[target]?.contains(bpm) == true, "\(e) does not fit \(target)")
        }
        let last = list.last?["seconds"] as? Int ?? 0
        #expect(start >= planSeconds && start - last < planSeconds, "\(start) s of songs for a \(planSeconds) s plan")
    }

    @Test func thePreRunPlaylistFitsThePlanAndAStartedPlanFollowsTime() throws {
        let mpd = try MPDInstance(tracks: Self.tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: "[plays]\nmin_track_s = 1\n")
        let key = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"]
        #expect(try eventually(timeout: 20) {
            try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1 AND duration_s > 0") == "14\n"
        }, "\((try? daemon.sql("SELECT uri, bpm, duration_s, in_library FROM tracks")) ?? "")")

        var r = try daemon.post("/api/v1/plans", body: #"{"name": "Intervals", "text": "1 min Z2, 2 x [1 min Z5, 1 min Z2], 1 min Z1"}"#)
        #expect(r.status == 201, "\(r.text)")
        let plan = try #require(r.json?["id"] as? Int)
        let timeline = r.json?["timeline"] as? [[String: Any]] ?? []

        // Built before the run.
        r = try daemon.post("/api/v1/plans/\(plan)/playlist", body: "")
        #expect(r.status == 200 && r.json?["plan_seconds"] as? Int == 360 && r.json?["library"] as? Int == 14, "\(r.text)")
        let built = entries(r)
        checkFits(built, planSeconds: 360, timeline: timeline)
        // The song that carries into the first Z5 minute is chosen for it: the switch comes
        // with the song that will mostly play there, before the segment starts.
        let intoZ5 = try #require(built.first { ($0["start_s"] as? Int ?? 0) < 60 && ($0["start_s"] as? Int ?? 0) + ($0["seconds"] as? Int ?? 0) > 60 })
        let mostlyAfter = (intoZ5["start_s"] as? Int ?? 0) + (intoZ5["seconds"] as? Int ?? 0) - 60 > 60 - (intoZ5["start_s"] as? Int ?? 0)
        #expect((intoZ5["target_text"] as? String) == (mostlyAfter ? "Z5" : "Z2"), "\(intoZ5)")
        #expect(built.filter { $0["reason"] as? String == "tempo_fits" }.count >= built.count - 2, "\(built)")

        // A swap: the songs before it stay, the chosen one comes next, the rest is refitted.
        let ids = built.compactMap { $0["track_id"] as? Int }
        let spare = try #require(try daemon.sql("SELECT id FROM tracks WHERE bpm = 126").split(separator: "\n").first.flatMap { Int($0) })
        let swapAt = ids.firstIndex(of: spare) == nil ? 2 : 3
        let unused = ids.contains(spare) ? try #require(Set(1...14).subtracting(ids).first) : spare
        r = try HTTP.request("POST", daemon.base + "/api/v1/plans/\(plan)/playlist", headers: key,
                             body: Data(#"{"tracks": \#(ids), "swap": {"index": \#(swapAt), "track_id": \#(unused)}}"#.utf8))
        #expect(r.status == 200, "\(r.text)")
        let swapped = entries(r)
        #expect(swapped.prefix(swapAt).compactMap { $0["track_id"] as? Int } == Array(ids.prefix(swapAt)))
        #expect(swapped[swapAt]["track_id"] as? Int == unused && swapped[swapAt]["reason"] as? String == "chosen", "\(swapped)")
        #expect(!swapped.dropFirst(swapAt + 1).contains { $0["track_id"] as? Int == ids[swapAt] }, "the song swapped out came back")
        var start = 0
        for e in swapped { start += e["seconds"] as? Int ?? 0 }
        #expect(start >= 360 && start - (swapped.last?["seconds"] as? Int ?? 0) < 360)
        // Taken out (a null track): the same, without a chosen song.
        r = try HTTP.request("POST", daemon.base + "/api/v1/plans/\(plan)/playlist", headers: key,
                             body: Data(#"{"tracks": \#(ids), "swap": {"index": 0, "track_id": null}}"#.utf8))
        #expect(r.status == 200 && entries(r).first?["track_id"] as? Int != ids[0], "\(r.text)")
        // A swap that cannot be made: 400 with the reason.
        r = try HTTP.request("POST", daemon.base + "/api/v1/plans/\(plan)/playlist", headers: key,
                             body: Data(#"{"tracks": \#(ids), "swap": {"index": 99, "track_id": null}}"#.utf8))
        #expect(r.status == 400 && r.text.contains("there is no song 100"), "\(r.text)")

        // Saved as MPD's stored playlist, in order; then queued.
        let final = swapped.compactMap { $0["track_id"] as? Int }
        r = try HTTP.request("POST", daemon.base + "/api/v1/plans/\(plan)/playlist/save", headers: key,
                             body: Data(#"{"tracks": \#(final)}"#.utf8))
        #expect(r.status == 200 && r.json?["playlist"] as? String == "Pacenote: Intervals" && r.json?["saved"] as? Int == final.count, "\(r.text)")
        let uris = swapped.compactMap { $0["uri"] as? String }
        let stored = try mpd.command("listplaylist \"Pacenote: Intervals\"").split(separator: "\n")
            .filter { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6)) }
        #expect(stored == uris, "\(stored) vs \(uris)")
        r = try HTTP.request("POST", daemon.base + "/api/v1/plans/\(plan)/playlist/save", headers: key,
                             body: Data(#"{"tracks": \#(final), "queue": true}"#.utf8))
        #expect(r.status == 200 && r.json?["queued"] as? Bool == true, "\(r.text)")
        #expect(try mpd.mpc("playlist", "-f", "%file%").split(separator: "\n").map(String.init) == uris)

        // The same on the site (no JavaScript): the page lists the songs and their segments; a
        // swap keeps the songs before it; saved, MPD's playlist follows.
        func rows(_ page: HTTPResult) -> [Int] {
            page.text.components(separatedBy: "data-track=\"").dropFirst().compactMap { Int($0.prefix { $0.isNumber }) }
        }
        let form = ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/x-www-form-urlencoded"]
        var page = try HTTP.request("GET", daemon.base + "/plans/\(plan)/playlist", headers: form)
        let shown = rows(page)
        #expect(page.status == 200 && page.text.contains("Playlist for Intervals") && shown.count == built.count, "\(page.status) \(shown)")
        #expect(page.text.contains("<td>2: Z5</td>") && page.text.contains("Save as MPD playlist"))
        page = try HTTP.request("POST", daemon.base + "/plans/\(plan)/playlist", headers: form,
                                body: Data("tracks=\(shown.map(String.init).joined(separator: "%2C"))&index=1&action=swap".utf8))
        let afterSwap = rows(page)
        #expect(page.status == 200 && page.text.contains("Song 2 swapped"), "\(page.status) \(page.text.prefix(300))")
        #expect(afterSwap.first == shown.first && afterSwap.count > 1 && afterSwap[1] != shown[1], "\(shown) → \(afterSwap)")
        page = try HTTP.request("POST", daemon.base + "/plans/\(plan)/playlist", headers: form,
                                body: Data("tracks=\(afterSwap.map(String.init).joined(separator: "%2C"))&action=save".utf8))
        #expect(page.status == 200 && page.text.contains("Saved as MPD's playlist"), "\(page.status)")
        let storedAgain = try mpd.command("listplaylist \"Pacenote: Intervals\"").split(separator: "\n").filter { $0.hasPrefix("file: ") }
        #expect(storedAgain.count == afterSwap.count, "\(storedAgain)")

        // Started from the command line, as a runner would.
        func pacenote(_ args: String...) throws -> (status: Int32, stdout: String, stderr: String) {
            try PacenoteProcess.run(args + ["--db", daemon.db, "--url", daemon.base + "/"], environment: ["HOME": daemon.dir.path])
        }
        var out = try pacenote("workout", "start", "intervals")
        #expect(out.status == 0 && out.stdout.contains("Intervals: segment 1, 1:00 Z2 (1:00 left) · next: 1:00 Z5"), "\(out)")
        let workouts = try #require(try HTTP.get(daemon.base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]])
        let workout = try #require(workouts.first?["id"] as? Int)
        out = try pacenote("workout", "next")
        #expect(out.status == 0 && out.stdout.contains("segment 2, 1:00 Z5"), "\(out)")
        out = try pacenote("workout", "pause")
        #expect(out.status == 0 && out.stdout.contains(", paused"), "\(out)")
        out = try pacenote("workout", "pause")
        #expect(out.status != 0 && out.stderr.contains("paused already"), "\(out)")
        out = try pacenote("workout", "resume")
        #expect(out.status == 0 && !out.stdout.contains("paused"), "\(out)")
        var progress = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(workout)/plan").json)
        #expect(progress["plan_id"] as? Int == plan && (progress["segments"] as? [[String: Any]])?.first?["ended_by"] as? String == "button", "\(progress)")

        // No heart rate comes at all: a short plan still moves on by time alone.
        r = try daemon.post("/api/v1/plans", body: #"{"name": "Short", "text": "2 s Z2, 2 s Z5, open Z1"}"#)
        let short = try #require(r.json?["id"] as? Int)
        r = try daemon.post("/api/v1/plans/\(short)/start", body: "")
        #expect(r.status == 201 && r.json?["workout_id"] as? Int == workout, "the workout in progress takes the plan: \(r.text)")
        #expect(try eventually(timeout: 10) {
            (try HTTP.get(daemon.base + "/api/v1/workouts/\(workout)/plan").json?["current"] as? [String: Any])?["index"] as? Int == 2
        })
        progress = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(workout)/plan").json)
        #expect(progress["segment_remaining_s"] is NSNull && (progress["segments"] as? [[String: Any]])?.map { $0["ended_by"] as? String } == ["time", "time", nil], "\(progress)")
        out = try pacenote("workout", "next")
        #expect(out.status == 0 && out.stdout.contains("Short: done"), "\(out)")
        // The suggestions look ahead: 20 s of Z2 are left while a 20–40 s song plays, so the
        // next song will mostly play in the Z5 minute, and Z5's tempo is asked for now.
        r = try daemon.post("/api/v1/plans", body: #"{"name": "Ahead", "text": "20 s Z2, 60 s Z5, open Z1"}"#)
        let ahead = try #require(r.json?["id"] as? Int)
        try mpd.mpc("play")
        #expect(try eventually { (try daemon.status()["now_playing"] as? [String: Any]) != nil })
        #expect(try daemon.post("/api/v1/plans/\(ahead)/start", body: "").status == 201)
        r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=5")
        #expect(r.status == 200 && r.json?["zone_source"] as? String == "plan" && r.json?["zone"] as? Int == 5, "\(r.text)")
        #expect((r.json?["note"] as? String)?.contains("the segment ahead of Ahead (2: Z5)") == true, "\(r.text)")
        for s in r.json?["suggestions"] as? [[String: Any]] ?? [] {
            if let bpm = ((s["track"] as? [String: Any])?["bpm"] as? NSNumber)?.doubleValue {
                #expect([bpm, bpm * 2, bpm / 2].contains { Self.windows["Z5"]!.contains($0) }, "\(s)")
            }
        }
        try mpd.mpc("stop")
        out = try pacenote("workout", "stop")
        #expect(out.status == 0 && out.stdout.contains("workout \(workout) stopped"), "\(out)")
        out = try pacenote("workout", "next")
        #expect(out.status != 0 && out.stderr.contains("no workout in progress"), "\(out)")
        // The workout keeps the plan it ran.
        let detail = try #require(try HTTP.get(daemon.base + "/api/v1/workouts/\(workout)/plan").json)
        #expect(detail["name"] as? String == "Ahead" && detail["in_progress"] as? Bool == false, "\(detail)")
    }
}
