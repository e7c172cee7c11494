import Foundation
import Testing
@testable import PacenoteCore

/// Likes, dislikes and "not now" in the ranking.
@Suite struct RecommenderFeelingTests {
    let helper = RecommenderTests()

    @Test func aDislikedSongIsNeverSuggestedInAnyVersionWhateverTheSeed() {
        var m = helper.model([(1, "A", "Loved", 135), (2, "A", "Hated", 136), (3, "A", "Hated (Live)", 137),
                              (4, "B", "Other", 134), (5, "C", "Fourth", nil)])
        // The disliked song is the most played: without the dislike it leads.
        for h in stride(from: 10.0, through: 100, by: 10) { helper.play(&m, 2, hoursAgo: h) }
        var base = helper.request(in: m)
        #expect(m.suggest(base).first?.track.id == 2)
        base.disliked = [2]
        for seed in UInt64(0)..<200 {
            var r = base
            r.seed = seed
            let ids = m.suggest(r).map(\.track.id)
            #expect(!ids.contains(2) && !ids.contains(3), "seed \(seed): \(ids)")
            #expect(ids.contains(1) && ids.contains(4))
        }
    }

    @Test func aLikedTrackIsFavouredWithinItsTierAndSaysWhy() throws {
        let m = helper.model([(1, "A", "One", 135), (2, "B", "Two", 135), (3, "C", "No tempo", nil), (4, "D", "Too slow", 90)])
        var r = helper.request(in: m)
        r.explorationShare = 0
        r.liked = [2, 3, 4]
        let out = m.suggest(r)
        #expect(out.map(\.track.id) == [2, 1, 3], "liked first in tier 0; a liked track without a tempo stays after; out of window stays out")
        let liked = try #require(out.first?.reasons.first { $0.kind == "liked" })
        #expect(liked.weight == Recommender.Weights().liked)
        #expect(out[1].reasons.allSatisfy { $0.kind != "liked" })
    }

    @Test func notNowLowersATrackWithoutRemovingIt() {
        var m = helper.model([(1, "A", "One", 135), (2, "B", "Two", 135)])
        helper.play(&m, 1, hoursAgo: 20)
        var r = helper.request(in: m)
        r.explorationShare = 0
        #expect(m.suggest(r).map(\.track.id) == [1, 2])
        r.notNow = [1]
        let out = m.suggest(r)
        #expect(out.map(\.track.id) == [2, 1])
        #expect(out.last?.reasons.contains { $0.kind == "not_now" && $0.weight == Recommender.Weights().notNow } == true)
    }
}

/// A song that made you faster on runs (`PaceEffect`), in the ranking while on the move.
@Suite struct RecommenderPaceTests {
    let helper = RecommenderTests()

    static func song(_ id: Int64, _ change: Double, plays: Int = 4, runs: Int = 3) -> PaceEffect.Song {
        PaceEffect.Song(trackID: id, plays: plays, runs: runs, speedChange: change, cadenceChange: nil)
    }

    @Test func aSongThatMadeYouFasterRisesWithItsReasonOnlyOnTheMove() throws {
        let m = helper.model([(1, "A", "One", 135), (2, "B", "Two", 135), (3, "C", "Three", 135)])
        var r = helper.request(in: m)
        r.explorationShare = 0
        let still = m.suggest(r).map(\.track.id)
        r.paceEffects = [2: Self.song(2, 0.06), 3: Self.song(3, 0.2), 1: Self.song(1, 0.3, plays: 2)]
        // No heart rate and no cadence target: not on the move, the effect does not count.
        r.zone = nil
        r.target = .window(120...150)
        #expect(m.suggest(r).allSatisfy { s in s.reasons.allSatisfy { $0.kind != "faster" } })
        #expect(m.suggest(r).map(\.track.id) == still)
        // With heart rate: 3 (capped at +1) before 2 (+0.6); 1 is not shown (two plays).
        r.zone = .z3
        let out = m.suggest(r)
        #expect(out.map(\.track.id) == [3, 2, 1], "\(out.map(\.track.id))")
        let three = try #require(out[0].reasons.first { $0.kind == "faster" })
        #expect(three.weight == 1 && three.detail == "20 % faster than in the 3 minutes before it, over 4 plays on 3 runs")
        #expect(abs((out[1].reasons.first { $0.kind == "faster" }?.weight ?? 0) - 0.6) < 1e-12)
        #expect(out[2].reasons.allSatisfy { $0.kind != "faster" }, "too few plays to mean something")
        // A song that slowed you down is lowered, and says so.
        r.paceEffects = [3: Self.song(3, -0.05)]
        let slower = m.suggest(r)
        #expect(slower.last?.track.id == 3)
        #expect(slower.last?.reasons.contains { $0.kind == "faster" && $0.weight == -0.5 && $0.detail.hasPrefix("5 % slower") } == true)
    }
}
