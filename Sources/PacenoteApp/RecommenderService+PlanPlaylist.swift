import Foundation
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import PacenoteWeb

/// A plan's pre-run playlist (issue 55, point 3): the library as the recommender knows it —
/// each track's song, artist, tempo and standing (familiarity, skips, likes; dislikes left
/// out) — with the tracks' lengths, laid over the plan by `PlanPlaylist`; saved as MPD's
/// stored playlist `Pacenote: PLAN` or queued.
extension RecommenderService {
    public func planPlaylist(_ plan: WorkoutPlan, current: [Int64]?, swap: PlaylistSwap?) throws -> PlanPlaylistAnswer {
        let (prepared, size) = try prepare(plan)
        let playlist: PlanPlaylist.Playlist
        do {
            if let swap {
                let entries = try prepared.entries(of: current ?? [])
                playlist = try prepared.rebalance(entries, swapping: swap.index, with: swap.trackID)
            } else if let current {
                // The playlist as it stands (after swaps, or saved): shown as it is, not built again.
                playlist = PlanPlaylist.Playlist(entries: try prepared.entries(of: current), planSeconds: prepared.planSeconds)
            } else {
                playlist = prepared.build()
            }
        } catch {
            throw APIError.badRequest(error.description, code: "invalid_swap")
        }
        let texts = try store.recommenderTexts(ids: playlist.entries.map(\.trackID))
        return PlanPlaylistAnswer(playlist: playlist, texts: texts, librarySize: size)
    }

    /// The playlist prepared for this plan over the library as it is now: the one kept, unless
    /// anything it was made from changed since (a play, a like, a tempo, the library).
    private func prepare(_ plan: WorkoutPlan) throws -> (PlanPlaylist, Int) {
        let now = Date()
        // The seed changes daily, as the suggestions' does.
        let seed = UInt64(max(0, now.timeIntervalSince1970 / 86_400))
        let key = "\(store.commitCount)|\(control.withLock { $0.version })|\(seed)|\(plan.steps)"
        if let kept = preparedPlaylist.withLock({ $0 }), kept.key == key { return (kept.playlist, kept.size) }
        let model = try refreshedModel()
        let nowMs = Int64(now.timeIntervalSince1970 * 1000)
        let (feelings, _) = try currentFeelings(nowMs: nowMs)
        let tracks = model.playlistTracks(
            seconds: try store.libraryDurations(), nowMs: nowMs,
            liked: Set(feelings.filter { $0.value == .like }.keys), disliked: Set(feelings.filter { $0.value == .dislike }.keys))
        let tempos = PlanPlaylist.Tempos(table: settings.tempo, model: try store.zoneSettings().model(at: now))
        let prepared = PlanPlaylist(timeline: plan.timeline(), library: tracks, tempos: tempos, seed: seed)
        preparedPlaylist.withLock { $0 = (key, prepared, tracks.count) }
        return (prepared, tracks.count)
    }

    public func savePlaylist(_ trackIDs: [Int64], name: String, queue: Bool) throws -> Int {
        guard let endpoint else { throw Self.mpdUnavailable("no MPD is configured") }
        let texts = try store.recommenderTexts(ids: trackIDs)
        let uris = try trackIDs.map { id throws -> String in
            guard let uri = texts[id]?.uri else { throw APIError.badRequest("track \(id) is not in MPD's library", code: "not_in_library") }
            return uri
        }
        do {
            if queue {
                try MPDQueue.append(endpoint: endpoint, uris: uris)
                queueChanged()
            } else {
                try MPDQueue.savePlaylist(endpoint: endpoint, name: name, uris: uris)
            }
        } catch {
            throw Self.mpdUnavailable("MPD: \(error)")
        }
        return uris.count
    }
}
