import Foundation

/// A workout written as a file other training logs read: TCX (Garmin Training Center v2, what
/// Strava, GoldenCheetah and intervals.icu take) and GPX 1.1 with Garmin's TrackPointExtension.
/// Pure: a workout's stored samples in, the document's text out.
///
/// The trackpoints are the union of the heart-rate readings and the motion samples, one per
/// millisecond instant. Each carries the distance covered up to it as `WorkoutMeasures` counts
/// it (the device's, else the speed integrated, else the positions), so the last trackpoint's
/// distance is the workout's and a reader that sums nothing (python-tcxparser takes the last
/// `DistanceMeters`) finds the same figure as the page.
public struct WorkoutExport: Sendable {
    public var heartRate: [HeartRateSample]
    public var motion: [MotionSample]
    public var laps: [WorkoutLap]
    /// Kilocalories for the whole workout (`WorkoutMeasures.calories`), shared over laps
    /// without their own count by their time.
    public var calories: Double?
    public var sport: String?
    public var name: String?

    public init(heartRate: [HeartRateSample], motion: [MotionSample], laps: [WorkoutLap] = [], calories: Double? = nil,
                sport: String? = nil, name: String? = nil) {
        self.heartRate = heartRate.sorted { $0.at < $1.at }
        self.motion = motion.sorted { $0.at < $1.at }
        self.laps = laps
        self.calories = calories
        self.sport = sport
        self.name = name
    }

    /// Whether positions were kept (`[workouts] keep_positions`): GPX is a list of positions.
    public var hasPositions: Bool { motion.contains { $0.latitude != nil && $0.longitude != nil } }

    /// TCX's `Sport`: one of three words (the schema's `Sport_t`).
    var tcxSport: String {
        switch WorkoutName.activity(sport: sport) {
        case "run"?, "walk"?, "hike"?: "Running"
        case "ride"?: "Biking"
        default: "Other"
        }
    }

    /// Whether cadence counts a runner's steps: TCX (`ns3:RunCadence`) and GPX (`gpxtpx:cad`)
    /// count strides of one foot, half of `MotionSample.cadence`; a cyclist's is pedal rpm.
    var cadenceInSteps: Bool { WorkoutMeasures.readsInPace(sport: sport) }

    /// One instant of the file.
    struct Point {
        var at: Date
        var bpm: Int?
        var motion: MotionSample?
        var distance: Double?
    }

    /// The motion as the figures read it: the distances come from it.
    var track: MotionTrack { MotionTrack(motion, options: WorkoutMeasures.Options()) }

    /// Heart rate and motion merged by instant, oldest first, each with its distance.
    func points(_ track: MotionTrack) -> [Point] {
        var byInstant: [Int64: Point] = [:]
        for s in heartRate {
            let key = Int64((s.at.timeIntervalSince1970 * 1000).rounded())
            byInstant[key, default: Point(at: s.at)].bpm = s.bpm
        }
        for m in motion {
            let key = Int64((m.at.timeIntervalSince1970 * 1000).rounded())
            byInstant[key, default: Point(at: m.at)].motion = m
        }
        return byInstant.keys.sorted().map { key in
            var p = byInstant[key]!
            if let origin = track.origin, p.at >= origin {
                p.distance = track.distance(from: 0, to: p.at.timeIntervalSince(origin))
            }
            return p
        }
    }

    /// The laps to write: the device's, clipped to the samples as `WorkoutMeasures.laps` clips
    /// them, each running to the next one's start (the first from the first point, the last to
    /// the last point, so no trackpoint is left out and the laps' times sum to the elapsed
    /// time), or one lap for the whole workout.
    func lapSpans(_ points: [Point]) -> [(start: Date, end: Date, calories: Double?)] {
        guard let first = points.first?.at, let last = points.last?.at else { return [] }
        let marked = laps.sorted { $0.start < $1.start }.filter { $0.end > $0.start && $0.start < last && $0.end > first }
        guard !marked.isEmpty else { return [(first, last, calories)] }
        return marked.enumerated().map { i, lap in
            let start = i == 0 ? first : lap.start
            let end = i == marked.count - 1 ? last : marked[i + 1].start
            return (start, end, lap.calories)
        }
    }

    // MARK: TCX

    /// The workout as TCX. Lap elements in the schema's order (TotalTimeSeconds,
    /// DistanceMeters, Calories, the heart rates, Intensity, TriggerMethod, Track); Calories is
    /// required there, so a lap without any is written 0.
    public func tcx() -> String {
        let track = self.track
        let points = points(track)
        let spans = lapSpans(points)
        let total = spans.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        let counted = spans.contains { $0.calories != nil }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2" \
            xmlns:ns3="http://www.garmin.com/xmlschemas/ActivityExtension/v2">
            <Activities>
            <Activity Sport="\(tcxSport)">
            <Id>\(ISO8601.string(points.first?.at ?? Date(timeIntervalSince1970: 0)))</Id>

            """
        var index = 0
        for (n, span) in spans.enumerated() {
            let isLast = n == spans.count - 1
            var inLap: [Point] = []
            while index < points.count, isLast || points[index].at < span.end {
                inLap.append(points[index])
                index += 1
            }
            let seconds = span.end.timeIntervalSince(span.start)
            // A lap's own count; else the workout's, by the lap's share of the time (when no lap counted any).
            let kcal = span.calories ?? (!counted && total > 0 ? (calories ?? 0) * seconds / total : 0)
            let beats = inLap.compactMap(\.bpm)
            // As `WorkoutMeasures.laps` counts it: the distance from the lap's start to its end.
            let lapDistance = track.origin.flatMap { origin in
                track.distance(from: span.start.timeIntervalSince(origin), to: span.end.timeIntervalSince(origin))
            } ?? 0
            out += "<Lap StartTime=\"\(ISO8601.string(span.start))\">\n"
            out += "<TotalTimeSeconds>\(Self.decimal(seconds, places: 3))</TotalTimeSeconds>\n"
            out += "<DistanceMeters>\(Self.decimal(lapDistance, places: 2))</DistanceMeters>\n"
            if let top = inLap.compactMap({ $0.motion?.speed }).max() { out += "<MaximumSpeed>\(Self.decimal(top, places: 3))</MaximumSpeed>\n" }
            out += "<Calories>\(Int(max(0, min(65_535, kcal.rounded()))))</Calories>\n"
            if !beats.isEmpty {
                out += "<AverageHeartRateBpm><Value>\(Int((Double(beats.reduce(0, +)) / Double(beats.count)).rounded()))</Value></AverageHeartRateBpm>\n"
                out += "<MaximumHeartRateBpm><Value>\(beats.max()!)</Value></MaximumHeartRateBpm>\n"
            }
            out += "<Intensity>Active</Intensity>\n<TriggerMethod>Manual</TriggerMethod>\n"
            // The schema's Track holds one Trackpoint or more: a lap with none has no Track.
            if !inLap.isEmpty {
                out += "<Track>\n"
                for p in inLap { out += trackpoint(p) }
                out += "</Track>\n"
            }
            out += "</Lap>\n"
        }
        if let name, !name.isEmpty { out += "<Notes>\(XMLText.escaped(name))</Notes>\n" }
        out += "<Creator xsi:type=\"Application_t\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><Name>Pacenote</Name>"
            + "<Build><Version><VersionMajor>1</VersionMajor><VersionMinor>0</VersionMinor></Version></Build>"
            + "<LangID>en</LangID><PartNumber>000-00000-00</PartNumber></Creator>\n"
        out += "</Activity>\n</Activities>\n</TrainingCenterDatabase>\n"
        return out
    }

    private func trackpoint(_ p: Point) -> String {
        var out = "<Trackpoint><Time>\(ISO8601.string(p.at))</Time>"
        let m = p.motion
        if let lat = m?.latitude, let lon = m?.longitude {
            out += "<Position><LatitudeDegrees>\(Self.decimal(lat, places: 7))</LatitudeDegrees>"
                + "<LongitudeDegrees>\(Self.decimal(lon, places: 7))</LongitudeDegrees></Position>"
        }
        if let altitude = m?.altitude { out += "<AltitudeMeters>\(Self.decimal(altitude, places: 2))</AltitudeMeters>" }
        if let distance = p.distance { out += "<DistanceMeters>\(Self.decimal(distance, places: 2))</DistanceMeters>" }
        if let bpm = p.bpm { out += "<HeartRateBpm><Value>\(bpm)</Value></HeartRateBpm>" }
        let cadence = m?.cadence.map { Int(max(0, min(254, (cadenceInSteps ? $0 / 2 : $0).rounded()))) }
        if let cadence, !cadenceInSteps { out += "<Cadence>\(cadence)</Cadence>" }
        var tpx = ""
        if let speed = m?.speed { tpx += "<ns3:Speed>\(Self.decimal(speed, places: 3))</ns3:Speed>" }
        if let cadence, cadenceInSteps { tpx += "<ns3:RunCadence>\(cadence)</ns3:RunCadence>" }
        if let power = m?.power { tpx += "<ns3:Watts>\(Int(power.rounded()))</ns3:Watts>" }
        if !tpx.isEmpty { out += "<Extensions><ns3:TPX>\(tpx)</ns3:TPX></Extensions>" }
        return out + "</Trackpoint>\n"
    }

    // MARK: GPX

    /// The workout as GPX 1.1, one `trkpt` per position (a point without one has no place in
    /// GPX); nil when no position was kept. Heart rate and cadence go in Garmin's
    /// TrackPointExtension v1, as watches write them.
    public func gpx() -> String? {
        let points = points(track).filter { $0.motion?.latitude != nil && $0.motion?.longitude != nil }
        guard let first = points.first else { return nil }
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Pacenote" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
            <metadata><time>\(ISO8601.string(first.at))</time></metadata>
            <trk>
            """
        if let name, !name.isEmpty { out += "<name>\(XMLText.escaped(name))</name>" }
        if let sport, !sport.isEmpty { out += "<type>\(XMLText.escaped(sport))</type>" }
        out += "<trkseg>\n"
        for p in points {
            guard let m = p.motion, let lat = m.latitude, let lon = m.longitude else { continue }
            out += "<trkpt lat=\"\(Self.decimal(lat, places: 7))\" lon=\"\(Self.decimal(lon, places: 7))\">"
            if let altitude = m.altitude { out += "<ele>\(Self.decimal(altitude, places: 2))</ele>" }
            out += "<time>\(ISO8601.string(p.at))</time>"
            var tpe = ""
            // A reading within the point's second when none is at its instant (a strap and a GPS tick apart).
            if let bpm = p.bpm ?? nearestBeat(to: p.at) { tpe += "<gpxtpx:hr>\(bpm)</gpxtpx:hr>" }
            if let cadence = m.cadence { tpe += "<gpxtpx:cad>\(Int(max(0, min(254, (cadenceInSteps ? cadence / 2 : cadence).rounded()))))</gpxtpx:cad>" }
            if !tpe.isEmpty { out += "<extensions><gpxtpx:TrackPointExtension>\(tpe)</gpxtpx:TrackPointExtension></extensions>" }
            out += "</trkpt>\n"
        }
        return out + "</trkseg></trk>\n</gpx>\n"
    }

    private func nearestBeat(to at: Date) -> Int? {
        var lo = 0, hi = heartRate.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if heartRate[mid].at < at { lo = mid + 1 } else { hi = mid }
        }
        let near = [lo - 1, lo].filter { heartRate.indices.contains($0) }.min {
            abs(heartRate[$0].at.timeIntervalSince(at)) < abs(heartRate[$1].at.timeIntervalSince(at))
        }
        guard let near, abs(heartRate[near].at.timeIntervalSince(at)) < 1 else { return nil }
        return heartRate[near].bpm
    }

    /// A number with at most `places` decimals, trailing zeros dropped, never NaN (both
    /// schemas' doubles are plain decimals).
    static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var text = String(format: "%.\(places)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}
