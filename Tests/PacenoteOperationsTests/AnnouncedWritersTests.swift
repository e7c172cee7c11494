import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing

/// The writers that went around the write path (issue 53, point 3): heart rate given to
/// plays, tempos read from tags, the outbox changed by hand, scrobbler sessions. Each is an
/// operation now, over a real store and bus, that announces its change once with the commit
/// it made — and nothing when it changed nothing.
@Suite struct AnnouncedWritersTests {
    typealias Fixture = OperationsTests.Fixture

    /// The `.changed` announcements so far with their commits; forgets them.
    static func announced(_ f: Fixture) -> [(change: DataChange, commit: UInt64)] {
        f.recorder.events.withLock { events in
            defer { events.removeAll() }
            return events.compactMap { if case .changed(let change, let commit) = $0 { (change, commit) } else { nil } }
        }
    }

    @Test func taggingPlaysWithHeartRateAnnouncesThePlaysItChanged() throws {
        let f = try Fixture()
        let track = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let at = OperationsTests.day
        let play = try #require(try f.store.insertPlay(Play(trackID: track, startedAt: at, endedAt: at.addingTimeInterval(200),
                                                             playedSeconds: 200, counted: true, source: "mpd")))
        try f.store.insertSamples((0..<200).map { HeartRateSample(at: at.addingTimeInterval(Double($0)), bpm: 150) }, source: "t")
        let span = (at, at.addingTimeInterval(200))
        #expect(try f.operations.tagPlays(from: span.0, to: span.1) { _, _ in .z4 } == [play])
        let first = Self.announced(f)
        #expect(first.map(\.change) == [.playsTagged(ids: [play])])
        #expect(first.first?.commit == f.store.commitCount, "the count after the tagging's commit")
        #expect(try f.store.recentPlays(limit: 1).first?.play.zone == .z4)
        // The next reading of a workout in progress tags the play again with the same figures:
        // nothing changed, nothing is announced.
        #expect(try f.operations.tagPlays(from: span.0, to: span.1) { _, _ in .z4 } == [])
        #expect(Self.announced(f).isEmpty)
        // Other zone settings: the play changes, and it is announced again, at a later commit.
        #expect(try f.operations.tagPlays(from: span.0, to: span.1) { _, _ in .z3 } == [play])
        let second = Self.announced(f)
        #expect(second.map(\.change) == [.playsTagged(ids: [play])])
        #expect(second.first.map { $0.commit > first[0].commit } == true)
        #expect(DataChange.playsTagged(ids: [play]).touchesPlays, "zone charts are read from the plays")
    }

    @Test func aWorkoutIsAnnouncedAsItStartsAndEnds() throws {
        let f = try Fixture()
        let at = OperationsTests.day
        let id = try f.operations.startWorkout(at: at, kind: "auto", zoneSettingsID: nil)
        try f.operations.updateWorkout(id: id, endedAt: at.addingTimeInterval(600), average: 140, max: 160, secondsInZone: [.z3: 600])
        try f.operations.amendWorkout(id: id, startedAt: at.addingTimeInterval(-60))
        #expect(Self.announced(f).map(\.change) == Array(repeating: .workout(id: id), count: 3))
        #expect(try f.store.workout(id: id)?.endedAt == at.addingTimeInterval(600))
        #expect(DataChange.workout(id: id).touchesPlays, "the plays during it are linked to it")
    }

    @Test func tempoFromTagsAndTheLibraryMirrorAreAnnounced() throws {
        let f = try Fixture()
        let song = SongInfo(uri: "a.flac", tags: ["Title": "A", "Artist": "B"], durationSeconds: 180, lastModified: 1_000)
        let summary = try f.operations.mirrorLibrary(player: "default", changed: [song], removed: [], stickers: [:])
        #expect(summary.added == 1)
        #expect(Self.announced(f).map(\.change) == [.library(player: "default")])
        #expect(try f.operations.applyTagBPM(player: "default", [("a.flac", 1_000_000, 124)]) == 1)
        #expect(Self.announced(f).map(\.change) == [.library(player: "default")])
        #expect(try f.store.track(uri: "a.flac")?.bpm?.value == 124)
        // Nothing listed and no sticker changed: nothing to announce.
        try f.operations.mirrorLibrary(player: "default", changed: [], removed: [], stickers: nil)
        #expect(Self.announced(f).isEmpty)
    }

    @Test func theOutboxChangedByHandIsAnnouncedAndAnUnknownTargetIsRefused() throws {
        let f = try Fixture()
        let id = try #require(try f.operations.syncForwardTargets([ForwardTargetSpec(name: "t", kind: .listenbrainz, url: "http://t")])["t"])
        #expect(Self.announced(f).map(\.change) == [.forwarding])
        let track = try f.store.saveTrack(Track(uri: "a.flac", title: "A"))
        let at = OperationsTests.day
        let play = try #require(try f.store.insertPlay(Play(trackID: track, startedAt: at, endedAt: at.addingTimeInterval(200),
                                                             playedSeconds: 200, counted: true, source: "mpd")))
        try f.store.forwardParked(target: id, plays: [(play, "400: no")])
        #expect(try f.operations.retryParkedForwards(target: "t") == 1)
        #expect(try f.operations.retryParkedForwards(target: "t") == 0, "nothing parked any more")
        #expect(Self.announced(f).map(\.change) == [.forwarding], "once: the second retry changed nothing")
        #expect(try f.operations.backfillForward(target: "t", from: at.addingTimeInterval(-86_400), to: nil) == 0, "queued already")
        do {
            _ = try f.operations.backfillForward(target: "nope", from: at, to: nil)
            Issue.record("an unknown target was taken")
        } catch let error as OperationError {
            #expect(error.kind == .notFound && error.message.contains("nope"))
        }
        #expect(throws: OperationError.self) { try f.operations.setForwardSession(target: "nope", key: "k", user: "u") }
        try f.operations.setForwardSession(target: "t", key: "k", user: "u")
        #expect(Self.announced(f).map(\.change) == [.forwarding])
    }

    @Test func scrobblerSessionsAreAnnouncedAsCredentialsOnlyWhenWritten() throws {
        let f = try Fixture()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let session = ScrobbleSession(key: "s1", keySHA256: SHA256.hex("key"), protocolVersion: "2.0", client: "c", user: "u",
                                      createdAt: start)
        try f.operations.openScrobblerSession(session)
        try f.operations.noteScrobblerSessionUse(session, at: start.addingTimeInterval(60))
        #expect(Self.announced(f).map(\.change) == [.credentials], "a use within the hour is not written")
        try f.operations.noteScrobblerSessionUse(session, at: start.addingTimeInterval(7200))
        #expect(try f.operations.useScrobblerToken(id: "t1", keySHA256: session.keySHA256, expiresAt: nil, at: start))
        #expect(try !f.operations.useScrobblerToken(id: "t1", keySHA256: session.keySHA256, expiresAt: nil, at: start))
        #expect(Self.announced(f).map(\.change) == [.credentials, .credentials], "a replayed token writes nothing")
        #expect(!DataChange.credentials.touchesPlays)
    }

    /// The store refuses in the domain's words; the API code and kind are given once, here.
    @Test func aStoreRefusalGetsItsCodeFromTheOperations() throws {
        let cases: [(StoreError.Refusal.Reason, OperationError.Kind, String)] = [
            (.missing, .notFound, "not_found"), (.mergeIntoItself, .invalid, "invalid_merge"),
            (.undoBlocked, .conflict, "undo_blocked"), (.friendFromConfig, .conflict, "config_friend"),
        ]
        for (reason, kind, code) in cases {
            let error = try #require(OperationError.from(.refused(.init(reason, "why"))) as? OperationError)
            #expect(error == OperationError(kind, code: code, "why"))
        }
        #expect(OperationError.from(.busy(path: "p")) as? StoreError == .busy(path: "p"), "other store errors pass as they are")
    }
}
