import Foundation
import PacenoteCore

/// Heart rate from workout files that watches and apps export:
/// - TCX (Garmin Training Center): `Trackpoint` with `Time` and `HeartRateBpm/Value`;
/// - GPX with Garmin's TrackPointExtension: `trkpt` with `time` and `gpxtpx:hr`;
/// - FIT activities (`FITFile`): `record` messages' `timestamp` and `heart_rate`, named after
///   the session's sport.
public struct WorkoutFile: Sendable {
    public enum Format: String, Sendable { case tcx, gpx, fit }

    public var format: Format
    public var name: String?
    public var sport: String?
    public var samples: [HeartRateSample]

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
            throw ParseError(description: "more than \(maxSamples) heart-rate samples (two days at one a second): not imported")
        }
        let samples = onePerSecond(collector.samples)
        guard !samples.isEmpty else { throw ParseError(description: "the file has no heart rate") }
        return WorkoutFile(format: format, name: collector.name, sport: collector.sport, samples: samples)
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
        guard !samples.isEmpty else { throw ParseError(description: "the file has no heart rate") }
        let sport = activity.sportName
        return WorkoutFile(format: .fit, name: sport.map(FITSport.title), sport: sport, samples: samples)
    }

    /// What the file says, element by element in document order, by local names (TCX's and
    /// GPX's namespaces vary between exporters).
    private struct Collector {
        let format: Format
        var samples: [HeartRateSample] = []
        var name: String?
        var sport: String?
        private var time: Date?
        private var bpm: Int?

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
            if element.name == "Trackpoint" || element.name == "trkpt" { time = nil; bpm = nil }
            if element.name == "Activity", let s = element.attributes["Sport"] { sport = s }
        }

        private mutating func end(_ element: XMLText.Element, parent: String?) {
            // Trimmed only where it is read: Foundation's trimming was most of the time of a
            // file of a million empty elements.
            var value: String { element.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            switch element.name {
            case "Time" where parent == "Trackpoint", "time" where parent == "trkpt":
                time = try? Date(value, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: value.contains(".")))
            case "Value" where parent == "HeartRateBpm", "hr":
                bpm = Int(value)
            case "name" where format == .gpx && (parent == "trk" || parent == "metadata"):
                name = name ?? value
            case "Notes" where format == .tcx:
                name = name ?? value
            case "Trackpoint", "trkpt":
                guard let time, let bpm, HeartRateSample.validRange.contains(bpm) else { break }
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
