import Foundation
import PacenoteTestSupport
import Testing

/// The recommender on a real MPD library with known BPMs: suggestions for the live zone,
/// what is never suggested, queueing right after the current song, a BPM set by hand.
@Suite struct RecommenderEndToEndTests {
    func sleep(_ seconds: Double) { usleep(UInt32(seconds * 1_000_000)) }

    /// Z4's default window and its half- and double-time.
    static func fitsZ4(_ bpm: Double) -> Bool {
        [bpm, bpm * 2, bpm / 2].contains { (130...140).contains($0) }
    }

    @Test func suggestionsForTheLiveZoneAndQueueingAfterTheCurrentSong() throws {
        let tracks = [
            TestTrack("fit/a.flac", seconds: 1, title: "Fast A", artist: "Ann", bpm: 134),
            TestTrack("fit/b.flac", seconds: 1, title: "Fast B", artist: "Bob", bpm: 138),
            TestTrack("fit/c.flac", seconds: 1, title: "Half C", artist: "Cat", bpm: 67),
            TestTrack("fit/d.flac", seconds: 1, title: "Double D", artist: "Dan", bpm: 270),
            TestTrack("fit/e.flac", seconds: 1, title: "Edge E", artist: "Eve", bpm: 130),
            TestTrack("off/f.flac", seconds: 1, title: "Slow F", artist: "Fay", bpm: 100),
            TestTrack("off/g.flac", seconds: 1, title: "Mid G", artist: "Gus", bpm: 125),
            TestTrack("off/h.flac", seconds: 1, title: "Rock H", artist: "Hal", bpm: 150),
            TestTrack("off/i.flac", seconds: 1, title: "Quick I", artist: "Ida", bpm: 180),
            TestTrack("none/j.flac", seconds: 1, title: "Untagged J", artist: "Jo"),
            TestTrack("none/k.flac", seconds: 1, title: "Untagged K", artist: "Kim"),
            TestTrack("runner.flac", seconds: 2, title: "Runner", artist: "Rita", bpm: 135),
            TestTrack("runner-edit.flac", seconds: 1, title: "Runner (Radio Edit)", artist: "Rita feat. Sam", bpm: 135),
            TestTrack("now.flac", seconds: 40, title: "Now Playing", artist: "Nat", bpm: 136),
            TestTrack("queued.flac", seconds: 1, title: "Queued Q", artist: "Quin", bpm: 136),
            TestTrack("queued-remaster.flac", seconds: 1, title: "Queued Q - Remastered 2011", artist: "Quin", bpm: 136),
        ]
        let mpd = try MPDInstance(tracks: tracks)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: """
            [plays]
            min_track_s = 1
            [heart_rate]
            max_hr = 200
            """)
        // The library is mirrored, with the BPM tags read.
        let mirrored = try eventually(timeout: 20) {
            try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1 AND bpm IS NOT NULL") == "14\n"
        }
        #expect(mirrored, "\((try? daemon.sql("SELECT uri, bpm, in_library FROM tracks")) ?? "")")

        // Runner was just played: neither it nor its radio edit may be suggested.
        try mpd.mpc("add", "runner.flac")
        try mpd.mpc("play")
        #expect(try eventually(timeout: 15) { try daemon.listens().contains { $0.title == "Runner" } })
        try mpd.mpc("clear")
        try mpd.mpc("add", "now.flac")
        try mpd.mpc("add", "queued.flac")
        try mpd.mpc("play", "1")
        // Heart rate 170 of max 200: 85 %, zone 4.
        for _ in 0..<4 {
            #expect(try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": 170}"#).status == 200)
            sleep(0.25)  // a strap's pace: each reading at a time of its own
        }
        #expect(try eventually { try mpd.mpc("current").contains("Now Playing") })

        var r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=10")
        #expect(r.status == 200, "\(r.text)")
        let json = try #require(r.json)
        #expect(json["zone"] as? Int == 4, "\(json)")
        #expect(json["zone_source"] as? String == "live")
        let suggestions = json["suggestions"] as? [[String: Any]] ?? []
        let titles = suggestions.compactMap { ($0["track"] as? [String: Any])?["title"] as? String }
        #expect(!suggestions.isEmpty)
        var seenUntagged = false
        for s in suggestions {
            let track = s["track"] as? [String: Any] ?? [:]
            if let bpm = (track["bpm"] as? NSNumber)?.doubleValue {
                #expect(Self.fitsZ4(bpm), "\(track) does not fit Z4")
                #expect(!seenUntagged, "a track with a BPM after one without: \(titles)")
            } else {
                seenUntagged = true
            }
            #expect((s["reasons"] as? [[String: Any]])?.isEmpty == false)
        }
        for never in ["Runner", "Runner (Radio Edit)", "Now Playing", "Queued Q", "Queued Q - Remastered 2011"] {
            #expect(!titles.contains(never), "\(never) suggested: \(titles)")
        }
        #expect(Set(titles) == ["Fast A", "Fast B", "Half C", "Double D", "Edge E", "Untagged J", "Untagged K"], "\(titles)")

        // Bad input and access.
        #expect(try HTTP.get(daemon.base + "/api/v1/recommendations/next?zone=9").status == 400)
        #expect(try HTTP.get(daemon.base + "/api/v1/recommendations/next?mode=fast").status == 400)
        #expect(try HTTP.request("POST", daemon.base + "/api/v1/queue", body: Data("{}".utf8)).status == 401)
        // An explicit zone and cadence mode.
        r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?zone=0&limit=3")
        #expect(r.json?["zone_source"] as? String == "query")
        r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?mode=cadence&cadence=150")
        let cadenceTitles = (r.json?["suggestions"] as? [[String: Any]] ?? []).compactMap { ($0["track"] as? [String: Any])?["title"] as? String }
        #expect(cadenceTitles.first == "Rock H", "\(cadenceTitles)")

        // The top suggestion goes right after the current song.
        r = try daemon.post("/api/v1/queue", body: "{}")
        #expect(r.status == 201, "\(r.text)")
        let queuedURI = try #require((r.json?["track"] as? [String: Any])?["uri"] as? String)
        #expect(r.json?["position"] as? Int == 1)
        var playlist = try mpd.mpc("-f", "%file%", "playlist").split(separator: "\n").map(String.init)
        #expect(playlist == ["now.flac", queuedURI, "queued.flac"], "\(playlist)")
        #expect(try mpd.mpc("-f", "%file%", "queued").trimmingCharacters(in: .whitespacesAndNewlines) == queuedURI)
        // A chosen track, by id.
        let id = try daemon.sql("SELECT id FROM tracks WHERE uri = 'fit/e.flac'").trimmingCharacters(in: .whitespacesAndNewlines)
        r = try daemon.post("/api/v1/queue", body: #"{"track_id": \#(id)}"#)
        #expect(r.status == 201, "\(r.text)")
        playlist = try mpd.mpc("-f", "%file%", "playlist").split(separator: "\n").map(String.init)
        #expect(playlist.prefix(2) == ["now.flac", "fit/e.flac"], "\(playlist)")
        #expect(try daemon.post("/api/v1/queue", body: #"{"track_id": 999999}"#).status == 404)
        // What was queued is no longer suggested.
        r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=10")
        let after = (r.json?["suggestions"] as? [[String: Any]] ?? []).compactMap { ($0["track"] as? [String: Any])?["uri"] as? String }
        #expect(!after.contains(queuedURI) && !after.contains("fit/e.flac"), "\(after)")

        // A BPM set by hand: the untagged track moves into the first tier.
        let untagged = try daemon.sql("SELECT id FROM tracks WHERE uri = 'none/j.flac'").trimmingCharacters(in: .whitespacesAndNewlines)
        r = try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(untagged)/bpm",
                             headers: ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/json"],
                             body: Data(#"{"bpm": 133}"#.utf8))
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["bpm_source"] as? String == "manual")
        #expect(try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(untagged)/bpm", body: Data(#"{"bpm": 133}"#.utf8)).status == 401)
        #expect(try HTTP.request("PUT", daemon.base + "/api/v1/tracks/\(untagged)/bpm",
                                 headers: ["Authorization": "Token \(daemon.apiKey)"], body: Data(#"{"bpm": 9}"#.utf8)).status == 400)
        // The model re-reads changed tracks in the background every 2 s.
        var tiers: [(String, Int)] = []
        #expect(try eventually(timeout: 10, interval: 0.5) {
            r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=10")
            tiers = (r.json?["suggestions"] as? [[String: Any]] ?? []).map { (($0["track"] as? [String: Any])?["title"] as? String ?? "", $0["tier"] as? Int ?? -1) }
            return tiers.contains { $0 == ("Untagged J", 0) }
        }, "\(tiers)")
    }
}

/// `pacenote analyze` on generated beat tracks at known tempi and several timbres.
@Suite struct AnalyzeEndToEndTests {
    static let tempi = [90, 100, 110, 120, 128, 135, 140, 150, 160, 174, 180]
    static let timbres = ["clicks", "kicks", "noise", "kickhat"]

    /// One bar of each timbre repeated: a beat every 60/bpm seconds for about 20 s.
    static func makeBeat(_ sox: String, timbre: String, bpm: Int, to output: String, scratch: TemporaryDirectory) throws {
        let period = 60.0 / Double(bpm)
        let repeats = String(Int(20 / period))
        func f(_ x: Double) -> String { String(format: "%.6f", x) }
        let one = scratch.file("\(timbre)-\(bpm)-one.wav")
        switch timbre {
        case "clicks":
            try run(sox, ["-n", "-r", "44100", "-c", "1", one, "synth", "0.01", "square", "1000", "pad", "0", f(period - 0.01)])
        case "kicks":
            try run(sox, ["-n", "-r", "44100", "-c", "1", one, "synth", "0.15", "sine", "150:40", "fade", "0", "0.15", "0.12",
                          "pad", "0", f(period - 0.15)])
        case "noise":
            try run(sox, ["-n", "-r", "44100", "-c", "1", one, "synth", "0.05", "whitenoise", "fade", "0", "0.05", "0.04",
                          "pad", "0", f(period - 0.05)])
        default:  // kick on the beat, hi-hat on the off-beat
            let kick = scratch.file("k-\(bpm).wav"), hat = scratch.file("h-\(bpm).wav")
            try run(sox, ["-n", "-r", "44100", "-c", "1", kick, "synth", "0.15", "sine", "150:40", "fade", "0", "0.15", "0.12",
                          "pad", "0", f(period - 0.15)])
            try run(sox, ["-n", "-r", "44100", "-c", "1", hat, "synth", "0.03", "whitenoise", "highpass", "6000", "fade", "0", "0.03", "0.025",
                          "vol", "0.5", "pad", f(period / 2), f(period / 2 - 0.03)])
            try run(sox, ["-m", kick, hat, one])
        }
        try run(sox, [one, "-c", "2", output, "repeat", repeats])
    }

    @Test func temposWithinTwoPercentOnBeatTracks() throws {
        let sox = try Tools.require("sox")
        _ = try Tools.require("bpm")
        let mpd = try MPDInstance(tracks: [], start: false)
        let scratch = try TemporaryDirectory("pacenote-beats")
        for timbre in Self.timbres {
            try FileManager.default.createDirectory(atPath: mpd.musicDirectory + "/" + timbre, withIntermediateDirectories: true)
            for bpm in Self.tempi {
                try Self.makeBeat(sox, timbre: timbre, bpm: bpm, to: mpd.musicDirectory + "/\(timbre)/\(bpm).flac", scratch: scratch)
            }
        }
        try mpd.start()
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        let total = Self.tempi.count * Self.timbres.count
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1") == "\(total)\n" })
        try daemon.stop()

        // The music directory comes from MPD's `config`, over its local socket.
        var r = try PacenoteProcess.run(["analyze", "--config", daemon.dir.file("config.toml"), "--db", daemon.db,
                                         "--mpd", mpd.socketPath, "--write-stickers"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("analysed \(total) files"), "\(r.stdout)")
        // How clear each beat is, from aubio's tracker, and how loud each file is, from
        // libebur128's meter: every file measured.
        #expect(r.stdout.contains("beats of \(total) files measured"), "\(r.stdout)")
        #expect(r.stdout.contains("loudness of \(total) files measured"), "\(r.stdout)")
        // Resumable: nothing left to do the second time.
        r = try PacenoteProcess.run(["analyze", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, "--mpd", mpd.socketPath])
        #expect(r.stdout.contains("analysed 0 files"), "\(r.stdout)")
        #expect(r.stdout.contains("beats of 0 files measured"), "\(r.stdout)")
        #expect(r.stdout.contains("loudness of 0 files measured"), "\(r.stdout)")
        #expect(try daemon.sql("SELECT count(*) FROM tracks WHERE loudness_lufs BETWEEN -70 AND 0 AND loudness_range_lu >= 0") == "\(total)\n")
        let clarity = try daemon.sql("SELECT count(*), min(beat_confidence), max(beat_confidence) FROM tracks WHERE beat_confidence IS NOT NULL")
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").compactMap { Double($0) }
        #expect(clarity.count == 3 && clarity[0] == Double(total) && clarity[1] >= 0 && clarity[2] <= 1 && clarity[2] > 0, "\(clarity)")

        let rows = try daemon.sql("SELECT uri, bpm, bpm_source, bpm_confidence, beat_confidence FROM tracks ORDER BY uri").split(separator: "\n")
        var good = 0
        var table = "| timbre | true bpm | detected | normalised | error % | confidence | beat |\n|---|---:|---:|---:|---:|---:|---:|\n"
        for row in rows {
            let cols = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let parts = cols[0].split(separator: "/")
            let truth = Double(parts[1].dropLast(5))!
            let detected = Double(cols[1]) ?? 0
            #expect(cols[2] == "analysis")
            let normalised = [detected, detected * 2, detected / 2].min { abs($0 - truth) < abs($1 - truth) }!
            let error = abs(normalised - truth) / truth * 100
            if error <= 2 { good += 1 }
            table += String(format: "| %@ | %.0f | %.2f | %.2f | %.2f | %@ | %@ |\n", String(parts[0]), truth, detected, normalised, error, cols[3], cols[4])
        }
        print("ANALYZE ACCURACY \(good)/\(rows.count) within ±2 %\n" + table)
        #expect(rows.count == total)
        #expect(Double(good) >= 0.9 * Double(total), "\(good)/\(total) within ±2 %\n\(table)")
        // The stickers MPD now has.
        #expect(try mpd.mpc("sticker", "kicks/128.flac", "get", "bpm").contains("bpm="))
        // The track page shows how clear the beat is.
        let id = try daemon.sql("SELECT id FROM tracks WHERE uri = 'kicks/128.flac'").trimmingCharacters(in: .whitespacesAndNewlines)
        try daemon.restart()
        let page = try HTTP.get(daemon.base + "/tracks/\(id)", headers: ["Authorization": "Token \(daemon.apiKey)"]).text
        #expect(page.contains("<dt>Beat</dt><dd>") && page.contains(" (confidence "), "\(page.suffix(4000))")
        // And how loud it is.
        #expect(page.contains("<dt>Loudness</dt><dd>−") && page.contains(" LUFS, range "), "\(page.suffix(4000))")
    }

    /// Energy, measured (issue 57, point 5): tones of known loudness through the real
    /// `pacenote analyze`, stored, and shown on the track page and in the API. EBU Tech 3341's
    /// first case (a stereo 1 kHz sine at -23 dBFS reads -23.0 LUFS) at two levels, the same
    /// in mono (measured as dual mono), Tech 3342's first case (20 s at -20 dBFS, 20 s at -30:
    /// a range of 10 LU) and silence. Each within 0.5 LU of the expected (the range within 1).
    @Test func loudnessOfTonesOfKnownLevel() throws {
        let sox = try Tools.require("sox")
        _ = try Tools.require("bpm")
        let mpd = try MPDInstance(tracks: [], start: false)
        let scratch = try TemporaryDirectory("pacenote-loudness")
        let dir = mpd.musicDirectory + "/tones"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Each tagged with a BPM, so analyze's tempo pass leaves them (no tempo in a sine).
        let tags = ["ALBUM=Tones", "ARTIST=Meter", "BPM=120"].flatMap { ["--add-comment", $0] }
        func tone(_ name: String, channels: Int = 2, _ effects: [String]) throws {
            try run(sox, ["-n", "-r", "48000", "-c", "\(channels)", "-b", "16"] + tags + ["--add-comment", "TITLE=\(name)", "\(dir)/\(name).flac"] + effects)
        }
        try tone("stereo -23", ["synth", "20", "sine", "1000", "vol", "-23dB"])
        try tone("stereo -14", ["synth", "20", "sine", "1000", "vol", "-14dB"])
        try tone("mono -23", channels: 1, ["synth", "20", "sine", "1000", "vol", "-23dB"])
        try tone("silence", ["trim", "0", "5"])
        for (part, level) in [("a", "-20dB"), ("b", "-30dB")] {
            try run(sox, ["-n", "-r", "48000", "-c", "2", "-b", "16", scratch.file("\(part).wav"), "synth", "20", "sine", "1000", "vol", level])
        }
        try run(sox, [scratch.file("a.wav"), scratch.file("b.wav")] + tags + ["--add-comment", "TITLE=steps", "\(dir)/steps.flac"])
        // title: (LUFS, LU); the steps' loudness is the mean of their energies, -22.6 LUFS.
        let expected: [String: (lufs: Double, range: Double)] = [
            "stereo -23": (-23, 0), "stereo -14": (-14, 0), "mono -23": (-23, 0), "silence": (-120, 0), "steps": (-22.6, 10),
        ]
        try mpd.start()
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE in_library = 1 AND bpm IS NOT NULL") == "5\n" })
        try daemon.stop()
        let analyze = ["analyze", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, "--mpd", mpd.socketPath]

        // Without libebur128 (a stand-in without its functions shadows it): one warning that
        // names the package, and the rest of analyze still runs.
        let fake = scratch.file("lib")
        try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
        try "int pacenote_not_ebur128;\n".write(toFile: scratch.file("empty.c"), atomically: true, encoding: .utf8)
        try run(try Tools.require("cc"), ["-shared", "-fPIC", "-o", fake + "/libebur128.so.1", scratch.file("empty.c")])
        var r = try PacenoteProcess.run(analyze, environment: ["LD_LIBRARY_PATH": fake])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("beats of 5 files measured") && !r.stdout.contains("loudness of"), "\(r.stdout)")
        #expect(r.stderr.components(separatedBy: "loudness not measured: loudness needs libebur128 (Debian package libebur128-1): ").count == 2,
                "\(r.stderr)")
        #expect(try daemon.sql("SELECT count(*) FROM tracks WHERE loudness_lufs IS NOT NULL") == "0\n")

        r = try PacenoteProcess.run(analyze)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("analysed 0 files") && r.stdout.contains("loudness of 5 files measured"), "\(r.stdout)")
        r = try PacenoteProcess.run(analyze)
        #expect(r.stdout.contains("loudness of 0 files measured"), "\(r.stdout)")

        var measured: [String: (lufs: Double, range: Double)] = [:]
        var table = "| tone | expected LUFS | measured LUFS | expected LRA | measured LRA |\n|---|---:|---:|---:|---:|\n"
        for row in try daemon.sql("SELECT title, loudness_lufs, loudness_range_lu FROM tracks ORDER BY title").split(separator: "\n") {
            let cols = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard cols.count == 3, let want = expected[cols[0]], let lufs = Double(cols[1]), let range = Double(cols[2]) else {
                Issue.record("unexpected row \(row)")
                continue
            }
            measured[cols[0]] = (lufs, range)
            table += String(format: "| %@ | %.1f | %.2f | %.1f | %.2f |\n", cols[0], want.lufs, lufs, want.range, range)
            #expect(abs(lufs - want.lufs) <= 0.5 && abs(range - want.range) <= 1, "\(cols[0]): \(lufs) LUFS, \(range) LU")
        }
        print("ANALYZE LOUDNESS\n" + table)
        #expect(measured.count == expected.count, "\(table)")

        try daemon.restart()
        let auth = ["Authorization": "Token \(daemon.apiKey)"]
        func id(_ title: String) throws -> String {
            try daemon.sql("SELECT id FROM tracks WHERE title = '\(title)'").trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var page = try HTTP.get(daemon.base + "/tracks/\(try id("stereo -23"))", headers: auth).text
        #expect(page.contains("<dt>Loudness</dt><dd>−23.0 LUFS, range 0.0 LU</dd>"), "\(page.suffix(4000))")
        page = try HTTP.get(daemon.base + "/tracks/\(try id("steps"))", headers: auth).text
        #expect(page.contains("<dt>Loudness</dt><dd>−22.6 LUFS, range 10.0 LU</dd>"), "\(page.suffix(4000))")
        page = try HTTP.get(daemon.base + "/tracks/\(try id("silence"))", headers: auth).text
        #expect(page.contains("<dt>Loudness</dt><dd>silent (nothing above the −70 LUFS gate)</dd>"), "\(page.suffix(4000))")

        // Every API track carries both figures, as stored.
        let album = try daemon.sql("SELECT album_id FROM tracks WHERE title = 'steps'").trimmingCharacters(in: .whitespacesAndNewlines)
        let json = try HTTP.get(daemon.base + "/api/v1/albums/\(album)", headers: auth).json
        let tracks = (json?["tracks"] as? [[String: Any]] ?? []).compactMap { $0["track"] as? [String: Any] }
        #expect(tracks.count == expected.count, "\(String(describing: json))")
        for track in tracks {
            let title = track["title"] as? String ?? ""
            let lufs = track["loudness_lufs"] as? Double, range = track["loudness_range_lu"] as? Double
            #expect(lufs != nil && lufs == measured[title]?.lufs && range == measured[title]?.range, "\(track)")
        }
    }
}

/// The opt-in auto-DJ keeps one suggestion queued after the current song and replaces its
/// own pick when the zone changes.
@Suite struct AutoDJEndToEndTests {
    func sleep(_ seconds: Double) { usleep(UInt32(seconds * 1_000_000)) }

    @Test func keepsOneFittingTrackQueuedAndFollowsTheZone() throws {
        let mpd = try MPDInstance(tracks: [
            TestTrack("now.flac", seconds: 60, title: "Long Run", artist: "Lou", bpm: 100),
            TestTrack("z4.flac", seconds: 1, title: "Hard", artist: "Hank", bpm: 136),
            TestTrack("z1.flac", seconds: 1, title: "Easy", artist: "Ella", bpm: 118),
            TestTrack("slow.flac", seconds: 1, title: "Slow", artist: "Sol", bpm: 80),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: """
            [heart_rate]
            max_hr = 200
            [recommender]
            auto_queue = true
            exploration = 0
            """)
        #expect(try eventually(timeout: 20) { try daemon.sql("SELECT count(*) FROM tracks WHERE bpm IS NOT NULL") == "4\n" })
        try mpd.mpc("add", "now.flac")
        try mpd.mpc("play")
        func queued() throws -> String { try mpd.mpc("-f", "%file%", "queued").trimmingCharacters(in: .whitespacesAndNewlines) }
        func stream(_ bpm: Int, until file: String) throws -> Bool {
            try eventually(timeout: 15, interval: 0.25) {
                _ = try daemon.post("/api/v1/hr?source=strap", body: #"{"bpm": \#(bpm)}"#)
                return try queued() == file
            }
        }
        #expect(try stream(170, until: "z4.flac"), "queued: \((try? queued()) ?? "")")      // Z4: 130–140
        #expect(try stream(108, until: "z1.flac"), "queued: \((try? queued()) ?? "")")      // Z1: 115–125
        // Its own pick was replaced, not added to: one suggestion after the current song.
        #expect(try mpd.mpc("-f", "%file%", "playlist").split(separator: "\n") == ["now.flac", "z1.flac"])
    }
}

/// `pacenote recommend` as documented: the offline evaluation on the generated history, and
/// suggestions from a database.
@Suite struct RecommendCommandTests {
    @Test func evaluationOnTheGeneratedHistoryBeatsEveryBaseline() throws {
        let r = try PacenoteProcess.run(["recommend", "--evaluate", "--synthetic"])
        #expect(r.status == 0, "\(r.stderr)")
        var hitRates: [String: Double] = [:]
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("| ") && !line.hasPrefix("| method") {
            let cols = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cols.count >= 3, let hit = Double(cols[1]) { hitRates[cols[0]] = hit }
        }
        print(r.stdout)
        #expect(Set(hitRates.keys) == ["pacenote", "random", "most-played", "same-artist", "last-track Markov"], "\(r.stdout)")
        let ours = hitRates["pacenote"] ?? 0
        for (method, hit) in hitRates where method != "pacenote" {
            #expect(ours > hit, "\(method) \(hit) ≥ pacenote \(ours)")
        }
    }

    @Test func suggestionsAndEvaluationFromADatabase() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", db]).status == 0)
        let sqlite = try Tools.require("sqlite3")
        try run(sqlite, [db, """
            INSERT INTO tracks (id, uri, title, artist, bpm, bpm_source, match_key, first_seen_at_ms, updated_at_ms)
            VALUES (1, 'a.flac', 'Fits', 'A', 134, 'tag', 'a', 0, 0), (2, 'b.flac', 'Too slow', 'B', 100, 'tag', 'b', 0, 0);
            INSERT INTO library_files (player, track_id, modified_at_ms) VALUES ('default', 1, 0), ('default', 2, 0);
            """])
        var r = try PacenoteProcess.run(["recommend", "--db", db, "--zone", "4"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("A – Fits") && !r.stdout.contains("Too slow"), "\(r.stdout)")
        #expect(r.stdout.contains("tempo: 134 bpm in 130–140"), "\(r.stdout)")
        r = try PacenoteProcess.run(["recommend", "--db", db, "--evaluate"])
        #expect(r.status == 0 && r.stdout.contains("| last-track Markov |"), "\(r.stdout)\(r.stderr)")
    }
}

/// The daemon's model keeps its transition rows in an unnamed file in `tmp/` beside the
/// database, not in its heap: after a history long enough for a merge, one such file is
/// open, nothing is named in the folder, and suggestions are answered.
@Suite struct RecommenderTransitionFilesEndToEndTests {
    @Test func transitionRowsAreInAnUnnamedFileBesideTheDatabase() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        // 6,000 plays in one session, 200 s apart over 300 songs: ~6,000 transitions, more
        // than the 4,096 recent pairs after which they are merged into rows.
        for batch in 0..<6 {
            let listens = (0..<1_000).map { n -> String in
                let i = batch * 1_000 + n
                return #"{"listened_at": \#(1_700_000_000 + i * 200), "track_metadata": {"artist_name": "Artist \#(i % 30)", "track_name": "Song \#((i * 7) % 300)"}}"#
            }
            let r = try daemon.post("/1/submit-listens", body: #"{"listen_type": "import", "payload": [\#(listens.joined(separator: ","))]}"#)
            #expect(r.status == 200, "\(r.text)")
        }
        let r = try HTTP.get(daemon.base + "/api/v1/recommendations/next?limit=3", headers: ["Authorization": "Token \(daemon.apiKey)"])
        #expect(r.status == 200, "\(r.text)")
        #expect(try eventually(timeout: 20) { daemon.process.stderr.contains("recommender: 300 tracks, 6000 plays") },
                "\(daemon.process.stderr)")
        let folder = daemon.dir.file("tmp")
        let pid = daemon.process.process.processIdentifier
        let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { fd in
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")
        }.filter { $0.hasPrefix(folder + "/") }
        #expect(open.count == 1 && open.allSatisfy { $0.hasSuffix("(deleted)") }, "\(open)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
        let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(mode == 0o700)
        try daemon.stop()
    }
}
