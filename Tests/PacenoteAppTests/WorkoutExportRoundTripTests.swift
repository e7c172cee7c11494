import Foundation
@testable import PacenoteApp
import PacenoteCore
import Testing

/// `WorkoutExport` (Core) read back by Pacenote's own TCX and GPX reader (`WorkoutFile`): what
/// goes out comes back, in the units each format uses.
@Suite struct WorkoutExportRoundTripTests {
    static let t0 = Date(timeIntervalSince1970: 1_763_794_800)

    /// Four minutes of a run at 3 m/s with a lap at two minutes; positions when `positions`.
    static func run(positions: Bool, name: String? = "Tempo <run> & \u{1}co") -> WorkoutExport {
        let motion = (0..<240).map { i in
            MotionSample(at: t0.addingTimeInterval(Double(i)), speed: 3, distance: Double(i) * 3, altitude: 30 + Double(i % 10),
                         cadence: 172, power: 250, latitude: positions ? 52.5 + Double(i) * 0.00003 : nil,
                         longitude: positions ? 13.4 : nil)
        }
        let beats = (0..<240).map { HeartRateSample(at: t0.addingTimeInterval(Double($0)), bpm: 130 + $0 % 20) }
        let laps = [WorkoutLap(start: t0, end: t0.addingTimeInterval(120), calories: 20),
                    WorkoutLap(start: t0.addingTimeInterval(120), end: t0.addingTimeInterval(239), calories: 22)]
        return WorkoutExport(heartRate: beats, motion: motion, laps: laps, calories: 42, sport: "running", name: name)
    }

    @Test func tcxComesBackAsItWent() throws {
        let export = Self.run(positions: true)
        let text = export.tcx()
        // The name escaped, the control character dropped (XML 1.0 allows none).
        #expect(text.contains("<Notes>Tempo &lt;run&gt; &amp; co</Notes>"), "\(text.suffix(600))")
        let file = try WorkoutFile.parse(Data(text.utf8))
        #expect(file.format == .tcx && file.sport == "Running")
        #expect(file.samples.map(\.bpm) == export.heartRate.map(\.bpm))
        #expect(file.samples.map(\.at) == export.heartRate.map(\.at))
        // Distance as WorkoutMeasures counts it (the device's here), run cadence halved out and doubled back in.
        // Positions are written to 7 decimals (1 cm): equal within that, the rest exactly.
        func withoutPosition(_ m: MotionSample) -> MotionSample { var m = m; m.latitude = nil; m.longitude = nil; return m }
        #expect(file.motion.map(withoutPosition) == export.motion.map(withoutPosition), "\(file.motion.first.map(String.init(describing:)) ?? "")")
        #expect(zip(file.motion, export.motion).allSatisfy { abs(($0.latitude ?? 0) - ($1.latitude ?? 99)) < 1e-7 && $0.longitude == $1.longitude })
        #expect(file.laps == [WorkoutLap(start: Self.t0, end: Self.t0.addingTimeInterval(120), calories: 20),
                              WorkoutLap(start: Self.t0.addingTimeInterval(120), end: Self.t0.addingTimeInterval(239), calories: 22)])
        #expect(text.contains("<ns3:RunCadence>86</ns3:RunCadence>") && !text.contains("<Cadence>"))
        // Each lap's distance is its own: 120 × 3 m, then 119 × 3 m.
        #expect(text.contains("<DistanceMeters>360</DistanceMeters>") && text.contains("<DistanceMeters>357</DistanceMeters>"))
    }

    @Test func aRideWritesPedalCadenceAndOneLapWithTheWorkoutsCalories() throws {
        var ride = Self.run(positions: false, name: nil)
        ride.sport = "cycling"
        ride.laps = []
        let text = ride.tcx()
        #expect(text.contains("Sport=\"Biking\"") && text.contains("<Cadence>172</Cadence>") && !text.contains("RunCadence"))
        #expect(text.components(separatedBy: "<Lap ").count == 2 && text.contains("<Calories>42</Calories>"))
        #expect(text.contains("<TotalTimeSeconds>239</TotalTimeSeconds>") && !text.contains("<Position>"))
        let file = try WorkoutFile.parse(Data(text.utf8))
        #expect(file.motion.map(\.cadence) == ride.motion.map(\.cadence))
        #expect(file.laps.count == 1 && file.laps.first?.calories == 42)
    }

    /// A lap in a pause (the watch stopped recording): written without a Track, which the
    /// schema wants non-empty.
    @Test func aLapWithoutSamplesHasNoTrack() throws {
        var export = Self.run(positions: false)
        export.motion = export.motion.filter { $0.at < Self.t0.addingTimeInterval(60) || $0.at >= Self.t0.addingTimeInterval(180) }
        export.heartRate = export.heartRate.filter { $0.at < Self.t0.addingTimeInterval(60) || $0.at >= Self.t0.addingTimeInterval(180) }
        export.laps = [WorkoutLap(start: Self.t0, end: Self.t0.addingTimeInterval(60)),
                       WorkoutLap(start: Self.t0.addingTimeInterval(60), end: Self.t0.addingTimeInterval(180)),
                       WorkoutLap(start: Self.t0.addingTimeInterval(180), end: Self.t0.addingTimeInterval(239))]
        let text = export.tcx()
        #expect(text.components(separatedBy: "<Lap ").count == 4 && text.components(separatedBy: "<Track>").count == 3, "\(text.prefix(2000))")
        let file = try WorkoutFile.parse(Data(text.utf8))
        #expect(file.laps.map { $0.end.timeIntervalSince($0.start) } == [60, 120, 59] && file.samples.count == 120)
    }

    /// Heart rate alone (a strap, no watch): trackpoints of heart rate, no distance.
    @Test func heartRateAloneHasNoDistance() throws {
        let beats = (0..<60).map { HeartRateSample(at: Self.t0.addingTimeInterval(Double($0)), bpm: 100 + $0) }
        let text = WorkoutExport(heartRate: beats, motion: []).tcx()
        #expect(text.contains("<DistanceMeters>0</DistanceMeters>") && text.components(separatedBy: "<DistanceMeters>").count == 2)
        let file = try WorkoutFile.parse(Data(text.utf8))
        #expect(file.samples.map(\.bpm) == beats.map(\.bpm) && file.motion.isEmpty)
    }

    @Test func gpxOnlyWithPositions() throws {
        #expect(Self.run(positions: false).gpx() == nil)
        let export = Self.run(positions: true)
        let text = try #require(export.gpx())
        let file = try WorkoutFile.parse(Data(text.utf8))
        #expect(file.format == .gpx && file.name == "Tempo <run> & co")
        #expect(file.samples.map(\.bpm) == export.heartRate.map(\.bpm))
        #expect(zip(file.motion, export.motion).allSatisfy { abs(($0.latitude ?? 0) - ($1.latitude ?? 99)) < 1e-7 })
        #expect(file.motion.map(\.altitude) == export.motion.map(\.altitude))
        #expect(file.motion.map(\.cadence) == export.motion.map(\.cadence))  // gpxtpx:cad in strides, read back doubled
    }
}
