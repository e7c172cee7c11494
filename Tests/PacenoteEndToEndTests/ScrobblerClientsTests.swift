import Foundation
import PacenoteTestSupport
import Testing

/// Real scrobblers against Pacenote's Last.fm endpoints: pylast (PyPI) over Audioscrobbler
/// 2.0, and Debian's mpdscribble over the 1.2 submission protocol, following a private MPD
/// that Pacenote itself does not watch.
@Suite struct ScrobblerClientsTests {
    static var clients: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients") }

    @Test func pylastLogsInScrobblesABatchAndSetsNowPlaying() throws {
        let python = try Tools.require("python3")
        guard try run(python, ["-c", "import pylast"], allowFailure: true).status == 0 else {
            throw HarnessError("pylast is not installed: python3 -m pip install pylast (scripts/test does)")
        }
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let t0 = Int(Date().timeIntervalSince1970) - 7200
        let r = try run(python, [Self.clients.appendingPathComponent("pylast_client.py").path, "127.0.0.1:\(daemon.port)",
                                 daemon.apiKey, String(t0)], allowFailure: true)
        #expect(r.status == 0, "\(r.stderr)")
        let result = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        #expect((result["session_key"] as? String)?.count == 32)
        #expect((result["bad_login"] as? [Any])?.first as? String == "4", "\(result)")
        let listens = try daemon.listens()
        #expect(listens.map(\.title) == ["Vantablack", "Oweynagat", "Carrion Flowers"], "\(listens)")
        #expect(listens.allSatisfy { $0.json["source"] as? String == "audioscrobbler" && $0.player == "pylast-test" })
        #expect(listens.first?.startedAt == Date(timeIntervalSince1970: Double(t0)))
        let elsewhere = try daemon.status()["now_playing_elsewhere"] as? [[String: Any]]
        #expect((elsewhere?.first?["track"] as? [String: Any])?["title"] as? String == "The Alpha Man", "\(String(describing: elsewhere))")
    }

    /// mpdscribble submits a song once more than half of it (and at least 30 s long) has
    /// played: two 32 s songs, each played 18 s, then the next song ends each.
    @Test func mpdscribbleSubmitsItsPlaysOverAudioscrobbler12() throws {
        let mpdscribble = try Tools.require("mpdscribble")
        let mpd = try MPDInstance(tracks: [
            TestTrack("1.flac", seconds: 32, title: "Scribbled One", artist: "Follower", album: "Second MPD"),
            TestTrack("2.flac", seconds: 32, title: "Scribbled Two", artist: "Follower", album: "Second MPD"),
            TestTrack("3.flac", seconds: 32, title: "Scribbled Three", artist: "Follower"),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let scribbler = try Mpdscribble(mpdscribble, following: mpd, submittingTo: daemon)
        defer { scribbler.stop() }
        func log() -> String { scribbler.log }
        #expect(eventually(timeout: 10) { log().contains("handshake successful") || log().contains("handshake ok") }, "\(log())")
        try mpd.mpc("add", "/")
        // MPD queues the files in its database's order, not by name.
        let queued = try mpd.mpc("playlist", "-f", "%title%").split(separator: "\n").map(String.init)
        try mpd.mpc("play")
        Thread.sleep(forTimeInterval: 18)
        try mpd.mpc("next")
        Thread.sleep(forTimeInterval: 18)
        try mpd.mpc("next")
        #expect(try eventually(timeout: 15) { try daemon.listens().count >= 2 }, "\(log())")
        let listens = try daemon.listens()
        #expect(Set(listens.compactMap(\.title)) == Set(queued.prefix(2)), "\(listens)\n\(log())")
        #expect(listens.count == 2)
        #expect(listens.allSatisfy { $0.json["source"] as? String == "mpdscribble" && $0.player == "living-room" })
        #expect(listens.allSatisfy { $0.counted })
        let submissions = try JSONSerialization.jsonObject(
            with: Data(try run(try Tools.require("curl"), ["-s", daemon.base + "/api/v1/submissions"]).stdout.utf8)) as? [String: Any]
        let entries = submissions?["submissions"] as? [[String: Any]] ?? []
        #expect(entries.contains { $0["protocol"] as? String == "audioscrobbler1.2" && $0["action"] as? String == "handshake"
            && $0["outcome"] as? String == "ok" }, "\(entries)")
    }

    /// mpdscribble and Pacenote's own watcher following the same MPD: each play arrives by
    /// both routes, in either order, and is stored once (the watcher's record kept).
    @Test func mpdscribbleAndTheWatcherOnOneMPDStoreEachPlayOnce() throws {
        let mpdscribble = try Tools.require("mpdscribble")
        let mpd = try MPDInstance(tracks: [
            TestTrack("1.flac", seconds: 32, title: "Twice Heard One", artist: "Follower", album: "Both Routes"),
            TestTrack("2.flac", seconds: 32, title: "Twice Heard Two", artist: "Follower", album: "Both Routes"),
            TestTrack("3.flac", seconds: 32, title: "Twice Heard Three", artist: "Follower"),
        ])
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:\(mpd.port)")
        let scribbler = try Mpdscribble(mpdscribble, following: mpd, submittingTo: daemon)
        defer { scribbler.stop() }
        func log() -> String { scribbler.log }
        #expect(eventually(timeout: 10) { log().contains("handshake successful") || log().contains("handshake ok") }, "\(log())")
        #expect(try eventually(timeout: 10) { try daemon.mpdConnected() })
        try mpd.mpc("add", "/")
        try mpd.mpc("play")
        Thread.sleep(forTimeInterval: 18)
        try mpd.mpc("next")
        Thread.sleep(forTimeInterval: 18)
        try mpd.mpc("next")
        func submissions() throws -> [[String: Any]] {
            let json = try JSONSerialization.jsonObject(
                with: Data(try run(try Tools.require("curl"), ["-s", daemon.base + "/api/v1/submissions"]).stdout.utf8)) as? [String: Any]
            return (json?["submissions"] as? [[String: Any]] ?? []).filter {
                $0["protocol"] as? String == "audioscrobbler1.2" && $0["action"] as? String == "submit"
            }
        }
        // Both routes have delivered: the watcher logged the two plays, mpdscribble submitted them.
        #expect(try eventually(timeout: 15) { try daemon.listens().filter(\.counted).count >= 2 })
        #expect(try eventually(timeout: 20) { try submissions().reduce(0) { $0 + ($1["accepted"] as? Int ?? 0) } >= 2 },
                "mpdscribble did submit: \(String(describing: try? submissions()))\n\(log())")
        // Both routes delivered both plays; a late duplicate (a resubmission) would be an
        // absence to check, with no event to wait on: a short wait.
        Thread.sleep(forTimeInterval: 1)
        let counted = try daemon.listens().filter(\.counted)
        #expect(counted.count == 2, "each play once: \(counted.map { "\($0.title ?? "") \($0.json["source"] ?? "") \($0.json["started_at"] ?? "") \($0.json["ended_at"] ?? "") id \($0.json["id"] ?? "")" })\n\(log())")
        #expect(Set(counted.compactMap(\.title)).count == 2)
        #expect(counted.allSatisfy { $0.json["source"] as? String == "mpd" && $0.uri != nil }, "the watcher's record kept: \(counted)")
    }

    /// Debian's mpdscribble following `mpd`, submitting to Pacenote's 1.2 endpoint as the
    /// player "living-room" with the daemon's key.
    struct Mpdscribble {
        let dir: TemporaryDirectory
        let process = Process()

        init(_ executable: String, following mpd: MPDInstance, submittingTo daemon: PacenoteDaemon) throws {
            dir = try TemporaryDirectory("mpdscribble")
            try """
                host = 127.0.0.1
                port = \(mpd.port)
                log = \(dir.file("mpdscribble.log"))
                verbose = 2

                [pacenote]
                url = \(daemon.base)/apis/audioscrobbler_legacy/
                username = living-room
                password = \(daemon.apiKey)
                journal = \(dir.file("journal"))

                """.write(toFile: dir.file("mpdscribble.conf"), atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["--no-daemon", "--conf", dir.file("mpdscribble.conf")]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
        }

        var log: String { (try? String(contentsOfFile: dir.file("mpdscribble.log"), encoding: .utf8)) ?? "" }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
