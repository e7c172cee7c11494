/// The day a week begins on (`[site] week_starts`): every weekly figure — the `week`
/// range of the charts, ListenBrainz's `this_week` and `week`, the heatmap's columns and
/// the song-of-the-day calendar's rows — starts its weeks on it. Monday by default (ISO
/// 8601); Sunday as in the Americas, Saturday as in much of the Middle East.
public enum WeekStart: String, CaseIterable, Equatable, Sendable {
    case monday, sunday, saturday

    /// Weekday numbers as here: 0 = Sunday … 6 = Saturday.
    var weekday: Int {
        switch self {
        case .sunday: 0
        case .monday: 1
        case .saturday: 6
        }
    }

    /// As Foundation's `Calendar.firstWeekday` counts (1 = Sunday … 7 = Saturday).
    public var firstWeekday: Int { weekday + 1 }

    /// The weekday (0 = Sunday … 6 = Saturday) of a day number (days since 1970-01-01,
    /// which was a Thursday).
    public static func weekday(ofDay n: Int) -> Int { ((n + 4) % 7 + 7) % 7 }

    /// Where a weekday (0 = Sunday … 6 = Saturday) falls in the week: 0 for its first day … 6 for its last.
    public func position(ofWeekday w: Int) -> Int { ((w - weekday) % 7 + 7) % 7 }

    /// Where a day falls in its week: 0 for the first day of the week … 6 for the last.
    public func position(ofDay n: Int) -> Int { position(ofWeekday: Self.weekday(ofDay: n)) }

    /// The day number of the first day of the week that holds day `n`.
    public func firstDay(ofWeekHolding n: Int) -> Int { n - position(ofDay: n) }

    /// The first day (`YYYY-MM-DD`) of the week that holds the local day `day` (a valid
    /// `YYYY-MM-DD`): local days are civil dates, so daylight saving time moves no week.
    public func firstDay(ofWeekHolding day: String) -> String? {
        CivilDate.days(of: day).map { CivilDate.text(days: firstDay(ofWeekHolding: $0)) }
    }

    /// The short names of the days of a week, in this week's order ("Mon", "Tue", … for Monday).
    public var dayNames: [String] {
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return (0..<7).map { names[(weekday + $0) % 7] }
    }
}

extension CivilDate {
    /// `YYYY-MM-DD` of a day number.
    public static func text(days n: Int) -> String {
        let c = civil(days: n)
        return LocalTime.format(year: c.year, month: c.month, day: c.day)
    }
}
