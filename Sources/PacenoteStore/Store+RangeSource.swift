/// How a range of days is read (`RangeSource`: whole from one rollup, or by its pieces), and the day arithmetic its pieces need.

import GRDB
import PacenoteCore

extension Store {
    /// Every day of a run.
    static func days(_ run: RangePieces.DayRun) -> [String] {
        var days = [run.from]
        while days.last! < run.to { days.append(dayAfter(days.last!)) }
        return days
    }

    /// How a range is read: whole from one rollup, or by its pieces.
    enum RangeSource: Equatable {
        case whole(WholeRange)
        case pieces(RangePieces)
    }

    /// The range `fromDay`…`toDay` as the rollups answer it. Its ends are first moved over
    /// days without plays or skips (`rollup_day_total`) to the period boundaries beyond, where
    /// that changes nothing: "this month" up to today is the whole month, a range beyond the
    /// history is the history's years, and a range that holds every day with music is all time.
    static func rangeSource(fromDay: String, toDay: String, in db: Database) throws -> RangeSource? {
        if let whole = WholeRange(fromDay: fromDay, toDay: toDay) { return .whole(whole) }
        guard RangePieces.of(from: fromDay, to: toDay) != nil else { return nil }
        let bounds = try Row.fetchOne(db.cachedStatement(sql: "SELECT (SELECT MIN(day) FROM rollup_day_total), (SELECT MAX(day) FROM rollup_day_total)"))!
        guard let first: String = bounds[0], let last: String = bounds[1] else { return .pieces(RangePieces()) }
        let empty = try db.cachedStatement(sql: "SELECT NOT EXISTS (SELECT 1 FROM rollup_day_total WHERE day >= ? AND day < ?)")
        func noPlays(from: String, before: String) throws -> Bool {
            if from >= before { return true }
            return try Bool.fetchOne(empty, arguments: [from, before]) ?? false
        }
        var from = fromDay, to = toDay
        let firstYear = String(first.prefix(4)) + "-01-01", lastYear = String(last.prefix(4)) + "-12-31"
        if from <= first {
            from = firstYear
        } else {
            let month = String(from.prefix(7)) + "-01", year = String(from.prefix(4)) + "-01-01"
            if try noPlays(from: month, before: from) { from = month }
            if from == month, try noPlays(from: year, before: from) { from = year }
        }
        if to >= last {
            to = lastYear
        } else {
            // The first days of the next month and year: the days after `to` up to them must be empty.
            let nextMonth = Self.monthAfter(to), nextYear = LocalTime.format(year: Int(to.prefix(4))! + 1, month: 1, day: 1)
            let monthEnd = Self.dayBefore(nextMonth), yearEnd = String(to.prefix(4)) + "-12-31"
            if try noPlays(from: Self.dayAfter(to), before: nextMonth) { to = monthEnd }
            if to == monthEnd, try noPlays(from: nextMonth, before: nextYear) { to = yearEnd }
        }
        if from <= firstYear, to >= lastYear { return .whole(.all) }
        if let whole = WholeRange(fromDay: from, toDay: to) { return .whole(whole) }
        guard var pieces = RangePieces.of(from: from, to: to) else { return nil }
        // The months and years that moving the ends added beyond the history hold nothing:
        // "this week" at the history's end is its days, not its days and December's list.
        let (firstMonth, lastMonth) = (String(first.prefix(7)), String(last.prefix(7)))
        pieces.months.removeAll { $0 < firstMonth || $0 > lastMonth }
        pieces.years.removeAll { $0 < first.prefix(4) || $0 > last.prefix(4) }
        return .pieces(pieces)
    }

    static func dayAfter(_ day: String) -> String { shift(day, by: 1) }
    static func dayBefore(_ day: String) -> String { shift(day, by: -1) }
    /// The first day of the month after `day`'s.
    static func monthAfter(_ day: String) -> String {
        let civil = CivilDate.civil(days: CivilDate.days(of: day)!)
        return civil.month == 12 ? LocalTime.format(year: civil.year + 1, month: 1, day: 1)
            : LocalTime.format(year: civil.year, month: civil.month + 1, day: 1)
    }

    /// `day` (valid: the range was cut into pieces first) moved by `n` days.
    private static func shift(_ day: String, by n: Int) -> String {
        let civil = CivilDate.civil(days: CivilDate.days(of: day)! + n)
        return LocalTime.format(year: civil.year, month: civil.month, day: civil.day)
    }
}
