import Foundation
import PacenoteTestSupport

/// The ten-minute demo DemoTenMinutesTests checks: started by the test itself
/// (`PipedProcess` and demo_browser.py), or found already under way when scripts/test
/// started it before the tests were built (`PACENOTE_DEMO_EARLY`, Clients/demo_early.py:
/// the ten minutes then overlap the build instead of following it).
protocol DemoRun: Sendable {
    var mpdPort: UInt16 { get }
    /// Standard output so far (a pipe, read as it comes) and standard error.
    var stdout: String { get }
    var stderr: String { get }
    var isRunning: Bool { get }
    /// demo_browser.py's result, once its ten minutes are over: awaited off Swift's pool.
    func browserChecks() async throws -> (status: Int32, stdout: String, stderr: String)
    /// SIGTERM, and the exit status.
    func stop() async throws -> Int32
}

/// The demo the test starts: a `PipedProcess` on a port the test chooses, then the browser.
final class DemoStartedHere: DemoRun {
    let mpdPort: UInt16
    let demo: PipedProcess
    let python: String, script: String, artifacts: String, minutes: Int
    private var base: String {
        let banner = stdout.split(separator: "\n").first.map(String.init) ?? ""
        return "http://127.0.0.1:" + (banner.components(separatedBy: "http://127.0.0.1:").dropFirst().first?.prefix { $0.isNumber } ?? "")
    }

    init(python: String, script: String, artifacts: String, minutes: Int) throws {
        (self.python, self.script, self.artifacts, self.minutes) = (python, script, artifacts, minutes)
        mpdPort = try Ports.free()
        demo = try PipedProcess(["demo", "--http", "127.0.0.1:0", "--mpd-port", String(mpdPort)])
    }

    var stdout: String { demo.stdout }
    var stderr: String { demo.stderr }
    var isRunning: Bool { demo.process.isRunning }

    func browserChecks() async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runOffThePool(python, [script, base, artifacts, String(minutes)], allowFailure: true)
    }

    func stop() async throws -> Int32 {
        demo.process.terminate()
        demo.process.waitUntilExit()
        return demo.process.terminationStatus
    }
}

/// The demo scripts/test started early (Clients/demo_early.py): its files in `directory`.
final class DemoStartedEarly: DemoRun {
    let directory: String
    let mpdPort: UInt16
    let pid: pid_t

    /// Waits (a minute at most) for the launcher to have started the demo.
    init(directory: String) async throws {
        self.directory = directory
        let deadline = Date().addingTimeInterval(60)
        while Self.read(directory + "/pid") == nil, Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        guard let pid = Self.read(directory + "/pid").flatMap({ pid_t($0) }),
              let port = Self.read(directory + "/mpd-port").flatMap({ UInt16($0) }) else {
            throw HarnessError("\(directory): scripts/test's early demo (Clients/demo_early.py) never started")
        }
        (self.pid, mpdPort) = (pid, port)
    }

    static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8)).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    var stdout: String { (try? String(contentsOfFile: directory + "/stdout", encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: directory + "/stderr", encoding: .utf8)) ?? "" }
    var isRunning: Bool { Self.read(directory + "/exit-status") == nil && kill(pid, 0) == 0 }

    /// Polls for a file the launcher writes whole, with `Task.sleep`: no thread is held.
    private func awaitFile(_ name: String, minutes: Double) async throws -> String {
        let deadline = Date().addingTimeInterval(minutes * 60)
        while Date() < deadline {
            if let text = Self.read(directory + "/" + name) { return text }
            try await Task.sleep(for: .milliseconds(250))
        }
        throw HarnessError("\(directory)/\(name): not written within \(minutes) minutes")
    }

    func browserChecks() async throws -> (status: Int32, stdout: String, stderr: String) {
        let status = try await awaitFile("browser.status", minutes: 20)
        return (Int32(status) ?? -1, Self.read(directory + "/browser.stdout") ?? "", Self.read(directory + "/browser.stderr") ?? "")
    }

    func stop() async throws -> Int32 {
        kill(pid, SIGTERM)
        return Int32(try await awaitFile("exit-status", minutes: 1)) ?? -1
    }
}
