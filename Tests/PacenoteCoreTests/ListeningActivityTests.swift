import Foundation
import Testing
@testable import PacenoteCore

/// ListenBrainz's listening-activity pieces (`get_time_range_bounds` in ListenBrainz's
/// listening_activity.py) on a fixed day: Wednesday 2026-03-04, in UTC.
@Suite struct ListeningActivityTests {
    let utc = LocalTime(timeZone: TimeZone(identifier: "UTC")!)
    // 2026-03-04T12:00:00Z, a Wednesday.
    let now = Date(timeIntervalSince1970: 1_772_625_600)

    func pieces(_ name: String, _ local: LocalTime? = nil) -> (step: ListeningActivity.Step, pieces: [ListeningActivity.Piece])? {
        ListeningActivity.pieces(name, now: now, in: local ?? utc)
    }

    @Test func weeksAreTheLastTwoWholeWeeksByDayWithWeekdays() throws {
        let week = try #require(pieces("week"))
        #expect(week.step == .day && week.pieces.count == 14)
        #expect(week.pieces.first == .init(label: "Monday 16 February 2026", firstDay: "2026-02-16", lastDay: "2026-02-16", key: "2026-02-16"))
        #expect(week.pieces.last?.label == "Sunday 01 March 2026")
        // this_week: last week and this one to today.
        let thisWeek = try #require(pieces("this_week"))
        #expect(thisWeek.pieces.map(\.firstDay).first == "2026-02-23" && thisWeek.pieces.last?.label == "Wednesday 04 March 2026")
        #expect(thisWeek.pieces.count == 10)
        // Weeks beginning on Sunday.
        let sunday = LocalTime(timeZone: TimeZone(identifier: "UTC")!, weekStart: .sunday)
        #expect(pieces("week", sunday)?.pieces.first?.label == "Sunday 15 February 2026")
    }

    @Test func monthsAndQuartersAreDaysWithoutWeekdays() throws {
        let month = try #require(pieces("month"))
        // January and February.
        #expect(month.step == .day && month.pieces.count == 31 + 28)
        #expect(month.pieces.first?.label == "01 January 2026" && month.pieces.last?.label == "28 February 2026")
        let thisMonth = try #require(pieces("this_month"))
        #expect(thisMonth.pieces.first?.firstDay == "2026-02-01" && thisMonth.pieces.last?.firstDay == "2026-03-04")
        // The last whole quarter (October–December 2025) and the one before.
        let quarter = try #require(pieces("quarter"))
        #expect(quarter.pieces.first?.firstDay == "2025-07-01" && quarter.pieces.last?.firstDay == "2025-12-31")
    }

    @Test func yearsAndHalfYearsAreMonths() throws {
        let year = try #require(pieces("year"))
        #expect(year.step == .month && year.pieces.count == 24)
        #expect(year.pieces.first == .init(label: "January 2024", firstDay: "2024-01-01", lastDay: "2024-01-31", key: "2024-01"))
        #expect(year.pieces.last?.label == "December 2025" && year.pieces.last?.lastDay == "2025-12-31")
        let thisYear = try #require(pieces("this_year"))
        #expect(thisYear.pieces.first?.key == "2025-01" && thisYear.pieces.last?.key == "2026-03")
        // To today, not the month's end.
        #expect(thisYear.pieces.last?.lastDay == "2026-03-04")
        let half = try #require(pieces("half_yearly"))
        #expect(half.pieces.first?.key == "2025-01" && half.pieces.last?.key == "2025-12")
    }

    @Test func allTimeIsTheYearsWithPlaysAndOtherNamesAreRefused() {
        #expect(pieces("all_time")?.step == .year)
        #expect(ListeningActivity.years(["2026", "2019"]).map(\.label) == ["2019", "2026"])
        #expect(ListeningActivity.years(["2019"]).first?.lastDay == "2019-12-31")
        #expect(pieces("fortnight") == nil)
        #expect(pieces("today") == nil)
    }

    @Test func weekdaysOfDayNumbers() {
        #expect(ListeningActivity.weekday(days: 0) == 4)  // 1970-01-01, a Thursday
        #expect(ListeningActivity.weekday(days: -1) == 3)
        #expect(ListeningActivity.weekday(days: CivilDate.days(year: 2026, month: 3, day: 4)) == 3)
    }
}
