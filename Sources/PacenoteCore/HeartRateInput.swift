import Foundation

/// Reads heart rate as the apps people own send it, to `POST /api/v1/hr` and `hr-feed`.
///
/// - JSON: an object with the value under `bpm`, `hr`, `heart_rate`, `heartRate` or
///   `heartrate`, at the top or nested under `data` or `payload` (Pulsoid sends
///   `{"measured_at":…,"data":{"heart_rate":72}}`); an optional time under `ts`,
///   `measured_at`, `time` or `timestamp` as Unix seconds, Unix milliseconds (> 1e12) or
///   ISO 8601; optional `rr` intervals in ms; optional motion (`MotionSample`'s units):
///   `speed` m/s, `distance` m from the start, `altitude` m, `cadence` a minute (steps of both
///   feet, or pedal rpm), `power` W, `lat`/`lon` degrees. A sample with motion and no heart
///   rate is motion alone. A batch is `{"samples":[…]}` or an array.
///   A bare JSON number is one sample.
/// - Text (Health Data Server): `72` or `heartRate:72`, one per line.
/// - Form (HeartRateToWeb): `bpm=72` or `x=72`.
/// A sample without a time is "now". Values outside 25–250 bpm and times in the future
/// are rejected, naming the field.
public enum HeartRateInput {
    public static let valueKeys = ["bpm", "hr", "heart_rate", "heartRate", "heartrate"]
    public static let timeKeys = ["ts", "measured_at", "time", "timestamp"]
    public static let rrKeys = ["rr", "rr_intervals", "rrIntervals"]
    /// Clocks disagree a little: a sample this far ahead is still "now".
    public static let futureTolerance = 5.0

    /// Why a sample (or a whole body) was rejected; `field` names what was wrong.
    public struct Rejection: Error, Equatable, Sendable {
        public var field: String
        public var message: String
        /// The sample had no heart rate at all (it may still carry motion).
        public var noHeartRate = false
    }

    /// Motion fields by key: speed m/s, distance m, altitude m, cadence a minute, power W, degrees.
    static var motionKeys: [(key: String, field: WritableKeyPath<MotionSample, Double?>)] { [
        ("speed", \.speed), ("distance", \.distance), ("altitude", \.altitude), ("cadence", \.cadence),
        ("power", \.power), ("lat", \.latitude), ("lon", \.longitude),
    ] }

    /// A parsed body: the samples (or why each was rejected), in order, and the source
    /// the body names, if any (`"source": "polar-h10"`).
    public struct Batch: Equatable, Sendable {
        public var items: [Result<HeartRateSample, Rejection>]
        public var source: String?
        /// Beside `items`, index for index, for JSON: each sample's motion, nil when it had none.
        public var motion: [Result<MotionSample, Rejection>?] = []
    }

    public enum Format: String, Sendable, CaseIterable { case json, text, form }

    /// The format a `Content-Type` names; JSON when unsure (most apps send JSON), and
    /// whenever the body plainly is JSON (`curl -d '{…}'` labels it a form).
    public static func format(contentType: String?, body: [UInt8] = []) -> Format {
        if let first = body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
           first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            return .json
        }
        let type = (contentType ?? "").lowercased()
        if type.hasPrefix("text/plain") { return .text }
        if type.hasPrefix("application/x-www-form-urlencoded") { return .form }
        return .json
    }

    public static func parse(_ body: [UInt8], format: Format, now: Date) throws(Rejection) -> Batch {
        switch format {
        case .json: return try parseJSON(body, now: now)
        case .text:
            let text = String(decoding: body, as: UTF8.self)
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !lines.isEmpty else { throw Rejection(field: "body", message: "the body is empty") }
            return Batch(items: lines.map { parseTextLine($0, now: now) }, source: nil)
        case .form:
            let text = String(decoding: body, as: UTF8.self)
            var fields: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            guard let (key, value) = (valueKeys + ["x", "rate"]).lazy.compactMap({ k in fields[k].map { (k, $0) } }).first else {
                throw Rejection(field: "bpm", message: "no bpm field (bpm=72 or x=72)")
            }
            let sample = sampleFrom(value: .string(value), valueField: key, time: fields["ts"].map { .string($0) },
                                    rr: nil, now: now)
            return Batch(items: [sample], source: fields["source"])
        }
    }

    /// One line of text: `72`, `72.0`, `heartRate:72`, `bpm: 72`.
    public static func parseTextLine(_ line: String, now: Date) -> Result<HeartRateSample, Rejection> {
        var value = Substring(line)
        if let colon = line.firstIndex(of: ":") { value = line[line.index(after: colon)...] }
        return sampleFrom(value: .string(String(value).trimmingCharacters(in: .whitespaces)), valueField: "bpm",
                          time: nil, rr: nil, now: now)
    }

    // MARK: JSON

    /// Read with `ImportJSON` (bytes to values, no boxing): through `JSONSerialization`, each
    /// sample became an `NSDictionary` of `NSNumber`s and was cast back, nearly half of the
    /// server's time for a batch of 10,000 samples (perf, `POST /api/v1/hr`).
    static func parseJSON(_ body: [UInt8], now: Date) throws(Rejection) -> Batch {
        let root: ImportJSON
        do {
            root = try ImportJSON.parse(body)
        } catch {
            throw Rejection(field: "body", message: "the body is not valid JSON")
        }
        switch root {
        case .number(let number):
            return Batch(items: [sampleFrom(value: .number(number), valueField: "bpm", time: nil, rr: nil, now: now)], source: nil,
                         motion: [nil])
        case .array(let array):
            return try batch(array, source: nil, now: now)
        case .object:
            let source = root["source"]?.string
            if let samples = root["samples"] {
                guard case .array(let array) = samples else { throw Rejection(field: "samples", message: "must be an array") }
                return try batch(array, source: source, now: now)
            }
            return Batch(items: [sampleFrom(object: root, now: now)], source: source, motion: [motionFrom(object: root, now: now)])
        default:
            throw Rejection(field: "body", message: "expected a JSON object, array or number")
        }
    }

    private static func batch(_ array: [ImportJSON], source: String?, now: Date) throws(Rejection) -> Batch {
        Batch(items: try batchItems(array, now: now), source: source,
              motion: array.map { item in if case .object = item { motionFrom(object: item, now: now) } else { nil } })
    }

    private static func batchItems(_ array: [ImportJSON], now: Date) throws(Rejection) -> [Result<HeartRateSample, Rejection>] {
        guard !array.isEmpty else { throw Rejection(field: "samples", message: "the batch is empty") }
        return array.map { item in
            switch item {
            case .object: sampleFrom(object: item, now: now)
            case .number(let number): sampleFrom(value: .number(number), valueField: "bpm", time: nil, rr: nil, now: now)
            default: .failure(Rejection(field: "samples", message: "each sample must be an object or a number"))
            }
        }
    }

    enum Scalar { case number(Double), string(String) }

    /// A JSON number (not `true`/`false`, which Foundation also hands out as NSNumber:
    /// their type encoding is `c`, a char).
    public static func number(_ any: Any?) -> Double? {
        guard let n = any as? NSNumber, String(cString: n.objCType) != "c" else { return nil }
        return n.doubleValue
    }

    static func scalar(_ value: ImportJSON) -> Scalar? {
        switch value {
        case .number(let n): .number(n)
        case .string(let s): .string(s)
        default: nil
        }
    }

    static func sampleFrom(object: ImportJSON, now: Date) -> Result<HeartRateSample, Rejection> {
        // Look at the top level, then inside `data` or `payload`.
        var scopes: [ImportJSON] = [object]
        for key in ["data", "payload"] {
            if let nested = object[key], case .object = nested { scopes.append(nested) }
        }
        func find(_ keys: [String]) -> (String, ImportJSON)? {
            for scope in scopes { for key in keys { if let v = scope[key], !v.isNull { return (key, v) } } }
            return nil
        }
        guard let (valueKey, value) = find(valueKeys) else {
            return .failure(Rejection(field: "bpm", message: "no heart rate (one of \(valueKeys.joined(separator: ", ")))",
                                      noHeartRate: true))
        }
        guard let valueScalar = scalar(value) else {
            return .failure(Rejection(field: valueKey, message: "must be a number"))
        }
        var rr: [Double]?
        if let (rrKey, rrValue) = find(rrKeys) {
            let numbers = rrValue.array?.compactMap { item -> Double? in
                if case .number(let n) = item { return n }
                return nil
            }
            guard let list = rrValue.array, let numbers, numbers.count == list.count,
                  numbers.allSatisfy({ $0 > 0 && $0 < 5000 }) else {
                return .failure(Rejection(field: rrKey, message: "must be an array of intervals in ms"))
            }
            rr = numbers
        }
        let time = find(timeKeys)
        return sampleFrom(value: valueScalar, valueField: valueKey, time: time.flatMap { scalar($0.1) },
                          timeField: time?.0 ?? "ts", rr: rr, now: now)
    }

    static func sampleFrom(value: Scalar, valueField: String, time: Scalar?, timeField: String = "ts",
                           rr: [Double]?, now: Date) -> Result<HeartRateSample, Rejection> {
        let number: Double?
        switch value {
        case .number(let n): number = n
        case .string(let s): number = Double(s.trimmingCharacters(in: .whitespaces))
        }
        guard let number, number.isFinite else {
            return .failure(Rejection(field: valueField, message: "must be a number"))
        }
        let bpm = Int(number.rounded())
        guard HeartRateSample.validRange.contains(bpm) else {
            return .failure(Rejection(field: valueField, message: "\(bpm) is outside 25–250 bpm"))
        }
        var at = now
        if let time {
            guard let parsed = parseTime(time) else {
                return .failure(Rejection(field: timeField, message: "must be Unix seconds, Unix milliseconds or ISO 8601"))
            }
            guard parsed.timeIntervalSince(now) <= futureTolerance else {
                return .failure(Rejection(field: timeField, message: "is in the future"))
            }
            at = parsed
        }
        return .success(HeartRateSample(at: at, bpm: bpm, rr: rr ?? []))
    }

    /// A sample's motion (`motionKeys`, at the top level), at its time; nil when it has none.
    /// Only types are checked here: what no body can do is `MotionCleaning`'s to drop and count.
    static func motionFrom(object: ImportJSON, now: Date) -> Result<MotionSample, Rejection>? {
        var sample = MotionSample(at: now)
        for (key, field) in motionKeys {
            guard let value = object[key], !value.isNull else { continue }
            guard case .number(let n) = value else { return .failure(Rejection(field: key, message: "must be a number")) }
            sample[keyPath: field] = n
        }
        guard !sample.isEmpty else { return nil }
        guard (sample.latitude == nil) == (sample.longitude == nil) else {
            return .failure(Rejection(field: sample.latitude == nil ? "lat" : "lon", message: "a position needs both lat and lon"))
        }
        for key in timeKeys {
            guard let value = object[key], !value.isNull else { continue }
            guard let scalar = scalar(value), let at = parseTime(scalar) else {
                return .failure(Rejection(field: key, message: "must be Unix seconds, Unix milliseconds or ISO 8601"))
            }
            guard at.timeIntervalSince(now) <= futureTolerance else { return .failure(Rejection(field: key, message: "is in the future")) }
            sample.at = at
            break
        }
        return .success(sample)
    }

    /// Unix seconds, Unix milliseconds (> 1e12) or ISO 8601.
    static func parseTime(_ value: Scalar) -> Date? {
        func fromNumber(_ n: Double) -> Date? {
            guard n.isFinite, n > 0 else { return nil }
            return Date(timeIntervalSince1970: n > 1e12 ? n / 1000 : n)
        }
        switch value {
        case .number(let n): return fromNumber(n)
        case .string(let s):
            if let n = Double(s) { return fromNumber(n) }
            if let d = try? Date(s, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return d }
            return try? Date(s, strategy: Date.ISO8601FormatStyle())
        }
    }
}

extension HeartRateInput {
    /// How `hr-feed` reads each line of its input.
    public enum LineFormat: String, Sendable, CaseIterable {
        /// JSON lines (`{…}`), `gatttool` notification lines, else text.
        case auto
        /// A bare number per line.
        case number
        case json
        /// `72` or `heartRate:72`.
        case text
        /// Heart Rate Measurement bytes (0x2A37) in hex, or `gatttool --listen` lines.
        case ble
    }

    /// The samples on one line of `hr-feed`'s input; an empty line gives none.
    /// A Heart Rate Measurement notification (0x2A37) as a sample at `at`, with its RR
    /// intervals; refused when the sensor reports no skin contact or it is not one.
    public static func sample(fromBLE bytes: [UInt8], at: Date) -> Result<HeartRateSample, Rejection> {
        let m: BLEHeartRateMeasurement
        do { m = try BLEHeartRateMeasurement(bytes: bytes) } catch {
            return .failure(Rejection(field: "ble", message: "not a Heart Rate Measurement: \(bytes.map { String(format: "%02x", $0) }.joined(separator: " "))"))
        }
        guard m.contact != false else {
            return .failure(Rejection(field: "contact", message: "the sensor reports no skin contact"))
        }
        guard m.isUsable else {
            return .failure(Rejection(field: "bpm", message: "\(m.bpm) is outside 25–250 bpm"))
        }
        return .success(HeartRateSample(at: at, bpm: m.bpm, rr: m.rr))
    }

    public static func parseLine(_ line: String, format: LineFormat, now: Date) -> [Result<HeartRateSample, Rejection>] {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return [] }
        var format = format
        if format == .auto {
            format = text.hasPrefix("{") || text.hasPrefix("[") ? .json : text.contains("value:") ? .ble : .text
        }
        switch format {
        case .json:
            do {
                return try parseJSON(Array(text.utf8), now: now).items
            } catch {
                return [.failure(error)]
            }
        case .ble:
            // gatttool also prints status lines ("Characteristic value was written
            // successfully"): lines that are neither notifications nor hex carry no reading.
            if !text.contains("value:"), text.contains(where: { !$0.isHexDigit && !" x:-".contains($0) }) { return [] }
            do {
                return [sample(fromBLE: try BLEHeartRateMeasurement.bytes(fromHex: text), at: now)]
            } catch {
                return [.failure(Rejection(field: "ble", message: "not a Heart Rate Measurement: \(text)"))]
            }
        case .number:
            return [sampleFrom(value: .string(text), valueField: "bpm", time: nil, rr: nil, now: now)]
        case .text, .auto:
            return [parseTextLine(text, now: now)]
        }
    }
}
