import Foundation
@testable import PacenoteCore
import Testing

/// `POST /api/v1/hr` and `hr-feed` bodies with motion beside the heart rate.
@Suite struct HeartRateMotionInputTests {
    static let now = Date(timeIntervalSince1970: 1_763_794_800)

    func parse(_ json: String) throws -> HeartRateInput.Batch {
        try HeartRateInput.parse(Array(json.utf8), format: .json, now: Self.now)
    }

    @Test func motionRidesBesideTheHeartRate() throws {
        let b = try parse(#"{"samples":[{"bpm":150,"ts":1763794790,"speed":3.2,"distance":1000.5,"altitude":34,"cadence":172,"power":250,"lat":52.5,"lon":13.4},{"bpm":151}]}"#)
        #expect(b.items.count == 2 && b.motion.count == 2)
        #expect(try b.items[0].get().bpm == 150)
        let m = try #require(try b.motion[0]?.get())
        #expect(m == MotionSample(at: Self.now.addingTimeInterval(-10), speed: 3.2, distance: 1000.5, altitude: 34, cadence: 172,
                                  power: 250, latitude: 52.5, longitude: 13.4))
        #expect(b.motion[1] == nil)
    }

    @Test func motionWithoutHeartRateIsMotionAlone() throws {
        let b = try parse(#"{"speed":4.1,"cadence":90}"#)
        guard case .failure(let r) = b.items[0] else { Issue.record("expected no heart rate"); return }
        #expect(r.noHeartRate)
        #expect(try b.motion[0]?.get() == MotionSample(at: Self.now, speed: 4.1, cadence: 90))
    }

    @Test func motionOfTheWrongTypeIsRefusedNamingTheField() throws {
        let b = try parse(#"[{"bpm":120,"speed":"fast"},{"bpm":120,"lat":52.5},{"speed":3,"ts":"yesterday"}]"#)
        #expect(b.motion[0] == .failure(.init(field: "speed", message: "must be a number")))
        #expect(b.motion[1] == .failure(.init(field: "lon", message: "a position needs both lat and lon")))
        if case .failure(let r)? = b.motion[2] { #expect(r.field == "ts") } else { Issue.record("\(b.motion)") }
        // The heart rate beside stays good.
        #expect(try b.items[0].get().bpm == 120)
    }

    @Test func feedLinesAreReadingsThatGoBackAsTheyCame() throws {
        let lines = [#"{"bpm":150,"ts":1763794790000,"rr":[400.5],"speed":3.5,"cadence":172,"lat":52.5,"lon":13.4}"#,
                     #"{"ts":1763794791000,"power":250}"#, "72"]
        let readings = lines.flatMap { HeartRateInput.readings($0, format: .auto, now: Self.now) }
        let at = Date(timeIntervalSince1970: 1_763_794_790)
        #expect(readings == [
            .success(.init(heartRate: HeartRateSample(at: at, bpm: 150, rr: [400.5]),
                           motion: MotionSample(at: at, speed: 3.5, cadence: 172, latitude: 52.5, longitude: 13.4))),
            .success(.init(heartRate: nil, motion: MotionSample(at: at.addingTimeInterval(1), power: 250))),
            .success(.init(heartRate: HeartRateSample(at: Self.now, bpm: 72))),
        ])
        // What the buffer file keeps and the server is sent reads back the same.
        for case .success(let reading) in readings {
            #expect(HeartRateInput.readings(reading.json, format: .json, now: Self.now) == [.success(reading)], "\(reading.json)")
        }
        #expect(HeartRateInput.readings(#"{"bpm":120,"speed":"x"}"#, format: .json, now: Self.now)
                == [.success(.init(heartRate: HeartRateSample(at: Self.now, bpm: 120))), .failure(.init(field: "speed", message: "must be a number"))])
    }

    @Test func textAndFormBodiesCarryNoMotion() throws {
        #expect(try HeartRateInput.parse(Array("72".utf8), format: .text, now: Self.now).motion.isEmpty)
        #expect(try HeartRateInput.parse(Array("bpm=72".utf8), format: .form, now: Self.now).motion.isEmpty)
    }
}
