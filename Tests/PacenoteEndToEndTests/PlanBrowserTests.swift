import Foundation
import PacenoteTestSupport
import Testing

/// The plans page and a planned workout's dashboard card in a real browser, with JavaScript
/// off and on, at 1280 and 360 px (issue 55): a plan written and refused with its reason,
/// saved and drawn; started from the dashboard; its card with segment, target, time left,
/// next and the sensors' silence; next, a press from elsewhere, end; the plan's table on the
/// workout's page.
@Suite struct PlanBrowserTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients/plans_browser.py").path
    static let artifacts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("test-artifacts/plans-browser").path

    @Test func plansAreWrittenStartedFollowedAndEndedInABrowserWithAndWithoutJavaScript() throws {
        let python = try SiteBrowserTests.python()
        try? FileManager.default.removeItem(atPath: Self.artifacts)
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let r = try run(python, [Self.script, daemon.base, daemon.apiKey, Self.artifacts], allowFailure: true)
        #expect(r.status == 0, "browser checks failed:\n\(r.stderr)\n\(r.stdout)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        #expect((summary?["checked"] as? Int ?? 0) >= 60, "\(r.stdout)")
        let shots = Set(summary?["screenshots"] as? [String] ?? [])
        for mode in ["nojs", "js"] {
            for width in ["desktop", "phone"] {
                #expect(shots.contains("plans-\(mode)-\(width).png") && shots.contains("plan-live-\(mode)-\(width).png"), "\(shots)")
            }
        }
        // The workouts ran the plans the page started, and ended.
        #expect(try daemon.sql("SELECT count(*) FROM workouts WHERE plan_id IS NOT NULL AND ended_at_ms IS NOT NULL") == "2\n")
    }
}
