import Foundation
import PacenoteCore
import Testing

/// Smart playlists' pure parts (issue 57): a length picked to within one song, moods combined,
/// the rules' checks and their description.
@Suite struct SmartPlaylistTests {
    func songs(_ durations: [Double?]) -> [SmartPlaylist.Candidate] {
        durations.enumerated().map { SmartPlaylist.Candidate(trackID: Int64($0.offset + 1), uri: "\($0.offset + 1).flac", durationS: $0.element) }
    }

    @Test func aLengthIsFilledToWithinOneSong() {
        // 10 minutes of four-minute songs: two (a third would run to 12).
        let four = songs([240, 240, 240, 100])
        let picked = SmartPlaylist.pick(four, limit: nil, lengthS: 600)
        #expect(picked.map(\.trackID) == [1, 2, 4], "the 100 s song further down fills the gap")
        let total = picked.compactMap(\.durationS).reduce(0, +)
        #expect(total <= 600 && 600 - total < 240)
        // A song of unknown length is left out of a timed playlist, not of an untimed one.
        #expect(SmartPlaylist.pick(songs([nil, 200]), limit: nil, lengthS: 300).map(\.trackID) == [2])
        #expect(SmartPlaylist.pick(songs([nil, 200]), limit: nil, lengthS: nil).map(\.trackID) == [1, 2])
        // With a limit as well; without enough songs, all of them.
        #expect(SmartPlaylist.pick(songs([60, 60, 60]), limit: 2, lengthS: 600).map(\.trackID) == [1, 2])
        #expect(SmartPlaylist.pick(songs([60, 60]), limit: nil, lengthS: 3600).count == 2)
        // Whatever the songs, the gap left is shorter than every song left out.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let list = songs((0..<Int.random(in: 1...30, using: &rng)).map { _ in Double.random(in: 30...600, using: &rng) })
            let target = Int.random(in: 60...7200, using: &rng)
            let kept = SmartPlaylist.pick(list, limit: nil, lengthS: target)
            let sum = kept.compactMap(\.durationS).reduce(0, +)
            #expect(sum <= Double(target))
            let out = list.filter { c in !kept.contains { $0.trackID == c.trackID } }
            #expect(out.allSatisfy { Double(target) - sum < $0.durationS! })
        }
    }

    @Test func moodsCombineAsUnionOrIntersection() {
        let a = songs([1, 1, 1, 1]).filter { [1, 2, 3].contains($0.trackID) }
        let b = songs([1, 1, 1, 1]).filter { [3, 4, 2].contains($0.trackID) }
        #expect(SmartPlaylist.combine([a, b], .union).map(\.trackID) == [1, 2, 3, 4])
        #expect(SmartPlaylist.combine([a, b], .intersection).map(\.trackID) == [2, 3])
        #expect(SmartPlaylist.combine([a, b, []], .intersection).isEmpty)
        #expect(SmartPlaylist.combine([], .union).isEmpty)
    }

    @Test func rulesAreCheckedAndDescribed() {
        var r = SmartPlaylist.Rules()
        #expect(r.problem() == nil && r.summary == "every song in the library")
        r.liked = true
        r.bpmMin = 120
        r.bpmMax = 130
        r.lengthS = 600
        #expect(r.problem() == nil)
        #expect(r.summary == "liked, 120–130 bpm, 10 minutes")
        r.bpmMin = 140
        #expect(r.problem() == "bpm_min/bpm_max: the lower bound is above the upper")
        r = SmartPlaylist.Rules()
        r.zone = 6
        #expect(r.problem() == "zone: 1 to 5")
        r = SmartPlaylist.Rules()
        r.playedFrom = "2025-02-30"
        #expect(r.problem() == "played_from: a date, YYYY-MM-DD")
        r.playedFrom = "2025-01-01"
        r.playedTo = "2025-12-31"
        r.top = 50
        #expect(r.problem() == nil && r.summary == "top 50 of 2025-01-01 to 2025-12-31")
        r = SmartPlaylist.Rules()
        r.top = 50
        #expect(r.problem() == "top needs played_from or played_to")
        r = SmartPlaylist.Rules()
        r.moods = ["Fast"]
        r.combine = .union
        #expect(r.problem() == "moods: 2 to 10 different mood names")
        r.moods = ["Fast", "fast"]
        #expect(r.problem() == "moods: 2 to 10 different mood names")
        r.moods = ["Fast", "Calm"]
        r.combine = nil
        #expect(r.problem() == "moods need combine: union or intersection")
        r.combine = .intersection
        #expect(r.problem() == nil && r.summary == "in all of Fast, Calm")
        r = SmartPlaylist.Rules()
        r.combine = .union
        #expect(r.problem() == "combine needs moods")
        r = SmartPlaylist.Rules()
        r.genres = []
        #expect(r.problem() == "genres: 1 to 50 names")
        r.genres = ["Rock"]
        r.loudnessMax = -6
        r.notPlayedMonths = 6
        #expect(r.problem() == nil && r.summary == "Rock, not played for 6 months, loudness … to -6 LUFS")
    }

    @Test func aPlaylistsIdentifierIsAStableUUIDOfItsName() {
        let id = PlaylistIdentifier.uuid("Tempo run")
        #expect(id == PlaylistIdentifier.uuid("Tempo run"))
        #expect(id != PlaylistIdentifier.uuid("Tempo Run"))
        #expect(UUID(uuidString: id) != nil && id == id.lowercased())
        #expect(Array(id)[14] == "5", "version 5 (name-based): \(id)")
        #expect("89ab".contains(Array(id)[19]), "RFC 4122 variant: \(id)")
    }
}
