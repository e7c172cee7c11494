import Foundation
import PacenoteCore

/// Heart rate and motion from workout files that watches and apps export:
/// - TCX (Garmin Training Center): `Trackpoint` with `Time`, `HeartRateBpm/Value`,
///   `DistanceMeters`, `AltitudeMeters`, `Position`, `Cadence` (a bike's rpm) and the
///   ActivityExtension's `TPX` (`Speed`, `RunCadence` in strides, doubled, `Watts`); `Lap`s
///   with `StartTime`, `TotalTimeSeconds` and `Calories`;
/// - GPX: `trkpt` with `time`, `lat`/`lon`, `ele`, and Garmin's TrackPointExtension
///   (`gpxtpx:hr`, `gpxtpx:cad`, in strides for a track whose `type` is running, walking or
///   hiking); the distance is summed along the positions (`MotionCleaning.distanceFromPositions`);
/// - FIT activities (`FITFile`): `record` messages, laps and the session's calories, named
///   after the session's sport.
/// Impossible values are dropped as they are read (`MotionCleaning`), counted in `cleaning`.
/// A file with motion but no heart rate (a bike computer without a strap) is a workout too.
public struct WorkoutFile: Sendable {
    public enum Format: String, Sendable { case tcx, gpx, fit }

    public var format: Format
    public var name: String?
    public var sport: String?
    public var samples: [HeartRateSample]
    /// Positions included: the importer drops them unless `[workouts] keep_positions`.
    public var motion: [MotionSample] = []
    public var laps: [WorkoutLap] = []
    /// The device's count for the whole workout, kcal.
    public var calories: Double? = nil
    /// What the reader dropped as impossible.
    public var cleaning = MotionCleaning.Report()

    public struct ParseError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The most heart-rate samples one file gives: two days at one a second (FIT's limit
    /// too, `FITFile.maxRecords`). Samples within the same second are one sample (the
    /// first), so a flood of duplicates costs nothing; a file with more is refused whole.
    public static let maxSamples = FITFile.maxRecords
    /// The most elements a TCX or GPX file may have: a trackpoint takes 10 to 20, so two
    /// days of them fit. Elements are read one at a time (`XMLText.read`), never as a tree.
    public static let maxElements = 4_000_000
    /// The largest workout file read (it is read whole: a day of TCX at one point a second
    /// is ~35 MB, of FIT ~2 MB).
    public static let maxFileBytes = 64 << 20

    /// Reads the file at `path` (once, into memory, up to `maxFileBytes`).
    public static func read(path: String) throws(ParseError) -> WorkoutFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ParseError(description: ListenImporter.cannotOpen(errno)) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw ParseError(description: "cannot read the file: \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            guard bytes.count + n <= maxFileBytes else { throw ParseError(description: "larger than \(maxFileBytes >> 20) MiB: not a workout file") }
            bytes += chunk[..<n]
        }
        return try parse(bytes: bytes)
    }

    /// Reads a file's content; the format is told by its signature or root element.
    public static func parse(_ data: Data) throws(ParseError) -> WorkoutFile { try parse(bytes: [UInt8](data)) }

    static func parse(bytes: [UInt8]) throws(ParseError) -> WorkoutFile {
        if FITFile.isFIT(bytes.prefix(12)) { return try parseFIT(bytes) }
        let head = String(decoding: bytes.prefix(2048), as: UTF8.self)
        let format: Format
        if head.contains("<TrainingCenterDatabase") { format = .tcx }
        else if head.contains("<gpx") { format = .gpx }
        else { throw ParseError(description: "not a TCX, GPX or FIT file") }
        // Core's reader, not FoundationXML's XMLParser: libxml2 (and the ICU it links) would be
        // loaded into every command, the daemon included, for this one import.
        var limits = XMLText.Limits()
        limits.elements = maxElements
        limits.depth = 64
        var collector = Collector(format: format)
        do { try XMLText.read(bytes, limits: limits) { collector.take($0) } } catch {
            throw ParseError(description: "broken \(format.rawValue.uppercased()): \(error)")
        }
        guard !collector.tooMany else {
            throw ParseError(description: "more than \(maxSamples) samples (two days at one a second): not imported")
        }
        var file = WorkoutFile(format: format, name: collector.name, sport: collector.sport,
                               samples: onePerSecond(collector.samples), laps: collector.laps,
                               calories: collector.lapCalories)
        try file.takeMotion(collector.motion)
        return file
    }

    /// Cleans the motion read, sums a distance from positions when the file gave none, and
    /// refuses a file left with neither heart rate nor motion.
    mutating func takeMotion(_ read: [MotionSample]) throws(ParseError) {
        let (cleaned, report) = MotionCleaning.clean(read)
        motion = MotionCleaning.distanceFromPositions(cleaned)
        cleaning = report
        guard !samples.isEmpty || !motion.isEmpty else {
            let dropped = report.isEmpty ? "" : " (\(report))"
            throw ParseError(description: "the file has no heart rate, speed, distance, altitude, cadence, power or position\(dropped)")
        }
    }

    /// Sorted by time, the first of each second only.
    static func onePerSecond(_ samples: [HeartRateSample]) -> [HeartRateSample] {
        var last: Double?
        return samples.sorted { $0.at < $1.at }.filter { sample in
            let second = sample.at.timeIntervalSince1970.rounded(.down)
            defer { last = second }
            return second != last
        }
    }

    /// A FIT activity: the whole file is checked (CRCs, sizes) before anything is kept.
    static func parseFIT(_ bytes: [UInt8]) throws(ParseError) -> WorkoutFile {
        let activity: FITActivity
        do { activity = try FITFile.decode(bytes) } catch { throw ParseError(description: error.description) }
        let samples = onePerSecond(activity.records
            .compactMap { r in r.heartRate.flatMap { HeartRateSample.validRange.contains($0) ? HeartRateSample(at: r.at, bpm: $0) : nil } })
        let sport = activity.sportName
        var file = WorkoutFile(format: .fit, name: sport.map(FITSport.title), sport: sport, samples: samples,
                               laps: activity.workoutLaps, calories: activity.calories)
        try file.takeMotion(activity.motion)
        return file
    }

    /// What the file says, element by element in document order, by local names (TCX's and
    /// GPX's namespaces vary between exporters).
    private struct Collector {
        let format: Format
        var samples: [HeartRateSample] = []
        var motion: [MotionSample] = []
        var laps: [WorkoutLap] = []
        /// The laps' calories summed; nil when no lap had any.
        var lapCalories: Double?
        var name: String?
        var sport: String?
        private var time: Date?
        private var bpm: Int?
        private var point = MotionSample(at: .distantPast)
        private var lapStart: Date?
        private var lapSeconds: Double?
        private var lapKcal: Double?
        /// A GPX track's `type`: a runner's cadence is in strides.
        private var strides = false

        init(format: Format) { self.format = format }

        /// More trackpoints with heart rate than `maxSamples`: the rest were not kept.
        var tooMany = false

        mutating func take(_ event: XMLText.Event) {
            switch event {
            case .start(let element): start(element)
            case .end(let element, let parent): end(element, parent: parent)
            }
        }

        private mutating func start(_ element: XMLText.Element) {
            if element.name == "Trackpoint" || element.name == "trkpt" {
                time = nil; bpm = nil
                point = MotionSample(at: .distantPast)
                if element.name == "trkpt" {
                    // A coordinate that is not a number is dropped by the cleaner, named.
                    point.latitude = element.attributes["lat"].map { Double($0) ?? .nan }
                    point.longitude = element.attributes["lon"].map { Double($0) ?? .nan }
                }
            }
            if element.name == "Activity", let s = element.attributes["Sport"] { sport = s }
            if element.name == "Lap" && format == .tcx {
                lapStart = element.attributes["StartTime"].flatMap(Self.date)
                lapSeconds = nil; lapKcal = nil
            }
        }

        static func date(_ value: String) -> Date? {
            try? Date(value, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: value.contains(".")))
        }

        private mutating func end(_ element: XMLText.Element, parent: String?) {
            // Trimmed only where it is read: Foundation's trimming was most of the time of a
            // file of a million empty elements.
            var value: String { element.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            switch element.name {
            case "Time" where parent == "Trackpoint", "time" where parent == "trkpt":
                time = Self.date(value)
            case "Value" where parent == "HeartRateBpm", "hr":
                bpm = Int(value)
            // A value that is not a number is kept as NaN, for the cleaner to drop and count.
            case "DistanceMeters" where parent == "Trackpoint": point.distance = Double(value) ?? .nan
            case "AltitudeMeters" where parent == "Trackpoint", "ele" where parent == "trkpt": point.altitude = Double(value) ?? .nan
            case "LatitudeDegrees" where parent == "Position": point.latitude = Double(value) ?? .nan
            case "LongitudeDegrees" where parent == "Position": point.longitude = Double(value) ?? .nan
            case "Cadence" where parent == "Trackpoint": point.cadence = Double(value) ?? .nan
            case "RunCadence" where parent == "TPX": point.cadence = (Double(value) ?? .nan) * 2
            case "cad": point.cadence = (Double(value) ?? .nan) * (strides ? 2 : 1)
            case "Speed" where parent == "TPX": point.speed = Double(value) ?? .nan
            case "Watts" where parent == "TPX", "power" where format == .gpx: point.power = Double(value) ?? .nan
            case "type" where format == .gpx && parent == "trk":
                strides = ["running", "run", "walking", "walk", "hiking", "hike"].contains(value.lowercased())
            case "TotalTimeSeconds" where parent == "Lap": lapSeconds = Double(value)
            case "Calories" where parent == "Lap": lapKcal = Double(value)
            case "Lap" where format == .tcx:
                if let lapStart, let lapSeconds, lapSeconds.isFinite, lapSeconds >= 0, lapSeconds < 172_800 {
                    let kcal = lapKcal.flatMap { $0.isFinite && $0 >= 0 && $0 < 100_000 ? $0 : nil }
                    laps.append(WorkoutLap(start: lapStart, end: lapStart.addingTimeInterval(lapSeconds), calories: kcal))
                    if let kcal { lapCalories = (lapCalories ?? 0) + kcal }
                }
            case "name" where format == .gpx && (parent == "trk" || parent == "metadata"):
                name = name ?? value
            case "Notes" where format == .tcx:
                name = name ?? value
            case "Trackpoint", "trkpt":
                guard let time else { break }
                point.at = time
                let second = time.timeIntervalSince1970.rounded(.down)
                if !point.isEmpty, motion.last.map({ $0.at.timeIntervalSince1970.rounded(.down) != second }) ?? true {
                    guard motion.count < WorkoutFile.maxSamples else {
                        tooMany = true
                        break
                    }
                    motion.append(point)
                }
                guard let bpm, HeartRateSample.validRange.contains(bpm) else { break }
                // The same second as the sample before (a flood of one moment): one sample.
                if let last = samples.last, last.at.timeIntervalSince1970.rounded(.down) == time.timeIntervalSince1970.rounded(.down) {
                    break
                }
                guard samples.count < WorkoutFile.maxSamples else {
                    tooMany = true
                    break
                }
                samples.append(HeartRateSample(at: time, bpm: bpm))
            default: break
            }
        }
    }
}
