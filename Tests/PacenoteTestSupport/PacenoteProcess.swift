import Foundation

/// The built `pacenote` executable, run as a user would run it.
public final class PacenoteProcess: @unchecked Sendable {
    // @unchecked Sendable: the process handle is only used by the test that owns it.
    public let process: Process
    public let stderrPath: String
    private let directory: TemporaryDirectory

    /// The `pacenote` binary next to the test bundle (SwiftPM builds it first because the
    /// end-to-end tests depend on the executable target), or `$PACENOTE_BIN`.
    public static func binary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["PACENOTE_BIN"] { return path }
        var candidates: [URL] = []
        if let exe = Bundle.main.executableURL { candidates.append(exe.deletingLastPathComponent()) }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for dir in candidates {
            var d = dir
            for _ in 0..<4 {
                let candidate = d.appendingPathComponent("pacenote").path
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
                d = d.deletingLastPathComponent()
            }
        }
        throw HarnessError("the pacenote binary was not found next to the tests; run `swift build` first or set PACENOTE_BIN")
    }

    /// The release build (`.build/release/pacenote`, what `scripts/run` starts and the
    /// package ships; `scripts/test` builds it before the tests), or `$PACENOTE_RELEASE_BIN`.
    public static func releaseBinary() throws -> String {
        if let path = ProcessInfo.processInfo.environment["PACENOTE_RELEASE_BIN"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let path = root.appendingPathComponent(".build/release/pacenote").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw HarnessError("no release build at \(path): run scripts/test (it builds it) or swift build -c release")
        }
        return path
    }

    /// Runs `pacenote ARGS` to completion.
    public static func run(_ arguments: [String], environment: [String: String] = [:],
                           input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try PacenoteTestSupport.run(try binary(), arguments, environment: cleanEnvironment(environment), allowFailure: true,
                                    input: input)
    }

    /// An environment without the developer's own MPD or Pacenote settings.
    public static func cleanEnvironment(_ extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("MPD_") && !$0.key.hasPrefix("PACENOTE_") && !$0.key.hasPrefix("XDG_") }
        for (k, v) in extra { env[k] = v }
        return env
    }

    /// Starts `pacenote ARGS` in the background; its stderr goes to a file for inspection.
    /// `binary`: another copy of the executable than the one built beside the tests.
    /// `captureOutput`: its stdout to a file as well (`stdout`), not thrown away.
    public init(_ arguments: [String], environment: [String: String] = [:], binary: String? = nil,
                captureOutput: Bool = false) throws {
        directory = try TemporaryDirectory("pacenote-proc")
        stderrPath = directory.file("stderr.log")
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let stdoutPath = directory.file("stdout.log")
        if captureOutput { FileManager.default.createFile(atPath: stdoutPath, contents: nil) }
        process = Process()
        process.executableURL = URL(fileURLWithPath: try binary ?? Self.binary())
        process.arguments = arguments
        process.environment = Self.cleanEnvironment(environment)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = captureOutput ? FileHandle(forWritingAtPath: stdoutPath) : FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
    /// What it wrote on stdout, when started with `captureOutput`.
    public var stdout: String { (try? String(contentsOfFile: directory.file("stdout.log"), encoding: .utf8)) ?? "" }

    public func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Waits for the process to exit and returns its status.
    public func wait(timeout: Double = 15) throws -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { throw HarnessError("pacenote did not exit within \(timeout) s:\n\(stderr)") }
            usleep(20_000)
        }
        return process.terminationStatus
    }
}
