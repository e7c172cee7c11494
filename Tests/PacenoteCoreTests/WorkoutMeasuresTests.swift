import Foundation
import Testing
@testable import PacenoteCore

/// `WorkoutMeasures` on workouts whose figures are computed by hand in each test.
@Suite struct WorkoutMeasuresTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// One sample a second for `seconds`, at `speed` m/s, with the device's distance.
    static func run(seconds: Int, speed: Double, from: Double = 0, startDistance: Double = 0, every: Double = 1,
                    fields: Set<String> = ["speed", "distance"]) -> [MotionSample] {
        stride(from: 0.0, through: Double(seconds), by: every).map { s in
            MotionSample(at: t0.addingTimeInterval(from + s), speed: fields.contains("speed") ? speed : nil,
                         distance: fields.contains("distance") ? startDistance + speed * s : nil)
        }
    }

    static func near(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-6) -> Bool {
        guard let a else { return false }
        return abs(a - b) <= tolerance
    }

    @Test func aConstantSpeedRunIsItsDistanceOverItsTime() throws {
        // 25 minutes at 4 m/s: 6 km, 250 s (4:10) a kilometre, every figure alike.
        for fields: Set<String> in [["speed", "distance"], ["distance"], ["speed"]] {
            let m = WorkoutMeasures(motion: Self.run(seconds: 1500, speed: 4, fields: fields), sport: "running")
            #expect(Self.near(m.distance, 6000), "\(fields)")
            #expect(m.distanceSource == (fields.contains("distance") ? .device : .speed))
            #expect(m.elapsed == 1500 && m.moving == 1500)
            #expect(Self.near(m.averageSpeed, 4) && Self.near(m.averagePace, 250))
            #expect(Self.near(m.bestPace, 250) && Self.near(m.bestSpeed, 4))
            #expect(m.splits.count == 6)
            for (i, split) in m.splits.enumerated() {
                #expect(split.number == i + 1)
                #expect(Self.near(split.distance, 1000) && Self.near(split.elapsed, 250) && Self.near(split.pace, 250))
                #expect(abs(split.start.timeIntervalSince(Self.t0) - Double(i) * 250) < 1e-6)
            }
            #expect(m.showsPace && m.units == .metric)
            #expect(m.elevationGain == nil && m.averageCadence == nil && m.calories == nil)
        }
    }

    @Test func aPauseIsLeftOutOfMovingTimeAndPaceButNotElapsed() {
        // 600 s at 4 m/s (2,400 m), two minutes still at the crossing (speed 0, distance kept),
        // 600 s at 4 m/s again: 4,800 m in 1,200 s moving, 1,320 s elapsed.
        let first = Self.run(seconds: 600, speed: 4)
        let still = (1...120).map { MotionSample(at: Self.t0.addingTimeInterval(600 + Double($0)), speed: 0, distance: 2400) }
        let second = Self.run(seconds: 600, speed: 4, from: 720, startDistance: 2400).dropFirst()
        let m = WorkoutMeasures(motion: first + still + second)
        #expect(Self.near(m.distance, 4800))
        #expect(m.elapsed == 1320 && m.moving == 1200)
        #expect(Self.near(m.averagePace, 250) && Self.near(m.averageSpeed, 4))
        // The best kilometre is one without the stop; the third holds it: 370 s elapsed, 250 moving.
        #expect(Self.near(m.bestPace, 250))
        let third = m.splits[2]
        #expect(Self.near(third.elapsed, 370) && Self.near(third.moving, 250) && Self.near(third.pace, 250))
        #expect(m.splits.count == 5 && Self.near(m.splits[4].distance, 800))

        // The same run from a foot pod's speed, the watch auto-paused: no samples for two
        // minutes. The gap is not integrated (it is longer than maxGap) and not moving.
        let paused = Self.run(seconds: 600, speed: 4, fields: ["speed"]) + Self.run(seconds: 600, speed: 4, from: 720, fields: ["speed"])
        let p = WorkoutMeasures(motion: paused)
        #expect(Self.near(p.distance, 4800) && p.moving == 1200 && p.elapsed == 1320)
    }

    @Test func splitsEndWhereTheDistanceReachedEachKilometreBetweenSamples() {
        // A sample every 7 s at 3 m/s (21 m apart): 1,000 m is reached at 333.33 s, between samples.
        let m = WorkoutMeasures(motion: Self.run(seconds: 1400, speed: 3, every: 7))
        #expect(Self.near(m.distance, 4200))
        #expect(m.splits.count == 5)
        #expect(abs(m.splits[0].end.timeIntervalSince(Self.t0) - 1000.0 / 3) < 1e-6)
        #expect(abs(m.splits[1].end.timeIntervalSince(Self.t0) - 2000.0 / 3) < 1e-6)
        for split in m.splits.prefix(4) {
            #expect(Self.near(split.distance, 1000) && Self.near(split.pace, 1000.0 / 3))
        }
        // The last, partial: 200 m in 66.67 s, still a pace per kilometre.
        #expect(Self.near(m.splits[4].distance, 200) && Self.near(m.splits[4].pace, 1000.0 / 3))
        // The best kilometre, between samples as well.
        #expect(Self.near(m.bestPace, 1000.0 / 3))
    }

    @Test func imperialUnitsSplitByTheMile() {
        // 4 m/s for 1,000 s: 4,000 m = 2.485 mi; a mile in 1,609.344 / 4 = 402.336 s.
        let m = WorkoutMeasures(motion: Self.run(seconds: 1000, speed: 4), units: .imperial)
        #expect(m.units == .imperial)
        #expect(m.splits.count == 3)
        #expect(Self.near(m.splits[0].distance, 1609.344) && Self.near(m.splits[0].pace, 402.336))
        #expect(abs(m.splits[1].end.timeIntervalSince(Self.t0) - 804.672) < 1e-6)
        #expect(Self.near(m.splits[2].distance, 4000 - 2 * 1609.344))
        #expect(Self.near(m.averagePace, 402.336) && Self.near(m.bestPace, 402.336))
    }

    @Test func lapsAreSplitsWithTheirOwnHeartRateAndCadence() {
        // Lap 1: 300 s at 4 m/s, heart rate 140, cadence 170; lap 2: 600 s at 3 m/s, 160, 160.
        var motion = Self.run(seconds: 300, speed: 4)
        motion += Self.run(seconds: 600, speed: 3, from: 300, startDistance: 1200).dropFirst()
        for i in motion.indices { motion[i].cadence = i <= 300 ? 170 : 160 }
        let pulse = (0...900).map { HeartRateSample(at: Self.t0.addingTimeInterval(Double($0)), bpm: $0 < 300 ? 140 : 160) }
        let laps = [WorkoutLap(start: Self.t0.addingTimeInterval(300), end: Self.t0.addingTimeInterval(900)),
                    WorkoutLap(start: Self.t0, end: Self.t0.addingTimeInterval(300))]
        let m = WorkoutMeasures(motion: motion, heartRate: pulse, laps: laps)
        #expect(m.laps.count == 2)
        let (one, two) = (m.laps[0], m.laps[1])
        #expect(one.number == 1 && one.start == Self.t0 && Self.near(one.distance, 1200) && Self.near(one.pace, 250))
        #expect(two.number == 2 && Self.near(two.distance, 1800) && Self.near(two.elapsed, 600) && Self.near(two.pace, 1000.0 / 3))
        // Heart rate: the readings in [start, end) (the last lap's end included).
        #expect(one.averageHeartRate == 140 && two.averageHeartRate == 160)
        #expect(Self.near(one.averageCadence, 170) && Self.near(two.averageCadence, 160))
        // (170 × 300 + 160 × 600) / 900.
        #expect(Self.near(m.averageCadence, (170.0 * 300 + 160 * 600) / 900))
        #expect(m.maxCadence == 170 && m.maxHeartRate == 160)
        // (140 × 300 + 160 × 601) / 901 readings, to a tenth.
        let mean: Double = (140.0 * 300 + 160 * 601) / 901
        #expect(m.averageHeartRate == (mean * 10).rounded() / 10)
    }

    @Test func eachSplitListsTheSongsThatPlayedInIt() {
        // 4 m/s: kilometres end at 250, 500, 750 s; 800 s in all.
        let at = { (s: Double) in Self.t0.addingTimeInterval(s) }
        let plays = [
            WorkoutMeasures.Play(start: at(-30), end: at(200), trackID: 1, title: "Warm-up"),   // began before the run
            WorkoutMeasures.Play(start: at(200), end: at(255), trackID: 2, title: "Ends 5 s into km 2"),
            WorkoutMeasures.Play(start: at(255), end: at(261), trackID: 3, title: "A 6-second jingle"),
            WorkoutMeasures.Play(start: at(261), end: at(790), trackID: 4, title: "Long"),     // over three splits
        ]
        let m = WorkoutMeasures(motion: Self.run(seconds: 800, speed: 4), plays: plays.reversed())
        let titles = m.splits.map { $0.plays.map { $0.play.trackID ?? 0 } }
        #expect(titles == [[1, 2], [3, 4], [4], [4]])
        #expect(m.splits[0].plays.map(\.seconds) == [200, 50])
        #expect(m.splits[1].plays.map(\.seconds) == [6, 239])
        // The last split is 50 s (200 m): the long song played 40 s of it, listed.
        #expect(m.splits[3].plays.map(\.seconds) == [40])
    }

    @Test func aHillWithNoisyAltitudeClimbsItsHeightOnce() throws {
        // 50 m up over 500 s and down again, altitude noisy by up to ±0.8 m each second
        // (a barometer's noise, a fixed pseudo-random series).
        var seed: UInt64 = 42
        func noise() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(seed >> 11) / Double(1 << 53) - 0.5) * 1.6
        }
        var motion = Self.run(seconds: 1000, speed: 3)
        for i in motion.indices {
            let s = Double(i)
            motion[i].altitude = 100 + (s <= 500 ? s / 10 : (1000 - s) / 10) + noise()
        }
        let m = WorkoutMeasures(motion: motion)
        // The hysteresis of 3 m counts the climb from its start to within 3 m of the top
        // (plus the noise at the turning points): 50 m, give or take 4.
        let gain = try #require(m.elevationGain), loss = try #require(m.elevationLoss)
        #expect(abs(gain - 50) <= 4 && abs(loss - 50) <= 4, "\(gain) \(loss)")
        // gpxpy's light smoothing counts much of the noise: 90 m here.
        var options = WorkoutMeasures.Options()
        options.elevation = .gpxpy
        let light = WorkoutMeasures(motion: motion, options: options)
        let lightGain = try #require(light.elevationGain)
        #expect(lightGain > 75, "\(lightGain)")
        // Each kilometre's change: up ~33 m, then the top, then down.
        #expect(m.splits[0].elevationChange.map { abs($0 - 100.0 / 3) < 1.5 } == true)
        #expect(m.splits[2].elevationChange.map { $0 < -25 } == true)
    }

    @Test func cadenceLeavesOutZerosAndStopsWhilePowerCountsCoasting() {
        // A ride at 8 m/s: 100 s pedalling (90 rpm, 200 W), 100 s coasting (0 rpm, 0 W), then
        // 100 s stopped (speed 0) with the power meter still reading 50 W.
        var motion = Self.run(seconds: 200, speed: 8)
        for i in motion.indices { (motion[i].cadence, motion[i].power) = i <= 100 ? (90, 200) : (0, 0) }
        motion += (1...100).map { MotionSample(at: Self.t0.addingTimeInterval(200 + Double($0)), speed: 0, distance: 1600, cadence: 0, power: 50) }
        let m = WorkoutMeasures(motion: motion, sport: "cycling")
        #expect(!m.showsPace)
        #expect(m.moving == 200)
        #expect(m.averageCadence == 90 && m.maxCadence == 90)
        #expect(m.averagePower == 100 && m.maxPower == 200)
    }

    @Test func caloriesAreTheDevicesElseKeytelsFromHeartRate() throws {
        // Ten minutes at 150 bpm, a reading a second: 600 intervals of a second.
        let pulse = (0...600).map { HeartRateSample(at: Self.t0.addingTimeInterval(Double($0)), bpm: 150) }
        let motion = Self.run(seconds: 600, speed: 3)
        let man = WorkoutMeasures.Athlete(age: 35, weightKilograms: 70, sex: .male)
        let woman = WorkoutMeasures.Athlete(age: 35, weightKilograms: 60, sex: .female)
        // Keytel et al. 2005, kJ/min, over 10 minutes, in kcal.
        let hisKcal = (-55.0969 + 0.6309 * 150 + 0.1988 * 70 + 0.2017 * 35) * 10 / 4.184
        let herKcal = (-20.4022 + 0.4472 * 150 - 0.1263 * 60 + 0.074 * 35) * 10 / 4.184
        let his = WorkoutMeasures(motion: motion, heartRate: pulse, athlete: man)
        #expect(Self.near(his.calories, hisKcal) && his.caloriesSource == .heartRate)
        #expect(Self.near(WorkoutMeasures(motion: motion, heartRate: pulse, athlete: woman).calories, herKcal))
        // The device's count wins; then the laps' when every lap has one.
        let counted = WorkoutMeasures(motion: motion, heartRate: pulse, deviceCalories: 123, athlete: man)
        #expect(counted.calories == 123 && counted.caloriesSource == .device)
        let laps = [WorkoutLap(start: Self.t0, end: Self.t0.addingTimeInterval(300), calories: 40),
                    WorkoutLap(start: Self.t0.addingTimeInterval(300), end: Self.t0.addingTimeInterval(600), calories: 45)]
        #expect(WorkoutMeasures(motion: motion, heartRate: pulse, laps: laps, athlete: man).calories == 85)
        // No athlete, no estimate: nil rather than a guess.
        let unknown = WorkoutMeasures(motion: motion, heartRate: pulse)
        #expect(unknown.calories == nil && unknown.caloriesSource == nil)
        // A gap of a minute in the readings counts maxGap (10 s), not the minute.
        let gappy = pulse.filter { $0.at.timeIntervalSince(Self.t0) < 300 || $0.at.timeIntervalSince(Self.t0) >= 360 }
        let fewer = (-55.0969 + 0.6309 * 150 + 0.1988 * 70 + 0.2017 * 35) * (299 + 10 + 240) / 60 / 4.184
        #expect(Self.near(WorkoutMeasures(motion: motion, heartRate: gappy, athlete: man).calories, fewer))
    }

    @Test func anyStretchIsMeasuredAsALap() {
        // 600 s at 3 m/s, then a song from 600 to 900 s at 4 m/s: the song's stretch against
        // the three minutes before it, in the order asked; a stretch after the run is nil.
        let motion = Self.run(seconds: 600, speed: 3) + Self.run(seconds: 300, speed: 4, from: 600, startDistance: 1800).dropFirst()
        let at = { (s: Double) in Self.t0.addingTimeInterval(s) }
        let parts = WorkoutMeasures.stretches([(at(600), at(900)), (at(420), at(600)), (at(1000), at(1200))], motion: motion)
        #expect(parts.count == 3 && parts[2] == nil)
        #expect(parts[0]?.number == 1 && Self.near(parts[0]?.distance, 1200) && Self.near(parts[0]?.pace, 250))
        #expect(parts[1]?.number == 2 && Self.near(parts[1]?.distance, 540) && Self.near(parts[1]?.pace, 1000.0 / 3))
    }
}
