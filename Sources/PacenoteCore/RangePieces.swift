/// A range of local days (`YYYY-MM-DD`, both ends included) cut into the calendar periods
/// the rollups hold whole: years, months, and the days at its edges that fill no month.
/// A chart of the range is the sum of its pieces' rows, so reading it costs what the
/// pieces hold, not what the days do.
public struct RangePieces: Equatable, Sendable {
    /// Whole years (`YYYY`), in order.
    public var years: [String] = []
    /// Whole months (`YYYY-MM`) outside those years, in order.
    public var months: [String] = []
    /// Runs of days (`from`, `to`) that fill no whole month: at most one at each end, each
    /// within one month (a run read through its month's rollup is bounded by that month).
    public var days: [DayRun] = []

    public struct DayRun: Equatable, Sendable {
        public var from: String
        public var to: String

        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    public init(years: [String] = [], months: [String] = [], days: [DayRun] = []) {
        self.years = years
        self.months = months
        self.days = days
    }

    /// The pieces of `from`…`to`, or nil when either is not a valid `YYYY-MM-DD` date or the
    /// range is empty. Days run up to the first whole month; then whole months up to the first
    /// whole year; whole years; whole months; the days after the last whole month.
    public static func of(from: String, to: String) -> RangePieces? {
        guard let start = Day(from), let end = Day(to), start.number <= end.number else { return nil }
        var pieces = RangePieces()
        // The first and last whole months: a month is whole when the range holds its first
        // and its last day.
        var first = start.day == 1 ? start.month : start.month.next
        let last = end.day == end.month.days ? end.month : end.month.previous
        if first > last {
            // No whole month: the range is days, within one month or across the end of one —
            // then a run on each side of it: the first month's rollup bounds nothing of the next's.
            pieces.days = start.month == end.month ? [DayRun(from: from, to: to)]
                : [DayRun(from: from, to: start.month.lastDay), DayRun(from: end.month.firstDay, to: to)]
            return pieces
        }
        if start.day != 1 { pieces.days.append(DayRun(from: from, to: start.month.lastDay)) }
        var tail: DayRun?
        if end.day != end.month.days { tail = DayRun(from: end.month.firstDay, to: to) }
        while first <= last {
            if first.month == 1, Month(year: first.year, month: 12) <= last {
                pieces.years.append(Self.number(first.year, width: 4))
                first = Month(year: first.year + 1, month: 1)
            } else {
                pieces.months.append(first.text)
                first = first.next
            }
        }
        if let tail { pieces.days.append(tail) }
        return pieces
    }

    /// A calendar month.
    struct Month: Comparable {
        var year: Int
        var month: Int

        static func < (a: Month, b: Month) -> Bool { (a.year, a.month) < (b.year, b.month) }
        var next: Month { month == 12 ? Month(year: year + 1, month: 1) : Month(year: year, month: month + 1) }
        var previous: Month { month == 1 ? Month(year: year - 1, month: 12) : Month(year: year, month: month - 1) }
        var days: Int {
            let start = CivilDate.days(year: year, month: month, day: 1)
            return CivilDate.days(year: next.year, month: next.month, day: 1) - start
        }
        var text: String { "\(RangePieces.number(year, width: 4))-\(RangePieces.number(month, width: 2))" }
        var firstDay: String { "\(text)-01" }
        var lastDay: String { "\(text)-\(RangePieces.number(days, width: 2))" }
    }

    /// A valid `YYYY-MM-DD`.
    struct Day {
        var month: Month
        var day: Int
        var number: Int

        init?(_ text: String) {
            guard let n = CivilDate.days(of: text) else { return nil }
            let civil = CivilDate.civil(days: n)
            month = Month(year: civil.year, month: civil.month)
            day = civil.day
            number = n
        }
    }

    static func number(_ n: Int, width: Int) -> String {
        let text = String(n)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}

extension RangePieces.DayRun {
    /// How a run of days within one month is read from its month's rollup row, which holds
    /// the month and its first half (days 1 to `firstHalfEnd`; the second half is the month
    /// less the first), and from the fewest day rows: in each half it touches, either its
    /// days there are read, or the whole half is taken and the half's other days taken off —
    /// whichever reads fewer days (the days, when as few: nothing is taken off).
    public struct Reading: Equatable, Sendable {
        /// The month's halves taken whole.
        public var firstHalf = false
        public var secondHalf = false
        /// Days (`YYYY-MM-DD`) added, and taken off.
        public var added: [String] = []
        public var takenOff: [String] = []

        public init(firstHalf: Bool = false, secondHalf: Bool = false, added: [String] = [], takenOff: [String] = []) {
            self.firstHalf = firstHalf
            self.secondHalf = secondHalf
            self.added = added
            self.takenOff = takenOff
        }
    }

    /// This run's reading, its first half ending on day `firstHalfEnd`; nil when the run is
    /// not valid days of one month in order.
    public func reading(firstHalfEnd: Int) -> Reading? {
        guard let start = RangePieces.Day(from), let end = RangePieces.Day(to), start.month == end.month, start.day <= end.day,
              firstHalfEnd >= 1, firstHalfEnd < start.month.days else { return nil }
        let prefix = String(from.prefix(8))
        func days(_ range: ClosedRange<Int>) -> [String] { range.map { prefix + ($0 < 10 ? "0" : "") + String($0) } }
        var reading = Reading()
        for (half, isFirst) in [(1...firstHalfEnd, true), ((firstHalfEnd + 1)...start.month.days, false)] {
            let from = max(half.lowerBound, start.day), to = min(half.upperBound, end.day)
            guard from <= to else { continue }
            let read = to - from + 1, rest = half.count - read
            if rest > 0 && read <= rest {
                reading.added += days(from...to)
                continue
            }
            if isFirst { reading.firstHalf = true } else { reading.secondHalf = true }
            if from > half.lowerBound { reading.takenOff += days(half.lowerBound...(from - 1)) }
            if to < half.upperBound { reading.takenOff += days((to + 1)...half.upperBound) }
        }
        return reading
    }
}
