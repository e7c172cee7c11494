import Foundation
import Testing
@testable import PacenoteCore

@Suite struct ZoneTests {
    @Test(arguments: [(94, Zone.z0), (95, .z1), (113, .z1), (114, .z2), (133, .z3), (152, .z4), (170, .z4), (171, .z5), (240, .z5)])
    func percentOfMax(bpm: Int, zone: Zone) {
        #expect(ZoneModel.percentMax(maxHR: 190).zone(for: Double(bpm)) == zone)
    }

    @Test func karvonenUsesTheReserve() {
        // Resting 60, max 190: reserve 130; Z1 from 60 + 65 = 125, Z5 from 60 + 117 = 177.
        let model = ZoneModel.heartRateReserve(maxHR: 190, restingHR: 60)
        #expect(model.lowerBounds == [125, 138, 151, 164, 177])
        #expect(model.zone(for: 124) == .z0)
        #expect(model.zone(for: 177) == .z5)
    }

    @Test func frielsLactateThresholdZones() {
        let run = ZoneModel.lactateThreshold(lthr: 170, sport: .run)
        #expect(run.zone(for: 143) == .z1)   // < 85 % (144.5)
        #expect(run.zone(for: 145) == .z2)
        #expect(run.zone(for: 153) == .z3)   // 90 %
        #expect(run.zone(for: 162) == .z4)   // 95 %: 161.5
        #expect(run.zone(for: 170) == .z5)   // at threshold
        let bike = ZoneModel.lactateThreshold(lthr: 170, sport: .bike)
        #expect(bike.zone(for: 138) == .z2)  // 81 %: 137.7
        #expect(run.zone(for: 138) == .z1)
    }

    @Test func customBoundsAndTanaka() {
        #expect(ZoneModel.custom(lowerBounds: [100, 120, 140, 160, 180]).zone(for: 150) == .z3)
        #expect(ZoneModel.tanakaMaxHR(age: 40) == 180)
        #expect(ZoneModel.tanakaMaxHR(age: 25) == 191)
    }

    @Test func timeInZoneCapsGapsAtFiveSeconds() {
        let t0 = Date(timeIntervalSince1970: 0)
        let samples = [100, 100, 150, 150].enumerated().map { HeartRateSample(at: t0.addingTimeInterval(Double($0.offset) * 2), bpm: $0.element) }
            + [HeartRateSample(at: t0.addingTimeInterval(60), bpm: 100)]  // 54 s gap before it
        let t = TimeInZone.seconds(samples, model: .percentMax(maxHR: 200), until: t0.addingTimeInterval(61))
        #expect(t[.z1] == 5.0, "\(t)")       // 100 bpm, 50 %: 2 + 2 + 1
        #expect(t[.z3] == 7.0, "\(t)")       // 150 bpm, 75 %: 2, and the gap counts 5
    }
}

@Suite struct HeartRateInputTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func json(_ text: String) throws -> HeartRateInput.Batch {
        try HeartRateInput.parse(Array(text.utf8), format: .json, now: now)
    }

    @Test(arguments: [
        #"{"bpm": 72}"#, #"{"hr": 72}"#, #"{"heart_rate": 72}"#, #"{"heartRate": 72.4}"#, #"{"heartrate": "72"}"#,
        #"{"data": {"heart_rate": 72}}"#, #"{"payload": {"hr": 72}}"#, "72",
    ])
    func acceptsTheShapesAppsSend(body: String) throws {
        let batch = try json(body)
        #expect(batch.items.count == 1)
        #expect(try batch.items[0].get() == HeartRateSample(at: now, bpm: 72))
    }

    @Test func pulsoidWithItsTimestampAndRR() throws {
        let batch = try json(#"{"measured_at": 1799999990123, "data": {"heart_rate": 80}, "rr": [750, 760.5]}"#)
        let sample = try batch.items[0].get()
        #expect(sample.at == Date(timeIntervalSince1970: 1_799_999_990.123))
        #expect(sample.rr == [750, 760.5])
        #expect(try json(#"{"bpm": 80, "ts": 1799999990}"#).items[0].get().at == Date(timeIntervalSince1970: 1_799_999_990))
        #expect(try json(#"{"bpm": 80, "ts": 1}"#).items[0].get().at == Date(timeIntervalSince1970: 1))
        #expect(throws: (any Error).self) { try json(#"{"bpm": true}"#).items[0].get() }
        #expect(try json(#"{"bpm": 80, "time": "2027-01-15T07:59:50Z"}"#).items[0].get().at == Date(timeIntervalSince1970: 1_799_999_990))
    }

    @Test func batchesKeepGoodSamplesAndNameTheBadOnes() throws {
        let batch = try json(#"{"source": "strap", "samples": [{"bpm": 70}, {"bpm": 300}, {"bpm": 71, "ts": 1900000000}, {"x": 1}, 72, {"bpm": 73, "rr": "no"}]}"#)
        #expect(batch.source == "strap")
        #expect(batch.items.count == 6)
        let rejected = batch.items.enumerated().compactMap { i, r -> (Int, String)? in
            if case .failure(let e) = r { return (i, e.field) }
            return nil
        }
        #expect(rejected.map(\.0) == [1, 2, 3, 5])
        #expect(rejected.map(\.1) == ["bpm", "ts", "bpm", "rr"])
        #expect(try json("[70, 71]").items.count == 2)
    }

    @Test func wholeBodyErrorsNameTheField() {
        #expect(throws: HeartRateInput.Rejection(field: "body", message: "the body is not valid JSON")) { try json("{bpm:") }
        #expect(throws: HeartRateInput.Rejection(field: "samples", message: "the batch is empty")) { try json(#"{"samples": []}"#) }
        #expect(throws: HeartRateInput.Rejection(field: "samples", message: "must be an array")) { try json(#"{"samples": 3}"#) }
        #expect(throws: HeartRateInput.Rejection.self) { try json("\"text\"") }
    }

    @Test func textAndFormBodies() throws {
        let text = try HeartRateInput.parse(Array("heartRate:72\n73\n".utf8), format: .text, now: now)
        #expect(text.items.compactMap { try? $0.get().bpm } == [72, 73])
        #expect(try HeartRateInput.parse(Array("bpm=74".utf8), format: .form, now: now).items[0].get().bpm == 74)
        #expect(try HeartRateInput.parse(Array("x=75&y=1".utf8), format: .form, now: now).items[0].get().bpm == 75)
        #expect(throws: HeartRateInput.Rejection.self) { try HeartRateInput.parse(Array("y=1".utf8), format: .form, now: now) }
        #expect(HeartRateInput.format(contentType: "text/plain; charset=utf-8") == .text)
        #expect(HeartRateInput.format(contentType: "application/x-www-form-urlencoded") == .form)
        #expect(HeartRateInput.format(contentType: nil) == .json)
    }
}

@Suite struct BLEHeartRateTests {
    @Test func uint8ValueWithContactAndRR() throws {
        // flags 0x16: uint8, contact supported and detected, RR present; 78 bpm; RR 0x0300 = 768/1024 s.
        let m = try BLEHeartRateMeasurement(bytes: BLEHeartRateMeasurement.bytes(fromHex: "16 4e 00 03"))
        #expect(m.bpm == 78)
        #expect(m.contact == true)
        #expect(m.rr == [750])
        #expect(m.isUsable)
    }

    @Test func uint16ValueWithEnergyAndTwoRRIntervals() throws {
        // flags 0x19: uint16, energy present, RR present; 300 bpm? no: 0x00a0 = 160; energy 0x0010; RR 1024, 512.
        let m = try BLEHeartRateMeasurement(bytes: BLEHeartRateMeasurement.bytes(fromHex: "19a0001000000400 02"))
        #expect(m.bpm == 160)
        #expect(m.contact == nil)
        #expect(m.energyExpended == 16)
        #expect(m.rr == [1000, 500])
    }

    @Test func noContactIsDropped() throws {
        // flags 0x04: contact supported, not detected.
        let m = try BLEHeartRateMeasurement(bytes: [0x04, 0x48])
        #expect(m.contact == false)
        #expect(!m.isUsable)
    }

    @Test func aNotificationBecomesASampleAtItsTimeOrSaysWhyNot() throws {
        let at = Date(timeIntervalSince1970: 1_790_000_000.25)
        let sample = try HeartRateInput.sample(fromBLE: [0x16, 0x4e, 0x00, 0x03], at: at).get()
        #expect(sample == HeartRateSample(at: at, bpm: 78, rr: [750]))
        let cases: [([UInt8], String, String)] = [
            ([0x04, 0x48], "contact", "the sensor reports no skin contact"),
            ([0x06, 0x10], "bpm", "16 is outside 25–250 bpm"),
            ([0x01, 0x2c, 0x01], "bpm", "300 is outside 25–250 bpm"),
            ([0x01, 0x2c], "ble", "not a Heart Rate Measurement: 01 2c"),
            ([], "ble", "not a Heart Rate Measurement: "),
        ]
        for (bytes, field, message) in cases {
            guard case .failure(let rejection) = HeartRateInput.sample(fromBLE: bytes, at: at) else {
                Issue.record("\(bytes) was taken")
                continue
            }
            #expect(rejection.field == field, "\(bytes)")
            #expect(rejection.message == message, "\(bytes)")
        }
        // No contact reported at all (bit 2 clear) is no reason to refuse.
        #expect(try HeartRateInput.sample(fromBLE: [0x00, 0x48], at: at).get().bpm == 72)
    }

    @Test func bluetoothAddressesAreSixHexPairs() {
        for good in ["C0:FF:EE:12:34:56", "c0:ff:ee:12:34:56", "00:00:00:00:00:00"] { #expect(BluetoothAddress.isValid(good), "\(good)") }
        for bad in ["", "auto", "C0:FF:EE", "C0:FF:EE:12:34:56:78", "C0-FF-EE-12-34-56", "G0:FF:EE:12:34:56", "C0:FF:EE:12:34:5", "C0::EE:12:34:56"] {
            #expect(!BluetoothAddress.isValid(bad), "\(bad)")
        }
    }

    @Test func readsGatttoolNotificationLines() throws {
        let line = "Notification handle = 0x000f value: 06 48 "
        #expect(try BLEHeartRateMeasurement.bytes(fromHex: line) == [0x06, 0x48])
        #expect(try BLEHeartRateMeasurement(bytes: BLEHeartRateMeasurement.bytes(fromHex: line)).bpm == 72)
        #expect(try BLEHeartRateMeasurement.bytes(fromHex: "0x06 0x48") == [0x06, 0x48])
    }

    @Test func rejectsBrokenInput() {
        #expect(throws: BLEHeartRateMeasurement.ParseError.tooShort) { try BLEHeartRateMeasurement(bytes: [0x01, 0x48]) }
        #expect(throws: BLEHeartRateMeasurement.ParseError.tooShort) { try BLEHeartRateMeasurement(bytes: []) }
        #expect(throws: BLEHeartRateMeasurement.ParseError.truncatedRR) { try BLEHeartRateMeasurement(bytes: [0x10, 0x48, 0x00]) }
        #expect(throws: BLEHeartRateMeasurement.ParseError.notHex("zz")) { try BLEHeartRateMeasurement.bytes(fromHex: "zz") }
    }
}

@Suite struct SmootherAndWorkoutTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }

    @Test func aSingleSpikeIsIgnoredAndARealChangeFollowed() {
        var s = HeartRateSmoother()
        for i in 0..<5 { s.add(HeartRateSample(at: at(Double(i)), bpm: 120)) }
        #expect(s.add(HeartRateSample(at: at(5), bpm: 200)) == 120)   // glitch: held back
        #expect(s.add(HeartRateSample(at: at(6), bpm: 121)) == 120)   // not confirmed: dropped
        #expect(s.add(HeartRateSample(at: at(7), bpm: 170)) == 120)   // held back, unconfirmed yet
        #expect(s.add(HeartRateSample(at: at(8), bpm: 172)) == 171)   // confirmed: a real change
    }

    @Test func workoutsStartAfterAMinuteAndEndAfterFiveQuietMinutes() {
        var d = WorkoutDetector()
        var events: [WorkoutDetector.Event] = []
        for i in stride(from: 0.0, through: 120, by: 1) { events += d.add(at(i)) }
        #expect(events == [.started(at: at(0))])
        // A 4-minute gap is bridged...
        events = d.add(at(360))
        #expect(events.isEmpty)
        #expect(d.tick(now: at(600)).isEmpty)
        // ...five quiet minutes end it at the last reading.
        #expect(d.endsAt == at(660))
        #expect(d.tick(now: at(661)) == [.ended(at: at(360))])
        // Short bursts never start one.
        for i in stride(from: 1000.0, through: 1050, by: 1) { _ = d.add(at(i)) }
        #expect(d.workoutStart == nil)
    }

    @Test func manualWorkoutsEndOnlyByHand() {
        var d = WorkoutDetector()
        #expect(d.startManually(at: at(0)) == [.started(at: at(0))])
        _ = d.add(at(10))
        #expect(d.tick(now: at(1000)).isEmpty)
        #expect(d.stopManually(at: at(1000)) == [.ended(at: at(1000))])
        // The strap stays on: no automatic workout right after the one stopped by hand...
        for i in stride(from: 1001.0, through: 1200, by: 1) { #expect(d.add(at(i)).isEmpty) }
        // ...until the readings pause for endAfter and start again.
        var events: [WorkoutDetector.Event] = []
        for i in stride(from: 1600.0, through: 1700, by: 1) { events += d.add(at(i)) }
        #expect(events == [.started(at: at(1600))])
    }

    @Test func workoutsFoundInLateUploads() {
        let readings = stride(from: 0.0, through: 90, by: 1).map(at) + stride(from: 1000.0, through: 1030, by: 1).map(at)
        let found = WorkoutDetector.workouts(in: readings)
        #expect(found.count == 1)
        #expect(found.first.map { $0.0 == at(0) && $0.1 == at(90) } == true)
    }

    @Test func liftIsTheRiseOverTheThirtySecondsBefore() {
        let samples = (0..<60).map { HeartRateSample(at: at(Double($0)), bpm: $0 < 30 ? 120 : 135) }
        #expect(HeartRateLift.lift(samples: samples, start: at(30), end: at(59)) == 15)
        #expect(HeartRateLift.lift(samples: samples, start: at(0), end: at(10)) == nil)
    }
}
