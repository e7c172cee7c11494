import Foundation
import PacenoteCore
#if canImport(FoundationXML)
import FoundationXML
#endif

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
        let delegate = Collector(format: format)
        let parser = XMLParser(data: data)
        parser.delegate = delegate
        guard parser.parse() else {
            throw ParseError(description: "broken \(format.rawValue.uppercased()) at line \(parser.lineNumber): \(parser.parserError?.localizedDescription ?? "parse error")")
        }
        let samples = delegate.samples.sorted { $0.at < $1.at }
        guard !samples.isEmpty else { throw ParseError(description: "the file has no heart rate") }
        return WorkoutFile(format: format, name: delegate.name, sport: delegate.sport, samples: samples)
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

    private final class Collector: NSObject, XMLParserDelegate {
        let format: Format
        var samples: [HeartRateSample] = []
        var name: String?
        var sport: String?
        private var path: [String] = []
        private var text = ""
        private var time: Date?
        private var bpm: Int?

        init(format: Format) { self.format = format }

        func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            let local = element.split(separator: ":").last.map(String.init) ?? element
            path.append(local)
            text = ""
            if local == "Trackpoint" || local == "trkpt" { time = nil; bpm = nil }
            if local == "Activity", let s = attributes["Sport"] { sport = s }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            let local = path.popLast() ?? element
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch local {
            case "Time" where path.last == "Trackpoint", "time" where path.last == "trkpt":
                time = try? Date(value, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: value.contains(".")))
            case "Value" where path.last == "HeartRateBpm", "hr":
                bpm = Int(value)
            case "name" where format == .gpx && (path.last == "trk" || path.last == "metadata"):
                name = name ?? value
            case "Notes" where format == .tcx:
                name = name ?? value
            case "Trackpoint", "trkpt":
                if let time, let bpm, HeartRateSample.validRange.contains(bpm) {
                    samples.append(HeartRateSample(at: time, bpm: bpm))
                }
            default: break
            }
            text = ""
        }
    }
}
