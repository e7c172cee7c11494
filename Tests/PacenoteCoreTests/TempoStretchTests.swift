import Foundation
import PacenoteCore
import Testing

/// The pure half of tempo-matched playback (issue 56): how much a song is sped up or slowed
/// down for a target, and that a copy's play counts as the original's would.
struct TempoStretchTests {
    @Test func aCadenceIsMetOneToOneWithinTheLimit() throws {
        let plan = try #require(TempoStretch.plan(bpm: 163, target: .cadence(stepsPerMinute: 170), maxChange: 0.08))
        #expect(abs(plan.ratio - 170.0 / 163) < 1e-9)
        #expect(abs(plan.playedBPM - 170) < 1e-9)
        #expect(plan.factor == 1 && abs(plan.targetBPM - 170) < 1e-9)
    }

    @Test func halfTimeSongsMeetACadenceTwoToOne() throws {
        // An 85 bpm song is a 170 spm song: a beat every two steps, played at its own tempo.
        #expect(TempoStretch.plan(bpm: 85, target: .cadence(stepsPerMinute: 170), maxChange: 0.08) == nil)
        let plan = try #require(TempoStretch.plan(bpm: 82, target: .cadence(stepsPerMinute: 170), maxChange: 0.08))
        #expect(plan.factor == 2)
        #expect(abs(plan.playedBPM - 85) < 1e-9 && abs(plan.targetBPM - 170) < 1e-9)
    }

    @Test func theChangeIsCappedEitherWay() throws {
        let up = try #require(TempoStretch.plan(bpm: 140, target: .cadence(stepsPerMinute: 170), maxChange: 0.08))
        #expect(abs(up.ratio - 1.08) < 1e-9)
        let down = try #require(TempoStretch.plan(bpm: 190, target: .cadence(stepsPerMinute: 170), maxChange: 0.05))
        #expect(abs(down.ratio - 0.95) < 1e-9)
    }

    @Test func aZoneWindowPullsTowardsItsCentre() throws {
        let plan = try #require(TempoStretch.plan(bpm: 126, target: .window(130...140), maxChange: 0.08))
        #expect(abs(plan.playedBPM - 135) < 1e-9)
        // Double time: a 64 bpm song fits 128, and is brought to 135 at 67.5.
        let half = try #require(TempoStretch.plan(bpm: 64, target: .window(130...140), maxChange: 0.08))
        #expect(half.factor == 2 && abs(half.playedBPM - 67.5) < 1e-9)
    }

    @Test func nothingToDoWithoutATargetABPMOrAChangeWorthARender() {
        #expect(TempoStretch.plan(bpm: 120, target: .any, maxChange: 0.08) == nil)
        #expect(TempoStretch.plan(bpm: nil, target: .cadence(stepsPerMinute: 170), maxChange: 0.08) == nil)
        #expect(TempoStretch.plan(bpm: .nan, target: .cadence(stepsPerMinute: 170), maxChange: 0.08) == nil)
        #expect(TempoStretch.plan(bpm: 169, target: .cadence(stepsPerMinute: 170), maxChange: 0.08) == nil)
        #expect(TempoStretch.plan(bpm: 135, target: .window(130...140), maxChange: 0.08) == nil)
    }

    @Test func aCopysPlayCountsByTheOriginalsLength() {
        let rule = PlayRule.lastFM
        // A 31 s song sped up 8 % plays for 28.7 s: played whole, it counts as the song would.
        #expect(rule.counts(played: 28.6, duration: 31 / 1.08, tempoRatio: 1.08))
        #expect(!rule.counts(played: 28.6, duration: 31 / 1.08))
        #expect(!rule.counts(played: 10, duration: 31 / 1.08, tempoRatio: 1.08))
    }

    @Test func aCopysTrackKeepsTheOriginalsLength() throws {
        var song = SongInfo(uri: "run/stride.flac", tags: ["Title": "Stride"], durationSeconds: 240 / 1.05)
        song.tempo = TempoPlayback(ratio: 1.05, playedBPM: 168)
        #expect(abs((song.track.durationSeconds ?? 0) - 240) < 1e-9)
        let decoded = try JSONDecoder().decode(SongInfo.self, from: JSONEncoder().encode(song))
        #expect(decoded == song)
        // A song saved before tempo playback existed reads as one without.
        let old = try JSONDecoder().decode(SongInfo.self, from: Data(#"{"uri": "a.flac", "tags": {}}"#.utf8))
        #expect(old.tempo == nil)
    }
}
