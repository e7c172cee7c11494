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

    /// Reads a file's content; the format is told by its signature or root element.
    public static func parse(_ data: Data) throws(ParseError) -> WorkoutFile {
        if FITFile.isFIT(data.prefix(12)) { return try parseFIT(Array(data)) }
        let head = String(decoding: data.prefix(2048), as: UTF8.self)
        let format: Format
        if head.contains("<TrainingCenterDatabase") { format = .tcx }
        else if head.contains("<gpx") { format = .gpx }
        else { throw ParseError(description: "not a TCX, GPX or FIT file") }
        // Core's reader, not FoundationXML's XMLParser: libxml2 (and the ICU it links) would be
        // loaded into every command, the daemon included, for this one import. A workout file
        // is the user's own, bounded by the upload limit: no element count is imposed.
        var limits = XMLText.Limits()
        limits.elements = .max
        limits.depth = 64
        let root: XMLText.Element
        do { root = try XMLText.parse(Array(data), limits: limits) } catch {
            throw ParseError(description: "broken \(format.rawValue.uppercased()): \(error)")
        }
        var collector = Collector(format: format)
        collector.walk(root)
        let samples = collector.samples.sorted { $0.at < $1.at }
        guard !samples.isEmpty else { throw ParseError(description: "the file has no heart rate") }
        return WorkoutFile(format: format, name: collector.name, sport: collector.sport, samples: samples)
    }

    /// A FIT activity: the whole file is checked (CRCs, sizes) before anything is kept.
    static func parseFIT(_ bytes: [UInt8]) throws(ParseError) -> WorkoutFile {
        let activity: FITActivity
        do { activity = try FITFile.decode(bytes) } catch { throw ParseError(description: error.description) }
        var seen = Set<Date>()
        let samples = activity.records
            .compactMap { r in r.heartRate.flatMap { HeartRateSample.validRange.contains($0) ? HeartRateSample(at: r.at, bpm: $0) : nil } }
            .filter { seen.insert($0.at).inserted }
            .sorted { $0.at < $1.at }
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

        /// Iterative, like the reader: a deep file cannot exhaust the stack.
        mutating func walk(_ root: XMLText.Element) {
            // Each element with its parent's name; an element's end is handled once its
            // children are, as the SAX parser's didEndElement was.
            var stack: [(element: XMLText.Element, parent: String?, ended: Bool)] = [(root, nil, false)]
            while let (element, parent, ended) = stack.popLast() {
                if ended { end(element, parent: parent); continue }
                start(element)
                stack.append((element, parent, true))
                for child in element.children.reversed() { stack.append((child, element.name, false)) }
            }
        }

        private mutating func start(_ element: XMLText.Element) {
            if element.name == "Trackpoint" || element.name == "trkpt" { time = nil; bpm = nil }
            if element.name == "Activity", let s = element.attributes["Sport"] { sport = s }
        }

        private mutating func end(_ element: XMLText.Element, parent: String?) {
            let value = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
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
                if let time, let bpm, HeartRateSample.validRange.contains(bpm) {
                    samples.append(HeartRateSample(at: time, bpm: bpm))
                }
            default: break
            }
        }
    }
}
