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
