import Foundation
@testable import PacenoteCore
import Testing

@Suite struct MotionCleaningTests {
    static let t0 = Date(timeIntervalSince1970: 1_763_794_800)
    static func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }

    @Test func sensibleSamplesPassUntouched() {
        let run = (0..<60).map { i in
            MotionSample(at: Self.at(Double(i)), speed: 3.2, distance: Double(i) * 3.2, altitude: 40 + Double(i) * 0.1,
                         cadence: 172, power: 250, latitude: 52.5 + Double(i) * 0.00003, longitude: 13.4)
        }
        let (kept, report) = MotionCleaning.clean(run)
        #expect(kept == run)
        #expect(report.isEmpty && report.lines.isEmpty)
    }

    @Test func eachImpossibleValueIsDroppedWithItsReason() {
        var s = (0..<10).map { i in MotionSample(at: Self.at(Double(i)), speed: 3, distance: Double(i) * 3, altitude: 100, cadence: 170, power: 200) }
        s[1].speed = 1000 / 3.6            // 1000 km/h
        s[2].speed = -1
        s[3].distance = -5                 // negative
        s[4].distance = 2                  // shorter than the 9 m before
        s[5].altitude = 5100               // a 5 km jump
        s[6].altitude = .nan
        s[6].cadence = 900
        s[7].power = -3
        s[8].distance = 100_000            // 100 km in a second
        s[9].power = .infinity
        let (kept, report) = MotionCleaning.clean(s)
        #expect(kept.count == 10)
        #expect(kept[1].speed == nil && kept[2].speed == nil && kept[3].distance == nil && kept[4].distance == nil)
        #expect(kept[5].altitude == nil && kept[6].altitude == nil && kept[6].cadence == nil && kept[7].power == nil)
        #expect(kept[8].distance == nil && kept[9].power == nil)
        // What stayed is as it was.
        #expect(kept[5].speed == 3 && kept[5].distance == 15 && kept[9].distance == 27)
        #expect(report.counts == [.tooFast: 1, .negativeSpeed: 1, .negativeDistance: 1, .distanceBackwards: 1, .altitudeJump: 1,
                                  .notANumber: 2, .cadenceOutOfRange: 1, .powerOutOfRange: 1, .distanceJump: 1])
        #expect(report.lines.contains("1 speed above 150 km/h dropped"))
        #expect(report.lines.contains("2 values that were not numbers dropped"))
        #expect(report.total == 10)
    }

    @Test func theClockGoingBackwardsDropsTheSamplesAndOneSecondIsOneSample() {
        let s = [MotionSample(at: Self.at(0), speed: 3), MotionSample(at: Self.at(10), speed: 3),
                 MotionSample(at: Self.at(10.5), speed: 9), MotionSample(at: Self.at(5), speed: 3),
                 MotionSample(at: Self.at(4), speed: 3), MotionSample(at: Self.at(11), speed: 3)]
        let (kept, report) = MotionCleaning.clean(s)
        #expect(kept.map(\.at) == [Self.at(0), Self.at(10), Self.at(11)])
        #expect(report.counts == [.clockBackwards: 2])
        #expect(report.description == "2 samples earlier than the one before dropped (the clock went backwards)")
    }

    @Test func altitudeOffTheEarthAndPositionsOffTheGlobeOrJumping() {
        let s = [MotionSample(at: Self.at(0), altitude: -2000, latitude: 52.5, longitude: 13.4),
                 MotionSample(at: Self.at(1), altitude: 12_000, latitude: 95, longitude: 13.4),
                 MotionSample(at: Self.at(2), latitude: 0, longitude: 0),
                 MotionSample(at: Self.at(3), latitude: 48.8, longitude: 2.3),    // Paris, a second after Berlin
                 MotionSample(at: Self.at(4), latitude: 52.50001, longitude: 13.4)]
        let (kept, report) = MotionCleaning.clean(s)
        // Samples left with nothing are gone.
        #expect(kept.map(\.at) == [Self.at(0), Self.at(4)])
        #expect(MotionCleaning.clean([MotionSample(at: Self.at(0), distance: 1e12)]).report.lines == ["1 distance beyond 10,000 km dropped"])
        #expect(kept[0].altitude == nil && kept[0].latitude == 52.5)
        #expect(report.counts == [.altitudeOutOfRange: 2, .positionOutOfRange: 2, .positionJump: 1])
        #expect(report.lines.contains("2 altitudes outside −500 to 9,000 m dropped"))
        #expect(report.lines.contains("1 position further from the one before than 150 km/h goes dropped"))
    }

    @Test func distanceIsSummedAlongThePositionsWhenTheFileHasNone() {
        // Along a meridian: a thousandth of a degree is 111.195 m on the mean sphere.
        let s = (0...10).map { i in MotionSample(at: Self.at(Double(i)), latitude: 52 + Double(i) / 1000, longitude: 13) }
        let summed = MotionCleaning.distanceFromPositions(s)
        #expect(summed.first?.distance == 0)
        #expect(abs((summed.last?.distance ?? 0) - 1111.95) < 0.05)
        // A file's own distance is left alone.
        var own = s
        own[3].distance = 7
        #expect(MotionCleaning.distanceFromPositions(own) == own)
        // Without positions, a sample with nothing else goes.
        #expect(MotionCleaning.withoutPositions(summed).allSatisfy { $0.latitude == nil && $0.distance != nil })
        #expect(MotionCleaning.withoutPositions(s).isEmpty)
    }

    @Test func aMillionSamplesAreOnePass() {
        let s = (0..<1_000_000).map { i in MotionSample(at: Self.at(Double(i)), speed: .nan) }
        let started = Date()
        let (kept, report) = MotionCleaning.clean(s)
        #expect(kept.isEmpty && report.counts == [.notANumber: 1_000_000])
        // One pass: well within a request's time even in a debug build on a busy box.
        #expect(Date().timeIntervalSince(started) < 20)
    }
}
