import Foundation
import Testing
@testable import PacenoteCore

@Suite struct SongOfTheDayTests {
    func c(_ id: Int64, plays: Int, seconds: Double, first: Double) -> SongOfTheDay.Candidate {
        SongOfTheDay.Candidate(trackID: id, plays: plays, seconds: seconds, firstPlayedAt: Date(timeIntervalSince1970: first))
    }

    @Test func mostPlaysThenMostSecondsThenEarliest() {
        #expect(SongOfTheDay.choose([c(1, plays: 2, seconds: 400, first: 10), c(2, plays: 3, seconds: 300, first: 20)], pin: nil)?.trackID == 2)
        #expect(SongOfTheDay.choose([c(1, plays: 3, seconds: 400, first: 10), c(2, plays: 3, seconds: 500, first: 20)], pin: nil)?.trackID == 2)
        #expect(SongOfTheDay.choose([c(1, plays: 3, seconds: 500, first: 30), c(2, plays: 3, seconds: 500, first: 20)], pin: nil)?.trackID == 2)
        #expect(SongOfTheDay.choose([c(5, plays: 3, seconds: 500, first: 20), c(4, plays: 3, seconds: 500, first: 20)], pin: nil)?.trackID == 4)
    }

    @Test func aPinWinsAndNothingPlayedIsNoSong() {
        let pinned = SongOfTheDay.choose([c(1, plays: 9, seconds: 900, first: 1)], pin: .init(trackID: 7, note: "for Sam"))
        #expect(pinned == SongOfTheDay.Choice(trackID: 7, pinned: true, note: "for Sam"))
        #expect(SongOfTheDay.choose([], pin: nil) == nil)
        #expect(SongOfTheDay.choose([c(1, plays: 0, seconds: 30, first: 1)], pin: nil) == nil)
    }
}
