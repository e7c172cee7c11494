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
        /// Longer than the limit and over more than one line: a quote that never closed (no
        /// real field holds a mebibyte of lines). Nothing of it is passed over: reading goes
        /// on at the line after the one it begins on.
        case runaway(line: Int)
    }

    /// What the reader made of a `.text` record: all of it, or only its first line (a quote
    /// opened there did not close, and the lines it swallowed are read again as records: the
    /// import resynchronises at the next line that reads as a row, issue 52).
    enum CSVRecordUse {
        case whole
        case firstLine
    }

    /// Each record in order (`CSVRecordScanner`), the last one even without a line feed.
    func forEachCSVRecord(maxLength: Int, _ body: (CSVRecord) throws -> CSVRecordUse) throws {
        // A byte order mark, which `CSVReader` would pass over: the scanner must not see it.
        if consumed == 0, try peek(3) == [0xEF, 0xBB, 0xBF] { pass(to: start + 3) }
        while true {
            if start == count, try !fill() { return }
            let line = lineFeeds + 1
            var scanner = CSVRecordScanner()
            // The record's line feed (nil when the input ends first), and the bytes of a too
            // long record already passed over.
            let (end, dropped, runaway) = try scanRecord(&scanner, maxLength: maxLength, holdingLines: true)
            if let runaway {
                _ = try body(.runaway(line: line))
                pass(to: runaway + 1)
                continue
            }
            let stop = end.map { $0 + 1 } ?? count
            let length = (dropped ?? 0) + Int64(stop - start)
            var use = CSVRecordUse.whole
            if dropped != nil || length > maxLength {
                _ = try body(.tooLong(bytes: length, line: line))
            } else {
                use = try body(.text(UnsafeBufferPointer(start: base + start, count: stop - start), line: line))
            }
            if use == .firstLine, let hit = memchr(base + start, 0x0A, stop - start) {
                let lineEnd = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if lineEnd + 1 < stop {
                    pass(to: lineEnd + 1)
                    continue
                }
            }
            pass(to: stop)
            if end == nil { return }
        }
    }

    /// Reads on from `start` until `scanner` finds the end of the record that begins there:
    /// the index of its last byte (nil when the input ends first), and, for a record longer
    /// than `maxLength`, the bytes passed over without being held (nil when it is held whole).
    /// `holdingLines`: a record that grows past `maxLength` over more than one line is not
    /// passed over; `runaway` is then the index of its first line feed (CSV's unclosed quote).
    func scanRecord<Scanner: RecordEndScanner>(_ scanner: inout Scanner, maxLength: Int,
                                               holdingLines: Bool = false) throws -> (end: Int?, dropped: Int64?, runaway: Int?) {
        var scanned = start
        var dropped: Int64?
        while true {
            if scanned < count, let i = scanner.end(in: UnsafeBufferPointer(start: base + scanned, count: count - scanned)) {
                return (scanned + i, dropped, nil)
            }
            if dropped == nil, count - start > maxLength, holdingLines, let hit = memchr(base + start, 0x0A, count - start) {
                return (nil, nil, base.distance(to: hit.assumingMemoryBound(to: UInt8.self)))
            }
            if dropped != nil || count - start > maxLength {
                dropped = (dropped ?? 0) + Int64(count - start)
                pass(to: count)
            }
            let seen = count - start
            guard try fill() else { return (nil, dropped, nil) }
            scanned = start + seen
        }
    }
}
