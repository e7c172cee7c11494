import Foundation
import Testing
@testable import PacenoteCore

/// `WorkoutFigures`: a workout's time in zone, average and maximum, summed at its end and
/// kept reading by reading while it is in progress.
@Suite struct WorkoutFiguresTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// Zones of 200 bpm: Z1 from 100, Z2 120, Z3 140, Z4 160, Z5 180.
    let model = ZoneModel.percentMax(maxHR: 200)

    func readings(_ pairs: [(Double, Int)]) -> [HeartRateSample] {
        pairs.map { HeartRateSample(at: t0.addingTimeInterval($0.0), bpm: $0.1) }
    }

    @Test func soFarEachReadingCountsUntilTheNextAndTheLatestNotYet() {
        // 4 readings a second: 2 s in Z1, 1 s in Z3, then the latest (Z5) at 3 s.
        let z1: [(Double, Int)] = (0..<8).map { (Double($0) * 0.25, 110) }
        let z3: [(Double, Int)] = (8..<12).map { (Double($0) * 0.25, 150) }
        let samples = readings(z1 + z3 + [(3, 190)])
        let figures = WorkoutFigures(samples, model: model)
        #expect(figures.secondsInZone() == [0, 2, 0, 1, 0, 0])
        #expect(figures.maximum == 190)
        #expect(figures.count == 13)
        // (8 × 110 + 4 × 150 + 190) / 13 = 128.46…, to a tenth.
        #expect(figures.average == 128.5)
        #expect(figures.latest?.at == t0.addingTimeInterval(3) && figures.latest?.zone == .z5)
        // Ended at 4.5 s: the latest reading counts until then.
        #expect(figures.secondsInZone(until: t0.addingTimeInterval(4.5)) == [0, 2, 0, 1, 0, 1.5])
        // Ended long after: at most the 5 s gap.
        #expect(figures.secondsInZone(until: t0.addingTimeInterval(60)) == [0, 2, 0, 1, 0, 5])
    }

    @Test func readingByReadingIsTheSumOverTheSameReadings() {
        var samples: [HeartRateSample] = []
        var running = WorkoutFigures(model: model)
        var at = 0.0
        for i in 0..<500 {
            // An irregular strap: gaps of 0.25 s to 7 s, heart rate across every zone.
            at += [0.25, 0.5, 1, 0.25, 7, 0.3][i % 6]
            let sample = HeartRateSample(at: t0.addingTimeInterval(at), bpm: 80 + (i * 37) % 120)
            samples.append(sample)
            running.add(sample)
            let summed = WorkoutFigures(samples, model: model)
            #expect(running == summed)
            #expect(running.secondsInZone() == summed.secondsInZone())
            #expect(running.average == summed.average && running.maximum == summed.maximum)
        }
        // And the figures a finished workout stores are TimeInZone's.
        let end = t0.addingTimeInterval(at + 2)
        let byZone = TimeInZone.seconds(samples, model: model, until: end)
        #expect(running.secondsByZone(until: end) == byZone)
        #expect(Zone.allCases.map { byZone[$0] ?? 0 } == running.secondsInZone(until: end))
    }

    @Test func nothingYet() {
        let figures = WorkoutFigures([], model: model)
        #expect(figures.secondsInZone() == [0, 0, 0, 0, 0, 0])
        #expect(figures.secondsInZone(until: t0) == [0, 0, 0, 0, 0, 0])
        #expect(figures.average == nil && figures.maximum == nil && figures.latest == nil)
        #expect(figures.secondsByZone(until: t0).isEmpty)
    }

    @Test func aReadingNoNewerThanTheLatestAddsNoTime() {
        // The same millisecond twice (two sources), then one out of order: neither adds time.
        var figures = WorkoutFigures(readings([(0, 110), (1, 110), (1, 150)]), model: model)
        #expect(figures.secondsInZone() == [0, 1, 0, 0, 0, 0])
        figures.add(HeartRateSample(at: t0.addingTimeInterval(0.5), bpm: 110))
        #expect(figures.secondsInZone() == [0, 1, 0, 0, 0, 0])
        #expect(figures.count == 4)
    }

    @Test func theZonesSeenAreTheKeysTimeInZoneGives() {
        let samples = readings([(0, 110), (2, 150), (4, 150)])
        #expect(WorkoutFigures(samples, model: model).secondsByZone(until: t0.addingTimeInterval(5)) == [.z1: 2, .z3: 3])
        #expect(TimeInZone.seconds(samples, model: model) == [.z1: 2, .z3: 3])  // the last counts 1 s without an end
    }

    @Test func aWorkoutsZoneModel() {
        let old = ZoneSettings(id: 1, model: .percentMax(maxHR: 200), effectiveFrom: t0)
        let new = ZoneSettings(id: 2, model: .percentMax(maxHR: 150), effectiveFrom: t0.addingTimeInterval(3600))
        let settings = [old, new]
        #expect(settings.model(settingsID: 1, at: t0.addingTimeInterval(7200)) == old.model)   // the one it was stored with
        #expect(settings.model(settingsID: nil, at: t0.addingTimeInterval(7200)) == new.model) // in force when it began
        #expect(settings.model(settingsID: 9, at: t0.addingTimeInterval(60)) == old.model)
        #expect(settings.model(at: t0.addingTimeInterval(-60)) == old.model)                    // before any: the first
        #expect([ZoneSettings]().model(at: t0) == .percentMax(maxHR: 190))
    }
}
