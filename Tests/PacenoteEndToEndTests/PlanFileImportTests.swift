import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing

/// Structured-workout files people already have, read as plans (issue 55): a FIT workout file
/// written by fit-tool (a real encoder; fitdecode reads the same file back as the source
/// says) gives the segments and repeats its steps describe; what a timed plan cannot follow
/// and files of another kind are refused with the reason.
@Suite struct PlanFileImportTests {
    static let clients = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Clients").path

    /// python3 with fit-tool (scripts/test installs it); missing is a failure, not a skip.
    static func fitTool() throws -> String {
        let python = try Tools.require("python3")
        if try run(python, ["-c", "import fit_tool"], allowFailure: true).status != 0 {
            throw HarnessError("fit-tool is not installed: python3 -m pip install fit-tool (scripts/test does)")
        }
        return python
    }

    @Test func aFITWorkoutGivesTheSegmentsOfItsSteps() throws {
        let python = try Self.fitTool()
        let dir = try TemporaryDirectory("pacenote-plan-fit")
        try run(python, [Self.clients + "/fit_workout.py", dir.file("w.fit")])
        let plan = try WorkoutPlan(fit: Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("w.fit")))), fallbackName: "w.fit")
        #expect(plan.name == "6 x 2 min" && plan.sport == "running")
        #expect(plan.steps == [
            .segment(.init(seconds: 600, target: .zone(2), label: "warm-up")),
            .repeated(count: 6, steps: [.segment(.init(seconds: 120, target: .heartRate(160...175), label: "hard")),
                                        .segment(.init(seconds: 180, target: .zone(2), label: "recovery"))]),
            .segment(.init(seconds: 1200, target: .cadence(85...95))),
            .repeated(count: 4, steps: [.segment(.init(seconds: 30, target: .zone(5), label: "interval")),
                                        .segment(.init(seconds: 30, target: .free))]),
            .segment(.init(seconds: nil, target: .zone(1), label: "cool-down")),
        ], "\(plan.text)")
        #expect(plan.fixedSeconds == 600 + 6 * 300 + 1200 + 4 * 60)
        #expect(plan.timeline().count == 1 + 12 + 1 + 8 + 1)
    }

    @Test func whatAPlanCannotFollowIsRefusedWithTheReason() throws {
        let python = try Self.fitTool()
        let dir = try TemporaryDirectory("pacenote-plan-fit")
        func refusal(_ bytes: [UInt8]) -> String? {
            do {
                _ = try WorkoutPlan(fit: bytes, fallbackName: "f")
                return nil
            } catch {
                return error.description
            }
        }
        try run(python, [Self.clients + "/fit_workout.py", dir.file("bad.fit"), "bad"])
        let bad = Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("bad.fit"))))
        #expect(refusal(bad) == "step 5: a step of a distance: Pacenote's plans are timed (make it a time, or open)")
        // An activity is no workout.
        try run(python, [Self.clients + "/fit_activity.py", dir.file("run.fit"), "running", "1763794800", "30", "120"])
        let activity = Array(try Data(contentsOf: URL(fileURLWithPath: dir.file("run.fit"))))
        #expect(refusal(activity) == "not a FIT workout: the file's type is 4, a workout is 5")
        // A workout cut short fails its check, whole.
        let good = dir.file("w.fit")
        try run(python, [Self.clients + "/fit_workout.py", good])
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: good)))
        #expect(refusal(Array(bytes.prefix(bytes.count - 40)))?.hasPrefix("truncated FIT file") == true ||
                refusal(Array(bytes.prefix(bytes.count - 40)))?.contains("broken") == true, "\(refusal(Array(bytes.prefix(bytes.count - 40))) ?? "accepted")")
        var flipped = bytes
        flipped[bytes.count / 2] ^= 0xFF
        #expect(refusal(flipped)?.contains("CRC") == true || refusal(flipped)?.contains("checksum") == true, "\(refusal(flipped) ?? "accepted")")
        #expect(refusal(Array("<workout_file/>".utf8)) != nil)
    }
}
