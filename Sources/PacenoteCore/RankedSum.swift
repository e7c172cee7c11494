/// The exact best entries of a sum over several ranked lists — a chart of a range from the
/// rollups of its pieces (years, months) — reading a prefix of each list instead of all of it.
///
/// Fagin's threshold algorithm (Fagin, Lotem and Naor, "Optimal aggregation algorithms for
/// middleware", PODS 2001), read a prefix at a time: every list is read to a depth in its
/// order (plays, then seconds, descending; or seconds, then plays); an entry seen nowhere can
/// have at most the sum of the lists' last values read (the threshold), and an entry seen in
/// some lists at most what it was seen with plus the last values read of the others. Entries are resolved
/// exactly (looked up in the lists they were not seen in), the most promising first, until
/// the `limit`-th best exact count is above every bound; if the threshold is still too high
/// the lists are read deeper. With skewed popularity (real listening) that is a few times
/// `limit` rows per list; with a flat one (shuffle over a wide library) it would read the
/// lists whole and resolve most entries one by one: past `budget` rows per list or resolved
/// entries it gives up (nil), for the caller to sum the lists whole instead. Never a wrong chart.
public enum RankedSum {
    public struct Entry: Equatable, Sendable {
        public var id: Int64
        public var plays: Int
        public var seconds: Double

        public init(id: Int64, plays: Int, seconds: Double) {
            self.id = id
            self.plays = plays
            self.seconds = seconds
        }

        /// This entry with its seconds rounded to the microsecond, as charts compare them: a
        /// sum's last bits depend on how it was added up (a run of days read as its month's
        /// half less a day, or day by day), and two entries with the same plays and time
        /// must tie — then their names decide — whichever way each was summed. Plays' seconds
        /// are whole milliseconds (timestamps, MPD's elapsed, exports' durations), so the
        /// rounding changes no real figure.
        public var charted: Entry {
            Entry(id: id, plays: plays, seconds: (seconds * 1e6).rounded() / 1e6)
        }
    }

    /// What a chart is ranked by: counted plays, then seconds; or seconds, then plays.
    public enum Order: Sendable {
        case plays, seconds

        /// An entry's value in this order's first key (plays are exact as a Double).
        func value(plays: Int, seconds: Double) -> Double { self == .plays ? Double(plays) : seconds }

        /// What a bound in seconds is raised by, so that the rounding of a sum taken in
        /// another order can never put it under the sum it bounds (plays sum exactly).
        func slack(_ bound: Double) -> Double { self == .plays ? 0 : abs(bound) * 1e-12 + 1e-9 }

        /// Whether `a` ranks before `b` (ties on both keys broken by id, lower first).
        func before(_ a: Entry, _ b: Entry) -> Bool {
            switch self {
            case .plays: (a.plays, a.seconds, b.id) > (b.plays, b.seconds, a.id)
            case .seconds: (a.seconds, a.plays, b.id) > (b.seconds, b.plays, a.id)
            }
        }
    }

    /// The best entries of the sum of `lists` lists and `known` (entries given whole, such as
    /// the days at a range's edges), by `order`: at least `limit` of them (fewer when fewer
    /// have counted plays), with every entry tied with the `limit`-th, best first, for the
    /// caller to break ties by name and cut. Only entries with counted plays are charted.
    /// - `prefix(list, n)`: the first `n` entries of a list, best first in `order` (by plays:
    ///   those with plays; by seconds: all, as an entry's seconds count without plays).
    /// - `lookup(list, ids)`: those entries' values in a list (an id it lacks is absent).
    /// - `bounding`: lists whose prefixes give only upper bounds of their entries' values (the
    ///   month around a range's edge days bounds what an entry has in those days): their
    ///   values always come from `lookup`.
    /// - `budget`: the most rows read from a list, and entries resolved, before giving up.
    public static func top(limit: Int, lists: Int, order: Order = .plays, bounding: Set<Int> = [],
                           known: [Int64: (plays: Int, seconds: Double)] = [:],
                           budget: Int = .max, prefix: (Int, Int) throws -> [Entry],
                           lookup: (Int, [Int64]) throws -> [Int64: (plays: Int, seconds: Double)]) rethrows -> [Entry]? {
        guard limit > 0 else { return [] }
        let knownValue = { (id: Int64) -> Double in known[id].map { order.value(plays: $0.plays, seconds: $0.seconds) } ?? 0 }
        // Saturating: a caller may ask for any length (a page far down a chart).
        var depth = max(16, limit > Int.max / 2 ? Int.max : limit * 2)
        // Entries resolved exactly, kept when the lists are read deeper: an exact value does
        // not depend on how deep they were read, and a look-up is what costs (a run of edge
        // days bounded by its month's list is looked up in its month row and some of its days).
        var exact: [Int64: (plays: Int, seconds: Double)] = [:]
        while true {
            // What the prefixes say of each entry: its value seen (exact or a bound), what is
            // exact of it, and where it was seen.
            var seen: [Int64: (value: Double, plays: Int, seconds: Double, lists: [Int32])] = [:]
            var frontier = [Double](repeating: 0, count: lists)
            var readWhole = true
            for list in 0..<lists {
                let rows = try prefix(list, depth)
                if rows.count >= depth, let last = rows.last {
                    frontier[list] = order.value(plays: last.plays, seconds: last.seconds)
                    readWhole = false
                }
                let isExact = !bounding.contains(list)
                for row in rows {
                    seen[row.id, default: (0, 0, 0, [])].value += order.value(plays: row.plays, seconds: row.seconds)
                    if isExact {
                        seen[row.id]!.plays += row.plays
                        seen[row.id]!.seconds += row.seconds
                    }
                    seen[row.id]!.lists.append(Int32(list))
                }
            }
            let threshold = frontier.reduce(0, +)
            let thresholdBound = threshold + order.slack(threshold)
            // What is certain already (of entries sure to be charted) puts a floor under the
            // limit-th; an entry given whole but seen in no list that cannot reach it even
            // with every list's frontier is out.
            var certain = Heap(limit: limit)
            for (id, entry) in seen where entry.plays + (known[id]?.plays ?? 0) > 0 {
                certain.add(order.value(plays: entry.plays, seconds: entry.seconds) + knownValue(id))
            }
            let floor = certain.kth ?? -.infinity
            for (id, _) in known where seen[id] == nil && knownValue(id) + thresholdBound >= floor { seen[id] = (0, 0, 0, []) }
            let bound = { (id: Int64) -> Double in
                let entry = seen[id]!
                var upper = entry.value + knownValue(id) + threshold
                for list in entry.lists { upper -= frontier[Int(list)] }
                return upper + order.slack(upper)
            }
            // The most promising first.
            let candidates = seen.keys.map { (id: $0, upper: bound($0)) }.sorted { $0.upper > $1.upper || ($0.upper == $1.upper && $0.id < $1.id) }
            var resolved: [Entry] = []
            var best = Heap(limit: limit)
            var next = 0
            let chunk = max(limit, 16)
            while true {
                let kth = best.kth
                let nextUpper = next < candidates.count ? candidates[next].upper : -.infinity
                if let kth, kth > thresholdBound, nextUpper < kth {
                    return finish(resolved, limit: limit, order: order)
                }
                if next == candidates.count {
                    // Everything seen is resolved: the lists were read whole, or deeper is needed.
                    if readWhole { return finish(resolved, limit: limit, order: order) }
                    break
                }
                // What is left to resolve could not lift the limit-th above the threshold.
                if !readWhole, nextUpper <= thresholdBound, (kth ?? -.infinity) <= thresholdBound { break }
                if next >= budget { return nil }
                // Resolve the next few exactly.
                let ids = candidates[next..<min(next + chunk, candidates.count)].map(\.id)
                next += ids.count
                let fresh = ids.filter { exact[$0] == nil }
                var totals: [Int64: (plays: Int, seconds: Double)] = [:]
                for id in fresh {
                    let entry = seen[id]!
                    totals[id] = (entry.plays + (known[id]?.plays ?? 0), entry.seconds + (known[id]?.seconds ?? 0))
                }
                for list in 0..<lists where !fresh.isEmpty {
                    let bounded = bounding.contains(list)
                    let missing = fresh.filter { bounded || !seen[$0]!.lists.contains(Int32(list)) }
                    guard !missing.isEmpty else { continue }
                    for (id, value) in try lookup(list, missing) {
                        totals[id]!.plays += value.plays
                        totals[id]!.seconds += value.seconds
                    }
                }
                for (id, total) in totals { exact[id] = total }
                for id in ids {
                    let total = exact[id]!
                    guard total.plays > 0 else { continue }
                    resolved.append(Entry(id: id, plays: total.plays, seconds: total.seconds))
                    best.add(order.value(plays: total.plays, seconds: total.seconds))
                }
            }
            // Not enough is known: read deeper (a list read whole bounds nothing any more).
            if depth >= budget { return nil }
            depth = depth > Int.max / 4 ? Int.max : depth * 4
        }
    }

    /// The resolved entries that make the chart: best first, down to the `limit`-th and its ties
    /// (their seconds `charted`).
    static func finish(_ resolved: [Entry], limit: Int, order: Order) -> [Entry] {
        let sorted = resolved.map(\.charted).sorted(by: order.before)
        guard sorted.count > limit else { return sorted }
        let cut = sorted[limit - 1]
        return Array(sorted.prefix { order == .plays ? ($0.plays, $0.seconds) >= (cut.plays, cut.seconds)
                                                     : ($0.seconds, $0.plays) >= (cut.seconds, cut.plays) })
    }

    /// The `limit` largest counts added so far.
    struct Heap {
        var limit: Int
        var values: [Double] = []

        var count: Int { values.count }
        /// The `limit`-th largest, once there are `limit`.
        var kth: Double? { values.count >= limit ? values[0] : nil }

        mutating func add(_ value: Double) {
            if values.count < limit {
                values.append(value)
                siftUp(values.count - 1)
            } else if value > values[0] {
                values[0] = value
                siftDown(0)
            }
        }

        private mutating func siftUp(_ i: Int) {
            var i = i
            while i > 0, values[(i - 1) / 2] > values[i] {
                values.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }

        private mutating func siftDown(_ i: Int) {
            var i = i
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < values.count, values[l] < values[m] { m = l }
                if r < values.count, values[r] < values[m] { m = r }
                if m == i { return }
                values.swapAt(i, m)
                i = m
            }
        }
    }
}
