import Foundation
import PacenoteCore
import PacenoteWeb

/// Tempo-matched playback from the recommender's side (issue 56): what a queued song's tempo
/// should be, handed to `TempoService` with the song MPD just queued.
extension RecommenderService {
    /// The largest tempo change cadence mode allows: `[tempo] max_change` when songs are
    /// rendered to the cadence, else the ±10 % a runner's ear tolerates unrendered.
    var cadenceMaxChange: Double { tempo.map { $0.settings.maxChange } ?? 0.10 }

    /// What a song queued now for `query` should play at: the cadence, the planned segment's
    /// tempo, or the (asked or live) zone's window.
    func tempoTarget(for query: RecommendationQuery, now: Date) throws -> TempoTarget {
        let query = followingCadence(query)
        switch query.mode {
        case .cadence:
            return .cadence(stepsPerMinute: query.cadence ?? settings.cadence, maxChange: cadenceMaxChange)
        case .zone:
            if query.zone == nil, let planned = try plannedTarget(now: now, version: control.withLock({ $0.version })) {
                return planned.target
            }
            let zone = query.zone ?? heartRate?.current(now: now)?.zone
            return zone.map { .window(settings.tempo.window(for: $0)) } ?? .any
        }
    }

    /// Renders `track` (just queued as MPD's `songID`) at `target` when it needs a change:
    /// the copy takes its place when ready, and an auto-DJ pick follows it to its new id.
    /// The tempo plan, when one was made.
    @discardableResult
    func followTempo(songID: Int, track: ListeningModel.Candidate, target: TempoTarget) -> TempoStretch.Plan? {
        guard let tempo, let uri = track.uri, let bpm = track.bpm,
              let plan = TempoStretch.plan(bpm: bpm, target: target, maxChange: tempo.settings.maxChange) else { return nil }
        tempo.follow(songID: songID, uri: uri, title: track.title, artist: track.artist, bpm: bpm, plan: plan) { [weak self] old, new in
            guard let self else { return }
            control.withLock { if $0.autoPick?.songID == old { $0.autoPick?.songID = new } }
            queueChanged()
        }
        return plan
    }
}

extension RecommenderService {
    public func tempoStatus() -> TempoStatus {
        var status = TempoStatus()
        guard let tempo else { return status }
        status.enabled = true
        switch tempo.access() {
        case .success(.folder): status.access = "folder"
        case .success(.localSocket): status.access = "local_socket"
        case .failure(let problem): status.problem = problem.message
        }
        status.maxChange = tempo.settings.maxChange
        status.quality = tempo.settings.quality
        status.cacheDirectory = tempo.folder
        status.cachedCopies = tempo.cachedCopies
        status.cachedBytes = tempo.cachedBytes
        status.renders = tempo.recent
        return status
    }
}

extension RecommenderService {
    /// Cadence mode as the runner set it (issue 56): while it is on, suggestions asked without
    /// a zone follow the cadence; a cadence not given is the one followed (the target set with
    /// −5 / +5, else the live cadence, else `[recommender] cadence`).
    func followingCadence(_ query: RecommendationQuery) -> RecommendationQuery {
        guard let state = heartRate?.cadenceState(now: Date()) else { return query }
        var query = query
        if query.mode == .zone, query.zone == nil, state.on { query.mode = .cadence }
        if query.mode == .cadence, query.cadence == nil {
            // A target as set; the live cadence as last announced, so the list moves when it does.
            query.cadence = (state.target ?? state.announced ?? state.following.stepsPerMinute).rounded()
        }
        return query
    }
}
