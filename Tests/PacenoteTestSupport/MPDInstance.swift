import Foundation

/// A tagged test track, generated with sox as a FLAC file (Vorbis comments carry every tag,
/// BPM included, which MPD exposes through `readcomments`).
public struct TestTrack: Sendable {
    public var file: String
    public var seconds: Double
    public var tags: [String: String]
    /// Tags given more than once (`["ARTIST=A", "ARTIST=B"]`), written after `tags` in this order.
    public var repeatedTags: [String]
    public var frequency: Int
    /// Samples a second and channels; `silent` writes zeros (sox's null input: two hours at 8 kHz
    /// mono take 200 kB and a few seconds).
    public var sampleRate: Int
    public var channels: Int
    public var silent: Bool

    public init(_ file: String, seconds: Double = 3, title: String? = nil, artist: String? = nil,
                album: String? = nil, bpm: Int? = nil, tags: [String: String] = [:], repeatedTags: [String] = [],
                frequency: Int = 440, sampleRate: Int = 44100, channels: Int = 2, silent: Bool = false) {
        self.sampleRate = sampleRate
        self.channels = channels
        self.silent = silent
        var all = tags
        if let title { all["TITLE"] = title }
        if let artist { all["ARTIST"] = artist }
        if let album { all["ALBUM"] = album }
        if let bpm { all["BPM"] = String(bpm) }
        self.file = file
        self.seconds = seconds
        self.tags = all
        self.repeatedTags = repeatedTags
        self.frequency = frequency
    }
}

/// A private MPD for one test: its own music directory of sox-generated tracks, a config
/// on 127.0.0.1 with a free port (and optionally a Unix socket and a password), the `null`
/// audio output playing in real time, and its own state so nothing leaks between tests.
public final class MPDInstance: @unchecked Sendable {
    // @unchecked Sendable: the process handle is only touched by the test that owns the
    // instance (start/stop are not called concurrently).
    public let directory: TemporaryDirectory
    public private(set) var port: UInt16
    public let password: String?
    /// With `stream: true`, the port of MPD's `httpd` output: an Ogg Vorbis radio station
    /// at `http://127.0.0.1:PORT/` whose titles change with each song.
    public private(set) var streamPort: UInt16?
    public var socketPath: String { directory.file("mpd.socket") }
    public var musicDirectory: String { directory.file("music") }
    private let mpdPath: String
    private let mpcPath: String
    private var process: Process?
    /// The null output gets MPD's software mixer, so the volume can be set (issue 57's controls).
    private let volume: Bool

    /// `firstPort` asks for a first port to try (tests of this start's retry).
    public init(tracks: [TestTrack] = [TestTrack("a.flac", title: "Alpha", artist: "Tester")],
                password: String? = nil, stream: Bool = false, start: Bool = true, firstPort: UInt16? = nil,
                volume: Bool = false) throws {
        self.volume = volume
        mpdPath = try Tools.require("mpd")
        mpcPath = try Tools.require("mpc")
        let sox = try Tools.require("sox")
        directory = try TemporaryDirectory("pacenote-mpd")
        port = try firstPort ?? Ports.free()
        streamPort = stream ? try Ports.free() : nil
        self.password = password
        try FileManager.default.createDirectory(atPath: directory.file("music"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("playlists"), withIntermediateDirectories: true)
        for track in tracks {
            let output = directory.file("music/\(track.file)")
            try FileManager.default.createDirectory(
                atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // One --add-comment per tag: repeated --comment leaves empty entries (PLATFORM.md).
            var args = ["-n", "-r", String(track.sampleRate), "-c", String(track.channels)]
            for (key, value) in track.tags.sorted(by: { $0.key < $1.key }) { args += ["--add-comment", "\(key)=\(value)"] }
            for comment in track.repeatedTags { args += ["--add-comment", comment] }
            args += [output] + (track.silent ? ["trim", "0", String(track.seconds)] : ["synth", String(track.seconds), "sine", String(track.frequency)])
            try run(sox, args)
        }
        try writeConfig()
        guard start else { return }
        // A port that was free a moment ago can be taken before MPD binds it (another
        // test's server asks the kernel for any port): MPD then exits, and it starts again
        // on new ports.
        for attempt in 1... {
            do {
                try self.start()
                return
            } catch is PortTaken where attempt < 5 {
                port = try Ports.free()
                if streamPort != nil { streamPort = try Ports.free() }
                try writeConfig()
            }
        }
    }

    private func writeConfig() throws {
        var config = """
            music_directory     "\(directory.file("music"))"
            db_file             "\(directory.file("database"))"
            state_file          "\(directory.file("state"))"
            sticker_file        "\(directory.file("sticker.sql"))"
            playlist_directory  "\(directory.file("playlists"))"
            log_file            "\(directory.file("mpd.log"))"
            bind_to_address     "127.0.0.1"
            bind_to_address     "\(directory.file("mpd.socket"))"
            port                "\(port)"
            auto_update         "no"

            """
        if let streamPort {
            config += """
                audio_output {
                    type            "httpd"
                    name            "station"
                    encoder         "vorbis"
                    quality         "2"
                    format          "44100:16:2"
                    bind_to_address "127.0.0.1"
                    port            "\(streamPort)"
                }

                """
        } else {
            config += """
                audio_output {
                    type        "null"
                    name        "null"
                    sync        "yes"
                    mixer_type  "\(volume ? "software" : "none")"
                }

                """
        }
        if let password { config += "password \"\(password)@read,add,control,admin\"\n" }
        try config.write(toFile: directory.file("mpd.conf"), atomically: true, encoding: .utf8)
    }

    deinit { stop() }

    public var hostForClients: String { password.map { "\($0)@127.0.0.1" } ?? "127.0.0.1" }

    /// Starts MPD (again), waits for its port and indexes the music directory.
    /// MPD restores its queue and "play" from its state file; by default each start
    /// begins from nothing (`keepState` restarts where a stopped MPD left off).
    public func start(keepState: Bool = false) throws {
        guard process == nil else { return }
        if !keepState { try? FileManager.default.removeItem(atPath: directory.file("state")) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: mpdPath)
        p.arguments = ["--no-daemon", directory.file("mpd.conf")]
        p.standardInput = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        process = p
        // MPD binds 127.0.0.1:port before its Unix socket, and exits if it cannot: once the
        // socket answers, the port is this MPD's and not another server's that took it.
        let deadline = Date().addingTimeInterval(10)
        while !Self.socketAnswers(socketPath) {
            if !p.isRunning {
                p.waitUntilExit()
                process = nil
                throw PortTaken(message: "mpd exited (\(p.terminationStatus)) while starting on port \(port):\n\(log)")
            }
            guard Date() < deadline else { throw HarnessError("mpd did not start on port \(port):\n\(log)") }
            usleep(20_000)
        }
        try mpc("--wait", "update")
    }

    /// Stops MPD with SIGTERM and waits for it to exit (MPD takes about a second).
    public func stop() {
        guard let p = process else { return }
        p.terminate()
        p.waitUntilExit()
        process = nil
    }

    /// Kills MPD with SIGKILL: no state is saved.
    public func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    public var isRunning: Bool { process?.isRunning ?? false }

    private var log: String { (try? String(contentsOfFile: directory.file("mpd.log"), encoding: .utf8)) ?? "" }

    /// MPD could not bind its port (or its socket): it exited at start.
    struct PortTaken: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    private static func socketAnswers(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }

    /// Sends one raw protocol command (e.g. `seekcur 7`) and returns MPD's answer.
    @discardableResult
    public func command(_ line: String) throws -> String {
        guard let fd = Ports.connect(port) else { throw HarnessError("cannot connect to mpd on \(port)") }
        defer { close(fd) }
        var text = ""
        if let password { text += "password \(password)\n" }
        text += line + "\nclose\n"
        _ = text.withCString { send(fd, $0, strlen($0), 0) }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            answer += buffer[0..<n]
        }
        let reply = String(decoding: answer, as: UTF8.self)
        if reply.contains("ACK ") { throw HarnessError("mpd refused '\(line)': \(reply)") }
        return reply
    }

    /// Runs `mpc` against this MPD and returns its standard output.
    @discardableResult
    public func mpc(_ arguments: String...) throws -> String { try mpc(arguments) }

    @discardableResult
    public func mpc(_ arguments: [String]) throws -> String {
        try run(mpcPath, ["--host", hostForClients, "--port", String(port)] + arguments).stdout
    }
}
