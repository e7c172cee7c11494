import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// A measured run is measured again when what its figures come from changes after it was
/// measured: motion uploaded late for its time, and an import whose plays fall in it, in the
/// writing transaction itself; what falls outside every run marks nothing.
@Suite struct PaceEffectStaleTests {
    static let t0 = Date(timeIntervalSince1970: 1_763_794_800)
    static func at(_ s: Int) -> Date { t0.addingTimeInterval(Double(s)) }

    /// A run of an hour, imported and measured (no figures: none of its plays moved yet).
    static func measuredRun(_ store: Store) throws -> Int64 {
        let recording = WorkoutRecording(
            source: "import:fit",
            heartRate: stride(from: 0, to: 3600, by: 5).map { HeartRateSample(at: at($0), bpm: 150) },
            motion: stride(from: 0, to: 3600, by: 5).map { MotionSample(at: at($0), speed: 3, distance: Double($0) * 3) },
            laps: [], calories: nil, name: "Running", sport: "running")
        let id = try #require(try store.importRecording(recording).newWorkoutID)
        try store.setPaceEffects(workoutID: id, [], at: at(4000))
        #expect(try store.workoutsNeedingPaceEffects().isEmpty)
        return id
    }

    @Test func motionUploadedLateForARunMarksItAndOnlyIt() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let run = try Self.measuredRun(store)
        // A phone's samples a day later: no run then.
        try store.insertMotionSamples([MotionSample(at: Self.at(86_400), distance: 1), MotionSample(at: Self.at(86_401), distance: 4)], source: "http")
        #expect(try store.workoutsNeedingPaceEffects().isEmpty)
        // The same phone's samples of the run's time, uploaded after it was measured.
        try store.insertMotionSamples([MotionSample(at: Self.at(600), distance: 1), MotionSample(at: Self.at(601), distance: 4)], source: "http")
        #expect(try store.workoutsNeedingPaceEffects().map(\.id) == [run])
    }

    @Test func anImportMarksTheRunsItsPlaysFallInAndNoOther() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let run = try Self.measuredRun(store)
        func listen(_ title: String, _ s: Int) -> ImportedListen {
            ImportedListen(track: Track(title: title, artist: "Dool"), startedAtMs: Int64(Self.at(s).timeIntervalSince1970 * 1000), playedSeconds: 200)
        }
        // Listens of the days around the run, none in it: the run stays measured.
        #expect(try ListenImportSession(store: store, source: "import:test").insert([listen("Before", -7200), listen("After", 7200)]) == (2, 0))
        #expect(try store.workoutsNeedingPaceEffects().isEmpty)
        // Again, nothing new: still nothing marked.
        #expect(try ListenImportSession(store: store, source: "import:test").insert([listen("Before", -7200)]) == (0, 1))
        #expect(try store.workoutsNeedingPaceEffects().isEmpty)
        // One listen during the run: marked, in the import's own transaction.
        #expect(try ListenImportSession(store: store, source: "import:test").insert([listen("During", 1200), listen("Later", 9000)]) == (2, 0))
        #expect(try store.workoutsNeedingPaceEffects().map(\.id) == [run])
    }
}
