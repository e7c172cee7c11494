import Foundation
import PacenoteCore
import PacenoteStore

extension Operations {
    /// Sources a feeling may come from, recorded with it.
    public static let feelingSources: Set<String> = ["site", "api", "listenbrainz", "audioscrobbler", "import", "webscrobbler"]

    /// Likes, dislikes or clears (`.none`) one track.
    public func setFeeling(trackID: Int64, _ feeling: Feeling, source: String) throws {
        try setFeelings([(trackID, feeling)], source: source)
    }

    /// Sets many feelings in one transaction (an import): all or nothing. Announces
    /// `.trackFeeling` once with every track touched.
    public func setFeelings(_ changes: [(trackID: Int64, feeling: Feeling)], source: String) throws {
        guard Self.feelingSources.contains(source) else {
            throw OperationError.invalid("invalid_source", "source: one of \(Self.feelingSources.sorted().joined(separator: ", "))")
        }
        guard !changes.isEmpty else { return }
        if let bad = changes.first(where: { $0.trackID <= 0 }) {
            throw OperationError.invalid("invalid_track_id", "track_id: a track's id, not \(bad.trackID)")
        }
        // The last word on a track wins within one batch.
        var last: [Int64: Feeling] = [:]
        var order: [Int64] = []
        for change in changes {
            if last.updateValue(change.feeling, forKey: change.trackID) == nil { order.append(change.trackID) }
        }
        let missing = try store.setFeelings(order.map { ($0, last[$0]!) }, source: source)
        if let first = missing.first { throw OperationError.notFound("no track \(first)") }
        announce(.trackFeeling(trackIDs: order))
    }
}
