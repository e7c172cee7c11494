import Foundation

/// An activity read from a FIT file, the binary format of Garmin's (and most other) watches.
///
/// The layout follows Garmin's FIT protocol ("Flexible and Interoperable Data Transfer",
/// developer.garmin.com/fit/protocol): a 12- or 14-byte header with the `.FIT` signature
/// and the size of the data, then records — definition messages that say how the data
/// messages of one local type are laid out (field numbers, sizes, byte order), data
/// messages (or compressed-timestamp data messages), and a CRC-16 of everything before it.
/// Only what Pacenote stores is kept: the file type, records' time, heart rate and motion
/// (speed, distance, altitude, cadence, power, position), the session's sport, start and
/// calories, and the laps. Everything else is skipped by its size.
public struct FITActivity: Equatable, Sendable {
    public struct Record: Equatable, Sendable {
        public var at: Date
        /// Beats per minute; nil when the record has none (the invalid value 0xFF).
        public var heartRate: Int?
        /// As the profile scales them: m/s (`enhanced_speed` else `speed`), m, m
        /// (`enhanced_altitude` else `altitude`), the device's cadence (a runner's strides,
        /// one foot; `cadence` + `fractional_cadence`), W, and degrees.
        public var speed: Double? = nil
        public var distance: Double? = nil
        public var altitude: Double? = nil
        public var cadence: Double? = nil
        public var power: Double? = nil
        public var latitude: Double? = nil
        public var longitude: Double? = nil
    }

    public struct Session: Equatable, Sendable {
        public var sport: UInt8?
        public var subSport: UInt8?
        public var start: Date?
        /// Seconds, including pauses.
        public var elapsed: Double?
        /// `total_calories`, kcal.
        public var calories: Double? = nil
    }

    public struct Lap: Equatable, Sendable {
        public var start: Date?
        public var elapsed: Double?
        /// `total_calories`, kcal.
        public var calories: Double? = nil
    }

    /// A structured workout's step (`workout_step`, message 27), its fields as stored:
    /// `WorkoutPlan(fit:)` reads them.
    public struct WorkoutStep: Equatable, Sendable {
        /// `message_index`: repeat steps name the step they go back to by it.
        public var index: Int
        public var name: String?
        public var durationType: UInt8?
        public var durationValue: UInt32?
        public var targetType: UInt8?
        public var targetValue: UInt32?
        public var customLow: UInt32?
        public var customHigh: UInt32?
        public var intensity: UInt8?
    }

    /// `file_id.type`: 4 is an activity, 5 a workout.
    public var fileType: UInt8?
    public var records: [Record] = []
    public var sessions: [Session] = []
    public var laps: [Lap] = []
    /// A workout file's `workout` message (26): its name and sport, and its steps.
    public var workoutName: String?
    public var workoutSport: UInt8?
    public var workoutSteps: [WorkoutStep] = []

    /// The first session's sport, as the FIT profile names it (`running`, `cycling`, …).
    public var sportName: String? { sessions.first?.sport.map(FITSport.name) }

    /// The records' motion in `MotionSample`'s convention: a runner's or walker's cadence
    /// (FIT counts strides, one foot) doubled to steps per minute. Records with nothing but
    /// heart rate give none.
    public var motion: [MotionSample] {
        let strides = FITSport.countsStrides(sessions.first?.sport)
        return records.compactMap { r in
            let sample = MotionSample(at: r.at, speed: r.speed, distance: r.distance, altitude: r.altitude,
                                      cadence: r.cadence.map { strides ? $0 * 2 : $0 }, power: r.power,
                                      latitude: r.latitude, longitude: r.longitude)
            return sample.isEmpty ? nil : sample
        }
    }

    /// The laps with a start and a length, as `WorkoutLap`s.
    public var workoutLaps: [WorkoutLap] {
        laps.compactMap { lap in
            guard let start = lap.start, let elapsed = lap.elapsed else { return nil }
            return WorkoutLap(start: start, end: start.addingTimeInterval(elapsed), calories: lap.calories)
        }
    }

    /// The sessions' calories (a multisport file has one session per sport), when any says.
    public var calories: Double? {
        let counted = sessions.compactMap(\.calories)
        return counted.isEmpty ? nil : counted.reduce(0, +)
    }
}

/// Why a FIT file was not read. Nothing of a file that fails is used.
public enum FITError: Error, Equatable, Sendable, CustomStringConvertible {
    case tooShort(bytes: Int)
    case badHeaderSize(Int)
    case notFIT
    case headerCRC(stored: UInt16, computed: UInt16)
    case truncated(declared: Int, present: Int)
    case fileCRC(stored: UInt16, computed: UInt16)
    case undefinedLocalType(UInt8, offset: Int)
    case pastEnd(offset: Int)
    case badArchitecture(UInt8, offset: Int)
    case noFileID
    case notActivity(type: UInt8?)
    case notWorkout(type: UInt8?)
    case tooManySteps(limit: Int)
    case tooManyRecords(limit: Int)

    public var description: String {
        switch self {
        case .tooShort(let n): "truncated FIT file: \(n) bytes, shorter than its header"
        case .badHeaderSize(let n): "broken FIT header: a header is 12 or 14 bytes, not \(n)"
        case .notFIT: "not a FIT file: no .FIT signature"
        case .headerCRC(let stored, let computed):
            "corrupt FIT file: the header's CRC is \(hex(stored)), its bytes give \(hex(computed))"
        case .truncated(let declared, let present):
            "truncated FIT file: the header announces \(declared) bytes of data and a CRC, \(present) are there"
        case .fileCRC(let stored, let computed):
            "corrupt FIT file: the file's CRC is \(hex(stored)), its bytes give \(hex(computed))"
        case .undefinedLocalType(let type, let offset):
            "broken FIT file: a data message at byte \(offset) uses local type \(type), which nothing defined"
        case .pastEnd(let offset): "broken FIT file: the message at byte \(offset) runs past the end of the data"
        case .badArchitecture(let value, let offset):
            "broken FIT file: the definition at byte \(offset) has byte order \(value), neither 0 nor 1"
        case .noFileID: "broken FIT file: no file_id message"
        case .notActivity(let type): "not a FIT activity: the file's type is \(type.map(String.init) ?? "missing"), an activity is 4"
        case .notWorkout(let type): "not a FIT workout: the file's type is \(type.map(String.init) ?? "missing"), a workout is 5"
        case .tooManyRecords(let limit):
            "a FIT activity of more than \(limit) records of different seconds (two days at one a second): not imported"
        case .tooManySteps(let limit): "a FIT workout of more than \(limit) steps: not imported"
        }
    }

    private func hex(_ v: UInt16) -> String { "0x" + String(v, radix: 16, uppercase: true) }
}

public enum FITFile {
    /// FIT time counts seconds from 1989-12-31T00:00:00Z.
    public static let epoch: TimeInterval = 631_065_600
    /// The most records an activity may have: two days at one a second. A record of the
    /// same second as the one before is one record (compressed timestamps let 4 MiB of
    /// file say 1.4 million records, all of one second or of a few); past the limit the file
    /// is refused, so what is held stays ~5 MB whatever the file says.
    public static let maxRecords = 172_800

    /// Whether `head` starts a FIT file: the signature sits at bytes 8..<12 of the header.
    public static func isFIT(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head.prefix(12))
        return bytes.count == 12 && (bytes[0] == 12 || bytes[0] == 14) && Array(bytes[8..<12]) == Array(".FIT".utf8)
    }

    /// The CRC-16 the FIT protocol uses (the SDK's nibble-table form, polynomial 0xA001).
    public static func crc16(_ bytes: some Sequence<UInt8>, start: UInt16 = 0) -> UInt16 {
        let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                               0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
        var crc = start
        for byte in bytes {
            var tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int(byte & 0xF)]
            tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    /// Reads a whole file (chained FIT files, one after another, are read in turn). Both
    /// CRCs are checked before any message is read; the work is bounded by the bytes given.
    public static func decode(_ bytes: [UInt8]) throws(FITError) -> FITActivity {
        let activity = try decodeAny(bytes)
        guard activity.fileType == 4 else { throw .notActivity(type: activity.fileType) }
        return activity
    }

    /// A workout file (type 5): the `workout` message and its `workout_step`s
    /// (`workoutName`, `workoutSport`, `workoutSteps`), read as `decode` reads an activity.
    public static func decodeWorkout(_ bytes: [UInt8]) throws(FITError) -> FITActivity {
        let file = try decodeAny(bytes)
        guard file.fileType == 5 else { throw .notWorkout(type: file.fileType) }
        return file
    }

    private static func decodeAny(_ bytes: [UInt8]) throws(FITError) -> FITActivity {
        var activity = FITActivity()
        var sawFileID = false
        var offset = 0
        repeat {
            offset = try decodeOne(bytes, from: offset, into: &activity, sawFileID: &sawFileID)
        } while bytes.count - offset >= 12 && isFIT(bytes[offset...])
        guard sawFileID else { throw .noFileID }
        return activity
    }

    /// How a data message of one local type is laid out.
    private struct Definition {
        /// `baseType`'s low five bits: 0x01 sint8, 0x03 sint16, 0x05 sint32 are signed, whose
        /// "no value" is the largest positive number rather than all ones.
        struct Field { var number: UInt8; var size: Int; var baseType: UInt8 }
        var global: UInt16
        var bigEndian: Bool
        var fields: [Field]
        /// Developer fields' bytes, skipped.
        var developerBytes: Int
    }

    /// Global message numbers of the FIT profile that Pacenote reads.
    private enum Message {
        static let fileID: UInt16 = 0, session: UInt16 = 18, lap: UInt16 = 19, record: UInt16 = 20
        static let workout: UInt16 = 26, workoutStep: UInt16 = 27
        /// The steps a workout file may have (the profile's message_index is 16 bits).
        static let maxSteps = 1000
    }

    private static func decodeOne(_ bytes: [UInt8], from base: Int, into activity: inout FITActivity,
                                  sawFileID: inout Bool) throws(FITError) -> Int {
        let available = bytes.count - base
        guard available >= 12 else { throw .tooShort(bytes: available) }
        let headerSize = Int(bytes[base])
        guard headerSize == 12 || headerSize == 14 else { throw .badHeaderSize(headerSize) }
        guard available >= headerSize else { throw .tooShort(bytes: available) }
        guard Array(bytes[base + 8..<base + 12]) == Array(".FIT".utf8) else { throw .notFIT }
        if headerSize == 14 {
            let stored = UInt16(bytes[base + 12]) | UInt16(bytes[base + 13]) << 8
            let computed = crc16(bytes[base..<base + 12])
            if stored != 0 && stored != computed { throw .headerCRC(stored: stored, computed: computed) }
        }
        let dataSize = Int(UInt32(bytes[base + 4]) | UInt32(bytes[base + 5]) << 8 | UInt32(bytes[base + 6]) << 16 | UInt32(bytes[base + 7]) << 24)
        // The header's size is checked against the bytes there before anything is read.
        guard dataSize <= available - headerSize - 2 else {
            throw .truncated(declared: dataSize, present: max(0, available - headerSize))
        }
        let end = base + headerSize + dataSize
        let stored = UInt16(bytes[end]) | UInt16(bytes[end + 1]) << 8
        let computed = crc16(bytes[base..<end])
        guard stored == computed else { throw .fileCRC(stored: stored, computed: computed) }

        var definitions = [Definition?](repeating: nil, count: 16)
        var lastTimestamp: UInt32?
        /// The time of the last record kept.
        var lastRecorded: UInt32?
        var at = base + headerSize
        while at < end {
            let start = at
            let header = bytes[at]
            at += 1
            if header & 0x80 == 0 && header & 0x40 != 0 {
                // A definition message: reserved, architecture, global number, fields.
                guard end - at >= 5 else { throw .pastEnd(offset: start) }
                let architecture = bytes[at + 1]
                guard architecture <= 1 else { throw .badArchitecture(architecture, offset: start) }
                let bigEndian = architecture == 1
                let global = bigEndian ? UInt16(bytes[at + 2]) << 8 | UInt16(bytes[at + 3])
                                       : UInt16(bytes[at + 2]) | UInt16(bytes[at + 3]) << 8
                let count = Int(bytes[at + 4])
                at += 5
                guard end - at >= count * 3 else { throw .pastEnd(offset: start) }
                let fields = (0..<count).map { i in
                    Definition.Field(number: bytes[at + i * 3], size: Int(bytes[at + i * 3 + 1]), baseType: bytes[at + i * 3 + 2] & 0x1F)
                }
                at += count * 3
                var developerBytes = 0
                if header & 0x20 != 0 {
                    guard end - at >= 1 else { throw .pastEnd(offset: start) }
                    let developerCount = Int(bytes[at])
                    at += 1
                    guard end - at >= developerCount * 3 else { throw .pastEnd(offset: start) }
                    for i in 0..<developerCount { developerBytes += Int(bytes[at + i * 3 + 1]) }
                    at += developerCount * 3
                }
                definitions[Int(header & 0x0F)] = Definition(global: global, bigEndian: bigEndian, fields: fields,
                                                             developerBytes: developerBytes)
                continue
            }
            // A data message: a normal header (local type in bits 0–3) or a compressed
            // timestamp header (bit 7; local type in bits 5–6, seconds in bits 0–4).
            let compressed = header & 0x80 != 0
            let local = compressed ? (header >> 5) & 0x03 : header & 0x0F
            guard let definition = definitions[Int(local)] else { throw .undefinedLocalType(local, offset: start) }
            let size = definition.fields.reduce(0) { $0 + $1.size } + definition.developerBytes
            guard end - at >= size else { throw .pastEnd(offset: start) }
            var values: [UInt8: UInt64] = [:]
            var strings: [UInt8: String] = [:]
            var fieldAt = at
            for field in definition.fields {
                if field.baseType == 0x07, definition.global == Message.workout || definition.global == Message.workoutStep {
                    // A string: UTF-8, ended by a zero byte or by the field's size.
                    let text = bytes[fieldAt..<fieldAt + field.size].prefix { $0 != 0 }
                    if !text.isEmpty { strings[field.number] = String(decoding: text, as: UTF8.self) }
                } else if [1, 2, 4].contains(field.size) {
                    var value: UInt64 = 0
                    for i in 0..<field.size {
                        let byte = UInt64(bytes[fieldAt + (definition.bigEndian ? i : field.size - 1 - i)])
                        value = value << 8 | byte
                    }
                    // All ones is "no value" for the unsigned types and enums; the largest
                    // positive number for the signed ones (FIT protocol, "Base Types").
                    let allOnes = (UInt64(1) << (field.size * 8)) - 1
                    let invalid = [0x01, 0x03, 0x05].contains(field.baseType) ? allOnes >> 1 : allOnes
                    if value != invalid { values[field.number] = value }
                }
                fieldAt += field.size
            }
            at += size
            var timestamp: UInt32?
            if let full = values[253].map(UInt32.init) {
                timestamp = full
                lastTimestamp = full
            } else if compressed, let last = lastTimestamp {
                // FIT protocol, "Compressed Timestamp Header": the offset replaces the low
                // five bits of the last full timestamp, rolling over when it is smaller.
                let offset = UInt32(header & 0x1F)
                var t = (last & ~UInt32(0x1F)) + offset
                if offset < last & 0x1F { t &+= 0x20 }
                timestamp = t
                lastTimestamp = t
            }
            func date(_ v: UInt64?) -> Date? { v.map { Date(timeIntervalSince1970: Double($0) + epoch) } }
            switch definition.global {
            case Message.fileID:
                sawFileID = true
                if activity.fileType == nil { activity.fileType = values[0].map { UInt8(truncatingIfNeeded: $0) } }
            case Message.record:
                if let timestamp {
                    let record = Self.record(values, at: date(UInt64(timestamp))!)
                    if timestamp == lastRecorded, let last = activity.records.indices.last {
                        // The same second again: what the first left out is filled in.
                        activity.records[last].fill(from: record)
                    } else {
                        guard activity.records.count < maxRecords else { throw .tooManyRecords(limit: maxRecords) }
                        activity.records.append(record)
                        lastRecorded = timestamp
                    }
                }
            case Message.session:
                activity.sessions.append(.init(sport: values[5].map { UInt8(truncatingIfNeeded: $0) },
                                               subSport: values[6].map { UInt8(truncatingIfNeeded: $0) },
                                               start: date(values[2]),
                                               elapsed: values[7].map { Double($0) / 1000 },
                                               calories: values[11].map { Double($0) }))
            case Message.lap:
                activity.laps.append(.init(start: date(values[2]), elapsed: values[7].map { Double($0) / 1000 },
                                           calories: values[11].map { Double($0) }))
            case Message.workout:
                // workout: sport 4, wkt_name 8.
                activity.workoutSport = values[4].map { UInt8(truncatingIfNeeded: $0) }
                activity.workoutName = strings[8]
            case Message.workoutStep:
                // workout_step: message_index 254, wkt_step_name 0, duration_type 1,
                // duration_value 2, target_type 3, target_value 4, custom_target_value_low 5
                // and _high 6, intensity 7 (Profile.xlsx).
                guard activity.workoutSteps.count < Message.maxSteps else { throw .tooManySteps(limit: Message.maxSteps) }
                func u32(_ n: UInt8) -> UInt32? { values[n].map { UInt32(truncatingIfNeeded: $0) } }
                func u8(_ n: UInt8) -> UInt8? { values[n].map { UInt8(truncatingIfNeeded: $0) } }
                activity.workoutSteps.append(.init(
                    index: values[254].map { Int($0) } ?? activity.workoutSteps.count, name: strings[0],
                    durationType: u8(1), durationValue: u32(2), targetType: u8(3), targetValue: u32(4),
                    customLow: u32(5), customHigh: u32(6), intensity: u8(7)))
            default:
                break
            }
        }
        return end + 2
    }

    /// A `record`'s fields, scaled as Garmin's profile (Profile.xlsx, message `record`) says:
    /// position_lat/long 0/1 (sint32 semicircles), altitude 2 (/5 − 500 m), heart_rate 3,
    /// cadence 4 (rpm), distance 5 (/100 m), speed 6 (/1000 m/s), power 7 (W),
    /// fractional_cadence 53 (/128 rpm), enhanced_speed 73 (/1000 m/s), enhanced_altitude 78
    /// (/5 − 500 m). The enhanced fields, wider, win over the older ones when both are there.
    static func record(_ values: [UInt8: UInt64], at: Date) -> FITActivity.Record {
        func semicircles(_ v: UInt64?) -> Double? { v.map { Double(Int32(truncatingIfNeeded: $0)) * 180 / 2_147_483_648 } }
        var r = FITActivity.Record(at: at, heartRate: values[3].map { Int($0) })
        r.speed = (values[73] ?? values[6]).map { Double($0) / 1000 }
        r.distance = values[5].map { Double($0) / 100 }
        r.altitude = (values[78] ?? values[2]).map { Double($0) / 5 - 500 }
        r.cadence = values[4].map { Double($0) + Double(values[53] ?? 0) / 128 }
        r.power = values[7].map { Double($0) }
        if let lat = semicircles(values[0]), let lon = semicircles(values[1]) {
            r.latitude = lat
            r.longitude = lon
        }
        return r
    }
}

extension FITActivity.Record {
    /// Takes what `other` has and this lacks.
    mutating func fill(from other: Self) {
        heartRate = heartRate ?? other.heartRate
        speed = speed ?? other.speed
        distance = distance ?? other.distance
        altitude = altitude ?? other.altitude
        cadence = cadence ?? other.cadence
        power = power ?? other.power
        if latitude == nil, longitude == nil {
            latitude = other.latitude
            longitude = other.longitude
        }
    }
}

/// FIT profile `sport` values (Profile.xlsx, type `sport`).
public enum FITSport {
    static let names: [UInt8: String] = [
        0: "generic", 1: "running", 2: "cycling", 3: "transition", 4: "fitness_equipment", 5: "swimming",
        6: "basketball", 7: "soccer", 8: "tennis", 9: "american_football", 10: "training", 11: "walking",
        12: "cross_country_skiing", 13: "alpine_skiing", 14: "snowboarding", 15: "rowing", 16: "mountaineering",
        17: "hiking", 18: "multisport", 19: "paddling", 20: "flying", 21: "e_biking", 22: "motorcycling",
        23: "boating", 24: "driving", 25: "golf", 26: "hang_gliding", 27: "horseback_riding", 28: "hunting",
        29: "fishing", 30: "inline_skating", 31: "rock_climbing", 32: "sailing", 33: "ice_skating",
        34: "sky_diving", 35: "snowshoeing", 36: "snowmobiling", 37: "stand_up_paddleboarding", 38: "surfing",
        39: "wakeboarding", 40: "water_skiing", 41: "kayaking", 42: "rafting", 43: "windsurfing",
        44: "kitesurfing", 45: "tactical", 46: "jumpmaster", 47: "boxing", 48: "floor_climbing",
        53: "diving", 254: "all",
    ]

    /// Whether the sport's cadence is in strides (one foot), as Garmin's devices count a
    /// runner's, walker's and hiker's (`MotionSample.cadence` wants steps of both feet).
    public static func countsStrides(_ sport: UInt8?) -> Bool {
        guard let sport else { return false }
        return [1, 11, 17].contains(sport)
    }

    /// The profile's name of `sport`, or `sport_N` for a number it does not list.
    public static func name(_ sport: UInt8) -> String { names[sport] ?? "sport_\(sport)" }

    /// A workout's name from the sport: `running` → "Running", `fitness_equipment` → "Fitness equipment".
    public static func title(_ name: String) -> String {
        let words = name.replacingOccurrences(of: "_", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }
}
