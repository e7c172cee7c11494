import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// What v27 stores: each workout's TRIMP (and by zone), resting HRV readings, and the RR
/// intervals they are read from.
private let utc = TimeZone(identifier: "UTC")!

@Suite struct TrainingLoadStoreTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func rrIntervalsComeFromTheSourceThatSentTheMost() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        // A strap (two a reading) and a phone relaying some of the same beats (one a reading).
        try store.insertSamples((0..<10).map { HeartRateSample(at: t0.addingTimeInterval(Double($0)), bpm: 60, rr: [1000, 990.5]) }, source: "strap")
        try store.insertSamples((0..<10).map { HeartRateSample(at: t0.addingTimeInterval(Double($0) + 0.5), bpm: 60, rr: [1000]) }, source: "phone")
        let rr = try store.rrIntervals(from: t0, to: t0.addingTimeInterval(4))
        #expect(rr == [1000, 990.5, 1000, 990.5, 1000, 990.5, 1000, 990.5, 1000, 990.5])
        #expect(Store.rrValues("[812.0,790.5]") == [812, 790.5] && Store.rrValues("[]") == [] && Store.rrValues("[1, 2]") == [1, 2])
    }

    @Test func loadsAndReadingsRoundTrip() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: utc)
        defer { try? store.close() }
        let a = try store.startWorkout(at: t0, kind: "import", zoneSettingsID: nil)
        try store.updateWorkout(id: a, endedAt: t0.addingTimeInterval(600), average: 150, max: 160, secondsInZone: [:])
        let b = try store.startWorkout(at: t0.addingTimeInterval(86_400), kind: "import", zoneSettingsID: nil)
        try store.updateWorkout(id: b, endedAt: t0.addingTimeInterval(87_000), average: 150, max: 160, secondsInZone: [:])
        #expect(try store.workoutsNeedingLoad(basis: "60/190/-").map(\.id) == [a, b])
        try store.setWorkoutLoad(id: a, TRIMP(total: 30, byZone: [0, 0, 10, 20, 0, 0]), basis: "60/190/-")
        try store.setWorkoutLoad(id: b, TRIMP(total: 12.5, byZone: [0, 0, 0, 0, 12.5, 0]), basis: "60/180/-")
        #expect(try store.workoutsNeedingLoad(basis: "60/190/-").map(\.id) == [b])
        #expect(try store.workoutLoads(before: t0.addingTimeInterval(86_400)).map(\.trimp) == [30])
        #expect(try store.workoutLoads(before: .distantFuture).map(\.workoutID) == [a, b])
        #expect(try store.loadByZone(from: t0, to: .distantFuture) == [0, 0, 10, 20, 12.5, 0])
        #expect(try store.workoutLoad(id: a) == TRIMP(total: 30, byZone: [0, 0, 10, 20, 0, 0]))

        let reading = try store.startHRVReading(at: t0, ends: t0.addingTimeInterval(120))
        #expect(try store.pendingHRVReadings().map(\.id) == [reading.id])
        let figures = HeartRateVariability(rmssd: 42.5, sdnn: 51, meanNN: 1001, beats: 118, outliers: 1, ectopic: 2)
        try store.completeHRVReading(id: reading.id, figures)
        #expect(try store.pendingHRVReadings().isEmpty)
        let stored = try #require(try store.hrvReading(id: reading.id))
        #expect(stored.done && stored.figures == figures && stored.endsAt == t0.addingTimeInterval(120))
        #expect(try store.hrvReadings(from: t0, to: t0.addingTimeInterval(1)).count == 1)
    }
}
