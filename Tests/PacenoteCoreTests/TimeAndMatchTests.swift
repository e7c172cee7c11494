import Foundation
import Testing
@testable import PacenoteCore

@Suite struct LocalTimeTests {
    @Test func daysFollowTheDisplayZoneAcrossDaylightSavingTime() throws {
        let berlin = LocalTime(timeZone: try #require(TimeZone(identifier: "Europe/Berlin")))
        // 2026-03-28T23:30Z is 00:30 on the 29th in Berlin (CET, +1)...
        #expect(berlin.day(of: Date(timeIntervalSince1970: 1_774_740_600)) == "2026-03-29")
        #expect(berlin.hour(of: Date(timeIntervalSince1970: 1_774_740_600)) == 0)
        // ...and 2026-03-29T22:30Z is 00:30 on the 30th (CEST, +2, after the switch).
        #expect(berlin.day(of: Date(timeIntervalSince1970: 1_774_823_400)) == "2026-03-30")
        let utc = LocalTime(timeZone: try #require(TimeZone(identifier: "UTC")))
        #expect(utc.day(of: Date(timeIntervalSince1970: 1_774_823_400)) == "2026-03-29")
        #expect(utc.hour(of: Date(timeIntervalSince1970: 1_774_823_400)) == 22)
    }

    /// The walker (offset looked up once per transition) gives what the calendar gives, in
    /// zones with daylight saving time, odd offsets and changed standard offsets, going
    /// forward in steps of a few minutes to a day and now and then back in time.
    @Test(arguments: ["Europe/Berlin", "Asia/Kathmandu", "Australia/Lord_Howe", "America/Sao_Paulo",
                      "Europe/Moscow", "Pacific/Apia", "America/St_Johns", "UTC"])
    func walkerAgreesWithTheCalendar(zone: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let calendar = LocalTime(timeZone: timeZone)
        var walker = LocalTime.Walker(timeZone: timeZone)
        var state: UInt64 = 7
        func random(_ n: Int64) -> Int64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int64((state >> 33) % UInt64(n))
        }
        var ms: Int64 = 0  // 1970
        var mismatches: [String] = []
        while ms < 1_900_000_000_000 {  // 2030
            ms += random(3) == 0 ? random(86_400_000) : random(3_600_000)
            let probe = random(50) == 0 ? ms - random(40 * 86_400_000) : ms
            let slot = walker.slot(ms: probe)
            let date = Date(timeIntervalSince1970: Double(probe) / 1000)
            let (y, m, d) = CivilDate.civil(days: slot.dayNumber)
            let day = String(format: "%04d-%02d-%02d", y, m, d)
            if day != calendar.day(of: date) || slot.hour != calendar.hour(of: date), mismatches.count < 5 {
                mismatches.append("\(probe): \(day) \(slot.hour) vs \(calendar.day(of: date)) \(calendar.hour(of: date))")
            }
        }
        #expect(mismatches == [])
    }

    @Test func isoTimestampsCarryAnOffsetAndMilliseconds() {
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_774_823_400.25)) == "2026-03-29T22:30:00.250Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601.string(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
    }

    @Test func onlyCanonicalDaysAreDays() {
        let utc = LocalTime(timeZone: TimeZone(identifier: "UTC")!)
        #expect(utc.startOfDay("2026-01-01") != nil)
        for bad in ["2026-+1-01", "2026-01-+1", "+026-01-01", "2026-1-01", "2026-02-30", "2026-13-01", "２０２６-01-01"] {
            #expect(utc.startOfDay(bad) == nil, "\(bad)")
        }
    }

    @Test func handWrittenTimestampsAgreeWithFoundationsFormatter() {
        // Leap years, century rules, month ends: 20,000 instants from 1900 to 2200.
        var rng = SystemRandomNumberGenerator()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<20_000 {
            // Quarter seconds are exact in binary: no rounding question between the two.
            let ms = Int64.random(in: -2_208_988_800...7_258_118_400, using: &rng) * 1000 + Int64.random(in: 0...3, using: &rng) * 250
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            #expect(ISO8601.string(epochMilliseconds: ms) == date.formatted(style))
            #expect(ISO8601.string(date) == date.formatted(style))
        }
    }
}

@Suite struct MatchKeyTests {
    @Test func foldsCaseAccentsPunctuationAndTheArticle() {
        #expect(MatchKey.make(artist: "The Beatles", title: "Hey Jude") == MatchKey.make(artist: "beatles", title: "hey  jude"))
        #expect(MatchKey.make(artist: "Beyoncé", title: "Halo!") == MatchKey.make(artist: "Beyonce", title: "halo"))
        #expect(MatchKey.make(artist: "AC/DC", title: "T.N.T.") == "ac dc\u{1F}t n t")
        #expect(MatchKey.make(artist: "The The", title: "x") == "the\u{1F}x")
    }

    @Test func keepsVersionsApart() {
        #expect(MatchKey.make(artist: "A", title: "Song") != MatchKey.make(artist: "A", title: "Song (Remix)"))
    }
}
