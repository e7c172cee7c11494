import Foundation

/// ListenBrainz's statistics ranges (`range` of `/1/stats/user/{name}/…`), as local days.
/// ListenBrainz computes them in `listenbrainz_spark/stats/__init__.py`
/// (`get_dates_for_stats_range`): the `this_…` ranges are the period under way, the others
/// the last whole one — `week` the week before this one, `month` last month, `quarter` the
/// last whole quarter (January–March, …), `half_yearly` the last whole half year
/// (January–June or July–December), `year` last year — and `all_time` everything.
///
/// Where Pacenote differs, on purpose: weeks begin on `LocalTime.weekStart` (ListenBrainz's
/// on Monday), days are local days in the configured time zone (ListenBrainz's are UTC's),
/// and a `this_…` range is the period under way even on its first day (ListenBrainz, whose
/// statistics are computed once a day from yesterday's listens, shows the previous period
/// then; Pacenote's are read from the rollups when asked and include today).
extension StatsRange {
    /// ListenBrainz's `ALLOWED_STATISTICS_RANGE`, in its order.
    public static let listenBrainzNames = ["this_week", "this_month", "this_year", "week", "month", "quarter",
                                           "year", "half_yearly", "all_time"]

    /// The local days of a ListenBrainz range on the local day of `now` (the whole period:
    /// `this_week` runs to the week's last day), or nil for a name that is none of
    /// `listenBrainzNames`. `all_time` is every day.
    public static func listenBrainz(_ name: String, now: Date, in local: LocalTime) -> StatsRange? {
        let today = CivilDate.civil(days: CivilDate.days(of: local.day(of: now))!)
        let (year, month) = (today.year, today.month)
        /// The months `first`…`first + count - 1` (months counted from year 0: `year * 12 + month - 1`).
        func months(_ first: Int, _ count: Int) -> StatsRange {
            let start = CivilDate.days(year: first / 12, month: first % 12 + 1, day: 1)
            let end = CivilDate.days(year: (first + count) / 12, month: (first + count) % 12 + 1, day: 1) - 1
            return StatsRange(name: name, from: CivilDate.text(days: start), to: CivilDate.text(days: end))
        }
        let thisMonth = year * 12 + month - 1
        let weekFirst = local.weekStart.firstDay(ofWeekHolding: CivilDate.days(year: year, month: month, day: today.day))
        func week(_ first: Int) -> StatsRange {
            StatsRange(name: name, from: CivilDate.text(days: first), to: CivilDate.text(days: first + 6))
        }
        switch name {
        case "this_week": return week(weekFirst)
        case "this_month": return months(thisMonth, 1)
        case "this_year": return months(year * 12, 12)
        case "week": return week(weekFirst - 7)
        case "month": return months(thisMonth - 1, 1)
        // The quarter and half year under way begin in month (month - 1) / 3 * 3 and / 6 * 6
        // (0-based); the last whole one just before it.
        case "quarter": return months(year * 12 + (month - 1) / 3 * 3 - 3, 3)
        case "half_yearly": return months(year * 12 + (month - 1) / 6 * 6 - 6, 6)
        case "year": return months((year - 1) * 12, 12)
        case "all_time": return StatsRange(name: name, from: "0000-01-01", to: "9999-12-31")
        default: return nil
        }
    }

    /// The range's first instant and the first instant after it in `local`'s time zone
    /// (ListenBrainz's `from_ts` and `to_ts`): its first day's start, and the start of the
    /// day after its last (a day of 23 or 25 hours where daylight saving time changes).
    /// Nil for `all_time`'s unbounded days.
    public func instants(in local: LocalTime) -> (from: Date, to: Date)? {
        guard from > "0000-01-01", to < "9999-12-31", let start = local.startOfDay(from),
              let last = local.startOfDay(to), let end = local.startOfDay(after: last) else { return nil }
        return (start, end)
    }
}
