import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import PacenoteWeb
import Synchronization

/// Suggestions: each answer kept while its inputs are unchanged (MPD's queue, the zone, the
/// commit count, the service's version), and made from the model when they moved.
extension RecommenderService {
    public func recommendations(_ query: RecommendationQuery) throws -> RecommendationList {
        let (queue, queueError) = keptQueueState()
        return try recommendations(query, queue: queue, queueError: queueError, rebuilding: true)!
    }

    /// Suggestions if the model is built and no rebuild is due, else nil (and the build is
    /// asked for in the background): for the dashboard, which must not wait for a build.
    public func recommendationsIfReady(_ query: RecommendationQuery) throws -> RecommendationList? {
        guard isReady else {
            prepare()
            return nil
        }
        let (queue, queueError) = keptQueueState()
        guard let list = try recommendations(query, queue: queue, queueError: queueError, rebuilding: false) else {
            prepare()
            return nil
        }
        return list
    }

    /// MPD's queue, or nil and why when it cannot be read: the kept one while the default
    /// player's watcher has reported nothing since (`keptQueue`).
    private func keptQueueState() -> (MPDQueue.State?, String?) {
        guard let endpoint else { return (nil, nil) }
        let observations = players.first(where: { $0.name == playerName })?.observations
        let now = DispatchTime.now().uptimeNanoseconds
        if let kept = keptQueue.withLock({ $0 }), kept.observations == observations, now &- kept.at < Self.keptForNanoseconds {
            return (kept.queue, kept.error)
        }
        var queue: MPDQueue.State?
        var failure: String?
        do {
            queue = try MPDQueue.state(endpoint: endpoint)
        } catch {
            logger.debug("recommender: cannot read MPD's queue: \(error)")
            failure = "MPD at \(endpoint) is not reachable: \(error.message)"
        }
        keptQueue.withLock { $0 = (observations, now, queue, failure) }
        return (queue, failure)
    }

    /// Forgets the kept queue and suggestions: this process just changed MPD's queue.
    func queueChanged() {
        keptQueue.withLock { $0 = nil }
        kept.withLock { $0.removeAll() }
    }

    /// nil only without `rebuilding`, when the model must be built first.
    func recommendations(_ query: RecommendationQuery, queue: MPDQueue.State?, queueError: String? = nil,
                         rebuilding: Bool = true) throws -> RecommendationList? {
        let query = followingCadence(query)
        // Read before anything the answer is made from: a change meanwhile moves them on,
        // so the answer is kept under inputs that are already stale.
        let commits = store.commitCount
        let version = control.withLock { $0.version }
        let now = Date()
        var zone = query.zone
        var zoneSource = zone == nil ? "none" : "query"
        if zone == nil, let live = heartRate?.current(now: now) {
            zone = live.zone
            zoneSource = "live"
        }
        // A planned workout: the segment the next song will mostly play in, not the last reading.
        var planned: PlannedTarget?
        if query.zone == nil, query.mode == .zone, let target = try plannedTarget(now: now, version: version) {
            planned = target
            if let z = target.zone { zone = z }
            zoneSource = "plan"
        }
        let playing = players.first(where: { $0.name == playerName })?.nowPlaying
            .map { Recommender.SongRef(trackID: $0.track.id, artist: $0.track.artist, title: $0.track.title) }
        // The seed changes daily: exploration picks rotate, yet a day's answers are stable.
        let seed = UInt64(max(0, now.timeIntervalSince1970 / 86_400))
        let inputs = SuggestionInputs(query: query, zone: zone, planned: planned?.target, playing: playing, queue: queue, commits: commits,
                                      version: version, seed: seed)
        let uptime = DispatchTime.now().uptimeNanoseconds
        if let hit = kept.withLock({ $0[query] }), hit.inputs == inputs, uptime &- hit.at < Self.keptForNanoseconds {
            return hit.list
        }
        guard var list = try suggest(query, zone: zone, zoneSource: zoneSource, planned: planned, playing: playing, queue: queue,
                                     seed: seed, now: now, version: version, rebuilding: rebuilding) else { return nil }
        list.queueError = queueError
        kept.withLock { kept in
            if kept.count >= 32, kept[query] == nil { kept.removeAll(keepingCapacity: true) }
            kept[query] = (inputs, uptime, list)
        }
        return list
    }

    private func suggest(_ query: RecommendationQuery, zone: Zone?, zoneSource: String, planned: PlannedTarget?, playing: Recommender.SongRef?,
                         queue: MPDQueue.State?, seed: UInt64, now: Date, version: UInt64, rebuilding: Bool) throws -> RecommendationList? {
        guard let model = try refreshedModel(rebuilding: rebuilding) else { return nil }
        let target: TempoTarget
        switch query.mode {
        case .cadence: target = .cadence(stepsPerMinute: query.cadence ?? settings.cadence, maxChange: cadenceMaxChange)
        case .zone: target = planned?.target ?? zone.map { .window(settings.tempo.window(for: $0)) } ?? .any
        }
        var current = playing
        if current == nil, let song = queue?.current {
            let t = song.track
            current = .init(trackID: nil, artist: t.artist, title: t.title)
        }
        if current?.trackID == nil, let uri = queue?.current?.uri, let id = try store.track(uri: uri)?.id {
            current?.trackID = id
        }
        let queued = (queue?.upcoming ?? []).map { song -> Recommender.SongRef in
            let t = song.track
            return .init(trackID: nil, artist: t.artist, title: t.title)
        }
        let nowMs = Int64(now.timeIntervalSince1970 * 1000)
        let (feelings, notNow) = try currentFeelings(nowMs: nowMs)
        var request = Recommender.Request(
            zone: zone, target: target, nowMs: Int64(now.timeIntervalSince1970 * 1000), current: current,
            queued: queued, recentHours: settings.recentHours, limit: query.limit, seed: seed,
            explorationShare: settings.exploration)
        request.liked = Set(feelings.filter { $0.value == .like }.keys)
        request.disliked = Set(feelings.filter { $0.value == .dislike }.keys)
        request.notNow = notNow
        // On the move: heart rate live (not a zone asked for) or a cadence to match.
        if zoneSource == "live" || query.mode == .cadence { request.paceEffects = try paceEffects() }
        // Cue's genres for this zone's effort (steady Z2–3, threshold Z4–5), when configured.
        let genreKeys = settings.genrePreference.keys(in: zone)
        if !genreKeys.isEmpty { request.preferredGenres = try store.tracks(withGenreKeys: genreKeys) }
        // A planned segment's end is known: rank a longer list, then prefer the songs whose
        // length fits what is left of the segment.
        let fit = query.mode == .zone ? planned?.fitSeconds : nil
        if fit != nil {
            // As many exploration picks as the list asked for would have had (`Recommender`'s rule).
            let slots = query.limit >= 5 && request.explorationShare > 0 ? max(1, Int((Double(query.limit) * request.explorationShare).rounded(.down))) : 0
            request.limit = max(query.limit * 3, 12)
            request.explorationShare = slots == 0 ? 0 : (Double(slots) + 0.5) / Double(request.limit)
        }
        let answer = try Recommender.answer(model, request, texts: { ids in try store.recommenderTexts(ids: ids) })
        var suggestions = answer.suggestions
        if let fit { suggestions = Recommender.preferringLength(suggestions, fit: fit, durations: try libraryDurations(version: version), limit: query.limit) }
        return RecommendationList(zone: zone, zoneSource: zoneSource, mode: query.mode, target: target, current: current,
                                  suggestions: suggestions, census: answer.census,
                                  emptyReason: answer.emptyReason(for: request), note: answer.census.tempoNote(for: request) ?? planned?.note)
    }
}
