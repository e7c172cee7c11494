import Foundation
import PacenoteCore

// CSV files (a Last.fm export) read a record at a time: at most one record (`maxLength`)
// and a chunk are held, not the file (read whole, a 64 MiB upload took three times that).

extension ByteSource {
    /// A record with its line feed, and the line it begins on.
    enum CSVRecord {
        case text(UnsafeBufferPointer<UInt8>, line: Int)
        /// Longer than the limit: passed over to its end without being held.
        case tooLong(bytes: Int64, line: Int)
    }

    /// Each record in order (`CSVRecordScanner`), the last one even without a line feed.
    func forEachCSVRecord(maxLength: Int, _ body: (CSVRecord) throws -> Void) throws {
        // A byte order mark, which `CSVReader` would pass over: the scanner must not see it.
        if consumed == 0, try peek(3) == [0xEF, 0xBB, 0xBF] { pass(to: start + 3) }
        while true {
            if start == count, try !fill() { return }
            let line = lineFeeds + 1
            var scanner = CSVRecordScanner()
            // The record's line feed (nil when the input ends first), and the bytes of a too
            // long record already passed over.
            let (end, dropped) = try scanRecord(&scanner, maxLength: maxLength)
            let stop = end.map { $0 + 1 } ?? count
            let length = (dropped ?? 0) + Int64(stop - start)
            if dropped != nil || length > maxLength {
                try body(.tooLong(bytes: length, line: line))
            } else {
                try body(.text(UnsafeBufferPointer(start: base + start, count: stop - start), line: line))
            }
            pass(to: stop)
            if end == nil { return }
        }
    }

    /// Reads on from `start` until `scanner` finds the end of the record that begins there:
    /// the index of its last byte (nil when the input ends first), and, for a record longer
    /// than `maxLength`, the bytes passed over without being held (nil when it is held whole).
    func scanRecord<Scanner: RecordEndScanner>(_ scanner: inout Scanner, maxLength: Int) throws -> (end: Int?, dropped: Int64?) {
        var scanned = start
        var dropped: Int64?
        while true {
            if scanned < count, let i = scanner.end(in: UnsafeBufferPointer(start: base + scanned, count: count - scanned)) {
                return (scanned + i, dropped)
            }
            if dropped != nil || count - start > maxLength {
                dropped = (dropped ?? 0) + Int64(count - start)
                pass(to: count)
            }
            let seen = count - start
            guard try fill() else { return (nil, dropped) }
            scanned = start + seen
        }
    }
}
