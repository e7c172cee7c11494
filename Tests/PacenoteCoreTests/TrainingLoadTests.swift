import Foundation
import Testing
@testable import PacenoteCore

/// Banister's TRIMP and the fitness/fatigue/form model, against hand computations.
@Suite struct TrainingLoadTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let athlete = Athlete(restingHR: 60, maxHR: 190, sex: .male)
    let zones = ZoneModel.percentMax(maxHR: 190)

    func samples(_ bpm: Int, every step: Double, for seconds: Double) -> [HeartRateSample] {
        stride(from: 0, through: seconds, by: step).map { HeartRateSample(at: t0.addingTimeInterval($0), bpm: bpm) }
    }

    @Test func tenMinutesAt150() {
        // HRr = (150 − 60) / (190 − 60) = 0.6923…; 10 min × HRr × 0.64 × e^(1.92 × HRr) = 16.740…
        let hrr = 90.0 / 130
        let load = TRIMP(samples(150, every: 5, for: 600), end: t0.addingTimeInterval(600), athlete: athlete, zones: zones)
        #expect(abs(load.total - 10 * hrr * 0.64 * exp(1.92 * hrr)) < 1e-9)
        #expect(abs(load.total - 16.740049) < 1e-6)
        // 150 bpm is 79 % of 190: Z3 (70–80 %).
        #expect(load.byZone[3] == load.total)
        // Women: 0.86 × e^(1.67 × HRr) = 18.919…
        var her = athlete
        her.sex = .female
        let hers = TRIMP(samples(150, every: 5, for: 600), end: t0.addingTimeInterval(600), athlete: her, zones: zones)
        #expect(abs(hers.total - 18.919465) < 1e-6)
    }

    @Test func gapsAddNothingAndRestIsNoLoad() {
        // Readings at 0 and 65 s: the first counts 5 s (the gap rule), the last until the end (5 s at most).
        let sparse = [HeartRateSample(at: t0, bpm: 190), HeartRateSample(at: t0.addingTimeInterval(65), bpm: 190)]
        let load = TRIMP(sparse, end: t0.addingTimeInterval(100), athlete: athlete, zones: zones)
        #expect(abs(load.total - 10.0 / 60 * 1 * 0.64 * exp(1.92)) < 1e-9)
        // Below the resting heart rate: nothing; above the maximum: counted as the maximum.
        #expect(TRIMP(samples(50, every: 1, for: 60), end: t0.addingTimeInterval(60), athlete: athlete, zones: zones).total == 0)
        let above = TRIMP(samples(220, every: 1, for: 60), end: t0.addingTimeInterval(60), athlete: athlete, zones: zones).total
        #expect(abs(above - 0.64 * exp(1.92)) < 1e-9)
    }

    @Test func fitnessFatigueAndFormByHand() {
        // Day 10: 100, day 11: nothing, day 12: 50.
        //   fitness: 100/42 = 2.380952; × 41/42 = 2.324263; + (50 − 2.324263)/42 = 3.459400
        //   fatigue: 100/7 = 14.285714; × 6/7 = 12.244898; + (50 − 12.244898)/7 = 17.638484
        //   form (yesterday's fitness − fatigue): 0; −11.904762; −9.920635
        let days = TrainingLoadModel.days(loads: [10: 100, 12: 50], from: 9, through: 13)
        #expect(days.map(\.day) == [9, 10, 11, 12, 13])
        let expected: [(Double, Double, Double, Double)] = [
            (0, 0, 0, 0), (100, 2.380952, 14.285714, 0), (0, 2.324263, 12.244898, -11.904762), (50, 3.459400, 17.638484, -9.920635),
        ]
        for (day, e) in zip(days, expected) {
            #expect(day.load == e.0)
            #expect(abs(day.fitness - e.1) < 1e-6 && abs(day.fatigue - e.2) < 1e-6 && abs(day.form - e.3) < 1e-6, "\(day)")
        }
        #expect(abs(days[4].form - (3.459400 - 17.638484)) < 1e-6)
        // A range that starts later has the same figures: the model runs from the first load.
        #expect(TrainingLoadModel.days(loads: [10: 100, 12: 50], from: 12, through: 12) == [days[3]])
        #expect(TrainingLoadModel.days(loads: [:], from: 1, through: 2).map(\.fitness) == [0, 0])
    }
}
