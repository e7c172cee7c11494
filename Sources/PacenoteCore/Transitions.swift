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
struct Transitions: Sendable {
    /// Row `r`'s pairs are `bytes[rowStart[r]..<rowStart[r + 1]]`: for each successor, in
    /// increasing order, its gap from the one before (the first: its value; the next:
    /// `successor - previous - 1`) times two as a LEB128 varint, plus one when a count byte
    /// follows: how often it followed, 2 to 254 (no byte: once); `UInt8.max` means "see
    /// `largeCounts`".
    private var rowStart: [UInt32] = [0]
    private var bytes: [UInt8] = []
    /// Pairs held in the rows.
    private(set) var mergedPairs = 0
    /// The counts of `UInt8.max` and above, by pair (`from << 32 | to`).
    private var largeCounts: [UInt64: Float] = [:]
    /// Pairs recorded since the last merge, `from << 32 | to`, in arrival order.
    private var recent: [UInt64] = []

    mutating func add(from: Int32, to: Int32) {
        recent.append(Self.pair(from, to))
        // Merging costs a pass over every pair: wait until the new ones are a quarter of
        // them, so a build from scratch copies each pair a few times in all.
        if recent.count >= max(4096, mergedPairs / 4) { merge() }
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
        var cursor = Cursor(at: Int(rowStart[row]))
        let end = Int(rowStart[row + 1])
        while cursor.at < end {
            let (to, count) = cursor.next(in: bytes)
            body(to, storedCount(count, from: from, to: to))
        }
    }

    func forEachRecent(_ body: (_ from: Int32, _ to: Int32) -> Void) {
        for pair in recent {
            body(Int32(bitPattern: UInt32(truncatingIfNeeded: pair >> 32)), Int32(bitPattern: UInt32(truncatingIfNeeded: pair)))
        }
    }

    private func storedCount(_ count: UInt8, from: Int32, to: Int32) -> Float {
        count < UInt8.max ? Float(count) : largeCounts[Self.pair(from, to)]!
    }

    /// Reads a row's pairs in order: each successor and its count byte.
    private struct Cursor {
        var at: Int
        var previous: Int32 = -1

        mutating func next(in bytes: [UInt8]) -> (to: Int32, count: UInt8) {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[at]
                at += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            previous = previous + 1 + Int32(bitPattern: UInt32(truncatingIfNeeded: value >> 1))
            guard value & 1 == 1 else { return (previous, 1) }
            let count = bytes[at]
            at += 1
            return (previous, count)
        }
    }

    /// Appends a pair to a row being written, after `previous` (-1 before the first).
    private static func append(_ to: Int32, after previous: Int32, count: UInt8, to out: inout [UInt8]) {
        var value = UInt64(UInt32(bitPattern: to - previous - 1)) << 1 | (count == 1 ? 0 : 1)
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
        if count != 1 { out.append(count) }
    }

    private static func pair(_ from: Int32, _ to: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: from)) << 32 | UInt64(UInt32(bitPattern: to))
    }

    /// Moves the recent pairs into the rows, if there are more than `limit`.
    mutating func merge(ifMoreThan limit: Int) {
        if recent.count > limit { merge() }
    }

    private mutating func merge() {
        guard !recent.isEmpty else { return }
        recent.sort()
        let oldRows = rowStart.count - 1
        let rows = max(oldRows, Int(recent[recent.count - 1] >> 32) + 1)
        var newStart: [UInt32] = []
        var newBytes: [UInt8] = []
        newStart.reserveCapacity(rows + 1)
        // Each new pair takes at most 5 bytes of gap and its count; an old one no more than it did.
        newBytes.reserveCapacity(bytes.count + recent.count * 6)
        var pairs = 0
        var j = 0
        for row in 0..<rows {
            newStart.append(UInt32(newBytes.count))
            var old = Cursor(at: row < oldRows ? Int(rowStart[row]) : 0)
            let end = row < oldRows ? Int(rowStart[row + 1]) : 0
            // The next old pair not yet copied, if any.
            var pending: (to: Int32, count: UInt8)? = old.at < end ? old.next(in: bytes) : nil
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
                    Self.append(p.to, after: previous, count: p.count, to: &newBytes)
                    previous = p.to
                    pairs += 1
                    pending = old.at < end ? old.next(in: bytes) : nil
                }
                if let p = pending, p.to == to {
                    n += storedCount(p.count, from: Int32(row), to: to)
                    pending = old.at < end ? old.next(in: bytes) : nil
                }
                if n < Float(UInt8.max) {
                    Self.append(to, after: previous, count: UInt8(n), to: &newBytes)
                } else {
                    Self.append(to, after: previous, count: UInt8.max, to: &newBytes)
                    largeCounts[Self.pair(Int32(row), to)] = n
                }
                previous = to
                pairs += 1
            }
            while let p = pending {
                Self.append(p.to, after: previous, count: p.count, to: &newBytes)
                previous = p.to
                pairs += 1
                pending = old.at < end ? old.next(in: bytes) : nil
            }
        }
        newStart.append(UInt32(newBytes.count))
        rowStart = newStart
        bytes = newBytes
        mergedPairs = pairs
        recent = []
    }
}
