import Foundation
import Testing
@testable import PacenoteCore

/// `[site] week_starts`: where weeks begin, the charts' `week`, and ListenBrainz's
/// statistics ranges as local days and instants (time zones, daylight saving time).
@Suite struct WeekStartTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!
    let utc = TimeZone(identifier: "UTC")!
    /// Sunday 2026-11-22, 00:30 in Berlin; still Saturday 2026-11-21, 23:30, in UTC.
    let sundayInBerlin = Date(timeIntervalSince1970: 1_795_303_800)

    func at(_ iso: String) -> Date { try! Date(iso, strategy: .iso8601) }

    func lb(_ name: String, _ now: Date, _ zone: TimeZone, _ start: WeekStart = .monday) -> StatsRange? {
        StatsRange.listenBrainz(name, now: now, in: LocalTime(timeZone: zone, weekStart: start))
    }

    func days(_ range: StatsRange?) -> String { range.map { "\($0.from)…\($0.to)" } ?? "nil" }

    @Test func theFirstDayOfAWeekFollowsTheSetting() {
        // 2026-11-22 is a Sunday; 1970-01-01 (day 0) was a Thursday.
        #expect(WeekStart.weekday(ofDay: 0) == 4)
        #expect(WeekStart.monday.firstDay(ofWeekHolding: "2026-11-22") == "2026-11-16")
        #expect(WeekStart.sunday.firstDay(ofWeekHolding: "2026-11-22") == "2026-11-22")
        #expect(WeekStart.saturday.firstDay(ofWeekHolding: "2026-11-22") == "2026-11-21")
        #expect(WeekStart.saturday.firstDay(ofWeekHolding: "2026-11-20") == "2026-11-14")
        // Across a year's end, and before 1970.
        #expect(WeekStart.monday.firstDay(ofWeekHolding: "2027-01-01") == "2026-12-28")
        #expect(WeekStart.sunday.firstDay(ofWeekHolding: "1969-12-31") == "1969-12-28")
        #expect(WeekStart.monday.firstDay(ofWeekHolding: "2026-02-30") == nil)
        #expect(WeekStart.monday.dayNames == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])
        #expect(WeekStart.sunday.dayNames == ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"])
        #expect(WeekStart.saturday.dayNames.first == "Sat" && WeekStart.saturday.dayNames.last == "Fri")
        // Rows of the heatmap and the calendar: Monday is the first, second or third day.
        #expect([WeekStart.monday, .sunday, .saturday].map { $0.position(ofWeekday: 1) } == [0, 1, 2])
        #expect(WeekStart.sunday.position(ofDay: CivilDate.days(of: "2026-11-28")!) == 6)
    }

    @Test func theChartsWeekBeginsOnTheConfiguredDayOfTheLocalWeek() throws {
        func week(_ zone: TimeZone, _ start: WeekStart) throws -> String {
            days(try StatsRange.resolve(range: "week", from: nil, to: nil, today: sundayInBerlin,
                                        in: LocalTime(timeZone: zone, weekStart: start)))
        }
        #expect(try week(berlin, .monday) == "2026-11-16…2026-11-22")
        #expect(try week(berlin, .sunday) == "2026-11-22…2026-11-28")
        #expect(try week(berlin, .saturday) == "2026-11-21…2026-11-27")
        // The same instant is a Saturday in UTC.
        #expect(try week(utc, .sunday) == "2026-11-15…2026-11-21")
        #expect(try week(utc, .saturday) == "2026-11-21…2026-11-27")
    }

    @Test func listenBrainzRangesAreThePeriodUnderWayOrTheLastWholeOne() {
        let now = sundayInBerlin
        #expect(days(lb("this_week", now, berlin)) == "2026-11-16…2026-11-22")
        #expect(days(lb("week", now, berlin)) == "2026-11-09…2026-11-15")
        #expect(days(lb("this_week", now, berlin, .sunday)) == "2026-11-22…2026-11-28")
        #expect(days(lb("week", now, berlin, .sunday)) == "2026-11-15…2026-11-21")
        #expect(days(lb("week", now, berlin, .saturday)) == "2026-11-14…2026-11-20")
        #expect(days(lb("this_month", now, berlin)) == "2026-11-01…2026-11-30")
        #expect(days(lb("month", now, berlin)) == "2026-10-01…2026-10-31")
        #expect(days(lb("quarter", now, berlin)) == "2026-07-01…2026-09-30")
        #expect(days(lb("half_yearly", now, berlin)) == "2026-01-01…2026-06-30")
        #expect(days(lb("this_year", now, berlin)) == "2026-01-01…2026-12-31")
        #expect(days(lb("year", now, berlin)) == "2025-01-01…2025-12-31")
        #expect(days(lb("all_time", now, berlin)) == "0000-01-01…9999-12-31")
        #expect(lb("all_time", now, berlin)?.name == "all_time")
        // The same instant in UTC is a Saturday: the week before is another one.
        #expect(days(lb("week", now, utc)) == "2026-11-09…2026-11-15")
        #expect(days(lb("this_week", now, utc, .sunday)) == "2026-11-15…2026-11-21")
        #expect(lb("fortnight", now, berlin) == nil)
        #expect(lb("", now, berlin) == nil)
        #expect(StatsRange.listenBrainzNames.allSatisfy { lb($0, now, berlin) != nil })
    }

    @Test func listenBrainzRangesAtTheTurnOfTheYear() {
        // Tuesday 2026-01-06 in New York.
        let newYork = TimeZone(identifier: "America/New_York")!
        let now = at("2026-01-06T12:00:00Z")
        #expect(days(lb("week", now, newYork)) == "2025-12-29…2026-01-04")
        #expect(days(lb("week", now, newYork, .sunday)) == "2025-12-28…2026-01-03")
        #expect(days(lb("month", now, newYork)) == "2025-12-01…2025-12-31")
        #expect(days(lb("quarter", now, newYork)) == "2025-10-01…2025-12-31")
        #expect(days(lb("half_yearly", now, newYork)) == "2025-07-01…2025-12-31")
        #expect(days(lb("year", now, newYork)) == "2025-01-01…2025-12-31")
        // The quarters' edges: March's last is Q4 of the year before, April's Q1.
        #expect(days(lb("quarter", at("2026-03-31T12:00:00Z"), utc)) == "2025-10-01…2025-12-31")
        #expect(days(lb("quarter", at("2026-04-01T12:00:00Z"), utc)) == "2026-01-01…2026-03-31")
        #expect(days(lb("half_yearly", at("2026-07-01T12:00:00Z"), utc)) == "2026-01-01…2026-06-30")
        #expect(days(lb("month", at("2024-03-10T12:00:00Z"), utc)) == "2024-02-01…2024-02-29")
    }

    @Test func listenBrainzInstantsAreLocalMidnightsAcrossDaylightSavingTime() throws {
        let local = LocalTime(timeZone: berlin)
        // The week of 2026-03-29, when Berlin moves to summer time: 7 days less an hour.
        let spring = try #require(StatsRange.listenBrainz("week", now: at("2026-04-01T10:00:00Z"), in: local)?.instants(in: local))
        #expect(spring.from == at("2026-03-22T23:00:00Z"))
        #expect(spring.to == at("2026-03-29T22:00:00Z"))
        #expect(spring.to.timeIntervalSince(spring.from) == 7 * 86_400 - 3600)
        // The week of 2026-10-25, back to winter time: 7 days and an hour.
        let autumn = try #require(StatsRange.listenBrainz("week", now: at("2026-10-28T10:00:00Z"), in: local)?.instants(in: local))
        #expect(autumn.from == at("2026-10-18T22:00:00Z"))
        #expect(autumn.to == at("2026-10-25T23:00:00Z"))
        // A month: its first local midnight to the next month's.
        let month = try #require(StatsRange.listenBrainz("month", now: sundayInBerlin, in: local)?.instants(in: local))
        #expect(month.from == at("2026-09-30T22:00:00Z") && month.to == at("2026-10-31T23:00:00Z"))
        #expect(StatsRange.listenBrainz("all_time", now: sundayInBerlin, in: local)?.instants(in: local) == nil)
    }
}
