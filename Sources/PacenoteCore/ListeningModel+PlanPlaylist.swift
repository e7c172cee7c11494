import Foundation

extension ListeningModel {
    /// The library as a pre-run playlist takes it (`PlanPlaylist.Track`, issue 55): every track
    /// that can be queued and has a length in `seconds` (by id), with its song and primary
    /// artist as the recommender interns them, its tempo, and a score from what the recommender
    /// weighs without a moment in mind — familiarity, skips and likes, with its own weights. A
    /// disliked track's song is left out, as the recommender leaves it out.
    public func playlistTracks(seconds: [Int64: Int], nowMs: Int64, weights: Recommender.Weights = .init(),
                               liked: Set<Int64> = [], disliked: Set<Int64> = []) -> [PlanPlaylist.Track] {
        var dislikedSongs = Set<Int32>()
        for id in disliked {
            if let slot = slotOf(id) { dislikedSongs.insert(songKey[Int(slot)]) }
        }
        var out: [PlanPlaylist.Track] = []
        out.reserveCapacity(min(trackCount, seconds.count))
        for i in 0..<trackCount where isQueueable(i) {
            let id = trackIDs[i]
            guard let length = seconds[id], length > 0, !dislikedSongs.contains(songKey[i]) else { continue }
            let familiarity = decayedFamiliarity(i, at: nowMs)
            let c = Double(counted[i]), s = Double(skips[i])
            var score = weights.familiarity * log1p(familiarity)
            if s > 0 { score -= weights.skipPenalty * s / (c + s + 1) }
            if liked.contains(id) { score += weights.liked }
            let bpm = bpm(at: i)
            out.append(PlanPlaylist.Track(id: id, seconds: length, bpm: bpm.isNaN ? nil : bpm, songKey: songKey[i],
                                          artist: artistOf[i], score: score))
        }
        return out
    }
}
