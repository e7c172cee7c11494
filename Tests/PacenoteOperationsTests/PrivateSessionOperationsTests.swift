import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing

/// The private session through the write path: turned on and off as one announced change,
/// its plays logged among the hidden ones (never queued for forwarding, never announced as
/// new plays), ended by its time alone, and a hidden play shown again.
@Suite struct PrivateSessionOperationsTests {
    typealias Fixture = OperationsTests.Fixture
    static let day = OperationsTests.day

    static func finished(_ title: String, at start: Date, seconds: Double = 200) -> FinishedPlay {
        FinishedPlay(song: SongInfo(uri: "\(title).flac", tags: ["Title": title, "Artist": "A"], durationSeconds: seconds, lastModified: 1),
                     startedAt: start, endedAt: start.addingTimeInterval(seconds), playedSeconds: seconds, counted: true)
    }

    @Test func playsInASessionAreHiddenAndItEndsAtItsTime() throws {
        let f = try Fixture()
        _ = try f.operations.syncForwardTargets([ForwardTargetSpec(name: "t", kind: .listenbrainz, url: "http://t")])
        _ = f.changes()
        let session = try f.operations.startPrivateSession(lasting: 600, now: Self.day)
        #expect(session == PrivateSession(since: Self.day, until: Self.day.addingTimeInterval(600)))
        #expect(f.changes() == [.privateSession])
        #expect(!DataChange.privateSession.touchesPlays)

        // In the session: hidden, not announced, not queued.
        let inside = try f.operations.recordPlayer("default", finished: [Self.finished("Inside", at: Self.day.addingTimeInterval(60))], open: .clear,
                                                   now: Self.day.addingTimeInterval(260))
        #expect(inside.isEmpty && f.logged().isEmpty)
        #expect(try f.store.hiddenPlays(limit: 10).map(\.track.title) == ["Inside"])
        #expect(try f.store.recentPlays(limit: 10).isEmpty)
        // A client's listen in it too.
        let listened = try f.operations.recordListens([(Track(title: "Listened", artist: "B"), Self.day.addingTimeInterval(300), "app")],
                                                      source: "listenbrainz", now: Self.day.addingTimeInterval(310))
        #expect(listened.isEmpty)
        #expect(try f.store.hiddenPlays(limit: 10).count == 2)
        // After its time, with nobody turning it off: logged as ever, and queued.
        let after = try f.operations.recordPlayer("default", finished: [Self.finished("After", at: Self.day.addingTimeInterval(700))], open: .clear,
                                                  now: Self.day.addingTimeInterval(900))
        #expect(after.map(\.track.title) == ["After"])
        #expect(try f.store.privateSession()?.isOn(at: Self.day.addingTimeInterval(601)) == false)
        let status = try #require(try f.store.forwardTargets().first)
        #expect(status.queued == 1, "only the play after the session waits to be forwarded")
    }

    @Test func turningOffEndsItNowAndAHiddenPlayIsShownAgain() throws {
        let f = try Fixture()
        try f.operations.startPrivateSession(lasting: nil, now: Self.day)
        #expect(try f.store.privateSession()?.isOn(at: Self.day.addingTimeInterval(86_400 * 30)) == true, "until turned off")
        try f.operations.recordPlayer("default", finished: [Self.finished("Hidden", at: Self.day.addingTimeInterval(10))], open: .clear,
                                      now: Self.day.addingTimeInterval(300))
        let ended = try f.operations.endPrivateSession(now: Self.day.addingTimeInterval(400.0004))
        #expect(ended?.until == Self.day.addingTimeInterval(400))
        #expect(try f.store.privateSession() == ended, "stored as answered")
        #expect(try f.store.privateSession()?.isOn(at: Self.day.addingTimeInterval(400.0004)) == false, "off from the moment it was turned off")
        #expect(try f.operations.endPrivateSession(now: Self.day.addingTimeInterval(500)) == nil, "none on: nothing to do")
        #expect(f.changes() == [.privateSession, .privateSession])
        #expect(throws: OperationError.self) { try f.operations.startPrivateSession(lasting: 0.5, now: Self.day) }
        #expect(throws: OperationError.self) { try f.operations.startPrivateSession(lasting: 8 * 86_400, now: Self.day) }

        let hidden = try #require(try f.store.hiddenPlays(limit: 1).first?.play.id)
        try f.operations.unhidePlay(id: hidden)
        #expect(try f.store.hiddenPlays(limit: 10).isEmpty)
        #expect(try f.store.recentPlays(limit: 10).map(\.track.title) == ["Hidden"])
        #expect(f.logged().count == 1, "announced as a new play")
        #expect(throws: OperationError.self) { try f.operations.unhidePlay(id: hidden) }
    }
}
