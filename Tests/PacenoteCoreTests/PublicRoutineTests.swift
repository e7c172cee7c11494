import Foundation
import Testing
@testable import PacenoteCore

/// What the public parts say about time and ids (issue 51, point 3): days only, covers by a
/// version rather than a track id, a published review without the period before.
@Suite struct PublicRoutineUnitTests {
    @Test func aDayIsWrittenAsMidnightUTCWithNoOffset() throws {
        let stamp = try #require(SongOfTheDay.publicStamp(day: "2026-11-26"))
        #expect(stamp.text == "2026-11-26T00:00:00Z" && stamp.offsetSeconds == 0)
        #expect(stamp.localDay == "2026-11-26", "read back, the same day")
        #expect(SongOfTheDay.publicStamp(day: "1970-01-01")?.date == Date(timeIntervalSince1970: 0))
        #expect(SongOfTheDay.publicStamp(day: "2024-02-29")?.text == "2024-02-29T00:00:00Z")
        for bad in ["", "2026-11", "2026-11-26T10:00", "yesterday"] { #expect(SongOfTheDay.publicStamp(day: bad) == nil, "\(bad)") }
    }

    @Test func anEntryChangesOnItsDayOrOnTheDayOfALaterPin() {
        #expect(SongOfTheDay.publicChangeDay(day: "2026-11-20", pinnedOn: nil) == "2026-11-20")
        #expect(SongOfTheDay.publicChangeDay(day: "2026-11-20", pinnedOn: "2026-11-24") == "2026-11-24")
        // Pinned ahead of time: the entry's own day, not before it.
        #expect(SongOfTheDay.publicChangeDay(day: "2026-11-20", pinnedOn: "2026-11-18") == "2026-11-20")
    }

    @Test func aCoverVersionFollowsTheSongAndIsNoID() {
        let v = SongOfTheDay.coverVersion(day: "2026-11-26", title: "Halo", artist: "Beyoncé", album: "I Am… Sasha Fierce")
        #expect(v.count == 16 && v.allSatisfy { $0.isHexDigit })
        #expect(v == SongOfTheDay.coverVersion(day: "2026-11-26", title: "Halo", artist: "Beyoncé", album: "I Am… Sasha Fierce"))
        #expect(v != SongOfTheDay.coverVersion(day: "2026-11-26", title: "Dog Days", artist: "Florence", album: nil), "another song")
        #expect(v != SongOfTheDay.coverVersion(day: "2026-11-27", title: "Halo", artist: "Beyoncé", album: "I Am… Sasha Fierce"), "another day")
        // The fields are kept apart: moving text from one to the next is another song.
        #expect(SongOfTheDay.coverVersion(day: "d", title: "ab", artist: "c", album: nil)
            != SongOfTheDay.coverVersion(day: "d", title: "a", artist: "bc", album: nil))
    }

    @Test func aPublishedReviewHasNoPeriodBeforeAndHeartRateOnlyWhenTicked() {
        let period = ReviewPeriod.of(StatsRange(name: "2026", from: "2026-01-01", to: "2026-12-31"), today: "2026-11-26")
        let totals = ReviewReport.Totals(plays: 401, skips: 0, seconds: 9_000, days: 20, tracks: 30, artists: 10, albums: 12)
        let before = ReviewReport.Totals(plays: 1, skips: 0, seconds: 200, days: 1, tracks: 1, artists: 1, albums: 1)
        let hr = ReviewReport.HeartRate(workouts: 1, trainingSeconds: 600, zoneSeconds: [0, 0, 600, 0, 0, 0], hardest: nil, powerSongs: [], zones: [])
        let report = ReviewReport(period: period, totals: totals, previous: before,
                                  discoveries: .init(newTracks: 0, newTrackPlays: 0, newArtists: 0, topNewTracks: [], topNewArtists: [],
                                                     comebackTracks: [], comebackArtists: []),
                                  topTracks: .init(byPlays: [], byTime: []), topArtists: .init(byPlays: [], byTime: []),
                                  topAlbums: .init(byPlays: [], byTime: []), months: [], bestDay: nil, longestStreak: nil,
                                  clock: [], weekdays: [], weekStart: 1, songsOfTheDay: [], heartRate: hr)
        let shared = ReviewSnapshot.publishable(report, sections: [.totals])
        #expect(shared.previous == nil && shared.heartRate == nil && shared.totals == totals)
        #expect(ReviewSnapshot.publishable(report, sections: [.totals, .heartRate]).heartRate == hr)
        #expect(report.previous == before, "the owner's own report keeps it")
    }
}
