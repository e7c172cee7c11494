import Foundation

/// The period a review covers: local days `from`…`to` (both included), never past today —
/// a year under way is reviewed up to today ("so far"), and is final once its last day
/// has ended in the display time zone.
public struct ReviewPeriod: Equatable, Sendable {
    public enum Kind: String, Equatable, Sendable {
        /// A calendar year (`2026`), a calendar month (`2026-11`), any other range of days,
        /// or all time.
        case year, month, custom, all
    }

    public var kind: Kind
    /// `2026`, `2026-11`, `custom`, `all`: what the page's address and the API name it.
    public var name: String
    public var from: String
    /// The last day reviewed: the period's last day, or today while it is under way.
    public var to: String
    /// The period's own last day (after today while it is under way).
    public var end: String
    /// The period before, which the totals are compared with (nil for all time).
    public var previous: (from: String, to: String)?

    /// Whether every day of the period has ended: its figures change only with imports or
    /// corrections from now on.
    public var isFinal: Bool
    /// Whether the period's last day is after today (it is reviewed up to today).
    public var isUnderWay: Bool { end > to }

    public static func == (a: ReviewPeriod, b: ReviewPeriod) -> Bool {
        a.kind == b.kind && a.name == b.name && a.from == b.from && a.to == b.to && a.end == b.end && a.isFinal == b.isFinal
            && a.previous?.from == b.previous?.from && a.previous?.to == b.previous?.to
    }

    /// The review of the stats range `range` (a year, a month, a named range or from–to
    /// days) as of the local day `today`.
    public static func of(_ range: StatsRange, today: String) -> ReviewPeriod {
        let all = range.from <= "0000-01-01"
        let kind: Kind
        if all && range.to >= "9999-12-31" {
            kind = .all
        } else if range.from.hasSuffix("-01-01"), range.to == String(range.from.prefix(4)) + "-12-31" {
            kind = .year
        } else if range.from.hasSuffix("-01"), range.from.prefix(7) == range.to.prefix(7),
                  range.to == RangePieces.Day(range.to).map({ $0.month.lastDay }) {
            kind = .month
        } else {
            kind = .custom
        }
        let name = switch kind {
        case .year: String(range.from.prefix(4))
        case .month: String(range.from.prefix(7))
        case .all: "all"
        case .custom: "custom"
        }
        let to = range.from <= today ? min(range.to, today) : range.to
        return ReviewPeriod(kind: kind, name: name, from: range.from, to: to, end: range.to,
                            previous: all ? nil : previousPeriod(from: range.from, to: to), isFinal: range.to < today)
    }

    /// The stretch the totals are compared with: the same days of the previous year for a
    /// range within a year that begins on 1 January (a year, a year to date); the same days
    /// of the previous month for a range within a month that begins on its first; else as
    /// many days right before.
    public static func previousPeriod(from: String, to: String) -> (from: String, to: String)? {
        guard let start = CivilDate.days(of: from), let end = CivilDate.days(of: to), start <= end else { return nil }
        let a = CivilDate.civil(days: start), b = CivilDate.civil(days: end)
        if a.month == 1, a.day == 1, a.year == b.year {
            return (shifted(from, years: -1), shifted(to, years: -1))
        }
        if a.day == 1, a.year == b.year, a.month == b.month {
            return (shifted(from, months: -1), shifted(to, months: -1))
        }
        let length = end - start + 1
        return (text(start - length), text(start - 1))
    }

    /// The year before this period's first day, up to the day before it: a comeback is a
    /// favourite not heard in it.
    public var yearBefore: (from: String, to: String) {
        (Self.shifted(from, years: -1), Self.text((CivilDate.days(of: from) ?? 0) - 1))
    }

    /// `day` moved by whole years or months, its day of the month kept where the month has
    /// it (29 February a year back is 28 February).
    public static func shifted(_ day: String, years: Int = 0, months: Int = 0) -> String {
        guard let n = CivilDate.days(of: day) else { return day }
        let c = CivilDate.civil(days: n)
        var month = c.month - 1 + months
        var year = c.year + years + (month >= 0 ? month / 12 : (month - 11) / 12)
        month = ((month % 12) + 12) % 12 + 1
        if year < 0 { year = 0 }
        let next = month == 12 ? CivilDate.days(year: year + 1, month: 1, day: 1) : CivilDate.days(year: year, month: month + 1, day: 1)
        let length = next - CivilDate.days(year: year, month: month, day: 1)
        return LocalTime.format(year: year, month: month, day: min(c.day, length))
    }

    /// A day number as `YYYY-MM-DD`.
    public static func text(_ dayNumber: Int) -> String {
        let c = CivilDate.civil(days: dayNumber)
        return LocalTime.format(year: c.year, month: c.month, day: c.day)
    }

    /// The calendar months the period touches, each cut to the period: `YYYY-MM` with its
    /// first and last day reviewed.
    public var months: [(month: String, from: String, to: String)] { months(within: from, to) }

    /// The same, only those that touch `first`…`last` (the days of the history: a range of
    /// centuries has no more months than the history).
    public func months(within first: String, _ last: String) -> [(month: String, from: String, to: String)] {
        guard kind != .all, let start = RangePieces.Day(max(from, first)), let end = RangePieces.Day(min(to, last)),
              start.number <= end.number else { return [] }
        var out: [(String, String, String)] = []
        var month = start.month
        while month <= end.month {
            out.append((month.text, max(month.firstDay, from), min(month.lastDay, to)))
            month = month.next
        }
        return out
    }
}

/// Days of the week, numbered as ISO 8601 does (1 Monday … 7 Sunday).
public enum Weekday {
    /// The ISO weekday of a day number (days since 1970-01-01, a Thursday).
    public static func of(dayNumber: Int) -> Int { ((dayNumber + 3) % 7 + 7) % 7 + 1 }

    /// The seven weekdays in a week's order, from `first`.
    public static func order(startingOn first: Int) -> [Int] { (0..<7).map { (first - 1 + $0) % 7 + 1 } }

    public static let names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

    public static func name(_ weekday: Int) -> String { names[(weekday - 1 + 7) % 7] }
}
