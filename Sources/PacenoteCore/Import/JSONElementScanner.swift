/// Where one element of a JSON array ends, found a piece of input at a time, so that an
/// import holds one element and never the whole array: a JSON array in an upload or a zip
/// may be hundreds of megabytes, and its parse tree several times more.
///
/// RFC 8259, sections 5 and 7: elements are separated by commas and the array ends at `]`;
/// commas and brackets inside strings (where `\` escapes the next character) and inside
/// nested objects and arrays do not count. The element itself is not checked here: the
/// parser reads it once its end is known.
/// Finds where one record of a file ends, a piece of input at a time (`JSONElementScanner`,
/// `CSVRecordScanner`): the import's reader holds one record, never the file.
public protocol RecordEndScanner {
    /// Scans the record's next bytes, carrying on from those scanned before: the index in
    /// `bytes` of the byte that ends the record, or nil when it goes on past `bytes`.
    mutating func end(in bytes: UnsafeBufferPointer<UInt8>) -> Int?
}

public struct JSONElementScanner: RecordEndScanner, Sendable {
    private var depth = 0
    private var inString = false
    private var escaped = false

    public init() {}

    /// Scans the element's next bytes, carrying on from the bytes scanned before. Answers
    /// the index in `bytes` of the byte that ends the element at its own level (`,` or `]`,
    /// or `}` in a broken file), or nil when the element goes on past `bytes`.
    public mutating func end(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                }
            } else {
                switch b {
                case 0x22: inString = true
                case 0x7B, 0x5B: depth += 1
                case 0x7D, 0x5D:
                    if depth == 0 { return i }
                    depth -= 1
                case 0x2C where depth == 0: return i
                default: break
                }
            }
            i += 1
        }
        return nil
    }
}
