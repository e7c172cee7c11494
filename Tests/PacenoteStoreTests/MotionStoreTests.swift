import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// Motion samples, laps and calories: a workout file stored whole or not at all.
@Suite struct MotionStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_763_794_800)
    static func at(_ s: Int) -> Date { t0.addingTimeInterval(Double(s)) }

    static func recording(seconds: Int = 60, source: String = "import:fit") -> WorkoutRecording {
        WorkoutRecording(
            source: source,
            heartRate: (0..<seconds).map { HeartRateSample(at: at($0), bpm: 120 + $0 % 30) },
            motion: (0..<seconds).map { MotionSample(at: at($0), speed: 3, distance: Double($0) * 3, altitude: 30, cadence: 170, power: 240) },
            laps: [WorkoutLap(start: at(0), end: at(30), calories: 20), WorkoutLap(start: at(30), end: at(seconds - 1), calories: 21)],
            calories: 41, name: "Running", sport: "running")
    }

    @Test func aRecordingIsOneWorkoutWithItsSamplesLapsAndCalories() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        let stored = try store.importRecording(Self.recording())
        #expect(stored.heartRate == 60 && stored.motion == 60 && stored.laps == 2)
        let id = try #require(stored.newWorkoutID)
        let workout = try #require(try store.workout(id: id))
        #expect(workout.calories == 41 && workout.kind == "import" && workout.endedAt == Self.at(59))
        #expect(try store.laps(workout: id) == Self.recording().laps)
        let motion = try store.motionSamples(workout: workout)
        #expect(motion == Self.recording().motion)
        #expect(try store.motionSamples(from: Self.at(10), to: Self.at(12)).map(\.distance) == [30, 33, 36])
        // Again: nothing new, no second workout, its laps as they were.
        let again = try store.importRecording(Self.recording())
        #expect(again == RecordingStored(newWorkoutID: nil, workoutID: id, heartRate: 0, motion: 0, laps: 0))
        #expect(try store.workouts().count == 1)
    }

    @Test func oneSourceMakesTheSeries() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        _ = try store.importRecording(Self.recording())
        // A phone's few samples of the same time, counted from its own start.
        try store.insertMotionSamples([MotionSample(at: Self.at(5), distance: 1), MotionSample(at: Self.at(6), distance: 4)], source: "http")
        #expect(try store.motionSources(from: Self.at(0), to: Self.at(60)) == ["import:fit", "http"])
        #expect(try store.motionSamples(from: Self.at(0), to: Self.at(60)).count == 60)
        #expect(try store.motionSamples(from: Self.at(0), to: Self.at(60), source: "http").map(\.distance) == [1, 4])
    }

    @Test func theTablesRefuseNonsenseAndTheWholeFileGoes() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        for bad in [MotionSample(at: Self.at(70), speed: 300), MotionSample(at: Self.at(70), distance: -1),
                    MotionSample(at: Self.at(70), altitude: 12_000), MotionSample(at: Self.at(70), cadence: 900),
                    MotionSample(at: Self.at(70), power: 9000), MotionSample(at: Self.at(70), latitude: 91, longitude: 0),
                    MotionSample(at: Self.at(70), latitude: 50)] {
            var r = Self.recording()
            r.motion.append(bad)
            #expect(throws: StoreError.self, "\(bad)") { try store.importRecording(r) }
        }
        // Nothing of the refused files was kept.
        #expect(try store.workouts().isEmpty)
        #expect(try store.samples(from: Self.at(0), to: Self.at(100)).isEmpty)
        #expect(try store.motionSamples(from: Self.at(0), to: Self.at(100)).isEmpty)
    }

    @Test func motionAloneIsAWorkout() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        var r = Self.recording()
        r.heartRate = []
        let stored = try store.importRecording(r)
        #expect(stored.newWorkoutID != nil && stored.motion == 60 && stored.heartRate == 0)
    }
}
