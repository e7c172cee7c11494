import Foundation
import PacenoteCore
import Testing

/// The now-playing card's pure parts: which fields show, when it is blank, and the private
/// session's window and durations (issue 58, point 6).
@Suite struct NowCardUnitTests {
    static let at = Date(timeIntervalSince1970: 1_767_225_600)
    static let track = Track(id: 7, uri: "a.flac", title: "Song", artist: "Artist", album: "Album")

    static func playing(_ state: NowPlaying.State = .play, track: Track = track) -> NowPlaying {
        NowPlaying(player: "default", state: state, track: track, startedAt: at, playedSeconds: 10, elapsed: 10, duration: 200, at: at)
    }

    @Test func onlyTheTickedFieldsShow() {
        let run = NowCard.Workout(sport: "Running", zone: .z4)
        #expect(NowCard.make(playing: Self.playing(), fields: [.song], privateSessionOn: false, workout: run) == NowCard(song: "Song"))
        #expect(NowCard.make(playing: Self.playing(), fields: [.song, .artist, .album, .cover], privateSessionOn: false, workout: run)
                == NowCard(song: "Song", artist: "Artist", album: "Album", coverTrackID: 7))
        // Heart rate is private unless ticked; ticked, it shows the sport and zone.
        #expect(NowCard.make(playing: Self.playing(), fields: [.artist, .workout], privateSessionOn: false, workout: run)
                == NowCard(artist: "Artist", workout: "running · Z4"))
        #expect(NowCard.make(playing: Self.playing(), fields: [.song, .workout], privateSessionOn: false, workout: nil) == NowCard(song: "Song"),
                "no workout in progress: no line")
        #expect(NowCard.Workout(sport: nil, zone: .z2).line == "workout · Z2")
        #expect(NowCard.Workout(sport: "  ", zone: .z5).line == "workout · Z5")
    }

    @Test func blankWhileNothingPlaysOrPrivate() {
        let all = Set(NowCard.Field.allCases)
        #expect(NowCard.make(playing: nil, fields: all, privateSessionOn: false, workout: nil) == nil)
        #expect(NowCard.make(playing: Self.playing(.pause), fields: all, privateSessionOn: false, workout: nil) == nil, "paused")
        #expect(NowCard.make(playing: Self.playing(), fields: all, privateSessionOn: true, workout: nil) == nil, "a private session")
        // Nothing ticked that the song has: blank too, not an empty card.
        var bare = Self.track
        bare.artist = nil
        bare.album = nil
        #expect(NowCard.make(playing: Self.playing(track: bare), fields: [.artist, .album], privateSessionOn: false, workout: nil) == nil)
        bare.albumArtist = "Band"
        #expect(NowCard.make(playing: Self.playing(track: bare), fields: [.artist], privateSessionOn: false, workout: nil)?.artist == "Band")
    }

    @Test func fieldsAreReadAsWrittenOnceEach() {
        #expect(NowCard.fields(["song", " Artist ", "song", "cover"]) == .success([.song, .artist, .cover]))
        guard case .failure(let problem) = NowCard.fields(["song", "heart_rate"]) else {
            Issue.record("an unknown field is refused")
            return
        }
        #expect(problem.name == "heart_rate")
        #expect(NowCard.fields([]) == .success([]))
    }

    @Test func aPrivateSessionCoversThePlaysThatTouchItsWindow() {
        let s = PrivateSession.starting(at: Self.at, lasting: 1800)
        #expect(s.until == Self.at.addingTimeInterval(1800))
        #expect(s.isOn(at: Self.at) && s.isOn(at: Self.at.addingTimeInterval(1799.9)))
        #expect(!s.isOn(at: Self.at.addingTimeInterval(1800)) && !s.isOn(at: Self.at.addingTimeInterval(-1)), "it ends at its time")
        #expect(s.secondsLeft(at: Self.at.addingTimeInterval(600)) == 1200)
        #expect(s.secondsLeft(at: Self.at.addingTimeInterval(4000)) == 0)
        func covers(_ start: Double, _ end: Double) -> Bool {
            s.covers(start: Self.at.addingTimeInterval(start), end: Self.at.addingTimeInterval(end))
        }
        #expect(covers(-100, 10), "playing when it was turned on")
        #expect(covers(100, 300))
        #expect(covers(1700, 2000), "began before it ended")
        #expect(!covers(-300, -1), "over before it began")
        #expect(!covers(1800, 2000), "began after it ended")
        #expect(covers(-5, -10) == false, "an end before the start counts as the start")
        let open = PrivateSession.starting(at: Self.at, lasting: nil)
        #expect(open.isOn(at: Self.at.addingTimeInterval(86_400 * 365)) && open.secondsLeft(at: Self.at) == nil)
        #expect(open.covers(start: Self.at.addingTimeInterval(1e6), end: Self.at.addingTimeInterval(1e6 + 200)))
    }

    @Test func durationsAreMinutesOrSecondsWithinAWeek() {
        #expect(PrivateSession.duration(minutes: 30, seconds: nil) == .success(1800))
        #expect(PrivateSession.duration(minutes: nil, seconds: 5) == .success(5))
        #expect(PrivateSession.duration(minutes: nil, seconds: nil) == .success(nil), "until turned off")
        #expect(PrivateSession.duration(minutes: 0, seconds: nil) == .success(nil), "0: until turned off")
        #expect(PrivateSession.duration(minutes: 10080, seconds: nil) == .success(604_800))
        #expect(PrivateSession.duration(minutes: 10081, seconds: nil) == .failure(.outOfRange))
        #expect(PrivateSession.duration(minutes: -1, seconds: nil) == .failure(.outOfRange))
        #expect(PrivateSession.duration(minutes: nil, seconds: 0.5) == .failure(.outOfRange))
        #expect(PrivateSession.duration(minutes: .nan, seconds: nil) == .failure(.outOfRange))
        #expect(PrivateSession.duration(minutes: 1, seconds: 1) == .failure(.both))
    }
}
