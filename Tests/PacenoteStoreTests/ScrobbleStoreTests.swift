import Foundation
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// The same play arriving by two routes is stored once; a short song played twice in a
/// row stays two plays.
@Suite struct ScrobbleStoreTests {
    static let t = Date(timeIntervalSince1970: 1_767_297_600)

    func scrobble(_ store: Store, _ track: Track, at offset: Double) throws -> Int {
        try store.recordListens([(track, Self.t.addingTimeInterval(offset), "mpdscribble")], source: "mpdscribble",
                                sameWithin: Store.scrobbleWindow).count
    }

    @Test func watcherPlayAndMpdscribbleOfItAreOnePlay() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        // The watcher's play of a file (milliseconds), then mpdscribble's of the same song (whole seconds, no file).
        let id = try store.saveTrack(Track(uri: "a.flac", title: "Alpha", artist: "Tester", durationSeconds: 200))
        try store.insertPlay(Play(trackID: id, startedAt: Self.t.addingTimeInterval(0.4), endedAt: Self.t.addingTimeInterval(200.4),
                                  playedSeconds: 200, counted: true, source: "mpd", player: "default"))
        #expect(try scrobble(store, Track(title: "Alpha", artist: "Tester", durationSeconds: 200), at: 1) == 0)
        // A client retrying with its clock a minute off.
        #expect(try scrobble(store, Track(title: "alpha", artist: "TESTER", durationSeconds: 200), at: 60) == 0)
        #expect(try scrobble(store, Track(title: "Alpha", artist: "Tester"), at: -60) == 0)
        // Another song at the same time is another play.
        #expect(try scrobble(store, Track(title: "Beta", artist: "Tester"), at: 1) == 1)
        #expect(try store.plays(limit: 10).count == 2)
    }

    @Test func aShortSongOnRepeatIsTwoPlays() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let song = Track(title: "Short", artist: "Loop", durationSeconds: 30)
        #expect(try scrobble(store, song, at: 0) == 1)
        #expect(try scrobble(store, song, at: 30) == 1, "the first ended as the second began")
        #expect(try scrobble(store, song, at: 60) == 1)
        #expect(try scrobble(store, song, at: 30) == 0, "the same scrobble again")
        // The watcher's plays of the same short song back to back, then mpdscribble's of both.
        let id = try store.saveTrack(Track(uri: "s.flac", title: "Tiny", artist: "Loop", durationSeconds: 31))
        for start in [1000.2, 1031.3] {
            try store.insertPlay(Play(trackID: id, startedAt: Self.t.addingTimeInterval(start), endedAt: Self.t.addingTimeInterval(start + 31),
                                      playedSeconds: 31, counted: true, source: "mpd", player: "default"))
        }
        #expect(try scrobble(store, Track(title: "Tiny", artist: "Loop", durationSeconds: 31), at: 1000) == 0)
        #expect(try scrobble(store, Track(title: "Tiny", artist: "Loop", durationSeconds: 31), at: 1031) == 0)
        // mpdscribble stamps a play when it submits it, as the song ends: the second play's end.
        #expect(try scrobble(store, Track(title: "Tiny", artist: "Loop", durationSeconds: 31), at: 1062) == 0, "the second play's end")
        #expect(try scrobble(store, Track(title: "Tiny", artist: "Loop", durationSeconds: 31), at: 1100) == 1, "a third play")
        #expect(try store.plays(limit: 10).count == 6)
    }

    /// mpdscribble first, then the watcher's own record of the same play (either order
    /// happens): the watcher's record takes the scrobble's row, once.
    @Test func theWatchersRecordReplacesAScrobbleOfTheSamePlay() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        // Stamped at the end of the play (18 s after it began), with the song's length.
        #expect(try scrobble(store, Track(title: "One", artist: "Both", durationSeconds: 32), at: 118) == 1)
        let song = SongInfo(uri: "f/one.flac", tags: ["Title": "One", "Artist": "Both"], durationSeconds: 32)
        let finished = FinishedPlay(song: song, startedAt: Self.t.addingTimeInterval(100.4), endedAt: Self.t.addingTimeInterval(118.5),
                                    playedSeconds: 18.1, counted: true)
        #expect(try store.record(player: "default", finished: [finished], open: .clear).isEmpty, "no new play")
        let plays = try store.plays(limit: 10)
        #expect(plays.count == 1)
        #expect(plays.first?.play.source == "mpd" && plays.first?.play.playedSeconds == 18.1 && plays.first?.track.uri == "f/one.flac",
                "\(plays)")
        #expect(abs((plays.first?.play.startedAt ?? .distantPast).timeIntervalSince(Self.t.addingTimeInterval(100.4))) < 0.001)
        // The next play of the same song, back to back, is another play.
        let again = FinishedPlay(song: song, startedAt: Self.t.addingTimeInterval(118.6), endedAt: Self.t.addingTimeInterval(150.6),
                                 playedSeconds: 32, counted: true)
        #expect(try store.record(player: "default", finished: [again], open: .clear).count == 1)
    }
}
