import Foundation
import Logging
import PacenoteCore
import PacenoteMPD

/// `pacenote demo`: a private MPD with a generated library (titles, artists, albums, BPMs,
/// covers) playing on repeat, and a simulated workout's heart rate, so a newcomer sees the
/// dashboard, a workout and a song of the day fill in within a minute. Everything lives in
/// one temporary folder, removed on exit; the user's own database is never touched.
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
    }

    static let library: [Song] = [
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
    ]

    /// Generates the library with sox, starts MPD on a free loopback port and plays it all.
    /// `stopRequested` is asked between songs and while MPD starts (a Ctrl-C then): the
    /// demo removes what it made so far and throws `Demo.Interrupted`.
    public init(logger: Logger, stopRequested: @escaping @Sendable () -> Bool = { false }) throws {
        func tool(_ name: String) throws -> String {
            for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/sbin", "/usr/bin"] {
                let path = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
            }
            throw StartupError("demo: '\(name)' is not installed (apt-get install mpd sox; scripts/run --demo does it)")
        }
        let mpdPath = try tool("mpd"), sox = try tool("sox")
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
        mpdPort = try Demo.freePort()
        let music = directory + "/music"
        let conf = """
            music_directory "\(music)"
            db_file "\(directory)/mpd.db"
            state_file "\(directory)/mpd.state"
            sticker_file "\(directory)/sticker.sql"
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
                try MPDControl.playEverything(endpoint: endpoint)
                lastError = nil
                break
            } catch {
                lastError = error
                usleep(100_000)
            }
        }
        if let lastError {
            stop()
            throw StartupError("demo: MPD did not start: \(lastError) (its log: \(directory)/mpd.log)")
        }
    }

    /// Stopped while setting up; nothing of it is left.
    public struct Interrupted: Error {}

    /// The library: a FLAC per song with its tags (BPM included) and a cover per album.
    static func prepare(directory: String, sox: String, logger: Logger, stopRequested: () -> Bool) throws {
        let music = directory + "/music"
        try FileManager.default.createDirectory(atPath: music, withIntermediateDirectories: true)
        func run(_ path: String, _ arguments: [String]) throws {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: path)
            p.arguments = arguments
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw StartupError("demo: \(path) \(arguments.joined(separator: " ")) failed") }
        }
        logger.info("demo: generating \(Self.library.count) songs in \(music)")
        for (i, song) in Self.library.enumerated() {
            if stopRequested() { throw Interrupted() }
            let folder = "\(music)/\(song.artist)/\(song.album)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            // 20 s each: a play counts after 10 s, so the dashboard fills in quickly.
            try run(sox, ["-n", "-r", "22050", "-c", "1",
                          "--add-comment", "TITLE=\(song.title)", "--add-comment", "ARTIST=\(song.artist)",
                          "--add-comment", "ALBUM=\(song.album)", "--add-comment", "BPM=\(song.bpm)",
                          "--add-comment", "TRACKNUMBER=\(i % 3 + 1)",
                          "\(folder)/\(i % 3 + 1) \(song.title).flac", "synth", "20", "pluck", String(220 + 30 * i)])
            if !FileManager.default.fileExists(atPath: "\(folder)/cover.png") {
                try run(sox, ["-n", "-n", "synth", "3", "sine", "\(200 + 150 * i)-\(4000 - 200 * i)", "spectrogram",
                              "-x", "300", "-y", "257", "-r", "-o", "\(folder)/cover.png"])
            }
        }
    }

    /// The configuration the demo serves with: its MPD, its own database, a play counting
    /// after 10 s, and workouts that start and end quickly.
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
    }

    /// A heart rate every second: rest, a warm-up, intervals up to zone 4–5, a cool-down,
    /// then a minute with the strap off (the workout ends), over and over (a 6-minute cycle),
    /// with a little noise.
    public func feedHeartRate(into service: HeartRateService, logger: Logger) {
        let thread = Thread { [self] in
            let start = Date()
            var generator = SystemRandomNumberGenerator()
            while true {
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

    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StartupError("demo: no socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw StartupError("demo: no free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
