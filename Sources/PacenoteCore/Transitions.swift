/// How often each row (a track's slot, or an artist) was followed by a counted play of
/// another, in flat arrays: rows in compressed sparse row form, 5 bytes a pair and no heap
/// object per row. A dictionary of per-row arrays cost ~37 MiB at 5M plays over 150k
/// tracks (3M distinct pairs; array headers, malloc rounding and growth slack); this costs
/// 5 bytes a pair, ~15 MiB.
///
/// New pairs go to a short unsorted list first and are merged into the rows in bulk, so
/// recording a play stays O(1) and a build of millions of plays costs a few merges.
struct Transitions: Sendable {
    /// Row `r`'s successors are `successor[rowStart[r]..<rowStart[r + 1]]`, sorted, with
    /// how often each followed in `count` at the same index: one byte, as almost every pair
    /// is seen a few times; `UInt8.max` means "see `largeCounts`".
    private var rowStart: [UInt32] = [0]
    private var successor: [Int32] = []
    private var count: [UInt8] = []
    /// The counts of `UInt8.max` and above, by pair (`from << 32 | to`).
    private var largeCounts: [UInt64: Float] = [:]
    /// Pairs recorded since the last merge, `from << 32 | to`, in arrival order.
    private var recent: [UInt64] = []
    /// Every pair recorded from each row (merged or not).
    private var totals: [Float] = []

    /// Pairs held in the merged rows.
    var mergedPairs: Int { successor.count }

    mutating func add(from: Int32, to: Int32) {
        let row = Int(from)
        if row >= totals.count { totals.append(contentsOf: repeatElement(0, count: row + 1 - totals.count)) }
        totals[row] += 1
        recent.append(Self.pair(from, to))
        // Merging costs a pass over every pair: wait until the new ones are a quarter of
        // them, so a build from scratch copies each pair a few times in all.
        if recent.count >= max(4096, successor.count / 4) { merge() }
    }

    /// How many pairs started at `from`.
    func total(from: Int32) -> Float {
        Int(from) < totals.count ? totals[Int(from)] : 0
    }

    /// How often each row followed `from`.
    func successors(of from: Int32) -> [Int32: Float] {
        var out: [Int32: Float] = [:]
        let row = Int(from)
        if row + 1 < rowStart.count {
            let range = Int(rowStart[row])..<Int(rowStart[row + 1])
            out.reserveCapacity(range.count)
            for k in range { out[successor[k]] = storedCount(k, from: from) }
        }
        let key = UInt64(UInt32(bitPattern: from))
        for pair in recent where pair >> 32 == key {
            out[Int32(bitPattern: UInt32(truncatingIfNeeded: pair)), default: 0] += 1
        }
        return out
    }

    /// Calls `body` with each successor of `from` and its count in the merged rows, then
    /// with each recent pair (any row) and a count of one.
    func forEach(from: Int32, merged body: (Int32, Float) -> Void) {
        let row = Int(from)
        guard row + 1 < rowStart.count else { return }
        for k in Int(rowStart[row])..<Int(rowStart[row + 1]) { body(successor[k], storedCount(k, from: from)) }
    }

    func forEachRecent(_ body: (_ from: Int32, _ to: Int32) -> Void) {
        for pair in recent {
            body(Int32(bitPattern: UInt32(truncatingIfNeeded: pair >> 32)), Int32(bitPattern: UInt32(truncatingIfNeeded: pair)))
        }
    }

    private func storedCount(_ k: Int, from: Int32) -> Float {
        count[k] < UInt8.max ? Float(count[k]) : largeCounts[Self.pair(from, successor[k])]!
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
        var newSuccessor: [Int32] = []
        var newCount: [UInt8] = []
        newStart.reserveCapacity(rows + 1)
        newSuccessor.reserveCapacity(successor.count + recent.count)
        newCount.reserveCapacity(successor.count + recent.count)
        var j = 0
        for row in 0..<rows {
            newStart.append(UInt32(newSuccessor.count))
            var k = row < oldRows ? Int(rowStart[row]) : 0
            let end = row < oldRows ? Int(rowStart[row + 1]) : 0
            let key = UInt64(row)
            // Both sorted by successor: a merge, adding the counts of a pair seen in both.
            while j < recent.count, recent[j] >> 32 == key {
                let to = Int32(bitPattern: UInt32(truncatingIfNeeded: recent[j]))
                var n: Float = 0
                while j < recent.count, recent[j] >> 32 == key, Int32(bitPattern: UInt32(truncatingIfNeeded: recent[j])) == to {
                    n += 1
                    j += 1
                }
                while k < end, successor[k] < to {
                    newSuccessor.append(successor[k])
                    newCount.append(count[k])
                    k += 1
                }
                if k < end, successor[k] == to {
                    n += storedCount(k, from: Int32(row))
                    k += 1
                }
                newSuccessor.append(to)
                if n < Float(UInt8.max) {
                    newCount.append(UInt8(n))
                } else {
                    newCount.append(UInt8.max)
                    largeCounts[Self.pair(Int32(row), to)] = n
                }
            }
            while k < end {
                newSuccessor.append(successor[k])
                newCount.append(count[k])
                k += 1
            }
        }
        newStart.append(UInt32(newSuccessor.count))
        rowStart = newStart
        successor = newSuccessor
        count = newCount
        recent = []
    }
}
