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
        // No process is left whose command line names the folder (its MPD's configuration).
        let left = (try FileManager.default.contentsOfDirectory(atPath: "/proc")).filter { pid in
            guard Int(pid) != nil, let line = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: line, as: UTF8.self).contains(folder)
        }
        #expect(left.isEmpty, "no MPD of the demo is left: pids \(left)")
    }
}
