import Foundation
@testable import PacenoteApp
import PacenoteCore
import Testing

/// Speed, distance, altitude, cadence, power, positions and laps from TCX and GPX.
@Suite struct WorkoutFileMotionTests {
    static let start = 1_763_794_800.0
    static func iso(_ t: Double) -> String {
        Date(timeIntervalSince1970: start + t).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: false))
    }

    static func tcx(sport: String = "Running", points: [String], laps: String = "") -> Data {
        Data(("""
            <?xml version="1.0"?><TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"
              xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2"><Activities><Activity Sport="\(sport)">
            <Lap StartTime="\(iso(0))"><TotalTimeSeconds>2</TotalTimeSeconds><Calories>30</Calories><Track>
            """ + points.joined() + "</Track></Lap>" + laps + "</Activity></Activities></TrainingCenterDatabase>").utf8)
    }

    static func trackpoint(_ t: Double, bpm: Int? = 140, extra: String) -> String {
        "<Trackpoint><Time>\(iso(t))</Time>" + (bpm.map { "<HeartRateBpm><Value>\($0)</Value></HeartRateBpm>" } ?? "") + extra + "</Trackpoint>"
    }

    @Test func tcxTrackpointsAndTheirTPXExtension() throws {
        let points = (0..<3).map { i in
            Self.trackpoint(Double(i), extra: """
                <Position><LatitudeDegrees>52.5</LatitudeDegrees><LongitudeDegrees>13.4</LongitudeDegrees></Position>
                <AltitudeMeters>\(34 + i)</AltitudeMeters><DistanceMeters>\(Double(i) * 3.1)</DistanceMeters>
                <Extensions><ns3:TPX><ns3:Speed>3.1</ns3:Speed><ns3:RunCadence>86</ns3:RunCadence><ns3:Watts>260</ns3:Watts></ns3:TPX></Extensions>
                """)
        }
        let second = "<Lap StartTime=\"\(Self.iso(2))\"><TotalTimeSeconds>10.5</TotalTimeSeconds><Track></Track></Lap>"
        let file = try WorkoutFile.parse(Self.tcx(points: points, laps: second))
        #expect(file.samples.count == 3 && file.motion.count == 3)
        #expect(file.motion[2] == MotionSample(at: Date(timeIntervalSince1970: Self.start + 2), speed: 3.1, distance: 6.2,
                                               altitude: 36, cadence: 172, power: 260, latitude: 52.5, longitude: 13.4))
        let t0 = Date(timeIntervalSince1970: Self.start)
        #expect(file.laps == [WorkoutLap(start: t0, end: t0.addingTimeInterval(2), calories: 30),
                              WorkoutLap(start: t0.addingTimeInterval(2), end: t0.addingTimeInterval(12.5))])
        #expect(file.calories == 30 && file.cleaning.isEmpty)
    }

    @Test func aBikesCadenceIsItsPedalsRPM() throws {
        let file = try WorkoutFile.parse(Self.tcx(sport: "Biking", points: [Self.trackpoint(0, extra: "<Cadence>92</Cadence>")]))
        #expect(file.motion.first?.cadence == 92)
    }

    static func gpx(type: String, points: [(lat: Double, lon: Double, ele: Double, hr: Int?, cad: Int?)]) -> Data {
        let body = points.enumerated().map { i, p in
            var ext = ""
            if let hr = p.hr { ext += "<gpxtpx:hr>\(hr)</gpxtpx:hr>" }
            if let cad = p.cad { ext += "<gpxtpx:cad>\(cad)</gpxtpx:cad>" }
            return "<trkpt lat=\"\(p.lat)\" lon=\"\(p.lon)\"><ele>\(p.ele)</ele><time>\(iso(Double(i)))</time>"
                + "<extensions><gpxtpx:TrackPointExtension>\(ext)</gpxtpx:TrackPointExtension></extensions></trkpt>"
        }.joined()
        return Data(("""
            <?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"
              xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1"><trk><type>\(type)</type><trkseg>
            """ + body + "</trkseg></trk></gpx>").utf8)
    }

    @Test func gpxGivesDistanceFromItsPositionsAndARunnersStepsDoubled() throws {
        typealias Point = (lat: Double, lon: Double, ele: Double, hr: Int?, cad: Int?)
        let points: [Point] = (0..<5).map { (i: Int) -> Point in
            let lat: Double = 52.5 + Double(i) / 10_000
            return (lat: lat, lon: 13.4, ele: 30 + Double(i), hr: 150, cad: 85)
        }
        let file = try WorkoutFile.parse(Self.gpx(type: "running", points: points))
        #expect(file.samples.count == 5)
        // Four steps of a ten-thousandth of a degree along a meridian: 4 × 11.1195 m.
        #expect(abs((file.motion.last?.distance ?? 0) - 44.478) < 0.01, "\(file.motion)")
        #expect(file.motion.map(\.cadence) == [Double?](repeating: 170, count: 5))
        #expect(file.motion.last?.altitude == 34 && abs((file.motion.last?.latitude ?? 0) - 52.5004) < 1e-9)
        let ride = try WorkoutFile.parse(Self.gpx(type: "cycling", points: points))
        #expect(ride.motion.first?.cadence == 85)
    }

    @Test func aFileWithMotionButNoHeartRateIsAWorkoutToo() throws {
        typealias Point = (lat: Double, lon: Double, ele: Double, hr: Int?, cad: Int?)
        let points: [Point] = (0..<3).map { (i: Int) -> Point in
            let lat: Double = 52.5 + Double(i) / 10_000
            return (lat: lat, lon: 13.4, ele: 30, hr: nil, cad: nil)
        }
        let file = try WorkoutFile.parse(Self.gpx(type: "cycling", points: points))
        #expect(file.samples.isEmpty && file.motion.count == 3)
    }

    @Test func hostileValuesAreDroppedAndCounted() throws {
        let points = [
            Self.trackpoint(0, extra: "<DistanceMeters>0</DistanceMeters><AltitudeMeters>30</AltitudeMeters>"),
            Self.trackpoint(1, extra: "<DistanceMeters>-40</DistanceMeters><AltitudeMeters>5030</AltitudeMeters>"),
            Self.trackpoint(2, extra: "<DistanceMeters>NaN</DistanceMeters><Extensions><ns3:TPX><ns3:Speed>277.8</ns3:Speed></ns3:TPX></Extensions>"),
            Self.trackpoint(3, extra: "<DistanceMeters>9</DistanceMeters>"),
            Self.trackpoint(1.5, extra: "<DistanceMeters>4</DistanceMeters>"),
        ]
        let file = try WorkoutFile.parse(Self.tcx(points: points))
        #expect(file.motion.map(\.distance) == [0, 9], "\(file.motion)")
        #expect(file.cleaning.lines == ["1 value that was not a number dropped",
                                        "1 sample earlier than the one before dropped (the clock went backwards)",
                                        "1 speed above 150 km/h dropped", "1 negative distance dropped",
                                        "1 altitude changing faster than 50 m a second dropped"], "\(file.cleaning.lines)")
    }

    @Test func aFileWithNothingUsableIsRefusedSayingWhy() {
        let points = [Self.trackpoint(0, bpm: nil, extra: "<Extensions><ns3:TPX><ns3:Speed>-3</ns3:Speed></ns3:TPX></Extensions>")]
        let read = Result { () throws(WorkoutFile.ParseError) in try WorkoutFile.parse(Self.tcx(points: points)) }
        guard case .failure(let error) = read else { Issue.record("read"); return }
        #expect(error.description == "the file has no heart rate, speed, distance, altitude, cadence, power or position (1 negative speed dropped)")
    }
}
