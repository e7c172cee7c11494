/// The Bluetooth Heart Rate Measurement characteristic (0x2A37), as straps and watches
/// notify it (Bluetooth SIG, Heart Rate Service 1.0, §3.1 and the GATT Specification
/// Supplement):
///
/// - byte 0, flags: bit 0 value format (0: uint8, 1: uint16), bit 1 sensor contact
///   detected, bit 2 sensor contact supported, bit 3 energy expended present, bit 4 RR
///   intervals present;
/// - the heart rate (uint8 or uint16, little-endian);
/// - energy expended in kJ (uint16), if flagged;
/// - RR intervals (uint16 each, in 1/1024 s), if flagged, to the end.
public struct BLEHeartRateMeasurement: Equatable, Sendable {
    public var bpm: Int
    /// `nil` when the sensor does not report contact.
    public var contact: Bool?
    public var energyExpended: Int?
    /// RR intervals in milliseconds.
    public var rr: [Double]

    public enum ParseError: Error, Equatable, Sendable {
        case notHex(String)
        case tooShort
        case truncatedRR
    }

    /// Whether this sample should be kept: a sensor that reports contact and has none
    /// measures nothing useful.
    public var isUsable: Bool { contact != false && HeartRateSample.validRange.contains(bpm) }

    public init(bytes: [UInt8]) throws(ParseError) {
        guard let flags = bytes.first else { throw .tooShort }
        var i = 1
        func uint16() throws(ParseError) -> Int {
            guard i + 1 < bytes.count else { throw .tooShort }
            defer { i += 2 }
            return Int(bytes[i]) | Int(bytes[i + 1]) << 8
        }
        if flags & 0x01 != 0 {
            bpm = try uint16()
        } else {
            guard i < bytes.count else { throw .tooShort }
            bpm = Int(bytes[i])
            i += 1
        }
        contact = flags & 0x04 != 0 ? flags & 0x02 != 0 : nil
        energyExpended = flags & 0x08 != 0 ? try uint16() : nil
        rr = []
        if flags & 0x10 != 0 {
            guard (bytes.count - i) % 2 == 0 else { throw .truncatedRR }
            while i < bytes.count { rr.append(Double(try uint16()) * 1000 / 1024) }
        }
    }

    /// Reads hex as tools print it: `16 4e 2c 03`, `164e2c03`, `0x16 0x4e`, or a
    /// `gatttool --listen` line (`Notification handle = 0x000f value: 16 4e 2c 03`).
    public static func bytes(fromHex line: String) throws(ParseError) -> [UInt8] {
        var text = Substring(line)
        if let range = line.range(of: "value:") { text = line[range.upperBound...] }
        var digits = ""
        for token in text.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "-" || $0 == "," || $0 == "\t" }) {
            var t = Substring(token)
            if t.hasPrefix("0x") || t.hasPrefix("0X") { t = t.dropFirst(2) }
            if t.count % 2 == 1 { digits += "0" }
            digits += t
        }
        guard !digits.isEmpty, digits.count % 2 == 0, digits.allSatisfy(\.isHexDigit) else { throw .notHex(line) }
        var out: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            out.append(UInt8(digits[index..<next], radix: 16)!)
            index = next
        }
        return out
    }
}

/// A Bluetooth device address as BlueZ and `bluetoothctl` write it: six hexadecimal pairs
/// separated by colons (`C0:FF:EE:12:34:56`).
public enum BluetoothAddress {
    public static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }
}
