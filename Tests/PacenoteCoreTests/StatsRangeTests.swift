import Foundation
import Testing
@testable import PacenoteCore

@Suite struct StatsRangeTests {
    let berlin = LocalTime(timeZone: TimeZone(identifier: "Europe/Berlin")!)
    // Sunday 2026-11-22, 00:30 in Berlin (23:30 UTC the day before).
    let now = Date(timeIntervalSince1970: 1_795_303_800)

    func resolve(_ range: String?, from: String? = nil, to: String? = nil) throws -> StatsRange {
        try StatsRange.resolve(range: range, from: from, to: to, today: now, in: berlin)
    }

    @Test func namedRangesFollowTheLocalCalendar() throws {
        #expect(try resolve("today") == StatsRange(name: "today", from: "2026-11-22", to: "2026-11-22"))
        #expect(try resolve("week") == StatsRange(name: "week", from: "2026-11-16", to: "2026-11-22"))  // Monday to Sunday
        #expect(try resolve("month") == StatsRange(name: "month", from: "2026-11-01", to: "2026-11-30"))
        #expect(try resolve("year") == StatsRange(name: "year", from: "2026-01-01", to: "2026-12-31"))
        #expect(try resolve(nil).name == "all")
        #expect(try resolve("2024") == StatsRange(name: "2024", from: "2024-01-01", to: "2024-12-31"))
        #expect(try resolve("2024-02") == StatsRange(name: "2024-02", from: "2024-02-01", to: "2024-02-29"))
        #expect(try resolve("2024-02-29") == StatsRange(name: "2024-02-29", from: "2024-02-29", to: "2024-02-29"))
        #expect(try resolve(nil, from: "2026-01-10", to: "2026-02-01") == StatsRange(name: "custom", from: "2026-01-10", to: "2026-02-01"))
    }

    @Test func badRangesAreErrors() {
        #expect(throws: StatsRange.ParseError.unknownRange("fortnight")) { try resolve("fortnight") }
        #expect(throws: StatsRange.ParseError.unknownRange("2026-13")) { try resolve("2026-13") }
        #expect(throws: StatsRange.ParseError.invalidDay("2026-02-30")) { try resolve(nil, from: "2026-02-30") }
        #expect(throws: StatsRange.ParseError.reversed) { try resolve(nil, from: "2026-02-02", to: "2026-02-01") }
    }
}
