import Foundation
import PacenoteTestSupport
import Testing

/// `pacenote demo`: within a minute a newcomer sees plays, a workout and a song of the day;
/// on exit nothing is left behind.
@Suite struct DemoTests {
    @Test func theDemoFillsInTheDashboardAndCleansUp() throws {
        _ = try Tools.require("mpd")
        _ = try Tools.require("sox")
        let demo = try PacenoteProcess(["demo", "--http", "127.0.0.1:0", "--log-level", "info"])
        // Whatever happens, the demo stops the way a user stops it (its MPD and folder go too).
        defer {
            if demo.process.isRunning {
                demo.signal(SIGTERM)
                _ = try? demo.wait()
            }
        }
        var base = ""
        var folder = ""
        let serving = try eventually(timeout: 30) {
            let log = demo.stderr
            guard let range = log.range(of: "serving http://127.0.0.1:") else { return !demo.process.isRunning }
            base = "http://127.0.0.1:" + String(log[range.upperBound...].prefix { $0.isNumber })
            if let db = log.range(of: "(database ") {
                folder = ((String(log[db.upperBound...].prefix { $0 != ")" })) as NSString).deletingLastPathComponent
            }
            return true
        }
        #expect(serving && demo.process.isRunning, "\(demo.stderr)")
        #expect(folder.contains("pacenote-demo"))
        // A song counts after 10 of its 20 seconds.
        let played = try eventually(timeout: 40) {
            let listens = try HTTP.get(base + "/api/v1/listens").json?["listens"] as? [[String: Any]] ?? []
            return listens.contains { $0["counted"] as? Bool == true }
        }
        #expect(played)
        let today = try HTTP.get(base + "/").text
        #expect(today.contains("Northern Lights") || today.contains("Los Ritmos") || today.contains("The Intervals") || today.contains("Mira Sol"))
        let workout = try eventually(timeout: 20) {
            !(try HTTP.get(base + "/api/v1/workouts").json?["workouts"] as? [[String: Any]] ?? []).isEmpty
        }
        #expect(workout, "the simulated workout was detected")
        let status = try HTTP.get(base + "/api/v1/status").json
        #expect((status?["heart_rate"] as? [String: Any])?["bpm"] != nil)
        let sotd = try HTTP.get(base + "/sotd")
        #expect(sotd.status == 200 && sotd.text.contains("ol class=\"calendar\""))
        demo.signal(SIGTERM)
        #expect(try demo.wait() == 0)
        #expect(!FileManager.default.fileExists(atPath: folder), "the demo folder is removed")
    }

    /// The demo's address is the first line on standard output, at once though that is a
    /// pipe; the demo likes three songs (kept in its MPD's stored playlist "Liked", so no
    /// warning that playlists are disabled) and, after three counted plays, publishes this
    /// month's review and prints its address, which a stranger can open (issue 52, row 14).
    @Test func theDemoPrintsItsAddressFirstLikesSongsAndPublishesAReview() throws {
        _ = try Tools.require("mpd")
        _ = try Tools.require("sox")
        let mpc = try Tools.require("mpc")
        let mpdPort = try Ports.free()
        let demo = try PipedProcess(["demo", "--http", "127.0.0.1:0", "--mpd-port", String(mpdPort)])
        #expect(eventually(timeout: 60) { demo.stdout.contains("\n") || !demo.process.isRunning }, "\(demo.stderr)")
        let banner = demo.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(banner.hasPrefix("Pacenote demo: open http://127.0.0.1:") && banner.contains("(MPD on 127.0.0.1:\(mpdPort))"),
                "first line: \(banner)")
        let base = "http://127.0.0.1:" + (banner.components(separatedBy: "http://127.0.0.1:").dropFirst().first?.prefix { $0.isNumber } ?? "")
        let liked = try eventually(timeout: 30, interval: 0.5) {
            let list = try run(mpc, ["-h", "127.0.0.1", "-p", String(mpdPort), "playlist", "Liked"], allowFailure: true)
            return list.status == 0 && Set(list.stdout.split(separator: "\n")) == ["Northern Lights - Steady State", "The Intervals - Redline",
                                                                                  "Harbour Wind - Lighthouse"]
        }
        #expect(liked, "the three liked songs are in MPD's playlist Liked")
        var reviewURL = ""
        let published = eventually(timeout: 120, interval: 0.5) {
            guard let line = demo.stdout.split(separator: "\n").first(where: { $0.contains("review is published at ") }) else { return false }
            reviewURL = line.components(separatedBy: "published at ").last ?? ""
            return true
        }
        #expect(published && reviewURL.hasPrefix(base + "/review/shared/"), "\(demo.stdout)\n\(demo.stderr)")
        if reviewURL.hasPrefix(base + "/") {
            let review = try HTTP.get(reviewURL)
            #expect(review.status == 200 && review.text.contains("in music"), "\(review.status)")
        }
        demo.process.terminate()
        demo.process.waitUntilExit()
        #expect(demo.process.terminationStatus == 0)
        let warnings = LogLines.warnings(demo.stderr)
        #expect(warnings.isEmpty, "no warning in the demo's log:\n\(warnings.joined(separator: "\n"))")
    }

    /// A Ctrl-C while the demo still generates its songs (sent as a signal to the process
    /// alone, as a service manager would): it stops at once and leaves neither its folder
    /// nor an MPD behind.
    @Test func aCtrlCWhileTheDemoSetsUpLeavesNothingBehind() throws {
        _ = try Tools.require("mpd")
        _ = try Tools.require("sox")
        let demo = try PacenoteProcess(["demo", "--http", "127.0.0.1:0", "--log-level", "info"])
        defer {
            if demo.process.isRunning {
                demo.signal(SIGKILL)
                _ = try? demo.wait()
            }
        }
        var folder = ""
        let generating = try eventually(timeout: 15) {
            let log = demo.stderr
            guard let range = log.range(of: "songs in ") else { return !demo.process.isRunning }
            folder = (String(log[range.upperBound...].prefix { $0 != "\n" }) as NSString).deletingLastPathComponent
            return true
        }
        #expect(generating && folder.contains("pacenote-demo"), "\(demo.stderr)")
        demo.signal(SIGINT)
        #expect(try demo.wait(timeout: 15) == 130, "\(demo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder), "the demo folder is removed")
        let left = try Self.processes(naming: folder)
        #expect(left.isEmpty, "no MPD of the demo is left: pids \(left)")
    }

    /// Once it serves, SIGTERM (a service manager) or SIGINT (sent to the process alone, as
    /// Ctrl-C reaches it) stops the demo like `serve`: status 0, its folder and MPD gone.
    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalOnceTheDemoServesStopsItAndLeavesNothingBehind(signal: Int32) throws {
        _ = try Tools.require("mpd")
        _ = try Tools.require("sox")
        // Should it hang, PacenoteProcess ends it with SIGKILL when the test is done.
        let demo = try PacenoteProcess(["demo", "--http", "127.0.0.1:0", "--log-level", "info"])
        var folder = ""
        let serving = try eventually(timeout: 30) {
            let log = demo.stderr
            guard log.contains("serving http://127.0.0.1:"), let db = log.range(of: "(database ") else { return !demo.process.isRunning }
            folder = (String(log[db.upperBound...].prefix { $0 != ")" }) as NSString).deletingLastPathComponent
            return true
        }
        #expect(serving && demo.process.isRunning && folder.contains("pacenote-demo"), "\(demo.stderr)")
        #expect(try Self.processes(naming: folder).count == 1, "the demo's MPD runs")
        // The process handles both signals (caught, not ignored) while it serves.
        let status = try String(contentsOfFile: "/proc/\(demo.process.processIdentifier)/status", encoding: .utf8)
        for sig in [SIGINT, SIGTERM] {
            #expect(Self.signalMask(status, "SigCgt") & (1 << UInt64(sig - 1)) != 0, "signal \(sig) is caught: \(status)")
            #expect(Self.signalMask(status, "SigIgn") & (1 << UInt64(sig - 1)) == 0, "signal \(sig) is not ignored: \(status)")
        }
        demo.signal(signal)
        #expect(try demo.wait(timeout: 15) == 0, "\(demo.stderr)")
        #expect(demo.stderr.contains("stopped"))
        #expect(!FileManager.default.fileExists(atPath: folder), "the demo folder is removed")
        let left = try Self.processes(naming: folder)
        #expect(left.isEmpty, "no MPD of the demo is left: pids \(left)")
    }

    /// Processes whose command line names `text` (the demo's MPD names its folder).
    static func processes(naming text: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { pid in
            guard Int(pid) != nil, let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: line, as: UTF8.self).contains(text)
        }
    }

    /// A signal mask line of /proc/PID/status (`SigCgt:\t00000001000044fa`).
    static func signalMask(_ status: String, _ name: String) -> UInt64 {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return UInt64(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces), radix: 16) ?? 0
    }
}
