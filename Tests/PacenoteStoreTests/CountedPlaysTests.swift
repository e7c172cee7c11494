import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The reads behind ListenBrainz's listens and delete-listen: counted plays only, in either
/// order, their count and span, and a track's counted play by the second it began in.
@Suite struct CountedPlaysTests {
    /// A track played at 0, 1.5, 2.999, 3 and 4 s after t, the 1.5 s one a skip.
    static func store(_ dir: TemporaryDirectory) throws -> (Store, Int64, Date) {
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        let track = try store.saveTrack(Track(title: "T", artist: "A"))
        let t = Date(timeIntervalSince1970: 1_767_297_600)
        for (offset, counted) in [(0.0, true), (1.5, false), (2.999, true), (3.0, true), (4.0, true)] {
            let start = t.addingTimeInterval(offset)
            try store.insertPlay(Play(trackID: track, startedAt: start, endedAt: start, playedSeconds: 0, counted: counted, source: "mpd"))
        }
        return (store, track, t)
    }

    @Test func countedOnlyInEitherOrderWithACursor() throws {
        let dir = try TemporaryDirectory()
        let (store, _, t) = try Self.store(dir)
        defer { try? store.close() }
        func offsets(_ plays: [PlayWithTrack]) -> [Double] { plays.map { ($0.play.startedAt.timeIntervalSince(t) * 1000).rounded() / 1000 } }
        #expect(offsets(try store.plays(limit: 10)) == [4, 3, 2.999, 1.5, 0], "callers that ask nothing more see skips too")
        #expect(offsets(try store.plays(limit: 10, countedOnly: true)) == [4, 3, 2.999, 0])
        let oldest = try store.plays(limit: 2, from: t.addingTimeInterval(1), countedOnly: true, oldestFirst: true)
        #expect(offsets(oldest) == [2.999, 3])
        let last = try #require(oldest.last)
        let next = try store.plays(limit: 2, after: Store.PlayCursor(startedAtMs: Store.milliseconds(last.play.startedAt), id: last.play.id ?? 0),
                                   countedOnly: true, oldestFirst: true)
        #expect(offsets(next) == [4])
        #expect(try store.countedPlays() == 4)
        let span = try #require(try store.countedPlaysSpan())
        #expect(span.oldest == t && span.newest == t.addingTimeInterval(4))
    }

    @Test func aCountedPlayIsFoundByTheSecondItBeganIn() throws {
        let dir = try TemporaryDirectory()
        let (store, track, t) = try Self.store(dir)
        defer { try? store.close() }
        let second = Int64(t.timeIntervalSince1970)
        let ids = try store.plays(limit: 10).reduce(into: [Double: Int64]()) { $0[($1.play.startedAt.timeIntervalSince(t) * 1000).rounded()] = $1.play.id }
        #expect(try store.countedPlayID(trackID: track, startedInSecond: second) == ids[0])
        #expect(try store.countedPlayID(trackID: track, startedInSecond: second + 1) == nil, "the play at 1.5 s is a skip")
        #expect(try store.countedPlayID(trackID: track, startedInSecond: second + 2) == ids[2999])
        #expect(try store.countedPlayID(trackID: track, startedInSecond: second + 3) == ids[3000])
        #expect(try store.countedPlayID(trackID: track + 1, startedInSecond: second) == nil)
        #expect(try store.countedPlayID(trackID: track, startedInSecond: .max) == nil)
        #expect(try store.countedPlayID(trackID: track, startedInSecond: .min) == nil)
    }

    @Test func anEmptyHistoryHasNoSpan() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        #expect(try store.countedPlaysSpan() == nil)
        #expect(try store.countedPlays() == 0)
    }
}
