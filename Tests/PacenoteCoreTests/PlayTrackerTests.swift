import Foundation
import Testing
@testable import PacenoteCore

/// The play state machine, fed looks at a player at chosen times.
@Suite struct PlayTrackerTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    let a = SongInfo(uri: "a.flac", tags: ["Title": "A"], durationSeconds: 200)
    let b = SongInfo(uri: "b.flac", tags: ["Title": "B"], durationSeconds: 100)

    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
    func look(_ state: PlayerSnapshot.State, _ song: SongInfo?, id: Int? = 1, elapsed: Double? = nil) -> PlayerSnapshot {
        PlayerSnapshot(state: state, song: song, songID: song == nil ? nil : id, elapsed: elapsed)
    }

    /// Feeds looks and returns the plays that finished.
    func finished(_ tracker: inout PlayTracker, _ looks: [(Double, PlayerSnapshot)]) -> [FinishedPlay] {
        var out: [FinishedPlay] = []
        for (time, snapshot) in looks {
            for case .finished(let play) in tracker.observe(snapshot, at: at(time)) { out.append(play) }
        }
        return out
    }

    @Test func aSongPlayedToItsEndThenTheNext() {
        var tracker = PlayTracker(rule: .lastFM)
        let plays = finished(&tracker, [
            (0, look(.play, a, id: 1, elapsed: 0)),
            (200, look(.play, b, id: 2, elapsed: 0)),
            (230, look(.stop, nil)),
        ])
        #expect(plays.count == 2)
        #expect(plays[0].song == a && plays[0].counted && plays[0].playedSeconds == 200)
        #expect(plays[0].startedAt == at(0) && plays[0].endedAt == at(200))
        #expect(plays[1].song == b && !plays[1].counted && plays[1].playedSeconds == 30)
        #expect(tracker.current == nil)
    }

    @Test func pausesDoNotCountAndSeeksNeitherAddNorRemove() {
        var tracker = PlayTracker(rule: .lastFM)
        let plays = finished(&tracker, [
            (0, look(.play, a, elapsed: 0)),
            (30, look(.pause, a, elapsed: 30)),     // paused for 10 minutes
            (630, look(.play, a, elapsed: 30)),
            (640, look(.play, a, elapsed: 150)),    // seek forward 110 s
            (660, look(.play, a, elapsed: 20)),     // seek back
            (700, look(.stop, nil)),
        ])
        #expect(plays.count == 1)
        #expect(plays[0].playedSeconds == 30 + 10 + 20 + 40)
        #expect(plays[0].counted == false)  // 100 s of a 200 s track is not more than half
        #expect(plays[0].endedAt == at(700))
    }

    @Test func repeatedLooksAtTheSameStateChangeNothing() {
        var tracker = PlayTracker(rule: .lastFM)
        let plays = finished(&tracker, [
            (0, look(.play, a, elapsed: 0)), (0.01, look(.play, a, elapsed: 0.01)), (0.02, look(.play, a, elapsed: 0.02)),
            (150, look(.play, a, elapsed: 150)),   // a queue edit while playing
            (160, look(.stop, nil)), (160.01, look(.stop, nil)),
        ])
        #expect(plays.count == 1)
        #expect(plays[0].counted && plays[0].playedSeconds == 160)
    }

    @Test func theSameSongAgainIsANewPlay() {
        var tracker = PlayTracker(rule: .lastFM)
        // Repeat/single: the same id starts over at its end.
        var plays = finished(&tracker, [
            (0, look(.play, a, elapsed: 0)),
            (200, look(.play, a, elapsed: 0)),
            (300, look(.stop, nil)),
        ])
        #expect(plays.map(\.playedSeconds) == [200, 100])
        #expect(plays.map(\.counted) == [true, false])
        // A seek back to the start after it counted.
        tracker = PlayTracker(rule: .lastFM)
        plays = finished(&tracker, [
            (0, look(.play, a, elapsed: 0)),
            (120, look(.play, a, elapsed: 0.3)),
            (130, look(.stop, nil)),
        ])
        #expect(plays.map(\.playedSeconds) == [120, 10.3])
        // Before it counted, the same seek continues the play.
        tracker = PlayTracker(rule: .lastFM)
        plays = finished(&tracker, [
            (0, look(.play, a, elapsed: 0)),
            (50, look(.play, a, elapsed: 0.2)),
            (110, look(.stop, nil)),
        ])
        #expect(plays.map(\.playedSeconds) == [110])
        #expect(plays[0].counted)
        // The same file queued twice (two ids) back to back: two plays.
        tracker = PlayTracker(rule: .lastFM)
        plays = finished(&tracker, [
            (0, look(.play, a, id: 1, elapsed: 0)),
            (200, look(.play, a, id: 2, elapsed: 0)),
            (210, look(.stop, nil)),
        ])
        #expect(plays.count == 2)
    }

    @Test func aShortTrackOnRepeatCountsEachTime() {
        let short = SongInfo(uri: "s.flac", durationSeconds: 3)
        let quick = PlayRule(minimumDuration: 2, fraction: 0.5, sufficientSeconds: 240, streamSeconds: 60)
        var tracker = PlayTracker(rule: quick)
        let plays = finished(&tracker, [
            (0, look(.play, short, elapsed: 0)),
            (3.02, look(.play, short, elapsed: 0.01)),
            (6.04, look(.play, short, elapsed: 0.02)),
            (7, look(.stop, nil)),
        ])
        #expect(plays.map(\.counted) == [true, true, false])
    }

    @Test func joiningASongUnderWayAssumesItPlayedFromItsStart() {
        var tracker = PlayTracker(rule: .lastFM)
        let plays = finished(&tracker, [
            (0, look(.play, a, elapsed: 90)),
            (20, look(.stop, nil)),
        ])
        #expect(plays[0].startedAt == at(-90))
        #expect(plays[0].playedSeconds == 110)
        #expect(plays[0].counted)
    }

    @Test func aChangeSeenLateCountsOnlyTheTimeSinceThePreviousLook() {
        var tracker = PlayTracker(rule: .lastFM)
        // `mpc next; mpc seek 80` merged into one look: only 1 s can have been played.
        let plays = finished(&tracker, [
            (0, look(.play, a, id: 1, elapsed: 0)),
            (10, look(.play, b, id: 2, elapsed: 80)),
            (20, look(.stop, nil)),
        ])
        #expect(plays[1].playedSeconds == 10 + 10)
        #expect(plays[1].startedAt == at(0))
    }

    @Test func timeWhileDisconnectedIsNotPlayed() {
        var tracker = PlayTracker(rule: .lastFM)
        _ = tracker.observe(look(.play, a, id: 1, elapsed: 0), at: at(0))
        _ = tracker.lost(at: at(60))
        // MPD came back 30 s later, restored at the same position, with new song ids.
        var plays = finished(&tracker, [
            (90, look(.play, a, id: 7, elapsed: 60)),
            (150, look(.stop, nil)),
        ])
        #expect(plays.count == 1)
        #expect(plays[0].playedSeconds == 120)
        #expect(plays[0].startedAt == at(0) && plays[0].endedAt == at(150))

        // MPD came back playing something else: the play ended when it was lost.
        tracker = PlayTracker(rule: .lastFM)
        _ = tracker.observe(look(.play, a, elapsed: 0), at: at(0))
        _ = tracker.lost(at: at(60))
        plays = finished(&tracker, [(90, look(.play, b, elapsed: 0))])
        #expect(plays.count == 1)
        #expect(plays[0].endedAt == at(60) && plays[0].playedSeconds == 60)
        #expect(tracker.current?.song == b)
    }

    @Test func afterACrashASavedPlayContinuesOrEndsWhereItWasSaved() {
        let saved = OpenPlay(song: a, songID: 3, startedAt: at(0), playedSeconds: 45, isPlaying: true, asOf: at(45), position: 45)
        // Restarted 20 s after the last save; MPD kept playing the same song meanwhile.
        var tracker = PlayTracker(rule: .lastFM, resuming: saved)
        var plays = finished(&tracker, [
            (65, look(.play, a, id: 3, elapsed: 65)),
            (120, look(.stop, nil)),
        ])
        #expect(plays.count == 1)
        #expect(plays[0].playedSeconds == 120)
        #expect(plays[0].startedAt == at(0))
        // MPD moved on to another song: the saved play ends with the time known.
        tracker = PlayTracker(rule: .lastFM, resuming: saved)
        plays = finished(&tracker, [(300, look(.play, b, id: 4, elapsed: 5))])
        #expect(plays.count == 1)
        #expect(plays[0].endedAt == at(45) && plays[0].playedSeconds == 45 && !plays[0].counted)
        // MPD is stopped now.
        tracker = PlayTracker(rule: .lastFM, resuming: saved)
        plays = finished(&tracker, [(300, look(.stop, nil))])
        #expect(plays.map(\.playedSeconds) == [45])
        #expect(tracker.current == nil)
    }

    @Test func aPositionFurtherThanTheTimeAwayIsANewListen() {
        let saved = OpenPlay(song: a, songID: 3, startedAt: at(0), playedSeconds: 45, isPlaying: true, asOf: at(45), position: 45)
        // Back 10 s later, but the song is 150 s further on: not the same listen.
        var tracker = PlayTracker(rule: .lastFM, resuming: saved)
        let plays = finished(&tracker, [(55, look(.play, a, id: 3, elapsed: 150))])
        #expect(plays.map(\.playedSeconds) == [45])
        #expect(tracker.current?.startedAt == at(55 - 150))
    }

    @Test func aClockJumpingBackNeverMakesNegativeTime() {
        var tracker = PlayTracker(rule: .lastFM)
        var plays = finished(&tracker, [
            (100, look(.play, a, id: 1, elapsed: 0)),
            (50, look(.play, b, id: 2, elapsed: 3)),   // the clock went back 50 s
            (60, look(.stop, nil)),
        ])
        #expect(plays.allSatisfy { $0.playedSeconds >= 0 && $0.endedAt >= $0.startedAt })
        tracker = PlayTracker(rule: .lastFM)
        _ = tracker.observe(look(.play, a, elapsed: 0), at: at(100))
        _ = tracker.lost(at: at(110))
        plays = finished(&tracker, [(20, look(.play, a, elapsed: 10)), (30, look(.stop, nil))])
        #expect(plays.allSatisfy { $0.playedSeconds >= 0 && $0.endedAt >= $0.startedAt })
    }

    @Test func eachStreamTitleIsItsOwnPlay() {
        let station = "http://radio.example/live"
        func stream(_ title: String) -> SongInfo { SongInfo(uri: station, tags: ["Title": title, "Name": "Radio"]) }
        var tracker = PlayTracker(rule: .lastFM)
        let plays = finished(&tracker, [
            (0, look(.play, stream("A - One"), elapsed: 0)),
            (70, look(.play, stream("B - Two"), elapsed: 70)),
            (100, look(.play, stream("C - Three"), elapsed: 100)),
            (101, look(.stop, nil)),
        ])
        #expect(plays.map(\.song.track.artist) == ["A", "B", "C"])
        #expect(plays.map(\.playedSeconds) == [70, 30, 1])
        #expect(plays.map(\.counted) == [true, false, false])
    }

    @Test func progressReportsPlayedTimeSoFar() {
        var tracker = PlayTracker(rule: .lastFM)
        _ = tracker.observe(look(.play, a, elapsed: 0), at: at(0))
        #expect(tracker.progress(at: at(15))?.playedSeconds == 15)
        #expect(tracker.progress(at: at(15))?.position == 15)
        _ = tracker.observe(look(.pause, a, elapsed: 20), at: at(20))
        #expect(tracker.progress(at: at(100))?.playedSeconds == 20)
    }
}
