import Foundation

/// A range of local days for charts: `today`, `week` (from the configured first day of the
/// week, `LocalTime.weekStart`, Monday by default), `month`, `year`,
/// `all`, a year `2026`, a month `2026-11`, a day `2026-11-22`, or explicit `from`/`to`
/// days (inclusive).
public struct StatsRange: Equatable, Sendable {
    public var name: String
    /// First and last local day, `YYYY-MM-DD`, inclusive.
    public var from: String
    public var to: String

    public static let names = ["today", "week", "month", "year", "all"]

    public enum ParseError: Error, Equatable, Sendable {
        case unknownRange(String)
        case invalidDay(String)
        case reversed
    }

    public static func resolve(range: String?, from: String?, to: String?, today: Date,
                               in local: LocalTime) throws(ParseError) -> StatsRange {
        if from != nil || to != nil {
            let start = from ?? "0000-01-01"
            let end = to ?? local.day(of: today)
            for day in [from, to].compactMap({ $0 }) where local.startOfDay(day) == nil { throw .invalidDay(day) }
            guard start <= end else { throw .reversed }
            return StatsRange(name: "custom", from: start, to: end)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = local.timeZone
        let day = { (date: Date) in local.day(of: date) }
        func interval(_ unit: Calendar.Component) -> StatsRange {
            let span = calendar.dateInterval(of: unit, for: today)!
            return StatsRange(name: range ?? "", from: day(span.start), to: day(span.end.addingTimeInterval(-1)))
        }
        switch range ?? "all" {
        case "today": return StatsRange(name: "today", from: day(today), to: day(today))
        case "week":
            let first = local.weekStart.firstDay(ofWeekHolding: CivilDate.days(of: day(today))!)
            return StatsRange(name: "week", from: CivilDate.text(days: first), to: CivilDate.text(days: first + 6))
        case "month": return interval(.month)
        case "year": return interval(.year)
        case "all": return StatsRange(name: "all", from: "0000-01-01", to: "9999-12-31")
        case let text:
            let parts = text.split(separator: "-")
            if parts.count == 1, text.count == 4, let year = Int(text), year > 0 {
                return StatsRange(name: text, from: "\(text)-01-01", to: "\(text)-12-31")
            }
            if parts.count == 2, text.count == 7, let start = local.startOfDay(text + "-01") {
                let span = calendar.dateInterval(of: .month, for: start)!
                return StatsRange(name: text, from: day(span.start), to: day(span.end.addingTimeInterval(-1)))
            }
            if parts.count == 3, local.startOfDay(text) != nil {
                return StatsRange(name: text, from: text, to: text)
            }
            throw .unknownRange(text)
        }
    }
}
