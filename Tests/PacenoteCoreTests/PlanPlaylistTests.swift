import Foundation
import Testing
@testable import PacenoteCore

/// `PlanPlaylist`: the playlist made before a planned run fills the plan's time, each song
/// chosen for the segment it mostly plays in, and the listener's swaps keep what comes before.
@Suite struct PlanPlaylistTests {
    typealias PP = PlanPlaylist

    static let tempos = PP.Tempos(model: .percentMax(maxHR: 190))

    static func timeline(_ text: String) throws -> [WorkoutPlan.Planned] {
        let plan = try WorkoutPlan(name: "test", text: text)
        try plan.validate()
        return plan.timeline()
    }

    /// `n` tracks from a seed: 150–330 s, tempos 70–180 bpm (a tenth without), every tenth
    /// a second version of the song before it, n / 12 artists, scores 0–1.
    static func library(_ n: Int, seed: UInt64 = 3) -> [PP.Track] {
        var rng = SyntheticHistory.RNG(seed: seed)
        return (0..<n).map { i in
            let seconds = 150 + Int(rng.unit() * 180)
            let bpm: Double? = rng.unit() < 0.1 ? nil : (70 + rng.unit() * 110).rounded()
            let artist = Int32(rng.next() % UInt64(max(n / 12, 1)))
            return PP.Track(id: Int64(i + 1), seconds: seconds, bpm: bpm, songKey: Int32(i % 10 == 9 ? i - 1 : i),
                            artist: artist, score: rng.unit())
        }
    }

    static func track(_ id: Int64, _ seconds: Int, bpm: Double?, key: Int32? = nil, artist: Int32 = -1,
                      score: Double = 0) -> PP.Track {
        PP.Track(id: id, seconds: seconds, bpm: bpm, songKey: key ?? Int32(id), artist: artist, score: score)
    }

    /// What every playlist that reaches its plan's end must be: songs end to end from 0, the
    /// last one starting before the plan ends and ending at or after it, no song twice, each
    /// entry in the segment holding most of it, and a tempo that fits it there when it says so.
    static func expectFills(_ playlist: PP.Playlist, _ timeline: [WorkoutPlan.Planned], _ library: [PP.Track],
                            open: Int = PP.defaultOpenSeconds, sourceLocation: SourceLocation = #_sourceLocation) {
        let byID = Dictionary(library.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var starts: [Int] = []
        var total = 0
        for p in timeline {
            starts.append(total)
            total += p.seconds ?? open
        }
        #expect(playlist.planSeconds == total, sourceLocation: sourceLocation)
        #expect(playlist.short == nil, sourceLocation: sourceLocation)
        guard let last = playlist.entries.last else {
            Issue.record("no songs", sourceLocation: sourceLocation)
            return
        }
        #expect(last.start < total && last.end >= total, "ends within one song of the plan", sourceLocation: sourceLocation)
        var keys = Set<Int32>()
        var at = 0
        for e in playlist.entries {
            guard let track = byID[e.trackID] else {
                Issue.record("track \(e.trackID) is not in the library", sourceLocation: sourceLocation)
                continue
            }
            #expect(e.start == at, sourceLocation: sourceLocation)
            #expect(e.seconds == track.seconds, sourceLocation: sourceLocation)
            at = e.end
            #expect(keys.insert(track.songKey).inserted, "song \(track.songKey) twice", sourceLocation: sourceLocation)
            let overlaps = timeline.indices.map { i in
                let end = i + 1 < starts.count ? starts[i + 1] : total
                return max(0, min(end, min(e.end, total)) - max(starts[i], e.start))
            }
            #expect(overlaps.firstIndex(of: overlaps.max()!) == e.segment, "song at \(e.start) mostly plays in \(overlaps)",
                    sourceLocation: sourceLocation)
            guard e.reason == .tempoFits, let bpm = track.bpm else { continue }
            let segmentEnd = e.segment + 1 < starts.count ? starts[e.segment + 1] : total
            let middle = Double(max(starts[e.segment], e.start) + min(segmentEnd, e.end)) / 2
            let fraction = (middle - Double(starts[e.segment])) / Double(segmentEnd - starts[e.segment])
            let target = tempos.tempo(for: timeline[e.segment].target, at: fraction)
            #expect(target.fit(bpm: bpm) != nil && e.tempo == target.fit(bpm: bpm),
                    "\(bpm) bpm at \(e.start) fits \(target)", sourceLocation: sourceLocation)
        }
    }

    @Test func eachTargetAsksForATempo() {
        let t = Self.tempos
        #expect(t.tempo(for: .free, at: 0) == .any)
        #expect(t.tempo(for: .zone(4), at: 0) == .window(130...140))
        #expect(t.tempo(for: .ramp(from: 2, to: 4), at: 0.1) == .window(120...130))
        #expect(t.tempo(for: .ramp(from: 2, to: 4), at: 0.5) == .window(125...135))
        #expect(t.tempo(for: .ramp(from: 2, to: 4), at: 0.9) == .window(130...140))
        // 140–155 is 147.5 in the middle: 77 % of 190, Z3.
        #expect(t.tempo(for: .heartRate(140...155), at: 0) == .window(125...135))
        #expect(t.tempo(for: .cadence(170...180), at: 0) == .cadence(stepsPerMinute: 175))
        #expect(t.tempo(for: .tempo(128...132), at: 0) == .window(128...132))
    }

    @Test func songsFitTheTempoOfTheSegmentTheyMostlyPlayIn() throws {
        let timeline = try Self.timeline(#"10 min Z2 "warm-up", 6 × [2 min Z5, 3 min Z2], 20 min Z2 → Z4, 5 min tempo 128-132, 5 min 170-180 spm, 5 min 140-155 bpm, open Z1"#)
        let library = Self.library(3000)
        let playlist = PP(timeline: timeline, library: library, tempos: Self.tempos, seed: 1).build()
        Self.expectFills(playlist, timeline, library)
        #expect(playlist.planSeconds == 600 + 6 * 300 + 1200 + 900 + 300)
        // A library this size has a fitting song for every place.
        #expect(playlist.entries.allSatisfy { $0.reason == .tempoFits })
        #expect(Set(playlist.entries.map(\.segment)).isSuperset(of: [0, 13, 14, 15, 16, 17]))
    }

    @Test func aRampsTempoRisesWithIt() throws {
        let timeline = try Self.timeline("20 min Z1 → Z5")
        let library = (1...200).map { Self.track(Int64($0), 240, bpm: Double(110 + $0 % 40)) }
        let entries = PP(timeline: timeline, library: library, tempos: Self.tempos).build().entries
        Self.expectFills(PP.Playlist(entries: entries, planSeconds: 1200), timeline, library)
        // The first song plays at Z1.4 (Z1), the last at Z4.6 (Z5).
        #expect((115...125).contains(entries.first!.tempo!.effectiveBPM))
        #expect((135...145).contains(entries.last!.tempo!.effectiveBPM))
    }

    /// 250-second songs: the third starts 100 s before Z5 and plays 150 s in it, so it is the
    /// one that brings Z5's tempo, before the segment changes.
    @Test func theTempoChangesWithTheSongThatCarriesIntoTheNextSegment() throws {
        let timeline = try Self.timeline("10 min Z1, 10 min Z5")
        let library = (1...40).map { Self.track(Int64($0), 250, bpm: $0 <= 20 ? 120 : 140, score: Double($0 % 7)) }
        let entries = PP(timeline: timeline, library: library, tempos: Self.tempos).build().entries
        #expect(entries.map(\.start) == [0, 250, 500, 750, 1000])
        #expect(entries.map(\.segment) == [0, 0, 1, 1, 1])
        #expect(entries.map { $0.tempo?.effectiveBPM } == [120, 120, 140, 140, 140])
        Self.expectFills(PP.Playlist(entries: entries, planSeconds: 1200), timeline, library)
    }

    @Test func aSongThatEndsWithItsSegmentComesBeforeABetterLikedOneThatSpills() throws {
        let timeline = try Self.timeline("5 min Z2, 10 min Z5")
        // The 400-second songs are liked better but would play 100 s of Z5 at Z2's tempo.
        let library = (1...5).map { Self.track(Int64($0), 290, bpm: 125) }
            + (6...10).map { Self.track(Int64($0), 400, bpm: 125, score: 5) }
            + (11...20).map { Self.track(Int64($0), 200, bpm: 140) }
        let entries = PP(timeline: timeline, library: library, tempos: Self.tempos).build().entries
        #expect(entries[0].seconds == 290)
        // 10 s before Z5: a Z5 song, spilling 10 s back, less than a step.
        #expect(entries[1].start == 290 && entries[1].segment == 1 && entries[1].tempo?.effectiveBPM == 140)
        Self.expectFills(PP.Playlist(entries: entries, planSeconds: 900), timeline, library)
    }

    @Test func itFallsBackToSongsWithoutATempoThenToAny() throws {
        let timeline = try Self.timeline("10 min Z5")
        let library = [Self.track(1, 200, bpm: 140), Self.track(2, 200, bpm: nil)]
            + (3...7).map { Self.track(Int64($0), 200, bpm: 100) }
        let entries = PP(timeline: timeline, library: library, tempos: Self.tempos).build().entries
        #expect(entries.map(\.reason) == [.tempoFits, .noBPM, .nothingFits])
        #expect(entries.map(\.trackID).prefix(2) == [1, 2])
        #expect(entries[1].tempo == nil && entries[2].tempo == nil)
    }

    @Test func aFreeSegmentTakesAnyTempo() throws {
        let timeline = try Self.timeline("10 min free")
        let library = [Self.track(1, 300, bpm: 60, score: 2), Self.track(2, 300, bpm: nil, score: 1)]
        let entries = PP(timeline: timeline, library: library, tempos: Self.tempos).build().entries
        #expect(entries.map(\.trackID) == [1, 2])
        #expect(entries.map(\.reason) == [.anyTempo, .anyTempo])
    }

    @Test func noSongComesTwice() throws {
        let timeline = try Self.timeline("60 min Z2")
        // Fifty versions of ten songs.
        let library = (0..<50).map { (i: Int) -> PP.Track in Self.track(Int64(i + 1), 200, bpm: 125, key: Int32(i / 5), score: Double(i)) }
        let playlist = PP(timeline: timeline, library: library, tempos: Self.tempos).build()
        #expect(playlist.entries.count == 10)
        #expect(Set(playlist.entries.map { ($0.trackID - 1) / 5 }).count == 10)
        // The best-scored version of each.
        #expect(playlist.entries.allSatisfy { $0.trackID % 5 == 0 })
        #expect(playlist.short == .songsUsedUp(10))
        #expect(playlist.short?.description == "the library has only 10 songs, too few to fill the plan")
    }

    @Test func songKeysFarApartAndUnknownScoresAreTakenAsTheyCome() throws {
        let timeline = try Self.timeline("60 min Z2")
        // Keys from a hash rather than the model's slots, two versions each; an unknown
        // score is below any known one, so the first song's other version (at -10) is taken.
        let keys: [Int32] = [.min, .max, 0, -7]
        let scores: [Double] = [.nan, 1, -0.0, -5]
        let library = (0..<8).map { (i: Int) -> PP.Track in
            Self.track(Int64(i + 1), 200, bpm: 125, key: keys[i % 4], score: i < 4 ? scores[i] : -10)
        }
        let playlist = PP(timeline: timeline, library: library, tempos: Self.tempos).build()
        #expect(playlist.entries.map(\.trackID) == [2, 3, 4, 5])
        #expect(playlist.short == .songsUsedUp(4))
    }

    @Test func notTheSameArtistTwiceInARow() throws {
        let timeline = try Self.timeline("40 min Z2")
        // Artist 1's songs are liked best; the others still come between them.
        let library = (1...10).map { Self.track(Int64($0), 200, bpm: 125, artist: 1, score: 10) }
            + (11...20).map { Self.track(Int64($0), 200, bpm: 125, artist: Int32($0), score: 1) }
        let entries = PP(timeline: timeline, library: library, tempos: Self.tempos).build().entries
        let artists = entries.map { library[Int($0.trackID) - 1].artist }
        #expect(zip(artists, artists.dropFirst()).allSatisfy { $0 != $1 })
        #expect(artists.first == 1)
        // With no one else, the same artist it is.
        let alone = PP(timeline: timeline, library: Array(library.prefix(10)), tempos: Self.tempos).build()
        #expect(alone.entries.count == 10)
    }

    @Test func openEndedSegmentsLastTheAssumedLength() throws {
        let timeline = try Self.timeline("5 min Z2, open Z1")
        let library = Self.library(500)
        for open in [PP.defaultOpenSeconds, 900] {
            let playlist = PP(timeline: timeline, library: library, tempos: Self.tempos, openSeconds: open).build()
            #expect(playlist.planSeconds == 300 + open)
            Self.expectFills(playlist, timeline, library, open: open)
            #expect(playlist.entries.contains { $0.segment == 1 })
        }
    }

    @Test func anEmptyLibraryOrPlanGivesAnEmptyPlaylistAndSaysWhy() throws {
        let timeline = try Self.timeline("30 min Z3")
        for library in [[], [Self.track(1, 0, bpm: 130)]] {
            let playlist = PP(timeline: timeline, library: library, tempos: Self.tempos).build()
            #expect(playlist.entries.isEmpty)
            #expect(playlist.short == .emptyLibrary)
            #expect(playlist.short?.description == "the library has no tracks with a known length to fill the plan with")
        }
        let none = PP(timeline: [], library: Self.library(10), tempos: Self.tempos)
        #expect(none.build() == PP.Playlist(entries: [], planSeconds: 0, short: .emptyPlan))
        #expect(throws: PP.Problem("the plan has no segments to fill with music")) { try none.remove([], at: 0) }
    }

    @Test func theSameSeedGivesTheSamePlaylist() throws {
        let timeline = try Self.timeline("30 min Z3")
        // Everything ties: only the seed orders them.
        let library = (1...100).map { Self.track(Int64($0), 200, bpm: 130) }
        func ids(_ seed: UInt64) -> [Int64] {
            PP(timeline: timeline, library: library, tempos: Self.tempos, seed: seed).build().entries.map(\.trackID)
        }
        #expect(ids(1) == ids(1))
        #expect(ids(1) != ids(2))
        let big = Self.library(2000)
        let a = PP(timeline: timeline, library: big, tempos: Self.tempos, seed: 9)
        let b = PP(timeline: timeline, library: big.reversed(), tempos: Self.tempos, seed: 9)
        #expect(a.build() == b.build())
    }

    @Test func aSwapKeepsTheSongsBeforeAndRefitsTheRest() throws {
        let timeline = try Self.timeline("10 min Z2, 4 × [3 min Z5, 2 min Z2], 15 min Z3")
        let library = Self.library(1000)
        let plan = PP(timeline: timeline, library: library, tempos: Self.tempos, seed: 4)
        let before = plan.build().entries
        let songs = Set(before.map { library[Int($0.trackID) - 1].songKey })
        // A song of another length than the one it replaces, not in the playlist yet.
        let chosen = try #require(library.first {
            !songs.contains($0.songKey) && $0.seconds != before[3].seconds && $0.seconds > 200
        })
        let after = try plan.rebalance(before, swapping: 3, with: chosen.id)
        #expect(Array(after.entries.prefix(3)) == Array(before.prefix(3)))
        #expect(after.entries[3].trackID == chosen.id && after.entries[3].start == before[3].start)
        #expect(after.entries[3].reason == .chosen)
        Self.expectFills(after, timeline, library)
        // The song swapped out does not come back.
        #expect(!after.entries.contains { $0.trackID == before[3].trackID })
        #expect(try plan.rebalance(before, swapping: 3, with: chosen.id) == after)
    }

    @Test func removingASongClosesTheGap() throws {
        let timeline = try Self.timeline("10 min Z2, 4 × [3 min Z5, 2 min Z2], 15 min Z3")
        let library = Self.library(1000)
        let plan = PP(timeline: timeline, library: library, tempos: Self.tempos, seed: 4)
        let before = plan.build().entries
        for index in [0, 2, before.count - 1] {
            let after = try plan.remove(before, at: index)
            #expect(Array(after.entries.prefix(index)) == Array(before.prefix(index)))
            #expect(after.entries[index].start == (index == 0 ? 0 : before[index - 1].end))
            #expect(!after.entries.contains { $0.trackID == before[index].trackID })
            Self.expectFills(after, timeline, library)
        }
    }

    @Test func aSwapThatCannotBeMadeSaysWhy() throws {
        let timeline = try Self.timeline("30 min Z3")
        // Two versions of each song.
        let library = (1...30).map { Self.track(Int64($0), 200, bpm: 130, key: Int32(($0 + 1) / 2)) }
        let plan = PP(timeline: timeline, library: library, tempos: Self.tempos)
        let entries = plan.build().entries
        #expect(throws: PP.Problem("there is no song \(entries.count + 1) in a playlist of \(entries.count) songs")) {
            try plan.rebalance(entries, swapping: entries.count, with: nil)
        }
        #expect(throws: PP.Problem("track 99999 is not in the library, or its length is not known")) {
            try plan.rebalance(entries, swapping: 2, with: 99999)
        }
        // Another version of the first song, put third.
        let first = entries[0].trackID
        let twin = first % 2 == 1 ? first + 1 : first - 1
        #expect(throws: PP.Problem("that song is already in the playlist, at 0 s")) {
            try plan.rebalance(entries, swapping: 2, with: twin)
        }
        // Swapping the first song for its other version is fine.
        #expect(try plan.rebalance(entries, swapping: 0, with: twin).entries.first?.trackID == twin)
    }

    /// The lead's benchmark times it in release; this checks a full-size case is right and
    /// prints what it took in this build.
    @Test func aNinetyMinutePlanFromTwentyThousandTracks() throws {
        let timeline = try Self.timeline("10 min Z2, 5 × [3 min Z4, 2 min Z2], 20 min Z2 → Z4, 10 min tempo 128-132, 15 min 170-180 spm, 5 min 140-155 bpm, open Z1")
        let library = Self.library(20_000, seed: 11)
        let clock = ContinuousClock()
        func ms(_ d: Duration) -> String { String(format: "%.1f", Double(d.components.attoseconds) / 1e15 + Double(d.components.seconds) * 1000) }
        var plan: PP!
        let prepared = clock.measure { plan = PP(timeline: timeline, library: library, tempos: Self.tempos, seed: 5) }
        var playlist: PP.Playlist!
        let built = clock.measure { playlist = plan.build() }
        #expect(playlist.planSeconds == 90 * 60)
        Self.expectFills(playlist, timeline, library)
        #expect(playlist.entries.allSatisfy { $0.reason == .tempoFits })
        let index = playlist.entries.count / 2
        var swapped: PP.Playlist!
        let rebalanced = try clock.measure { swapped = try plan.rebalance(playlist.entries, swapping: index, with: nil) }
        #expect(Array(swapped.entries.prefix(index)) == Array(playlist.entries.prefix(index)))
        Self.expectFills(swapped, timeline, library)
        print("PlanPlaylist, 20,000 tracks, 90 min plan, \(playlist.entries.count) songs: prepare \(ms(prepared)) ms, build \(ms(built)) ms, rebalance \(ms(rebalanced)) ms")
    }
}
