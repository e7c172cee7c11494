import Foundation
import Testing
@testable import PacenoteCore

/// `WorkoutMeasures` on what files and live sources really send: nothing, parts of a sample,
/// clocks that go back, numbers that are not numbers. It must answer, never crash, and never
/// give NaN or infinity (JSONEncoder refuses both, so encoding the figures checks every field).
@Suite struct WorkoutMeasuresEdgeTests {
    let t0 = WorkoutMeasuresTests.t0
    func near(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-6) -> Bool { WorkoutMeasuresTests.near(a, b, tolerance) }

    func encodes(_ m: WorkoutMeasures) -> Bool {
        (try? JSONEncoder().encode(m)) != nil
    }

    @Test func noMotionGivesHeartRateFiguresAndNoDistance() throws {
        let pulse = (0...600).map { HeartRateSample(at: t0.addingTimeInterval(Double($0)), bpm: 120 + $0 % 40) }
        let m = WorkoutMeasures(motion: [], heartRate: pulse, laps: [WorkoutLap(start: t0, end: t0.addingTimeInterval(300))],
                                athlete: .init(age: 40, weightKilograms: 80, sex: .female))
        #expect(m.start == t0 && m.elapsed == 600)
        #expect(m.distance == nil && m.moving == nil && m.averagePace == nil && m.bestPace == nil && m.bestSpeed == nil)
        #expect(m.splits.isEmpty && m.elevationGain == nil && m.averagePower == nil)
        #expect(m.maxHeartRate == 159 && m.calories.map { $0 > 0 } == true)
        // A lap still has its heart rate and time.
        #expect(m.laps.count == 1 && m.laps[0].elapsed == 300 && m.laps[0].distance == nil && m.laps[0].averageHeartRate != nil)
        #expect(encodes(m))

        let nothing = WorkoutMeasures(motion: [])
        #expect(nothing.start == nil && nothing.elapsed == 0 && nothing.splits.isEmpty && nothing.laps.isEmpty)
        #expect(encodes(nothing))
        let one = WorkoutMeasures(motion: [MotionSample(at: t0, speed: 3, distance: 5, altitude: 10)],
                                  heartRate: [HeartRateSample(at: t0, bpm: 100)])
        #expect(one.distance == 0 && one.moving == 0 && one.averageSpeed == nil && one.splits.isEmpty && encodes(one))
    }

    @Test func distanceWithoutSpeedAndSpeedWithoutDistance() {
        // A treadmill's distance, no speed: moving time from the distance's steps.
        let treadmill = (0...600).map { MotionSample(at: t0.addingTimeInterval(Double($0)), distance: Double($0) * 2.5) }
        let m = WorkoutMeasures(motion: treadmill)
        #expect(m.distanceSource == .device && near(m.distance, 1500) && m.moving == 600 && near(m.averagePace, 400))
        // Distance on every other sample only: the rest interpolated, the same figures.
        let sparse = treadmill.enumerated().map { i, s in i % 2 == 0 ? s : MotionSample(at: s.at, cadence: 160) }
        let n = WorkoutMeasures(motion: sparse)
        #expect(near(n.distance, 1500) && n.moving == 600 && n.splits.count == 2)
    }

    @Test func onlyPositionsGiveTheGreatCircleDistance() {
        // North along a meridian, 0.00003° a second (3.34 m/s): great circles add up exactly.
        let track = (0...900).map { MotionSample(at: t0.addingTimeInterval(Double($0)), latitude: 48 + Double($0) * 0.00003, longitude: 11.5) }
        let m = WorkoutMeasures(motion: track)
        let expected = Geodesy.distance(48, 11.5, 48 + 900 * 0.00003, 11.5)
        #expect(m.distanceSource == .positions && near(m.distance, expected, 1e-6 * expected))
        // 3,002.25 m: three kilometres; the last 2.25 m are under 1 % of a split, not listed.
        #expect(m.moving == 900 && m.splits.count == 3)
        // A position at 0°, 0° is a device without a fix, not a trip to the Gulf of Guinea.
        var lost = track
        lost[450].latitude = 0
        lost[450].longitude = 0
        #expect(near(WorkoutMeasures(motion: lost).distance, expected, 1e-6 * expected))
    }

    @Test func aClockGoingBackwardsDropsTheSamplesThatAreNotLater() {
        // 0…100 s, then the clock jumps back to 50 s and runs to 150 while the distance goes on
        // from 400 m: the samples stamped 50…100 again are dropped, and the step from 100 s
        // (400 m) to the next kept sample, 101 s (604 m), is a leap of 204 m in a second, not
        // counted either. The 49 steps after it are: 400 + 196 m, moving 149 s of 150.
        let run = WorkoutMeasuresTests.run(seconds: 100, speed: 4)
        let again = WorkoutMeasuresTests.run(seconds: 100, speed: 4, from: 50, startDistance: 400)
        let m = WorkoutMeasures(motion: run + again)
        #expect(m.elapsed == 150 && m.moving == 149)
        #expect(near(m.distance, 596))
        // Heart rate the same way.
        let pulse = [100, 110, 120].enumerated().map { HeartRateSample(at: t0.addingTimeInterval(Double($0.offset)), bpm: $0.element) }
            + [HeartRateSample(at: t0, bpm: 200)]
        #expect(WorkoutMeasures(motion: [], heartRate: pulse).maxHeartRate == 120)
    }

    @Test func hostileValuesAreLeftOutNotCounted() {
        var motion = WorkoutMeasuresTests.run(seconds: 600, speed: 4)
        for i in motion.indices { motion[i].altitude = 200 }
        // A speed of 1000 km/h, a distance that leaps 50 km and comes back, a 5 km altitude
        // jump for ten seconds, a negative distance, cadence and power no body makes.
        motion[100].speed = 1000 / 3.6
        motion[200].distance = 50_000
        for i in 300..<310 { motion[i].altitude = 5200 }
        motion[400].distance = -3
        motion[450].cadence = 5000
        motion[451].power = 40_000
        motion[452].power = -10
        let m = WorkoutMeasures(motion: motion)
        // The leap and its return are two steps not counted (8 m); the negative distance is
        // missing, so the step across it (8 m in 2 s) counts.
        #expect(near(m.distance, 2400 - 8, 1e-6))
        #expect(m.elevationGain == 0 && m.elevationLoss == 0)
        #expect(m.maxCadence == nil && m.maxPower == nil)
        #expect(m.bestSpeed.map { $0 <= 4 + 1e-9 } == true)
        // A device's distance reset to zero mid-run counts on from there (the step down is lost).
        var reset = WorkoutMeasuresTests.run(seconds: 200, speed: 4)
        for i in 100...200 { reset[i].distance = Double(i - 100) * 4 }
        #expect(near(WorkoutMeasures(motion: reset).distance, 396 + 400))
    }

    @Test func notANumberAnywhereGivesNoNotANumber() {
        let nan = Double.nan, inf = Double.infinity
        var motion: [MotionSample] = []
        for i in 0..<300 {
            let at = t0.addingTimeInterval(Double(i))
            switch i % 6 {
            case 0: motion.append(MotionSample(at: at, speed: nan, distance: inf, altitude: nan, cadence: nan, power: -inf))
            case 1: motion.append(MotionSample(at: at, latitude: nan, longitude: 11))
            case 2: motion.append(MotionSample(at: Date(timeIntervalSinceReferenceDate: nan), speed: 3))
            case 3: motion.append(MotionSample(at: at, speed: 3, distance: Double(i) * 3, altitude: 100))
            case 4: motion.append(MotionSample(at: at, latitude: 48, longitude: inf))
            default: motion.append(MotionSample(at: at, speed: -inf, altitude: -inf))
            }
        }
        let pulse = [HeartRateSample(at: Date(timeIntervalSinceReferenceDate: nan), bpm: 150), HeartRateSample(at: t0, bpm: 9999),
                     HeartRateSample(at: t0.addingTimeInterval(1), bpm: 150)]
        let plays = [WorkoutMeasures.Play(start: Date(timeIntervalSinceReferenceDate: nan), end: t0),
                     WorkoutMeasures.Play(start: t0.addingTimeInterval(50), end: t0.addingTimeInterval(10))]
        let laps = [WorkoutLap(start: Date(timeIntervalSinceReferenceDate: -inf), end: Date(timeIntervalSinceReferenceDate: inf), calories: nan)]
        let m = WorkoutMeasures(motion: motion, heartRate: pulse, laps: laps, deviceCalories: nan,
                                athlete: .init(age: nan, weightKilograms: inf, sex: .male), plays: plays)
        #expect(encodes(m))
        #expect(m.distance.map { $0 > 0 } == true && m.calories == nil)
        #expect(m.laps.count == 1 && m.splits.allSatisfy { $0.plays.isEmpty })
    }

    @Test func randomGarbageNeverCrashesNorGivesNotANumber() {
        var seed: UInt64 = 7
        func next() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        let specials: [Double] = [.nan, .infinity, -.infinity, 0, -1, 1e308, -1e308, 5e-324]
        func value(_ scale: Double) -> Double? {
            let r = next()
            return r < 0.2 ? nil : r < 0.3 ? specials[Int(next() * Double(specials.count))] : (next() - 0.2) * scale
        }
        for _ in 0..<100 {
            var motion: [MotionSample] = []
            var at = 0.0
            for _ in 0..<Int(next() * 200) {
                at += next() < 0.1 ? -next() * 30 : next() * 20
                motion.append(MotionSample(at: t0.addingTimeInterval(at), speed: value(20), distance: value(10_000), altitude: value(500),
                                           cadence: value(200), power: value(500), latitude: value(90), longitude: value(180)))
            }
            let pulse = (0..<Int(next() * 100)).map { _ in HeartRateSample(at: t0.addingTimeInterval(next() * 2000), bpm: Int(next() * 300)) }
            let laps = (0..<Int(next() * 4)).map { _ in WorkoutLap(start: t0.addingTimeInterval(next() * 2000), end: t0.addingTimeInterval(next() * 2000)) }
            let plays = (0..<Int(next() * 5)).map { _ in
                WorkoutMeasures.Play(start: t0.addingTimeInterval(next() * 2000), end: t0.addingTimeInterval(next() * 2000))
            }
            let m = WorkoutMeasures(motion: motion, heartRate: pulse, laps: laps, athlete: .init(age: 30, weightKilograms: 70, sex: .female),
                                    units: next() < 0.5 ? .metric : .imperial, plays: plays)
            #expect(encodes(m))
            #expect(m.elapsed >= 0 && (m.moving ?? 0) <= m.elapsed + 1e-9)
            #expect(m.splits.allSatisfy { $0.elapsed >= 0 && ($0.distance ?? 0) >= 0 })
        }
    }
}
