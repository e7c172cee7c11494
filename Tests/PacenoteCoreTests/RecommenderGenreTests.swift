import Testing
@testable import PacenoteCore

/// Cue's genres per effort (issue 58): steady-state zones 2–3 and threshold zones 4–5 each
/// have preferred genres, which raise a track within its tier (reason `genre`).
@Suite struct RecommenderGenreTests {
    let helper = RecommenderTests()

    @Test func theBandsAreSteadyInZ2AndZ3AndThresholdInZ4AndZ5() {
        let cue = Recommender.GenrePreference(steady: ["Downtempo", "deep  house"], threshold: ["Drum & Bass"])
        #expect(Recommender.GenrePreference.band(.z2) == "steady" && Recommender.GenrePreference.band(.z3) == "steady")
        #expect(Recommender.GenrePreference.band(.z4) == "threshold" && Recommender.GenrePreference.band(.z5) == "threshold")
        #expect(Recommender.GenrePreference.band(.z0) == nil && Recommender.GenrePreference.band(.z1) == nil
                && Recommender.GenrePreference.band(nil) == nil)
        #expect(cue.genres(in: .z3) == ["Downtempo", "deep  house"])
        #expect(cue.keys(in: .z2) == ["downtempo", "deep house"])
        #expect(cue.keys(in: .z5) == ["drum & bass"])
        #expect(cue.keys(in: .z1).isEmpty && cue.keys(in: nil).isEmpty)
        #expect(Recommender.GenrePreference().keys(in: .z4).isEmpty)
    }

    @Test func aTrackOfAPreferredGenreRisesWithItsReasonWithinItsTier() throws {
        // 1, 2 and 3 fit Z4's tempo; 4 has no BPM (second tier).
        let m = helper.model([(1, "A", "One", 135), (2, "B", "Two", 135), (3, "C", "Three", 135), (4, "D", "Four", nil)])
        var r = helper.request(zone: .z4, in: m)
        r.explorationShare = 0
        let plain = m.suggest(r)
        #expect(plain.allSatisfy { s in s.reasons.allSatisfy { $0.kind != "genre" } })
        r.preferredGenres = [3: "Drum & Bass", 4: "Drum & Bass"]
        let out = m.suggest(r)
        #expect(out.first?.track.id == 3, "\(out.map(\.track.id))")
        let reason = try #require(out.first?.reasons.first { $0.kind == "genre" })
        #expect(reason.weight == Recommender.Weights().preferredGenre && reason.detail == "Drum & Bass: a threshold genre (Z4–5)")
        #expect(abs(out[0].score - (plain.first { $0.track.id == 3 }!.score + 0.75)) < 1e-12)
        // The preferred track without a BPM stays in the second tier, last.
        #expect(out.last?.track.id == 4 && out.last?.tier == 1)
        #expect(out.last?.reasons.contains { $0.kind == "genre" } == true)
        // In a steady zone the reason says so (125 bpm fits Z2's 120–130).
        let slow = helper.model([(5, "E", "Five", 125), (6, "F", "Six", 125)])
        var s = helper.request(zone: .z2, in: slow)
        s.explorationShare = 0
        s.preferredGenres = [6: "Downtempo"]
        let steady = slow.suggest(s)
        #expect(steady.map(\.track.id) == [6, 5])
        #expect(steady.flatMap(\.reasons).filter { $0.kind == "genre" }.map(\.detail) == ["Downtempo: a steady-state genre (Z2–3)"])
    }
}
