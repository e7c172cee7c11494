import Foundation
import PacenoteCore

// JSON arrays (a ListenBrainz or Spotify export, a Maloja export's "scrobbles") read one
// element at a time: at most one element (`maxLength`) and a chunk are held, whatever the
// size of the array. A 250 MiB array read whole took 549 MB (issue 51).

extension ByteSource {
    /// An element of the array, with the line it begins on.
    enum ArrayElement {
        case text(UnsafeBufferPointer<UInt8>, line: Int)
        /// Longer than the limit: passed over to its end without being held.
        case tooLong(bytes: Int64, line: Int)
        /// The array ends badly (the file is truncated, or something else than `,` or `]`
        /// follows an element): nothing after it is read.
        case broken(String, line: Int)
    }

    var base: UnsafeMutablePointer<UInt8> { storage.baseAddress!.assumingMemoryBound(to: UInt8.self) }

    /// Hands out `storage[start..<index]`, counting its line feeds.
    func pass(to index: Int) {
        var p = start
        while p < index, let hit = memchr(base + p, 0x0A, index - p) {
            lineFeeds += 1
            p = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
        }
        consumed += Int64(index - start)
        start = index
    }

    /// Passes white space; the next byte after it (not passed), or nil at the end.
    private func skipSpace() throws -> UInt8? {
        while true {
            while start < count {
                let b = base[start]
                guard b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D else { return b }
                pass(to: start + 1)
            }
            guard try fill() else { return nil }
        }
    }

    /// The offset of `needle` in what is pending, if it is there whole.
    private func find(_ needle: [UInt8]) -> Int? {
        var p = start
        while p + needle.count <= count, let hit = memchr(base + p, Int32(needle[0]), count - p) {
            let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            guard at + needle.count <= count else { return nil }
            if memcmp(base + at, needle, needle.count) == 0 { return at }
            p = at + 1
        }
        return nil
    }

    /// Passes everything up to and including the `[` that opens the array: the input's
    /// own (`key` nil) or the first one under `"key":` (a Maloja export's "scrobbles").
    /// False when there is no such array.
    func enterArray(under key: String?) throws -> Bool {
        if let key {
            let needle = Array("\"\(key)\"".utf8)
            while true {
                guard let at = find(needle) else {
                    // The name may straddle two chunks: its start is kept.
                    pass(to: count - min(count - start, needle.count - 1))
                    guard try fill() else { return false }
                    continue
                }
                pass(to: at + needle.count)
                guard try skipSpace() == UInt8(ascii: ":") else { continue }
                pass(to: start + 1)
                break
            }
        }
        guard try skipSpace() == UInt8(ascii: "[") else { return false }
        pass(to: start + 1)
        return true
    }

    /// Each element of the array `enterArray` entered, in order, until its `]`; an element
    /// longer than `maxLength` is not held (`.tooLong`). Holds at most `maxLength` and a chunk.
    func forEachArrayElement(maxLength: Int, _ body: (ArrayElement) throws -> Void) throws {
        guard let first = try skipSpace() else { return try body(.broken("the file ends inside the array", line: lineFeeds + 1)) }
        if first == UInt8(ascii: "]") { return pass(to: start + 1) }
        while true {
            guard try skipSpace() != nil else { return try body(.broken("the file ends inside the array", line: lineFeeds + 1)) }
            let line = lineFeeds + 1
            var scanner = JSONElementScanner()
            let (found, dropped, _) = try scanRecord(&scanner, maxLength: maxLength)
            guard let end = found else { return try body(.broken("the file ends inside the array", line: line)) }
            let length = (dropped ?? 0) + Int64(end - start)
            if dropped != nil || length > maxLength {
                try body(.tooLong(bytes: length, line: line))
            } else {
                try body(.text(UnsafeBufferPointer(start: base + start, count: end - start), line: line))
            }
            let delimiter = base[end]
            pass(to: end + 1)
            switch delimiter {
            case UInt8(ascii: "]"): return
            case UInt8(ascii: ","): continue
            default: return try body(.broken("expected ',' or ']'", line: lineFeeds + 1))
            }
        }
    }
}
