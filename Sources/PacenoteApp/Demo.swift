import Foundation
import Logging
import PacenoteCore
import PacenoteMPD

/// `pacenote demo`: a private MPD with a generated library (titles, artists, albums, BPMs,
/// covers) whose first half plays on repeat, and a simulated workout's heart rate, so a
/// newcomer sees the dashboard, a workout and a song of the day fill in within a minute,
/// likes and a published review soon after (`Tour`), and suggestions for as long as it
/// runs. Everything lives in one temporary folder, removed on exit; the user's own database
/// is never touched.
public final class Demo: @unchecked Sendable {
    // @unchecked Sendable: `mpd` and `stopping` are set before the feeder thread starts and
    // only read afterwards (stopping through its lock).
    public let directory: String
    public let mpdPort: UInt16
    private let mpd: Process
    private let stopping = NSCondition()
    private var stopped = false

    struct Song {
        var artist, album, title: String
        var bpm: Int
        var track = 1

        /// Its path in MPD's library.
        var uri: String { "\(artist)/\(album)/\(track) \(title).flac" }
    }

    /// What MPD plays on repeat: 12 songs of 20 s, a 4-minute loop.
    static let loop: [Song] = numbered([
        Song(artist: "Northern Lights", album: "Tempo Run", title: "First Mile", bpm: 124),
        Song(artist: "Northern Lights", album: "Tempo Run", title: "Steady State", bpm: 128),
        Song(artist: "Northern Lights", album: "Tempo Run", title: "Negative Split", bpm: 134),
        Song(artist: "Los Ritmos", album: "Calor", title: "Sube la Cuesta", bpm: 140),
        Song(artist: "Los Ritmos", album: "Calor", title: "Último Kilómetro", bpm: 146),
        Song(artist: "Los Ritmos", album: "Calor", title: "Respira (feat. Ana)", bpm: 118),
        Song(artist: "The Intervals", album: "Threshold", title: "Redline", bpm: 160),
        Song(artist: "The Intervals", album: "Threshold", title: "Recovery Lap", bpm: 100),
        Song(artist: "The Intervals", album: "Threshold", title: "Kick", bpm: 172),
        Song(artist: "Mira Sol", album: "Cooldown", title: "Slow Breath", bpm: 90),
        Song(artist: "Mira Sol", album: "Cooldown", title: "Stretch", bpm: 96),
        Song(artist: "Mira Sol", album: "Cooldown", title: "Home Straight", bpm: 110),
    ])

    /// The library beyond the loop: never queued by the demo, so never played recently nor
    /// queued, it keeps "Up next" filled in every zone (at least two songs in each zone's
    /// tempo window, `TempoTable.defaults`) however long the demo runs (issue 52).
    static let beyondTheLoop: [Song] = numbered([
        Song(artist: "Harbour Wind", album: "Tide Tables", title: "Low Tide", bpm: 104),
        Song(artist: "Harbour Wind", album: "Tide Tables", title: "Breakwater", bpm: 112),
        Song(artist: "Harbour Wind", album: "Tide Tables", title: "Lighthouse", bpm: 118),
        Song(artist: "Harbour Wind", album: "Tide Tables", title: "Open Water", bpm: 121),
        Song(artist: "Kilometre Club", album: "Splits", title: "Even Pace", bpm: 124),
        Song(artist: "Kilometre Club", album: "Splits", title: "Fartlek", bpm: 127),
        Song(artist: "Kilometre Club", album: "Splits", title: "Hill Reps", bpm: 129),
        Song(artist: "Kilometre Club", album: "Splits", title: "Tempo Tuesday", bpm: 132),
        Song(artist: "Vela", album: "Summit", title: "Switchbacks", bpm: 133),
        Song(artist: "Vela", album: "Summit", title: "Ridge Line", bpm: 137),
        Song(artist: "Vela", album: "Summit", title: "Thin Air", bpm: 139),
        Song(artist: "Vela", album: "Summit", title: "Summit Push", bpm: 143),
    ])

    static var library: [Song] { loop + beyondTheLoop }

    /// The loop's artists' folders: what MPD queues.
    static var loopFolders: [String] {
        var seen = Set<String>()
        return loop.map(\.artist).filter { seen.insert($0).inserted }
    }

    /// Track numbers in album order.
    private static func numbered(_ songs: [Song]) -> [Song] {
        var next: [String: Int] = [:]
        return songs.map { song in
            var song = song
            song.track = next[song.album, default: 1]
            next[song.album] = song.track + 1
            return song
        }
    }

    /// Songs played in the last this many hours are not suggested (`recommender.recent_hours`):
    /// 3 minutes, shorter than the loop, so the loop's songs come back to "Up next" too.
    static let recentHours = 3.0 / 60

    /// Generates the library with sox, starts MPD on loopback (on `mpdPort`, or a free port)
    /// and plays the loop. `stopRequested` is asked between songs and while MPD starts (a
    /// Ctrl-C then): the demo removes what it made so far and throws `Demo.Interrupted`.
    public init(logger: Logger, mpdPort requestedPort: UInt16? = nil,
                stopRequested: @escaping @Sendable () -> Bool = { false }) throws {
        func tool(_ name: String) throws -> String {
            for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/sbin", "/usr/bin"] {
                let path = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            throw StartupError("demo: '\(name)' is not installed (apt-get install mpd sox; scripts/run --demo does it)")
        }
        let mpdPath = try tool("mpd"), sox = try tool("sox")
        // A port asked for is checked before the songs are made: a clash fails at once.
        if let requestedPort { _ = try Demo.freePort(requestedPort) }
        // A fresh folder only this user can enter (mkdtemp): MPD's configuration goes in it.
        var template = Array((NSTemporaryDirectory() + "pacenote-demo-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw StartupError("demo: cannot create a temporary folder: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        do {
            try Demo.prepare(directory: directory, sox: sox, logger: logger, stopRequested: stopRequested)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        do {
            mpdPort = try Demo.freePort(requestedPort ?? 0)
            try FileManager.default.createDirectory(atPath: directory + "/playlists", withIntermediateDirectories: true)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        let music = directory + "/music"
        // Stored playlists (playlist_directory) hold "Liked"; the sticker file, the songs' feelings.
        let conf = """
            music_directory "\(music)"
            db_file "\(directory)/mpd.db"
            state_file "\(directory)/mpd.state"
            sticker_file "\(directory)/sticker.sql"
            playlist_directory "\(directory)/playlists"
            log_file "\(directory)/mpd.log"
            bind_to_address "127.0.0.1"
            port "\(mpdPort)"
            auto_update "no"
            audio_output {
                type "null"
                name "demo"
                sync "yes"
                mixer_type "none"
            }

            """
        try conf.write(toFile: directory + "/mpd.conf", atomically: true, encoding: .utf8)
        mpd = Process()
        mpd.executableURL = URL(fileURLWithPath: mpdPath)
        mpd.arguments = ["--no-daemon", directory + "/mpd.conf"]
        mpd.standardOutput = FileHandle.nullDevice
        mpd.standardError = FileHandle.nullDevice
        do {
            try mpd.run()
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw StartupError("demo: cannot start mpd: \(error)")
        }
        let endpoint = MPDEndpoint(location: .tcp(host: "127.0.0.1", port: mpdPort), password: nil)
        var lastError: (any Error)?
        for _ in 0..<100 {
            if stopRequested() {
                stop()
                throw Interrupted()
            }
            do {
                try MPDControl.playEverything(endpoint: endpoint, under: Demo.loopFolders)
                lastError = nil
                break
            } catch {
                lastError = error
                usleep(100_000)
            }
        }
        if let lastError {
            let log = (try? String(contentsOfFile: directory + "/mpd.log", encoding: .utf8)) ?? ""
            stop()
            throw StartupError("demo: MPD did not start on 127.0.0.1:\(mpdPort): \(lastError)"
                               + (log.isEmpty ? "" : "; its log:\n" + log.split(separator: "\n").suffix(5).joined(separator: "\n")))
        }
    }

    /// Stopped while setting up; nothing of it is left.
    public struct Interrupted: Error {}

    /// The library: a FLAC per song with its tags (BPM included) and a cover per album.
    static func prepare(directory: String, sox: String, logger: Logger, stopRequested: () -> Bool) throws {
        let music = directory + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        // Four sox at a time: the songs are made in a few seconds even on a small machine.
        func run(_ commands: [[String]]) throws {
            let started = try commands.map { arguments -> Process in
                let p = Process()
                p.executableURL = URL(fileURLWithPath: sox)
                p.arguments = arguments
                p.standardOutput = FileHandle.nullDevice
                p.standardError = FileHandle.nullDevice
                try p.run()
                return p
            }
            for (p, arguments) in zip(started, commands) {
                p.waitUntilExit()
                guard p.terminationStatus == 0 else { throw StartupError("demo: \(sox) \(arguments.joined(separator: " ")) failed") }
            }
        }
        logger.info("demo: generating \(Self.library.count) songs in \(music)")
        var commands: [[String]] = []
        for (i, song) in Self.library.enumerated() {
            let folder = "\(music)/\(song.artist)/\(song.album)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // 20 s each: a play counts after 10 s, so the dashboard fills in quickly.
            commands.append(["-n", "-r", "22050", "-c", "1",
                             "--add-comment", "TITLE=\(song.title)", "--add-comment", "ARTIST=\(song.artist)",
                             "--add-comment", "ALBUM=\(song.album)", "--add-comment", "BPM=\(song.bpm)",
                             "--add-comment", "TRACKNUMBER=\(song.track)",
                             "\(music)/\(song.uri)", "synth", "20", "pluck", String(220 + 30 * i)])
            if song.track == 1 {
                let k = i % 12
                commands.append(["-n", "-n", "synth", "3", "sine", "\(200 + 150 * k)-\(4000 - 200 * k)", "spectrogram",
                                 "-x", "300", "-y", "257", "-r", "-o", "\(folder)/cover.png"])
            }
        }
        for start in stride(from: 0, to: commands.count, by: 4) {
            if stopRequested() { throw Interrupted() }
            try run(Array(commands[start..<min(start + 4, commands.count)]))
        }
    }

    /// The configuration the demo serves with: its MPD, its own database, a play counting
    /// after 10 s, workouts that start and end quickly, and a recent-play window shorter
    /// than the loop.
    public func configure(_ config: inout Config) {
        config.databasePath = directory + "/pacenote.sqlite"
        // Only the demo's MPD: never the players of the user's own configuration.
        var player = Config.MPD()
        player.host = "127.0.0.1"
        player.port = mpdPort
        player.reconnectInitialSeconds = 0.2
        config.players = [player]
        config.playRule = PlayRule(minimumDuration: 10, fraction: 0.5, sufficientSeconds: 240, streamSeconds: 20)
        config.heartRate.maxHR = 190
        config.heartRate.workoutStartAfterSeconds = 10
        config.heartRate.workoutEndAfterSeconds = 30
        config.recommender.recentHours = Demo.recentHours
    }

    /// Once it serves: a heart rate every second — rest, a warm-up, intervals up to zone 4–5,
    /// a cool-down, then a minute with the strap off (the workout ends), over and over (a
    /// 6-minute cycle), with a little noise — and the `Tour`'s steps until it is done.
    /// `announce` prints a line for the person watching.
    public func play(with server: PacenoteServer, logger: Logger, announce: @escaping @Sendable (String) -> Void) {
        let service = server.heartRate
        let tour = Tour(server: server, logger: logger, announce: announce)
        let thread = Thread { [self] in
            let start = Date()
            var generator = SystemRandomNumberGenerator()
            var toured = false
            while true {
                if !toured { toured = tour.step() }
                let t = Date().timeIntervalSince(start).truncatingRemainder(dividingBy: 360)
                let bpm: Double
                switch t {
                case ..<15: bpm = 72
                case ..<75: bpm = 72 + (t - 15) * 1.2                        // warm-up to ~144
                case ..<255:
                    let phase = (t - 75).truncatingRemainder(dividingBy: 60)  // 3 intervals
                    bpm = phase < 35 ? 150 + phase * 0.5 : 165 - (phase - 35) * 0.9
                case ..<300: bpm = 150 - (t - 255) * 1.6                     // cool-down
                default: bpm = 0                                             // strap off
                }
                let sample = HeartRateSample(at: Date(), bpm: Int(bpm.rounded()) + Int.random(in: -2...2, using: &generator))
                do {
                    if bpm > 0 { _ = try service.ingest([sample], source: "demo") }
                } catch {
                    logger.warning("demo heart rate: \(error)")
                }
                stopping.lock()
                if !stopped { _ = stopping.wait(until: Date().addingTimeInterval(1)) }
                let done = stopped
                stopping.unlock()
                if done { return }
            }
        }
        thread.name = "demo-heart-rate"
        thread.start()
    }

    /// Stops the heart-rate feeder (before the server closes the database).
    public func stopFeeding() {
        stopping.lock()
        stopped = true
        stopping.broadcast()
        stopping.unlock()
    }

    /// Stops the feeder and MPD and removes the demo's folder.
    public func stop() {
        stopFeeding()
        if mpd.isRunning {
            mpd.terminate()
            mpd.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `port` on 127.0.0.1 if it is free (0: any free port), as MPD will bind it.
    static func freePort(_ port: UInt16 = 0) throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartupError("demo: no socket") }
        defer { close(fd) }
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            throw StartupError(port == 0 ? "demo: no free port for MPD (\(reason))"
                               : "demo: --mpd-port \(port): 127.0.0.1:\(port) cannot be used (\(reason)); choose another port")
        }
        return UInt16(bigEndian: address.sin_port)
    }
}
