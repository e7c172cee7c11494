/// How often each row (a track's slot, or an artist) was followed by a counted play of
/// another, in flat bytes: rows in compressed sparse row form, no heap object per row. A
/// dictionary of per-row arrays cost ~37 MiB at 5M plays over 150k tracks (3M distinct
/// pairs; array headers, malloc rounding and growth slack); an `Int32` successor and a count
/// byte per pair, 5 bytes a pair, ~15 MiB; a row's successors as the gaps between them
/// (sorted, ~7,500 apart in a row of 20 over 150k tracks: two bytes) and a count byte,
/// ~3 bytes a pair, ~7 MiB. Most pairs are seen once (2.66M of the 3M in
/// `scripts/bench/scale`'s 5M plays): a flag in the gap's lowest bit says whether a count
/// byte follows, so such a pair takes its two gap bytes only (~4.8 MiB).
///
/// New pairs go to a short unsorted list first and are merged into the rows in bulk, so
/// recording a play stays O(1) and a build of millions of plays costs a few merges.
///
/// The rows' bytes are written once by a merge and then only read, a row at a time: where
/// they are kept is the `TransitionStorage`'s choice. In memory by default (tests, the
/// offline evaluation, the command line); the daemon's are in a file of their own
/// (`TransitionFileStorage`, PacenoteApp), read a row at a time, so the ~4.8 MiB at 5M
/// plays sit in the kernel's page cache rather than the daemon's heap. Only the row
/// offsets (4 bytes a row) and the pairs since the last merge stay in memory.
struct Transitions: Sendable {
    /// Where merges write the rows they make.
    private let storage: any TransitionStorage
    /// Row `r`'s pairs are `bytes[rowStart[r]..<rowStart[r + 1]]`: for each successor, in
    /// increasing order, its gap from the one before (the first: its value; the next:
    /// `successor - previous - 1`) times two as a LEB128 varint, plus one when a count byte
    /// follows: how often it followed, 2 to 254 (no byte: once); `UInt8.max` means "see
    /// `largeCounts`".
    private var rowStart: [UInt32] = [0]
    private var bytes: any TransitionBytes = InMemoryTransitionStorage.Bytes([])
    /// Pairs held in the rows.
    private(set) var mergedPairs = 0
    /// The counts of `UInt8.max` and above, by pair (`from << 32 | to`).
    private var largeCounts: [UInt64: Float] = [:]
    /// Pairs recorded since the last merge, `from << 32 | to`, in arrival order.
    private var recent: [UInt64] = []
    /// After a merge that could not read the old rows: no other is tried before `recent`
    /// holds this many pairs.
    private var nextMergeAt = 0

    init(storage: any TransitionStorage = InMemoryTransitionStorage()) {
        self.storage = storage
    }

    /// Bytes the merged rows take (wherever the storage keeps them).
    var rowBytes: Int { bytes.count }

    mutating func add(from: Int32, to: Int32) {
        recent.append(Self.pair(from, to))
        // Merging costs a pass over every pair: wait until the new ones are a quarter of
        // them, so a build from scratch copies each pair a few times in all.
        if recent.count >= max(4096, mergedPairs / 4, nextMergeAt) { merge() }
    }

    /// How many pairs started at `from`: its row's counts and its recent pairs, summed when
    /// asked (one row, for the current track) rather than kept per row (4 bytes a track).
    /// The counts are whole numbers well under 2^24, so the `Float` sum is exact, in any order.
    func total(from: Int32) -> Float {
        var sum: Float = 0
        forEach(from: from) { _, n in sum += n }
        let key = UInt64(UInt32(bitPattern: from))
        for pair in recent where pair >> 32 == key { sum += 1 }
        return sum
    }

    /// How often each row followed `from`.
    func successors(of from: Int32) -> [Int32: Float] {
        var out: [Int32: Float] = [:]
        forEach(from: from) { to, n in out[to] = n }
        let key = UInt64(UInt32(bitPattern: from))
        for pair in recent where pair >> 32 == key {
            out[Int32(bitPattern: UInt32(truncatingIfNeeded: pair)), default: 0] += 1
        }
        return out
    }

    /// Calls `body` with each successor of `from` and its count in the merged rows, in
    /// increasing order of successor.
    func forEach(from: Int32, merged body: (Int32, Float) -> Void) {
        let row = Int(from)
        guard row >= 0, row + 1 < rowStart.count else { return }
        let start = Int(rowStart[row]), end = Int(rowStart[row + 1])
        guard start < end else { return }
        bytes.withBytes(start..<end) { row in
            // Unreadable (the storage reports it): no pairs rather than made-up ones.
            guard let row else { return }
            var cursor = Cursor(at: 0)
            while cursor.at < row.count {
                let (to, count) = cursor.next(in: row)
                body(to, storedCount(count, from: from, to: to))
            }
        }
    }

    func forEachRecent(_ body: (_ from: Int32, _ to: Int32) -> Void) {
        for pair in recent {
            body(Int32(bitPattern: UInt32(truncatingIfNeeded: pair >> 32)), Int32(bitPattern: UInt32(truncatingIfNeeded: pair)))
        }
    }

    private func storedCount(_ count: UInt8, from: Int32, to: Int32) -> Float {
        count < UInt8.max ? Float(count) : largeCounts[Self.pair(from, to)] ?? Float(UInt8.max)
    }

    /// Reads a row's pairs in order: each successor and its count byte. Rows are read whole
    /// (`TransitionBytes.withBytes` gives all of a range or nothing).
    private struct Cursor {
        var at: Int
        var previous: Int32 = -1

        mutating func next<Source: ByteSource>(in bytes: inout Source) -> (to: Int32, count: UInt8) {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes.byte(at: at)
                at += 1
                value |= UInt64(byte & 0x7F) << (shift & 63)
                if byte < 0x80 { break }
                shift += 7
            }
            previous = previous &+ 1 &+ Int32(bitPattern: UInt32(truncatingIfNeeded: value >> 1))
            guard value & 1 == 1 else { return (previous, 1) }
            let count = bytes.byte(at: at)
            at += 1
            return (previous, count)
        }

        mutating func next(in bytes: UnsafeBufferPointer<UInt8>) -> (to: Int32, count: UInt8) {
            var source = bytes
            return next(in: &source)
        }
    }

    /// Appends a pair to a row being written, after `previous` (-1 before the first).
    private static func append(_ to: Int32, after previous: Int32, count: UInt8, to out: inout RowWriter) throws {
        var value = UInt64(UInt32(bitPattern: to - previous - 1)) << 1 | (count == 1 ? 0 : 1)
        while value >= 0x80 {
            try out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        try out.append(UInt8(value))
        if count != 1 { try out.append(count) }
    }

    private static func pair(_ from: Int32, _ to: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: from)) << 32 | UInt64(UInt32(bitPattern: to))
    }

    /// Moves the recent pairs into the rows, if there are more than `limit`.
    mutating func merge(ifMoreThan limit: Int) {
        if recent.count > limit { merge() }
    }

    /// Writes the old rows and the recent pairs, merged, as new rows: to the storage, or in
    /// memory if the storage cannot take them (a full disk). Nothing is replaced until the
    /// new rows are whole, so a failure loses nothing; if the old rows cannot be read (an
    /// I/O error, which the storage reports), they and the recent pairs stay as they are,
    /// and the next try waits until the recent pairs have doubled.
    private mutating func merge() {
        guard !recent.isEmpty else { return }
        recent.sort()
        // Each new pair takes at most 5 bytes of gap and its count; an old one no more than it did.
        let capacity = bytes.count + recent.count * 6
        let result: (rowStart: [UInt32], bytes: any TransitionBytes, pairs: Int, large: [UInt64: Float])
        do {
            do {
                result = try merged(into: storage.makeWriter(capacity: capacity))
            } catch is Unreadable {
                throw Unreadable()
            } catch {
                result = try merged(into: InMemoryTransitionStorage().makeWriter(capacity: capacity))
            }
        } catch {
            nextMergeAt = recent.count * 2
            return
        }
        nextMergeAt = 0
        rowStart = result.rowStart
        bytes = result.bytes
        mergedPairs = result.pairs
        largeCounts = result.large
        recent = []
    }

    /// The old rows could not be read.
    private struct Unreadable: Error {}

    /// The rows with the (sorted) recent pairs merged in, written to `writer`.
    private func merged(into writer: consuming any TransitionWriter) throws
        -> (rowStart: [UInt32], bytes: any TransitionBytes, pairs: Int, large: [UInt64: Float]) {
        let oldRows = rowStart.count - 1
        let rows = max(oldRows, Int(recent[recent.count - 1] >> 32) + 1)
        var newStart: [UInt32] = []
        newStart.reserveCapacity(rows + 1)
        var out = RowWriter(writer)
        var large = largeCounts
        var old = ChunkReader(bytes)
        var pairs = 0
        var j = 0
        for row in 0..<rows {
            newStart.append(UInt32(out.count))
            var cursor = Cursor(at: row < oldRows ? Int(rowStart[row]) : 0)
            let end = row < oldRows ? Int(rowStart[row + 1]) : 0
            // The next old pair not yet copied, if any.
            var pending: (to: Int32, count: UInt8)? = cursor.at < end ? cursor.next(in: &old) : nil
            var previous: Int32 = -1
            let key = UInt64(row)
            // Both sorted by successor: a merge, adding the counts of a pair seen in both.
            while j < recent.count, recent[j] >> 32 == key {
                let to = Int32(bitPattern: UInt32(truncatingIfNeeded: recent[j]))
                var n: Float = 0
                while j < recent.count, recent[j] >> 32 == key, Int32(bitPattern: UInt32(truncatingIfNeeded: recent[j])) == to {
                    n += 1
                    j += 1
                }
                while let p = pending, p.to < to {
                    try Self.append(p.to, after: previous, count: p.count, to: &out)
                    previous = p.to
                    pairs += 1
                    pending = cursor.at < end ? cursor.next(in: &old) : nil
                }
                if let p = pending, p.to == to {
                    n += storedCount(p.count, from: Int32(row), to: to)
                    pending = cursor.at < end ? cursor.next(in: &old) : nil
                }
                if n < Float(UInt8.max) {
                    try Self.append(to, after: previous, count: UInt8(n), to: &out)
                } else {
                    try Self.append(to, after: previous, count: UInt8.max, to: &out)
                    large[Self.pair(Int32(row), to)] = n
                }
                previous = to
                pairs += 1
            }
            while let p = pending {
                try Self.append(p.to, after: previous, count: p.count, to: &out)
                previous = p.to
                pairs += 1
                pending = cursor.at < end ? cursor.next(in: &old) : nil
            }
        }
        if old.failed { throw Unreadable() }
        newStart.append(UInt32(out.count))
        return (newStart, try out.finish(), pairs, large)
    }
}

// MARK: Where the rows are kept

/// The bytes of merged transition rows: written once by a merge, then only read.
public protocol TransitionBytes: Sendable {
    var count: Int { get }
    /// Calls `body` with the bytes at `range` (within `0..<count`), all of them; with nil if
    /// they cannot be read (an I/O error on a file), which the storage reports its own way.
    func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R
}

/// Takes a merge's new rows, in order.
public protocol TransitionWriter {
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) throws
    /// The rows written, to be read from now on.
    mutating func finish() throws -> any TransitionBytes
}

/// Where a model's transition rows are kept.
public protocol TransitionStorage: Sendable {
    /// A writer for one merge's rows, of about `capacity` bytes.
    func makeWriter(capacity: Int) throws -> any TransitionWriter
}

/// Rows in the process's memory.
public struct InMemoryTransitionStorage: TransitionStorage {
    public init() {}

    public func makeWriter(capacity: Int) -> any TransitionWriter {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(capacity)
        return Writer(bytes: bytes)
    }

    final class Bytes: TransitionBytes {
        let storage: [UInt8]
        init(_ storage: [UInt8]) { self.storage = storage }
        var count: Int { storage.count }
        func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
            storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
        }
    }

    struct Writer: TransitionWriter {
        var bytes: [UInt8]
        mutating func append(_ more: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: more) }
        mutating func finish() -> any TransitionBytes {
            defer { bytes = [] }
            return Bytes(bytes)
        }
    }
}

/// Bytes read at increasing offsets (a varint cursor's source).
protocol ByteSource {
    /// The byte at `offset`; 0x00 past the end (which ends a varint).
    mutating func byte(at offset: Int) -> UInt8
}

extension UnsafeBufferPointer<UInt8>: ByteSource {
    func byte(at offset: Int) -> UInt8 { offset < count ? self[offset] : 0 }
}

/// The old rows read in 64 KiB windows as a merge walks them. A window that cannot be read
/// sets `failed` (the merge is then given up) and reads as zeros.
private struct ChunkReader: ByteSource {
    let source: any TransitionBytes
    var window: [UInt8] = []
    var windowStart = 0
    private(set) var failed = false
    static let windowSize = 64 << 10

    init(_ source: any TransitionBytes) { self.source = source }

    mutating func byte(at offset: Int) -> UInt8 {
        let i = offset - windowStart
        if i >= 0, i < window.count { return window[i] }
        guard offset < source.count, !failed else { return 0 }
        windowStart = offset
        let range = offset..<min(source.count, offset + Self.windowSize)
        window = source.withBytes(range) { $0.map(Array.init) ?? [] }
        if window.isEmpty { failed = true }
        return window.isEmpty ? 0 : window[0]
    }
}

/// Buffers a merge's output for its writer, 64 KiB at a time.
private struct RowWriter {
    var writer: any TransitionWriter
    var buffer: [UInt8] = []
    private(set) var count = 0

    init(_ writer: consuming any TransitionWriter) {
        self.writer = writer
        buffer.reserveCapacity(64 << 10)
    }

    mutating func append(_ byte: UInt8) throws {
        buffer.append(byte)
        count += 1
        if buffer.count == 64 << 10 { try flush() }
    }

    private mutating func flush() throws {
        try buffer.withUnsafeBufferPointer { try writer.append($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func finish() throws -> any TransitionBytes {
        try flush()
        return try writer.finish()
    }
}
