import Foundation
import PacenoteCore
import Testing

/// Footpods' and crank sensors' measurements (issue 56), byte by byte as the Bluetooth SIG's
/// Running and Cycling Speed and Cadence services define them; and live cadence's smoothing.
struct BLESpeedCadenceTests {
    @Test func aRunningMeasurementWithAndWithoutItsOptionalFields() throws {
        let plain = try BLERunningMeasurement(bytes: [0x04, 0x80, 0x03, 0xa0])
        #expect(plain.speed == 3.5 && plain.cadence == 160 && plain.running && plain.strideLength == nil && plain.totalDistance == nil)
        let full = try BLERunningMeasurement(bytes: [0x03, 0x00, 0x02, 0xb0, 0x8f, 0x00, 0x10, 0x27, 0x00, 0x00])
        #expect(full.speed == 2 && full.cadence == 176 && !full.running)
        #expect(full.strideLength == 1.43 && full.totalDistance == 1000)
        let sample = full.sample(at: Date(timeIntervalSince1970: 5))
        #expect(sample.cadence == 176 && sample.speed == 2)
        #expect(throws: BLERunningMeasurement.Malformed.self) { try BLERunningMeasurement(bytes: [0x04, 0x80]) }
        #expect(throws: BLERunningMeasurement.Malformed.self) { try BLERunningMeasurement(bytes: [0x02, 0x80, 0x03, 0xa0, 0x01]) }
    }

    @Test func crankCadenceFromRevolutionsOverTimeWrappingAround() throws {
        var crank = CrankCadence()
        let t0 = Date(timeIntervalSince1970: 0)
        #expect(crank.add(try BLECyclingMeasurement(bytes: [0x02, 0xfe, 0xff, 0x00, 0xfc]), at: t0) == nil)
        // Two revolutions in one second, both counters wrapping: 120 rpm.
        let rpm = crank.add(try BLECyclingMeasurement(bytes: [0x02, 0x00, 0x00, 0x00, 0x00]), at: t0.addingTimeInterval(1))
        #expect(rpm == 120)
        // No new crank event: the last cadence for a while, then 0 (the rider stopped).
        #expect(crank.add(try BLECyclingMeasurement(bytes: [0x02, 0x00, 0x00, 0x00, 0x00]), at: t0.addingTimeInterval(2)) == 120)
        #expect(crank.add(try BLECyclingMeasurement(bytes: [0x02, 0x00, 0x00, 0x00, 0x00]), at: t0.addingTimeInterval(5)) == 0)
        // Wheel and crank together: the crank's data follows the wheel's six bytes.
        let both = try BLECyclingMeasurement(bytes: [0x03, 1, 0, 0, 0, 0, 4, 7, 0, 0, 8])
        #expect(both.wheel?.revolutions == 1 && both.crank?.revolutions == 7 && both.crank?.eventTime == 0x0800)
        #expect(throws: BLERunningMeasurement.Malformed.self) { try BLECyclingMeasurement(bytes: [0x02, 0x01]) }
    }

    @Test func liveCadenceIsTheMedianOfTheLastTenSeconds() {
        var smoother = CadenceSmoother()
        let t0 = Date(timeIntervalSince1970: 1000)
        for i in 0..<5 { smoother.add(160, at: t0.addingTimeInterval(Double(i)), source: "pod") }
        smoother.add(250, at: t0.addingTimeInterval(5), source: "pod")  // a glitch
        #expect(smoother.current(now: t0.addingTimeInterval(5))?.stepsPerMinute == 160)
        smoother.add(20, at: t0.addingTimeInterval(6), source: "pod")  // not steps: ignored
        for i in 7..<20 { smoother.add(176, at: t0.addingTimeInterval(Double(i)), source: "pod") }
        #expect(smoother.current(now: t0.addingTimeInterval(19))?.stepsPerMinute == 176)
        #expect(smoother.current(now: t0.addingTimeInterval(19 + CadenceSmoother.freshFor + 1)) == nil)
    }

    @Test func theControlsStepFromWhatIsFollowed() {
        var state = CadenceState(on: true, fallback: 170)
        #expect(state.following.stepsPerMinute == 170 && state.following.source == "default")
        state.live = LiveCadence(stepsPerMinute: 163.4, at: Date(), source: "pod")
        #expect(state.following.source == "live" && state.stepped(by: 5) == 168)
        state.target = 238
        #expect(state.following.source == "target" && state.stepped(by: 5) == 240)
    }
}
