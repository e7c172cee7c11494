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

    @Test func isoTimestampsCarryAnOffsetAndMilliseconds() {
        #expect(ISO8601.string(Date(timeIntervalSince1970: 1_774_823_400.25)) == "2026-03-29T22:30:00.250Z")
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
