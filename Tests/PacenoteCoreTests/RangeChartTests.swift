import Testing
@testable import PacenoteCore

@Suite struct RangePiecesTests {
    typealias Run = RangePieces.DayRun

    @Test func aRangeIsCutIntoYearsMonthsAndEdgeDays() {
        #expect(RangePieces.of(from: "2020-06-01", to: "2020-06-30") == RangePieces(months: ["2020-06"]))
        #expect(RangePieces.of(from: "2020-03-01", to: "2020-08-31") == RangePieces(months: ["2020-03", "2020-04", "2020-05", "2020-06", "2020-07", "2020-08"]))
        #expect(RangePieces.of(from: "2020-01-01", to: "2020-12-31") == RangePieces(years: ["2020"]))
        #expect(RangePieces.of(from: "2019-11-15", to: "2022-02-10") == RangePieces(
            years: ["2020", "2021"], months: ["2019-12", "2022-01"],
            days: [Run(from: "2019-11-15", to: "2019-11-30"), Run(from: "2022-02-01", to: "2022-02-10")]))
        // Leap years: February's last day.
        #expect(RangePieces.of(from: "2024-02-01", to: "2024-02-29") == RangePieces(months: ["2024-02"]))
        #expect(RangePieces.of(from: "2023-02-01", to: "2023-02-28") == RangePieces(months: ["2023-02"]))
        #expect(RangePieces.of(from: "2024-02-01", to: "2024-02-28") == RangePieces(days: [Run(from: "2024-02-01", to: "2024-02-28")]))
        // No whole month: days, within one month or across the end of one (a run each side).
        #expect(RangePieces.of(from: "2020-06-15", to: "2020-06-15") == RangePieces(days: [Run(from: "2020-06-15", to: "2020-06-15")]))
        #expect(RangePieces.of(from: "2020-06-15", to: "2020-07-14") == RangePieces(days: [Run(from: "2020-06-15", to: "2020-06-30"),
                                                                                           Run(from: "2020-07-01", to: "2020-07-14")]))
        #expect(RangePieces.of(from: "2020-12-31", to: "2021-01-01") == RangePieces(days: [Run(from: "2020-12-31", to: "2020-12-31"),
                                                                                           Run(from: "2021-01-01", to: "2021-01-01")]))
        // A whole month between two part-months; a year's end.
        #expect(RangePieces.of(from: "2020-11-20", to: "2021-01-05") == RangePieces(
            months: ["2020-12"], days: [Run(from: "2020-11-20", to: "2020-11-30"), Run(from: "2021-01-01", to: "2021-01-05")]))
        // Eleven months are months, not a year.
        #expect(RangePieces.of(from: "2020-02-01", to: "2020-12-31")?.months.count == 11)
    }

    @Test func dayNumbersAreReadFromTheirText() {
        #expect(CivilDate.days(of: "1970-01-01") == 0)
        #expect(CivilDate.days(of: "2024-02-29") == CivilDate.days(year: 2024, month: 2, day: 29))
        #expect(CivilDate.days(of: "2023-12-31").map { $0 + 1 } == CivilDate.days(year: 2024, month: 1, day: 1))
        for bad in ["2023-02-29", "2024-13-01", "2024-00-10", "2024-01-00", "2024-1-01", "x", "", "2024-01-01T"] {
            #expect(CivilDate.days(of: bad) == nil, "\(bad)")
        }
    }

    /// A run within one month is read as its month row's halves and the fewest days: the
    /// bench's "30 days across two months" as a half less a day and a half; a run inside a
    /// half as its days; ties as days (nothing taken off).
    @Test func aRunIsReadAsHalvesAndTheFewestDays() {
        typealias Reading = Run.Reading
        #expect(Run(from: "2020-05-17", to: "2020-05-31").reading(firstHalfEnd: 15)
                == Reading(secondHalf: true, takenOff: ["2020-05-16"]))
        #expect(Run(from: "2020-06-01", to: "2020-06-15").reading(firstHalfEnd: 15) == Reading(firstHalf: true))
        #expect(Run(from: "2020-06-10", to: "2020-06-20").reading(firstHalfEnd: 15)
                == Reading(added: ["2020-06-10", "2020-06-11", "2020-06-12", "2020-06-13", "2020-06-14", "2020-06-15",
                                   "2020-06-16", "2020-06-17", "2020-06-18", "2020-06-19", "2020-06-20"]))
        // The first half less days 1-3, and the whole second (April: 30 days).
        #expect(Run(from: "2024-04-04", to: "2024-04-30").reading(firstHalfEnd: 15)
                == Reading(firstHalf: true, secondHalf: true, takenOff: ["2024-04-01", "2024-04-02", "2024-04-03"]))
        // February 2024's second half is 14 days: 7 of them are read as days, 8 as the half less 6.
        #expect(Run(from: "2024-02-23", to: "2024-02-29").reading(firstHalfEnd: 15)
                == Reading(added: ["2024-02-23", "2024-02-24", "2024-02-25", "2024-02-26", "2024-02-27", "2024-02-28", "2024-02-29"]))
        #expect(Run(from: "2024-02-22", to: "2024-02-29").reading(firstHalfEnd: 15)
                == Reading(secondHalf: true, takenOff: ["2024-02-16", "2024-02-17", "2024-02-18", "2024-02-19", "2024-02-20", "2024-02-21"]))
        #expect(Run(from: "2021-12-31", to: "2021-12-31").reading(firstHalfEnd: 15) == Reading(added: ["2021-12-31"]))
        // Not one month's days in order: no reading.
        #expect(Run(from: "2020-05-31", to: "2020-06-01").reading(firstHalfEnd: 15) == nil)
        #expect(Run(from: "2020-05-20", to: "2020-05-19").reading(firstHalfEnd: 15) == nil)
        #expect(Run(from: "2020-02-30", to: "2020-02-30").reading(firstHalfEnd: 15) == nil)
    }

    /// Whatever the run, its reading covers its days exactly once: the halves taken, plus the
    /// days added, less the days taken off; and it never reads more days than the run has.
    @Test func aRunsReadingCoversItsDaysOnce() {
        for month in [(2023, 2), (2024, 2), (2024, 4), (2024, 12)] {
            let length = RangePieces.Month(year: month.0, month: month.1).days
            let text = { (d: Int) in "\(month.0)-\(month.1 < 10 ? "0" : "")\(month.1)-\(d < 10 ? "0" : "")\(d)" }
            for a in 1...length {
                for b in a...length where !(a == 1 && b == length) {
                    guard let reading = Run(from: text(a), to: text(b)).reading(firstHalfEnd: 15) else {
                        Issue.record("no reading of \(text(a))…\(text(b))")
                        continue
                    }
                    var count = [Int](repeating: 0, count: length + 1)
                    if reading.firstHalf { for d in 1...15 { count[d] += 1 } }
                    if reading.secondHalf { for d in 16...length { count[d] += 1 } }
                    for day in reading.added { count[Int(day.suffix(2))!] += 1 }
                    for day in reading.takenOff { count[Int(day.suffix(2))!] -= 1 }
                    #expect((1...length).allSatisfy { count[$0] == (a...b ~= $0 ? 1 : 0) }, "\(text(a))…\(text(b))")
                    #expect(reading.added.count + reading.takenOff.count <= b - a + 1, "\(text(a))…\(text(b))")
                    #expect(Set(reading.takenOff).isDisjoint(with: reading.added), "\(text(a))…\(text(b))")
                }
            }
        }
    }

    @Test func badRangesHaveNoPieces() {
        #expect(RangePieces.of(from: "2020-06-02", to: "2020-06-01") == nil)
        #expect(RangePieces.of(from: "2020-02-30", to: "2020-03-01") == nil)
        #expect(RangePieces.of(from: "2020-13-01", to: "2021-01-01") == nil)
        #expect(RangePieces.of(from: "x", to: "2020-01-01") == nil)
    }

    /// Every day of the range is in exactly one piece, for many ranges.
    @Test func piecesCoverEveryDayOnce() {
        var rng = SplitMix(seed: 11)
        let base = CivilDate.days(year: 2018, month: 1, day: 1)
        for _ in 0..<400 {
            let a = base + Int(rng.next() % 2000), b = a + Int(rng.next() % 900)
            let from = Self.text(a), to = Self.text(b)
            let pieces = RangePieces.of(from: from, to: to)!
            var covered: [Int] = []
            for year in pieces.years {
                let y = Int(year)!
                covered += Array(CivilDate.days(year: y, month: 1, day: 1)..<CivilDate.days(year: y + 1, month: 1, day: 1))
            }
            for month in pieces.months {
                let y = Int(month.prefix(4))!, m = Int(month.suffix(2))!
                let next = m == 12 ? (y + 1, 1) : (y, m + 1)
                covered += Array(CivilDate.days(year: y, month: m, day: 1)..<CivilDate.days(year: next.0, month: next.1, day: 1))
            }
            for run in pieces.days {
                let start = RangePieces.Day(run.from)!.number, end = RangePieces.Day(run.to)!.number
                covered += Array(start...end)
            }
            #expect(covered.sorted() == Array(a...b), "\(from)…\(to)")
            #expect(pieces.days.count <= 2)
            // Each run within one month: its month's rollup bounds it.
            #expect(pieces.days.allSatisfy { $0.from.prefix(7) == $0.to.prefix(7) }, "\(from)…\(to): \(pieces.days)")
        }
    }

    static func text(_ day: Int) -> String {
        let c = CivilDate.civil(days: day)
        return LocalTime.format(year: c.year, month: c.month, day: c.day)
    }
}

/// A small seeded generator, for tests that must be repeatable.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct RankedSumTests {
    /// Lists of (id → plays, seconds), a brute-force chart, and RankedSum's, compared; also how
    /// many rows the prefixes read.
    static func check(_ lists: [[Int64: (plays: Int, seconds: Double)]], known: [Int64: (plays: Int, seconds: Double)] = [:],
                      limit: Int, order: RankedSum.Order = .plays, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        var sum: [Int64: (plays: Int, seconds: Double)] = known
        for list in lists {
            for (id, v) in list {
                sum[id, default: (0, 0)].plays += v.plays
                sum[id]!.seconds += v.seconds
            }
        }
        let expected = sum.filter { $0.value.plays > 0 }
            .map { RankedSum.Entry(id: $0.key, plays: $0.value.plays, seconds: $0.value.seconds) }
            .sorted(by: order.before)
        let sorted = Self.sorted(lists, order)
        var read = 0
        let top = RankedSum.top(limit: limit, lists: lists.count, order: order, known: known, prefix: { list, n in
            let rows = Array(sorted[list].prefix(n))
            read += rows.count
            return rows
        }, lookup: { list, ids in
            var out: [Int64: (plays: Int, seconds: Double)] = [:]
            for id in ids { if let v = lists[list][id] { out[id] = v } }
            return out
        })!
        // The first `limit` agree (entries tied on plays and seconds may come in either order by id).
        let n = min(limit, expected.count)
        let keys = { (e: RankedSum.Entry) in order == .plays ? [Double(e.plays), e.seconds] : [e.seconds, Double(e.plays)] }
        #expect(top.count >= n, sourceLocation: sourceLocation)
        #expect(zip(top.prefix(n), expected.prefix(n)).allSatisfy { a, b in zip(keys(a), keys(b)).allSatisfy { abs($0 - $1) < 1e-6 } },
                sourceLocation: sourceLocation)
        // Every entry returned is right, and every entry as good as the limit-th is there.
        for entry in top {
            #expect(sum[entry.id]!.plays == entry.plays && abs(sum[entry.id]!.seconds - entry.seconds) < 1e-9, sourceLocation: sourceLocation)
        }
        if n > 0 {
            let cut = expected[n - 1]
            let atLeast = Set(expected.filter { !order.before(cut, $0) || keys($0) == keys(cut) }.map(\.id))
            #expect(Set(top.map(\.id)) == atLeast, sourceLocation: sourceLocation)
        }
        return read
    }

    /// Each list as `prefix` reads it: by plays, the entries with plays; by seconds, all.
    static func sorted(_ lists: [[Int64: (plays: Int, seconds: Double)]], _ order: RankedSum.Order) -> [[RankedSum.Entry]] {
        lists.map { list in
            list.filter { order == .seconds || $0.value.plays > 0 }
                .map { RankedSum.Entry(id: $0.key, plays: $0.value.plays, seconds: $0.value.seconds) }
                .sorted(by: order.before)
        }
    }

    /// Plays per track in `lists` periods, popularity 1/rank (as listening is), or flat.
    static func lists(count: Int, tracks: Int, playsPerList: Int, skewed: Bool, seed: UInt64) -> [[Int64: (plays: Int, seconds: Double)]] {
        var rng = SplitMix(seed: seed)
        let weights = (1...tracks).map { skewed ? 1.0 / Double($0) : 1.0 }
        var cumulative: [Double] = []
        var total = 0.0
        for w in weights { total += w; cumulative.append(total) }
        return (0..<count).map { _ in
            var list: [Int64: (plays: Int, seconds: Double)] = [:]
            for _ in 0..<playsPerList {
                let x = Double(rng.next() % 1_000_000_007) / 1_000_000_007 * total
                var lo = 0, hi = cumulative.count - 1
                while lo < hi { let mid = (lo + hi) / 2; if cumulative[mid] < x { lo = mid + 1 } else { hi = mid } }
                let counted = rng.next() % 10 != 0
                list[Int64(lo), default: (0, 0)].plays += counted ? 1 : 0
                list[Int64(lo)]!.seconds += Double(100 + rng.next() % 200)
            }
            return list
        }
    }

    @Test func skewedListsGiveTheExactChartReadingAFewRowsEach() throws {
        let lists = Self.lists(count: 6, tracks: 20_000, playsPerList: 20_000, skewed: true, seed: 1)
        // About as many rows as the chart shows, per list: not the lists' ~10,000 rows each.
        for order in [RankedSum.Order.plays, .seconds] {
            let read = try Self.check(lists, limit: 10, order: order)
            #expect(read < 6 * 400, "\(order): read \(read) rows")
        }
    }

    /// Flat popularity over a wide library: past its budget the sum gives up rather than
    /// resolving most entries one by one (the caller then sums the lists whole).
    @Test func aFlatWideSumGivesUpPastItsBudget() {
        let lists = Self.lists(count: 4, tracks: 5_000, playsPerList: 6_000, skewed: false, seed: 5)
        let sorted = lists.map { list in
            list.filter { $0.value.plays > 0 }.map { RankedSum.Entry(id: $0.key, plays: $0.value.plays, seconds: $0.value.seconds) }
                .sorted { ($0.plays, $0.seconds, $1.id) > ($1.plays, $1.seconds, $0.id) }
        }
        var lookups = 0
        let top = RankedSum.top(limit: 10, lists: 4, bounding: [3], budget: 200, prefix: { list, n in Array(sorted[list].prefix(n)) },
                                lookup: { list, ids in
            lookups += ids.count
            return lists[list].filter { ids.contains($0.key) }
        })
        #expect(top == nil)
        #expect(lookups < 4 * 400, "\(lookups) look-ups before giving up")
    }

    /// By seconds, lists whose entries have no time (listens without a length: 0 s each) read
    /// to a depth still have rows past it: a frontier of 0 is not a list read whole. The
    /// best is the entry with the most plays, seen past the first prefix of every list.
    @Test func entriesWithoutTimeAreChartedByTheirPlays() throws {
        var first: [Int64: (plays: Int, seconds: Double)] = [:], second: [Int64: (plays: Int, seconds: Double)] = [:]
        for id in 1...40 as ClosedRange<Int64> { first[id] = (3, 0) }
        for id in 41...80 as ClosedRange<Int64> { second[id] = (3, 0) }
        first[100] = (2, 0)
        second[100] = (2, 0)
        for limit in [1, 3, 60] {
            _ = try Self.check([first, second], limit: limit, order: .seconds)
        }
        let sorted = Self.sorted([first, second], .seconds)
        let top = RankedSum.top(limit: 1, lists: 2, order: .seconds, prefix: { list, n in Array(sorted[list].prefix(n)) },
                                lookup: { list, ids in [first, second][list].filter { ids.contains($0.key) } })
        #expect(top?.first.map { [$0.id, Int64($0.plays)] } == [100, 4])
    }

    @Test func flatListsTiesAndEdgeDaysStayExact() throws {
        for seed in 1...20 as ClosedRange<UInt64> {
            let lists = Self.lists(count: Int(seed % 5) + 1, tracks: 60, playsPerList: 90, skewed: seed % 2 == 0, seed: seed)
            let known = Self.lists(count: 1, tracks: 80, playsPerList: 40, skewed: false, seed: seed + 100)[0]
            for limit in [1, 3, 10, 50, 500] {
                for order in [RankedSum.Order.plays, .seconds] {
                    _ = try Self.check(lists, limit: limit, order: order)
                    _ = try Self.check(lists, known: known, limit: limit, order: order)
                }
            }
        }
        // Every entry tied: the chart holds them all.
        let tiedAll: [Int64: (plays: Int, seconds: Double)] = [1: (2, 10), 2: (2, 10), 3: (2, 10)]
        #expect(try Self.check([tiedAll, tiedAll], limit: 2) > 0)
        #expect(try Self.check([tiedAll, tiedAll], limit: 2, order: .seconds) > 0)
        // By seconds, an entry with time but no counted plays is not charted, however long.
        let skippedOnly: [Int64: (plays: Int, seconds: Double)] = [1: (0, 9_000), 2: (1, 10), 3: (2, 5)]
        #expect(try Self.check([skippedOnly], limit: 1, order: .seconds) > 0)
        // Nothing played: an empty chart.
        #expect(RankedSum.top(limit: 5, lists: 2, prefix: { _, _ in [] }, lookup: { _, _ in [:] })?.isEmpty == true)
        // Any length asked (a page far down a chart): every entry, the depths read saturating.
        for limit in [Int.max, Int.max / 2 + 1, Int.max / 4 + 1] {
            let all = RankedSum.top(limit: limit, lists: 2, budget: 4, prefix: { list, n in
                Array([[RankedSum.Entry(id: 1, plays: 3, seconds: 30), RankedSum.Entry(id: 2, plays: 1, seconds: 10)],
                       [RankedSum.Entry(id: 2, plays: 4, seconds: 40)]][list].prefix(n))
            }, lookup: { _, _ in [:] })
            #expect(all.map { $0.map(\.id) } == [2, 1], "limit \(limit)")
        }
    }

    /// Edge days as bounding lists: a month's values bound the days' (each entry has at most
    /// its month's plays in some of its days); the chart is still the exact sum.
    @Test func boundingListsGiveTheExactSumOfTheirDays() {
        for seed in 1...30 as ClosedRange<UInt64> {
            var rng = SplitMix(seed: seed * 7)
            let skewed = seed % 3 != 0
            let exact = Self.lists(count: Int(seed % 3), tracks: 300, playsPerList: 2_000, skewed: skewed, seed: seed)
            let months = Self.lists(count: 2, tracks: 300, playsPerList: 2_000, skewed: skewed, seed: seed + 50)
            // The days: a part of each entry's month.
            let days = months.map { month in
                month.compactMapValues { v -> (plays: Int, seconds: Double)? in
                    let share = Double(rng.next() % 101) / 100
                    let plays = Int(Double(v.plays) * share)
                    return plays == 0 && share < 0.5 ? nil : (plays, v.seconds * share)
                }
            }
            // And on even seeds, entries given whole (a run of days summed in memory), beside the lists.
            let known = seed % 2 == 0 ? Self.lists(count: 1, tracks: 300, playsPerList: 600, skewed: skewed, seed: seed + 90)[0] : [:]
            var sum: [Int64: (plays: Int, seconds: Double)] = [:]
            for list in exact + days + [known] {
                for (id, v) in list {
                    sum[id, default: (0, 0)].plays += v.plays
                    sum[id]!.seconds += v.seconds
                }
            }
            let all = exact + months
            let bounding = Set(exact.count..<all.count)
            for order in [RankedSum.Order.plays, .seconds] {
                let sorted = Self.sorted(all, order)
                for limit in [1, 5, 20] {
                    // Each entry is looked up in a list at most once, however deep the lists are read.
                    var lookedUp: [Int: [Int64]] = [:]
                    let top = RankedSum.top(limit: limit, lists: all.count, order: order, bounding: bounding, known: known,
                                            prefix: { list, n in Array(sorted[list].prefix(n)) }, lookup: { list, ids in
                        lookedUp[list, default: []] += ids
                        let source = bounding.contains(list) ? days[list - exact.count] : exact[list]
                        return source.filter { ids.contains($0.key) }
                    })!
                    #expect(lookedUp.values.allSatisfy { Set($0).count == $0.count }, "seed \(seed), limit \(limit): an entry looked up twice")
                    let expected = sum.filter { $0.value.plays > 0 }.map { order == .plays ? Double($0.value.plays) : $0.value.seconds }.sorted(by: >)
                    let got = top.prefix(limit).map { order == .plays ? Double($0.plays) : $0.seconds }
                    #expect(got.count == min(limit, expected.count) && zip(got, expected).allSatisfy { abs($0 - $1) < 1e-6 },
                            "seed \(seed), limit \(limit), \(order)")
                    for entry in top {
                        #expect(sum[entry.id]!.plays == entry.plays && abs(sum[entry.id]!.seconds - entry.seconds) < 1e-6)
                    }
                }
            }
        }
    }
}
