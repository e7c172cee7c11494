import Foundation
import PacenoteTestSupport
import Testing

/// The packaged binary, started from the unpacked package with the packaged config as the
/// system unit starts it, against a real MPD. systemd itself cannot run here, so what it would
/// do is done by hand: stderr connected to a "journal" (`JOURNAL_STREAM` naming it), SIGTERM
/// to stop, and the syscalls the unit's filters allow checked under strace.
@Suite struct PackagedServiceTests {
    /// `pacenote serve` as the unit's ExecStart= runs it, with the database in a temporary
    /// folder and a free port; stderr goes to a file whose device and inode are given in
    /// `JOURNAL_STREAM` when `journal` (what systemd does for a stream connected to journald).
    final class Service: @unchecked Sendable {
        // @unchecked Sendable: owned by the one test that started it.
        let process = Process()
        let data: TemporaryDirectory
        let stderrPath: String
        var port: UInt16 = 0

        init(_ package: BuiltPackage, mpd: MPDInstance, journal: String?, launcher: [String] = []) throws {
            data = try TemporaryDirectory("pacenote-packaged")
            chmod(data.path, 0o777)
            stderrPath = data.file("stderr")
            FileManager.default.createFile(atPath: stderrPath, contents: nil)
            var status = stat()
            stat(stderrPath, &status)
            var environment = PacenoteProcess.cleanEnvironment(["HOME": data.path])
            switch journal {
            case "this file": environment["JOURNAL_STREAM"] = "\(status.st_dev):\(status.st_ino)"
            case let other?: environment["JOURNAL_STREAM"] = other
            case nil: environment["JOURNAL_STREAM"] = nil
            }
            let serve = [package.binary, "serve", "--config", package.config, "--db", data.file("pacenote.sqlite"),
                         "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:\(mpd.port)"]
            let command = launcher + serve
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle(forWritingAtPath: stderrPath)
            try process.run()
            let marker = "serving http://127.0.0.1:"
            _ = eventually(timeout: 20) {
                guard let range = stderr.range(of: marker) else { return !process.isRunning }
                port = UInt16(stderr[range.upperBound...].prefix { $0.isNumber }) ?? 0
                return true
            }
            guard port != 0 else { throw HarnessError("the packaged pacenote did not start:\n\(stderr)") }
        }

        var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
        var base: String { "http://127.0.0.1:\(port)" }

        /// SIGTERM to `pid` (the service, or the program a launcher runs); its exit status.
        func stop(pid: Int32? = nil) -> Int32? {
            kill(pid ?? process.processIdentifier, SIGTERM)
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            guard !process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            return process.terminationStatus
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
    }

    /// A log line as StreamLogHandler writes it starts with a local timestamp.
    static func hasTimestamp(_ line: Substring) -> Bool {
        line.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"#, options: .regularExpression) != nil
    }

    @Test func itServesFromTheUnpackedTreeLogsForTheJournalAndStopsOnSIGTERM() throws {
        let package = try BuiltPackage.shared()
        let mpd = try MPDInstance()
        let service = try Service(package, mpd: mpd, journal: "this file")
        #expect(try HTTP.get(service.base + "/healthz").status == 200)
        #expect(eventually(timeout: 10) { (try? HTTP.get(service.base + "/api/v1/status").text.contains(#""connected":true"#)) ?? false },
                "the packaged binary follows the real MPD")
        #expect(try HTTP.get(service.base + "/static/site.css").status == 200, "the site is inside the binary")
        #expect(FileManager.default.fileExists(atPath: service.data.file("pacenote.sqlite")))
        #expect(service.stop() == 0, "SIGTERM is a clean stop, exit 0:\n\(service.stderr)")

        // journald stamps each line itself: none of ours carries a time, each its priority.
        let lines = service.stderr.split(separator: "\n")
        #expect(lines.count >= 2, "\(service.stderr)")
        for line in lines {
            #expect(line.range(of: #"^<[2-7]>"#, options: .regularExpression) != nil, "no syslog priority: \(line)")
            #expect(!Self.hasTimestamp(line.dropFirst(3)), "a timestamp under journald: \(line)")
        }
        #expect(lines.contains { $0.hasPrefix("<6>info pacenote:") && $0.contains("serving http://127.0.0.1:") }, "\(lines)")
    }

    /// `JOURNAL_STREAM` is inherited by children whose stderr may be anything: only a match
    /// with the process's own stderr means the journal.
    @Test func anInheritedJournalStreamThatIsNotItsStderrKeepsTimestamps() throws {
        let package = try BuiltPackage.shared()
        let mpd = try MPDInstance()
        let service = try Service(package, mpd: mpd, journal: "1:1")
        #expect(service.stop() == 0)
        let lines = service.stderr.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy(Self.hasTimestamp), "\(service.stderr)")
    }
}
