import Foundation

/// A planned workout's length preference (issue 55, point 3): the next song should end near
/// where its segment does, so the music changes with the plan rather than a minute into the
/// next interval. Applied after the ranking, to a longer list than is shown: within its tempo
/// tier a song gets up to `weight` for a length that fits what is left of the segment when it
/// starts, falling off linearly to nothing at `tolerance` of that time away (a song that
/// would run past the end loses as much as one that stops short).
extension Recommender {
    /// How much a perfect length adds: about a tempo fit's worth, less than a like, so the
    /// length breaks ties among songs that fit the tempo and never lifts one out of its tier.
    public static let lengthWeight = 0.6

    /// `fit`: seconds from the next song's start to its segment's end; `durations`: known
    /// song lengths by track id. Suggestions keep their tier; within it the best score leads
    /// (a stable sort: equal scores keep the ranking's order); the first `limit` are returned.
    public static func preferringLength(_ suggestions: [Suggestion], fit: Double, durations: [Int64: Int], limit: Int,
                                        weight: Double = lengthWeight, tolerance: Double = 0.5) -> [Suggestion] {
        guard fit > 0 else { return Array(suggestions.prefix(limit)) }
        let scored = suggestions.enumerated().map { i, s -> (Int, Suggestion) in
            var s = s
            if let seconds = durations[s.track.id] {
                let off = abs(Double(seconds) - fit) / fit
                let bonus = weight * max(0, 1 - off / tolerance)
                if bonus > 0 {
                    s.score += bonus
                    s.reasons.append(Reason(kind: "length_fits", weight: bonus,
                                            detail: "\(seconds) s for the \(Int(fit.rounded())) s left of its segment"))
                }
            }
            return (i, s)
        }
        // Exploration picks stay (a new song's place is kept for it whatever its score), at the
        // end of the first tier as the ranking puts them; the rest are ranked again.
        let explored = scored.filter { $0.1.reasons.contains { $0.kind == "exploration" } }.map(\.1)
        let ranked = scored.filter { !$0.1.reasons.contains { $0.kind == "exploration" } }.sorted { a, b in
            if a.1.tier != b.1.tier { return a.1.tier < b.1.tier }
            if a.1.score != b.1.score { return a.1.score > b.1.score }
            return a.0 < b.0
        }.map(\.1)
        let kept = Array(explored.prefix(limit))
        let firstTier = min(ranked.prefix { $0.tier == 0 }.count, limit - kept.count)
        return Array((ranked.prefix(firstTier) + kept + ranked.dropFirst(firstTier)).prefix(limit))
    }
}
