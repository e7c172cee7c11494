/// A JSON value as the importers read it: a small recursive-descent reader over UTF-8
/// bytes (RFC 8259). It exists because import speed is the point: a ListenBrainz export
/// has one JSON object per line, and `JSONSerialization` (boxing every value as `Any`)
/// is several times slower per line than reading the bytes directly.
public enum ImportJSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ImportJSON])
    /// Members in document order (objects in exports are small: a linear search is fast).
    case object([Member])

    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: ImportJSON
    }

    public subscript(key: String) -> ImportJSON? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// Trimmed text, nil when absent or empty.
    public var text: String? {
        guard case .string(let s) = self else { return nil }
        let trimmed = s.trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A number, or a string holding one (exporters disagree about quoting).
    public var number: Double? {
        switch self {
        case .number(let n): n
        case .string(let s): Double(s.trimmingWhitespace())
        default: nil
        }
    }

    /// A whole number (a fraction dropped) that fits in 53 bits, or nil: converting a
    /// larger or non-finite number would trap.
    public var wholeNumber: Int64? {
        guard let n = number, n.isFinite, abs(n) < 9_007_199_254_740_992 else { return nil }
        return Int64(n.rounded(.towardZero))
    }

    public var array: [ImportJSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var isNull: Bool { self == .null }

    public struct SyntaxError: Error, Equatable, Sendable {
        /// Byte offset in the input where reading failed.
        public var offset: Int
        public var message: String
    }

    /// Reads one complete value; only white space may follow it.
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(SyntaxError) -> ImportJSON {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipWhitespace()
        guard reader.index == bytes.count else { throw reader.error("unexpected text after the JSON value") }
        return value
    }

    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> ImportJSON {
        do {
            return try bytes.withUnsafeBufferPointer { try parse($0) }
        } catch let error as SyntaxError {
            throw error
        } catch {
            throw SyntaxError(offset: 0, message: "\(error)")
        }
    }

    /// Reads the elements of a top-level array one at a time, so that a damaged element
    /// (a truncated file) stops the reading there and everything before it is kept.
    public struct ArrayReader {
        var reader: Reader
        private var first = true
        private var finished = false

        /// Fails when the input is not an array.
        public init(_ bytes: UnsafeBufferPointer<UInt8>) throws(SyntaxError) {
            reader = Reader(bytes: bytes)
            reader.skipWhitespace()
            guard reader.peek == UInt8(ascii: "[") else { throw reader.error("expected a JSON array") }
            reader.index += 1
        }

        /// The next element and the byte offset where it begins; nil at the end of the array.
        public mutating func next() throws(SyntaxError) -> (value: ImportJSON, offset: Int)? {
            guard !finished else { return nil }
            reader.skipWhitespace()
            if reader.peek == UInt8(ascii: "]") {
                finished = true
                return nil
            }
            if !first {
                guard reader.peek == UInt8(ascii: ",") else {
                    finished = true
                    throw reader.error(reader.index >= reader.bytes.count ? "the file ends inside the array" : "expected ',' or ']'")
                }
                reader.index += 1
                reader.skipWhitespace()
            }
            first = false
            let start = reader.index
            do {
                return (try reader.value(depth: 1), start)
            } catch {
                // Reported where the damaged element begins.
                finished = true
                throw SyntaxError(offset: start, message: error.message)
            }
        }
    }

    struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        func error(_ message: String) -> SyntaxError { SyntaxError(offset: index, message: message) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(SyntaxError) -> ImportJSON {
            guard depth < 64 else { throw error("JSON nested too deeply") }
            skipWhitespace()
            guard let byte = peek else { throw error("the text ends where a value should be") }
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw error("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(SyntaxError) {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("the text ends inside a literal") }
            for i in 0..<count where bytes[index + i] != word.utf8Start[i] { throw error("unexpected character") }
            index += count
        }

        mutating func object(depth: Int) throws(SyntaxError) -> ImportJSON {
            index += 1
            var members: [Member] = []
            skipWhitespace()
            if peek == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw error(peek == nil ? "the text ends inside an object" : "expected a member name") }
                let key = try string()
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw error(peek == nil ? "the text ends inside an object" : "expected ':'") }
                index += 1
                members.append(Member(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"): index += 1; return .object(members)
                case nil: throw error("the text ends inside an object")
                default: throw error("expected ',' or '}'")
                }
            }
        }

        mutating func array(depth: Int) throws(SyntaxError) -> ImportJSON {
            index += 1
            var elements: [ImportJSON] = []
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                switch peek {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"): index += 1; return .array(elements)
                case nil: throw error("the text ends inside an array")
                default: throw error("expected ',' or ']'")
                }
            }
        }

        mutating func string() throws(SyntaxError) -> String {
            index += 1
            let start = index
            // Fast path: no escapes.
            while index < bytes.count {
                let b = bytes[index]
                if b == UInt8(ascii: "\"") {
                    let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return s
                }
                if b == UInt8(ascii: "\\") { break }
                if b < 0x20 { throw error("control character in a string") }
                index += 1
            }
            var out = Array(bytes[start..<index])
            while index < bytes.count {
                let b = bytes[index]
                switch b {
                case UInt8(ascii: "\""):
                    index += 1
                    return String(decoding: out, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard let e = peek else { break }
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try hex4()
                        if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count,
                           bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                            index += 2
                            let low = try hex4()
                            if (0xDC00..<0xE000).contains(low) {
                                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                out.append(contentsOf: String(Unicode.Scalar(0xFFFD)!).utf8)
                                scalar = low
                            }
                        }
                        out.append(contentsOf: String(Unicode.Scalar(scalar) ?? Unicode.Scalar(0xFFFD)!).utf8)
                    default: throw error("invalid escape in a string")
                    }
                default:
                    if b < 0x20 { throw error("control character in a string") }
                    out.append(b)
                    index += 1
                }
            }
            throw error("the text ends inside a string")
        }

        mutating func hex4() throws(SyntaxError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("the text ends inside a \\u escape") }
            var v: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let d: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                v = v << 4 | d
                index += 1
            }
            return v
        }

        mutating func number() throws(SyntaxError) -> Double {
            let start = index
            var integer: Int64 = 0
            var negative = false
            var simple = true
            if peek == UInt8(ascii: "-") { negative = true; index += 1 }
            let digitsStart = index
            while index < bytes.count {
                let b = bytes[index]
                if b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") {
                    if index - digitsStart < 18 { integer = integer * 10 + Int64(b - UInt8(ascii: "0")) } else { simple = false }
                    index += 1
                } else if b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
                            || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") {
                    simple = false
                    index += 1
                } else {
                    break
                }
            }
            guard index > digitsStart else { throw error("invalid number") }
            if simple { return Double(negative ? -integer : integer) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            guard let value = Double(text) else { throw SyntaxError(offset: start, message: "invalid number") }
            return value
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        // The usual case, without Unicode property look-ups: printable ASCII at both ends.
        if let f = utf8.first, let l = utf8.last, (0x21..<0x7F).contains(f), (0x21..<0x7F).contains(l) { return self }
        guard let f = first, let l = last, f.isWhitespace || l.isWhitespace else { return self }
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
