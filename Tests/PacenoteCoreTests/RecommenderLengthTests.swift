import Foundation
import Testing
@testable import PacenoteCore

/// A planned workout's length preference: within a tempo tier, the song that ends nearest
/// its segment's end leads; tiers and exploration picks keep their places.
@Suite struct RecommenderLengthTests {
    func suggestion(_ id: Int64, score: Double, tier: Int = 0, exploration: Bool = false) -> Recommender.Suggestion {
        Recommender.Suggestion(track: ListeningModel.Candidate(id: id, uri: "\(id).flac", title: "S\(id)", artist: nil, bpm: tier == 0 ? 120 : nil, inLibrary: true),
                               score: score, tier: tier, tempo: nil,
                               reasons: exploration ? [Recommender.Reason(kind: "exploration", weight: 0, detail: "")] : [])
    }

    @Test func theSongThatFitsWhatIsLeftLeadsItsTier() {
        let list = [suggestion(1, score: 3.0), suggestion(2, score: 2.8), suggestion(3, score: 2.5), suggestion(4, score: 9, tier: 1)]
        // 60 s left of the segment: song 2 (60 s) fits exactly, song 1 (240 s) not at all.
        let out = Recommender.preferringLength(list, fit: 60, durations: [1: 240, 2: 60, 3: 75, 4: 60], limit: 4)
        // 2: 2.8 + 0.6; 1: 3.0 (no bonus); 3: 2.5 + 0.3 (75 s is 25 % off, half the weight).
        #expect(out.map(\.track.id) == [2, 1, 3, 4])
        #expect(out[0].score == 2.8 + Recommender.lengthWeight)
        #expect(out[0].reasons.last?.kind == "length_fits" && out[0].reasons.last?.detail == "60 s for the 60 s left of its segment")
        #expect(abs(out[2].score - (2.5 + Recommender.lengthWeight / 2)) < 1e-9)
        // Song 4 has no BPM: it stays in the second tier whatever its length.
        #expect(out[3].tier == 1 && out[3].score == 9 + Recommender.lengthWeight)
        #expect(!out[1].reasons.contains { $0.kind == "length_fits" })
    }

    @Test func unknownLengthsAndTiesKeepTheRankingsOrderAndTheLimitCuts() {
        let list = [suggestion(1, score: 2), suggestion(2, score: 2), suggestion(3, score: 1)]
        #expect(Recommender.preferringLength(list, fit: 100, durations: [:], limit: 2).map(\.track.id) == [1, 2])
        #expect(Recommender.preferringLength(list, fit: 0, durations: [3: 100], limit: 3).map(\.track.id) == [1, 2, 3])
    }

    @Test func anExplorationPickKeepsItsPlace() {
        let list = [suggestion(1, score: 2.4), suggestion(2, score: 2), suggestion(3, score: 0.1, exploration: true), suggestion(4, score: 1.9)]
        let out = Recommender.preferringLength(list, fit: 30, durations: [4: 30], limit: 3)
        #expect(out.map(\.track.id) == [4, 1, 3])
        // Asked for a longer list, the ranking put its pick past the places shown: it is kept,
        // at the end of the first tier.
        let long = (1...5).map { suggestion(Int64($0), score: 10 - Double($0)) } + [suggestion(6, score: 0.2, exploration: true)]
        #expect(Recommender.preferringLength(long, fit: 30, durations: [:], limit: 3).map(\.track.id) == [1, 2, 6])
    }
}
