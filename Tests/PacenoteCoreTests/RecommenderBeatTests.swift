import Testing
@testable import PacenoteCore

/// How clear a track's beat is (issue 56; Beatrun ranks on beat confidence): aubio's confidence,
/// measured by `pacenote analyze`, raises a clear beat and lowers a faint one within the tier,
/// only when there is a tempo to run to.
@Suite struct RecommenderBeatTests {
    let helper = RecommenderTests()

    func library(_ clarity: [Int64: Double?]) -> RecommenderTests.Library {
        var m = RecommenderTests.Library()
        // 1–3 fit Z4's tempo; 4 has no BPM (second tier).
        for (id, bpm) in [(Int64(1), 135.0 as Double?), (2, 135), (3, 135), (4, nil)] {
            m.upsert(.init(id: id, uri: "\(id).flac", title: "T\(id)", artist: "A\(id)", bpm: bpm, inLibrary: true,
                           beatConfidence: clarity[id] ?? nil))
        }
        return m
    }

    @Test func aClearBeatRisesAndAFaintOneFallsWithinTheTier() throws {
        let plain = library([:])
        var r = helper.request(zone: .z4, in: plain)
        r.explorationShare = 0
        let before = plain.suggest(r)
        #expect(before.allSatisfy { s in s.reasons.allSatisfy { $0.kind != "beat" } })

        let m = library([1: 0.1, 3: 0.9, 4: 1.0])
        let out = m.suggest(r)
        #expect(out.map(\.track.id) == [3, 2, 1, 4], "\(out.map(\.track.id))")
        let clear = try #require(out.first?.reasons.first { $0.kind == "beat" })
        #expect(abs(clear.weight - 0.5) < 0.005 && clear.detail == "a clear beat (confidence 0.90)", "\(clear)")
        let faint = try #require(out.first { $0.track.id == 1 }?.reasons.first { $0.kind == "beat" })
        #expect(abs(faint.weight + 0.3) < 0.005 && faint.detail == "a faint beat (confidence 0.10)", "\(faint)")
        // A track never measured has no reason. The track without a BPM stays last, its beat unused.
        #expect(out.first { $0.track.id == 2 }?.reasons.contains { $0.kind == "beat" } == false)
        #expect(out.last?.tier == 1 && out.last?.reasons.contains { $0.kind == "beat" } == false)
    }

    @Test func withoutATempoTargetTheBeatDoesNotCount() {
        let m = library([1: 0.1, 3: 0.9])
        var r = helper.request(zone: nil, in: m)
        r.explorationShare = 0
        #expect(m.suggest(r).allSatisfy { s in s.reasons.allSatisfy { $0.kind != "beat" } })
    }

    @Test func aRemeasuredBeatReplacesTheOldOne() {
        var m = library([1: 0.9])
        m.upsert(.init(id: 1, uri: "1.flac", title: "T1", artist: "A1", bpm: 135, inLibrary: true, beatConfidence: 0.2))
        m.upsert(.init(id: 9, uri: "9.flac", title: "T9", artist: "A9", bpm: 135, inLibrary: true))
        #expect(abs(m.model.beatConfidence(at: 0) - 0.2) < 0.002)
        #expect(m.model.beatConfidence(at: 1).isNaN && m.model.beatConfidence(at: 4).isNaN)
        #expect(Track.beatWords(0.4) == "clear" && Track.beatWords(0.2) == "steady" && Track.beatWords(0.19) == "faint")
    }
}
