/// A JSON document built explicitly: keys keep their order, absent values are written as
/// `null` (clients can rely on every documented key), and strings are always escaped.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool { a.serialized() == b.serialized() }

    public static func optional(_ s: String?) -> JSONValue { s.map(JSONValue.string) ?? .null }
    public static func optional(_ d: Double?) -> JSONValue { d.map(JSONValue.double) ?? .null }
    public static func optional(_ i: Int?) -> JSONValue { i.map { .int(Int64($0)) } ?? .null }
    public static func optional(_ i: Int64?) -> JSONValue { i.map(JSONValue.int) ?? .null }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            if !d.isFinite {
                out.append(contentsOf: "null".utf8)
            } else if d == d.rounded(), abs(d) < 1e15 {
                out.append(contentsOf: String(Int64(d)).utf8)
            } else {
                // Three decimals are more than any duration or BPM needs, and stay readable.
                let rounded = (d * 1000).rounded() / 1000
                out.append(contentsOf: String(rounded).utf8)
            }
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 48 + v : 87 + v }

    /// RFC 8259 §7: quote, backslash and control characters are escaped; `<`, `>` and `&`
    /// too, so a JSON document embedded in a page can never close a `<script>`.
    private static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied at once (byte by byte was a twentieth
            // of the listens endpoint's time).
            var start = 0
            for i in 0..<bytes.count where needsEscape(bytes[i]) {
                if start < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i])) }
                escape(bytes[i], to: &out)
                start = i + 1
            }
            if start < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...])) }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "<")
            || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&")
    }

    private static func escape(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(92); out.append(34)
        case UInt8(ascii: "\\"): out.append(92); out.append(92)
        case 0x0A: out.append(92); out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(92); out.append(UInt8(ascii: "r"))
        case 0x09: out.append(92); out.append(UInt8(ascii: "t"))
        case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"), 0x7F:
            out.append(contentsOf: "\\u00".utf8)
            out.append(hexDigit(byte >> 4))
            out.append(hexDigit(byte & 0xF))
        default: out.append(byte)
        }
    }
}

extension HTTPResponse {
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: value.serialized())
    }
}
