import Foundation
@testable import PacenoteCore
import Testing

/// A FIT record's motion fields as Garmin's profile scales them.
@Suite struct FITMotionTests {
    static let start: UInt32 = 1_100_000_000
    static func le(_ v: UInt32, _ size: Int = 4) -> [UInt8] { FITBuilder.le(v, size) }

    /// Records with every motion field (the second one all "no value"), a lap and a session
    /// with calories.
    static func file(sport: UInt8, enhanced: Bool) -> [UInt8] {
        var b = FITBuilder()
        b.define(local: 0, global: 0, [(0, 1, 0x00)])
        b.message(local: 0, [4])
        // timestamp, lat, long (sint32), altitude, hr, cadence, distance, speed, power, fractional cadence
        var fields: [(UInt8, UInt8, UInt8)] = [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (2, 2, 0x84), (3, 1, 0x02),
                                               (4, 1, 0x02), (5, 4, 0x86), (6, 2, 0x84), (7, 2, 0x84), (53, 1, 0x02)]
        if enhanced { fields += [(73, 4, 0x86), (78, 4, 0x86)] }
        b.define(local: 1, global: 20, fields)
        // 52.5° and 13.4° in semicircles; altitude 34 m is (34 + 500) × 5; 1234.56 m; 3.456 m/s.
        let lat = UInt32(bitPattern: Int32((52.5 * 2_147_483_648 / 180).rounded()))
        let lon = UInt32(bitPattern: Int32((-13.4 * 2_147_483_648 / 180).rounded()))
        var first = [le(start), le(lat), le(lon), le(2670, 2), [150], [85], le(123_456), le(3456, 2), le(250, 2), [64]]
        if enhanced { first += [le(4567), le(2700)] }
        b.data.append(1)
        for f in first { b.data += f }
        var empty = [le(start + 1), le(0x7FFF_FFFF), le(0x7FFF_FFFF), le(0xFFFF, 2), [0xFF], [0xFF], le(0xFFFF_FFFF),
                     le(0xFFFF, 2), le(0xFFFF, 2), [0xFF]]
        if enhanced { empty += [le(0xFFFF_FFFF), le(0xFFFF_FFFF)] }
        b.data.append(1)
        for f in empty { b.data += f }
        b.define(local: 2, global: 19, [(253, 4, 0x86), (2, 4, 0x86), (7, 4, 0x86), (11, 2, 0x84)])
        b.message(local: 2, le(start + 1), le(start), le(1000), le(42, 2))
        b.define(local: 3, global: 18, [(253, 4, 0x86), (2, 4, 0x86), (7, 4, 0x86), (5, 1, 0x00), (6, 1, 0x00), (11, 2, 0x84)])
        b.message(local: 3, le(start + 1), le(start), le(1000), [sport], [0], le(43, 2))
        return b.file()
    }

    @Test func readsEveryFieldScaledAndNoValueAsNil() throws {
        let a = try FITFile.decode(Self.file(sport: 2, enhanced: false))
        let r = try #require(a.records.first)
        #expect(r.heartRate == 150)
        #expect(abs(r.latitude! - 52.5) < 1e-7 && abs(r.longitude! + 13.4) < 1e-7)
        #expect(r.altitude == 34 && r.distance == 1234.56 && r.speed == 3.456 && r.power == 250 && r.cadence == 85.5)
        let none = a.records[1]
        #expect(none.heartRate == nil && none.latitude == nil && none.longitude == nil && none.altitude == nil)
        #expect(none.cadence == nil && none.distance == nil && none.speed == nil && none.power == nil)
        #expect(a.laps.first?.calories == 42 && a.calories == 43)
        #expect(a.workoutLaps == [WorkoutLap(start: FITFileTests.date(Self.start), end: FITFileTests.date(Self.start + 1), calories: 42)])
        // Cycling: the cadence is the pedals' rpm as it is; the empty record gives no motion.
        #expect(a.motion.count == 1 && a.motion.first?.cadence == 85.5)
    }

    @Test func enhancedFieldsWinAndARunnersStridesAreDoubled() throws {
        let a = try FITFile.decode(Self.file(sport: 1, enhanced: true))
        #expect(a.records.first?.speed == 4.567 && a.records.first?.altitude == 40)
        #expect(a.motion.first?.cadence == 171)
    }
}
