import Foundation
import PacenoteTestSupport
import Testing

/// Tempo-matched playback end to end (issue 56): a real MPD, a real render (Rubber Band), the
/// copy swapped into MPD's queue, played, and logged as a play of the original. Both ways MPD
/// reaches the copies: a folder of its music directory (over TCP) and `file://` URIs over its
/// local socket.
@Suite(.serialized)
struct TempoPlaybackTests {
    static let tracks = [
        TestTrack("now.flac", seconds: 90, title: "Opener", artist: "Warmup", bpm: 120),
        TestTrack("run/stride.flac", seconds: 12, title: "Stride", artist: "Pacer", album: "Tempo", bpm: 163, frequency: 330),
        TestTrack("run/gone.flac", seconds: 12, title: "Gone Soon", artist: "Pacer", bpm: 150, frequency: 550),
    ]

    /// The test songs are 12 s long: they count as listens when played whole (Last.fm's rule
    /// wants 30 s; `PlayRuleTests` holds a copy to the original's length).
    static let shortSongsCount = "[plays]\nmin_track_s = 5\n"

    @Test func folderInsideTheMusicDirectory() throws {
        let mpd = try MPDInstance(tracks: Self.tracks)
        let cache = mpd.musicDirectory + "/pacenote-tempo"
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: Self.shortSongsCount, environment: [
            "PACENOTE_TEMPO": "1", "PACENOTE_TEMPO_CACHE_DIR": cache, "PACENOTE_MUSIC_DIRECTORY": mpd.musicDirectory,
        ])
        try exercise(mpd: mpd, daemon: daemon, cache: cache, copyURIPrefix: "pacenote-tempo/", loseNote: true)
    }

    @Test func fileURIsOverTheLocalSocket() throws {
        let mpd = try MPDInstance(tracks: Self.tracks)
        let outside = try TemporaryDirectory("pacenote-tempo-cache")
        let cache = outside.file("copies")
        let daemon = try PacenoteDaemon(mpd: mpd.socketPath, config: Self.shortSongsCount, environment: [
            "PACENOTE_TEMPO": "1", "PACENOTE_TEMPO_CACHE_DIR": cache,
        ])
        // Queued as file:///…, which MPD then names by the path alone.
        try exercise(mpd: mpd, daemon: daemon, cache: cache, copyURIPrefix: cache + "/")
    }

    /// Over TCP with the cache outside the music directory MPD cannot play the copies: the
    /// original is queued and the reason shown; `doctor` says the same.
    @Test func noWayForMPDToReachTheCopies() throws {
        let mpd = try MPDInstance(tracks: Self.tracks)
        let outside = try TemporaryDirectory("pacenote-tempo-cache")
        let env = ["PACENOTE_TEMPO": "1", "PACENOTE_TEMPO_CACHE_DIR": outside.file("copies"),
                   "PACENOTE_MUSIC_DIRECTORY": mpd.musicDirectory]
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", environment: env)
        try startOpener(mpd: mpd, daemon: daemon)
        let r = try daemon.post("/api/v1/queue", body: #"{"mode": "cadence", "cadence": 170}"#)
        #expect(r.status == 201, "\(r.text)")
        let render = try waitForRender(daemon, notState: "rendering")
        #expect(render["state"] as? String == "original", "\(render)")
        #expect((render["reason"] as? String)?.contains("local socket") == true, "\(render)")
        #expect(try mpd.mpc("-f", "%file%", "queued").trimmingCharacters(in: .whitespacesAndNewlines) == "run/stride.flac")
        let doctor = try PacenoteProcess.run(["doctor", "--config", daemon.dir.file("config.toml"), "--db", daemon.db, "--mpd", "127.0.0.1:\(mpd.port)"], environment: env.merging(["HOME": daemon.dir.path]) { a, _ in a })
        #expect(doctor.stdout.contains("tempo"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("local socket"), "\(doctor.stdout)")
    }

    /// `pacenote tempo render` stopped with Ctrl-C: exit 130, a line saying so, and neither the
    /// copy nor its `.part` left behind.
    @Test func ctrlCStopsARenderAndLeavesNothing() throws {
        let dir = try TemporaryDirectory("pacenote-tempo-cli")
        _ = try run(try Tools.require("sox"), ["-n", "-r", "44100", "-c", "2", dir.file("long.flac"), "synth", "300", "pinknoise", "vol", "0.2"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try PacenoteProcess.binary())
        process.arguments = ["tempo", "render", dir.file("long.flac"), dir.file("copy.flac"), "--ratio", "1.05", "--quality", "best"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        #expect(eventually(timeout: 20) { FileManager.default.fileExists(atPath: dir.file("copy.flac.part")) })
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130)
        #expect(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains("render stopped"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("copy.flac.part")) && !FileManager.default.fileExists(atPath: dir.file("copy.flac")))
    }

    /// A bad source or a full disk: the original is queued, the reason shown, and nothing is
    /// left half-written in the cache. The daemon runs in its own mount namespace where the
    /// cache folder is a 64 KiB tmpfs (`unshare`, `mount`: the test runs as root, as
    /// `scripts/test` does), so the render of a 12 s song fills it.
    @Test func badSourcesAndAFullDiskFallBackToTheOriginal() throws {
        guard geteuid() == 0 else { throw HarnessError("mounting a tmpfs needs root (running as uid \(geteuid()))") }
        let mpd = try MPDInstance(tracks: [
            TestTrack("now.flac", seconds: 90, title: "Opener", artist: "Warmup", bpm: 120),
            TestTrack("run/stride.flac", seconds: 12, title: "Stride", artist: "Pacer", bpm: 163, frequency: 330),
            TestTrack("run/broken.flac", seconds: 12, title: "Broken", artist: "Pacer", bpm: 163, frequency: 550),
            TestTrack("run/mix.flac", seconds: 7200, title: "Two Hour Mix", artist: "Pacer", bpm: 163,
                      sampleRate: 8000, channels: 1, silent: true),
        ])
        let cache = mpd.musicDirectory + "/pacenote-tempo"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        let dir = try TemporaryDirectory("pacenote-full-disk")
        let wrapper = dir.file("pacenote-on-a-full-disk")
        try """
            #!/bin/sh
            exec \(try Tools.require("unshare")) --mount sh -c 'mount -t tmpfs -o size=64k pacenote-tempo "$0" && exec "$@"' \
                "\(cache)" "\(try PacenoteProcess.binary())" "$@"
            """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        chmod(wrapper, 0o755)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)", config: Self.shortSongsCount, environment: [
            "PACENOTE_TEMPO": "1", "PACENOTE_TEMPO_CACHE_DIR": cache, "PACENOTE_MUSIC_DIRECTORY": mpd.musicDirectory,
        ], binary: wrapper)
        // The cache as the daemon sees it, through its own mount namespace.
        let seen = "/proc/\(daemon.process.process.processIdentifier)/root" + cache
        let mounts = try String(contentsOfFile: "/proc/\(daemon.process.process.processIdentifier)/mounts", encoding: .utf8)
        #expect(mounts.contains("pacenote-tempo \(cache) tmpfs"), "\(mounts)")
        try startOpener(mpd: mpd, daemon: daemon, tracks: 3)

        func queue(_ uri: String) throws -> [String: Any] {
            let id = try daemon.sql("SELECT id FROM tracks WHERE uri = '\(uri)'").trimmingCharacters(in: .whitespacesAndNewlines)
            let r = try daemon.post("/api/v1/queue", body: #"{"track_id": \#(id), "mode": "cadence", "cadence": 170}"#)
            #expect(r.status == 201, "\(r.text)")
            let render = try waitForRender(daemon, notState: "rendering")
            #expect(render["uri"] as? String == uri && render["state"] as? String == "original", "\(render) \(daemon.process.stderr)")
            // The original stays queued after the song playing.
            #expect(try mpd.mpc("-f", "%file%", "queued").trimmingCharacters(in: .whitespacesAndNewlines) == uri)
            let left = (try? FileManager.default.contentsOfDirectory(atPath: seen)) ?? ["unreadable"]
            #expect(left.isEmpty, "left in the cache: \(left)")
            return render
        }
        // Undecodable: the file was damaged after MPD indexed it.
        try Data("not a song any more\n".utf8).write(to: URL(fileURLWithPath: mpd.musicDirectory + "/run/broken.flac"))
        var render = try queue("run/broken.flac")
        #expect((render["reason"] as? String)?.contains("Cannot read run/broken.flac as audio") == true
                    || (render["reason"] as? String)?.contains("broken.flac as audio") == true, "\(render)")
        // Two hours: refused before any work, by the length in the header.
        render = try queue("run/mix.flac")
        #expect((render["reason"] as? String)?.contains("2:00:00 long; tempo matching takes songs up to 1:00:00") == true, "\(render)")
        // The disk fills during the render: neither the copy nor its .part is kept.
        render = try queue("run/stride.flac")
        #expect((render["reason"] as? String)?.contains("No space left on device") == true, "\(render)")
        // Each reason is in the daemon's log too.
        #expect(daemon.process.stderr.contains("No space left on device"), "\(daemon.process.stderr.suffix(2000))")
    }

    func startOpener(mpd: MPDInstance, daemon: PacenoteDaemon, tracks: Int = 2) throws {
        _ = try mpd.mpc("clear")
        _ = try mpd.mpc("add", "now.flac")
        _ = try mpd.mpc("play")
        #expect(try eventually(timeout: 15) { try HTTP.get(daemon.base + "/api/v1/status").json?["now_playing"] is [String: Any] })
        // The library is mirrored (the tracks exist) before a suggestion is asked for.
        #expect(eventually(timeout: 15) { (try? daemon.sql("SELECT count(*) FROM tracks WHERE uri LIKE 'run/%'"))?.hasPrefix("\(tracks)") == true })
    }

    /// The render's state as `GET /api/v1/tempo` shows it, once it is no longer `notState`.
    func waitForRender(_ daemon: PacenoteDaemon, notState: String, index: Int = 0, timeout: Double = 60) throws -> [String: Any] {
        var last: [String: Any] = [:]
        _ = eventually(timeout: timeout) {
            guard let renders = (try? HTTP.get(daemon.base + "/api/v1/tempo", headers: ["Authorization": "Token \(daemon.apiKey)"]))?
                .json?["renders"] as? [[String: Any]], renders.count > index else { return false }
            last = renders[index]
            return last["state"] as? String != notState
        }
        return last
    }

    func copies(in cache: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).filter { $0.hasSuffix(".flac") }
    }

    /// `loseNote`: the copy's note (`.json`) is deleted before it plays, as a tiny cache could
    /// evict it: the play is still the original's (the daemon remembers what it queued), and
    /// the next request renders the copy again rather than trust a copy without its note.
    func exercise(mpd: MPDInstance, daemon: PacenoteDaemon, cache: String, copyURIPrefix: String, loseNote: Bool = false) throws {
        try startOpener(mpd: mpd, daemon: daemon)
        // Cadence mode at 170 spm: the 163 bpm song is the suggestion, rendered 4.3 % faster.
        var r = try daemon.post("/api/v1/queue", body: #"{"mode": "cadence", "cadence": 170}"#)
        #expect(r.status == 201, "\(r.text)")
        #expect((r.json?["track"] as? [String: Any])?["uri"] as? String == "run/stride.flac", "\(r.text)")
        let tempo = try #require(r.json?["tempo"] as? [String: Any], "\(r.text)")
        #expect(abs(((tempo["played_bpm"] as? NSNumber)?.doubleValue ?? 0) - 170) < 0.5, "\(tempo)")
        #expect(abs(((tempo["ratio"] as? NSNumber)?.doubleValue ?? 0) - 170.0 / 163) < 0.001, "\(tempo)")

        var render = try waitForRender(daemon, notState: "rendering")
        #expect(render["state"] as? String == "queued", "\(render)")
        #expect(render["reused"] as? Bool == false)
        let queued = try mpd.mpc("-f", "%file%", "playlist").split(separator: "\n").map(String.init)
        #expect(queued.count == 2 && queued[0] == "now.flac" && queued[1].hasPrefix(copyURIPrefix), "\(queued) \(daemon.process.stderr)")
        #expect(copies(in: cache).count == 1, "\(copies(in: cache))")
        if loseNote {
            for note in try FileManager.default.contentsOfDirectory(atPath: cache) where note.hasSuffix(".json") {
                try FileManager.default.removeItem(atPath: cache + "/" + note)
            }
        }

        // Played: logged against the original track, at the tempo it played.
        _ = try mpd.mpc("next")
        #expect(eventually(timeout: 30) {
            (try? daemon.sql("SELECT count(*) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE t.uri = 'run/stride.flac'"))?
                .hasPrefix("1") == true
        }, "\(daemon.process.stderr)")
        let row = try daemon.sql("""
            SELECT p.played_bpm, p.tempo_ratio, p.counted, t.duration_s FROM plays p JOIN tracks t ON t.id = p.track_id
            WHERE t.uri = 'run/stride.flac'
            """).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
        #expect(row.count == 4, "\(row)")
        #expect(abs((Double(row.first ?? "") ?? 0) - 170) < 0.5, "\(row)")
        #expect(abs((Double(row.dropFirst().first ?? "") ?? 0) - 170.0 / 163) < 0.001, "\(row)")
        #expect(row.dropFirst(2).first == "1", "the whole copy played: a counted play \(row) \(daemon.process.stderr)")
        #expect(abs((Double(row.last ?? "") ?? 0) - 12) < 0.6, "the track keeps its own length: \(row)")
        let listen = try #require(try daemon.listens().first { $0.uri == "run/stride.flac" })
        #expect(abs(((listen.json["played_bpm"] as? NSNumber)?.doubleValue ?? 0) - 170) < 0.5, "\(listen.json)")
        // The history shows the tempo it played at.
        let history = try HTTP.get(daemon.base + "/history").text
        #expect(history.contains(#"data-played-bpm="170""#) && history.contains("170 bpm (+4.3 %)"), "\(history.suffix(3000))")
        // The copy never became a track of its own.
        #expect(try daemon.sql("SELECT count(*) FROM tracks WHERE uri LIKE '%pacenote-tempo%' OR uri LIKE 'file:%' OR title = 'Stride' AND uri != 'run/stride.flac'")
            .hasPrefix("0"))

        // A second play of the same song at the same cadence reuses the copy.
        try startOpener(mpd: mpd, daemon: daemon)
        let id = try daemon.sql("SELECT id FROM tracks WHERE uri = 'run/stride.flac'").trimmingCharacters(in: .whitespacesAndNewlines)
        r = try daemon.post("/api/v1/queue", body: #"{"track_id": \#(id), "mode": "cadence", "cadence": 170}"#)
        #expect(r.status == 201, "\(r.text)")
        render = try waitForRender(daemon, notState: "rendering")
        #expect(render["state"] as? String == "queued", "\(render)")
        #expect(render["reused"] as? Bool == !loseNote, "\(render)")
        #expect(copies(in: cache).count == 1, "\(copies(in: cache))")

        // A file that vanished after MPD indexed it: the original stays queued, with the reason.
        let goneID = try daemon.sql("SELECT id FROM tracks WHERE uri = 'run/gone.flac'").trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.removeItem(atPath: mpd.musicDirectory + "/run/gone.flac")
        r = try daemon.post("/api/v1/queue", body: #"{"track_id": \#(goneID), "mode": "cadence", "cadence": 170}"#)
        #expect(r.status == 201, "\(r.text)")
        render = try waitForRender(daemon, notState: "rendering")
        #expect(render["state"] as? String == "original", "\(render)")
        #expect((render["reason"] as? String)?.contains("run/gone.flac") == true, "\(render)")
        #expect(copies(in: cache).count == 1)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: cache)) ?? []).allSatisfy { !$0.hasSuffix(".part") })
    }
}
