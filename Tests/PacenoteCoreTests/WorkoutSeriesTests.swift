import Foundation
import PacenoteCore
import Testing

/// `WorkoutMeasures.series`: the chart's speed and altitude in stretches of equal time, read
/// as the figures read the samples.
@Suite struct WorkoutSeriesTests {
    static let t0 = Date(timeIntervalSince1970: 1_763_794_800)

    static func sample(_ t: Double, distance: Double? = nil, speed: Double? = nil, altitude: Double? = nil) -> MotionSample {
        MotionSample(at: t0.addingTimeInterval(t), speed: speed, distance: distance, altitude: altitude)
    }

    @Test func aSteadyRunIsItsSpeedInEveryStretch() {
        let motion = (0...600).map { Self.sample(Double($0), distance: Double($0) * 3, altitude: 30 + Double($0 % 2)) }
        let series = WorkoutMeasures.series(motion: motion, points: 60)
        #expect(series.count == 60)
        #expect(series.allSatisfy { abs(($0.speed ?? 0) - 3) < 1e-9 })
        // Each stretch's altitude is the mean of its samples (30 and 31 alternating).
        #expect(series.dropLast().allSatisfy { abs(($0.altitude ?? 0) - 30.5) < 0.06 })
        #expect(series.first?.at == Self.t0.addingTimeInterval(5) && series.last?.at == Self.t0.addingTimeInterval(595))
    }

    /// A stop lowers the stretch's speed (stops included), never to NaN; the clock going
    /// backwards and impossible values are left out as the figures leave them out.
    @Test func stopsSlowTheStretchAndNonsenseIsLeftOut() {
        var motion = (0...20).map { Self.sample(Double($0), distance: Double(min($0, 10)) * 4) }
        motion.insert(Self.sample(5, distance: 9_999), at: 12)       // earlier than the one before
        motion[3].speed = .nan
        let series = WorkoutMeasures.series(motion: motion, points: 2)
        #expect(series.map(\.speed) == [4, 0], "\(series)")
        #expect(series.allSatisfy { $0.altitude == nil })
    }

    @Test func fewerSamplesThanPointsAndNoneAtAll() {
        #expect(WorkoutMeasures.series(motion: [], points: 10).isEmpty)
        #expect(WorkoutMeasures.series(motion: [Self.sample(0, distance: 0)], points: 10).isEmpty)
        let three = WorkoutMeasures.series(motion: [Self.sample(0, speed: 2), Self.sample(1, speed: 2), Self.sample(2, speed: 2)], points: 10)
        #expect(three.count == 2 && three.allSatisfy { $0.speed == 2 }, "\(three)")
        // Altitude alone: a chart of elevation, no speed.
        let climb = WorkoutMeasures.series(motion: [Self.sample(0, altitude: 10), Self.sample(10, altitude: 20)], points: 5)
        #expect(climb.count == 1 && climb[0].speed == nil && climb[0].altitude == 15, "\(climb)")
    }
}
