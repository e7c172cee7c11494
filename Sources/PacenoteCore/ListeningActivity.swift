import Foundation

/// ListenBrainz's listening activity (`/1/stats/user/{name}/listening-activity`): the
/// counted plays of a range cut into days, months or years, with the period before it, so a
/// chart can set this week beside the last. ListenBrainz makes the pieces in
/// `listenbrainz_spark/stats/common/listening_activity.py` (`get_time_range_bounds`):
/// `week`, `this_week` — days of two weeks, labelled "Monday 27 April 2020"; `month`,
/// `this_month`, `quarter` — days of two months or quarters, "27 April 2020"; `half_yearly`,
/// `year`, `this_year` — months of two half years or years, "April 2020"; `all_time` —
/// years, "2020", only those with listens.
///
/// As in `StatsRange.listenBrainz`, Pacenote's weeks begin on `[site] week_starts`, days are
/// local days, and a `this_…` range runs to today (ListenBrainz's to yesterday).
public enum ListeningActivity {
    public enum Step: Sendable, Equatable {
        case day, month, year
    }

    /// One piece: its label, its first and last local day, and the rollup key that counts it
    /// (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`).
    public struct Piece: Equatable, Sendable {
        public var label: String
        public var firstDay: String
        public var lastDay: String
        public var key: String
    }

    /// The step and the pieces of a ListenBrainz range on the local day of `now`, or nil for a
    /// name that is none of `StatsRange.listenBrainzNames`. `all_time` has no pieces here:
    /// its years are those with plays (`years(_:)`).
    public static func pieces(_ name: String, now: Date, in local: LocalTime) -> (step: Step, pieces: [Piece])? {
        let today = local.day(of: now)
        guard let range = StatsRange.listenBrainz(name, now: now, in: local),
              let first = CivilDate.days(of: range.from), let last = CivilDate.days(of: range.to),
              let todayN = CivilDate.days(of: today) else { return nil }
        let end = name.hasPrefix("this_") ? min(last, todayN) : last
        switch name {
        case "week", "this_week":
            return (.day, days(from: first - 7, to: end, weekday: true))
        case "month", "this_month":
            let c = CivilDate.civil(days: first)
            let before = CivilDate.days(year: c.month == 1 ? c.year - 1 : c.year, month: c.month == 1 ? 12 : c.month - 1, day: 1)
            return (.day, days(from: before, to: end, weekday: false))
        case "quarter":
            return (.day, days(from: monthStart(first, minus: 3), to: end, weekday: false))
        case "half_yearly":
            return (.month, months(from: monthStart(first, minus: 6), to: end))
        case "year", "this_year":
            return (.month, months(from: monthStart(first, minus: 12), to: end))
        case "all_time":
            return (.year, [])
        default:
            return nil
        }
    }

    /// `all_time`'s pieces: the years given (those with plays), in order.
    public static func years(_ years: [String]) -> [Piece] {
        years.sorted().map { Piece(label: $0, firstDay: $0 + "-01-01", lastDay: $0 + "-12-31", key: $0) }
    }

    /// English names, as Python's `strftime` writes them in ListenBrainz's C locale.
    public static let weekdayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
    public static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                                    "October", "November", "December"]

    /// The weekday (0 Sunday … 6 Saturday) of a day number (1970-01-01 was a Thursday).
    public static func weekday(days n: Int) -> Int { ((n + 4) % 7 + 7) % 7 }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }

    private static func monthStart(_ day: Int, minus months: Int) -> Int {
        let c = CivilDate.civil(days: day)
        let index = c.year * 12 + c.month - 1 - months
        return CivilDate.days(year: index / 12, month: index % 12 + 1, day: 1)
    }

    private static func days(from first: Int, to last: Int, weekday: Bool) -> [Piece] {
        guard first <= last else { return [] }
        return (first...last).map { n in
            let c = CivilDate.civil(days: n)
            let text = CivilDate.text(days: n)
            let label = "\(pad(c.day)) \(monthNames[c.month - 1]) \(c.year)"
            return Piece(label: weekday ? weekdayNames[Self.weekday(days: n)] + " " + label : label, firstDay: text, lastDay: text, key: text)
        }
    }

    private static func months(from first: Int, to last: Int) -> [Piece] {
        var out: [Piece] = []
        var c = CivilDate.civil(days: first)
        while CivilDate.days(year: c.year, month: c.month, day: 1) <= last {
            let next = c.month == 12 ? (c.year + 1, 1) : (c.year, c.month + 1)
            let end = CivilDate.days(year: next.0, month: next.1, day: 1) - 1
            let key = LocalTime.format(year: c.year, month: c.month, day: 1).prefix(7)
            out.append(Piece(label: "\(monthNames[c.month - 1]) \(c.year)", firstDay: CivilDate.text(days: CivilDate.days(year: c.year, month: c.month, day: 1)),
                             lastDay: CivilDate.text(days: min(end, last)), key: String(key)))
            c = (next.0, next.1, 1)
        }
        return out
    }
}
