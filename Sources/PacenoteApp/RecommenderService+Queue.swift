import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import PacenoteWeb
import Synchronization

/// What the recommender does to MPD's queue: "not now", queueing a suggestion, and the
/// auto-DJ that keeps one queued.
extension RecommenderService {
    /// How long "not now" lowers a suggestion.
    public static let notNowMs: Int64 = 2 * 3_600_000

    /// The likes and dislikes (read from the store after a change) and the tracks still
    /// under a "not now".
    func currentFeelings(nowMs: Int64) throws -> ([Int64: Feeling], Set<Int64>) {
        let (cached, changes) = control.withLock { s -> ([Int64: Feeling]?, UInt64) in
            s.notNow = s.notNow.filter { $0.value > nowMs }
            return (s.feelings, s.feelingChanges)
        }
        if let cached { return (cached, control.withLock { Set($0.notNow.keys) }) }
        let read = try store.feelings()
        return control.withLock { s in
            // Kept unless a like was announced while it was read (then read again next time).
            if s.feelingChanges == changes { s.feelings = read }
            return (read, Set(s.notNow.keys))
        }
    }

    /// The songs' effect on pace over every run, those shown (`PaceEffect.Song.isShown`), by
    /// track: read from the store after a workout was measured or a merge.
    func paceEffects() throws -> [Int64: PaceEffect.Song] {
        let (cached, changes) = control.withLock { s in (s.paceEffects, s.paceChanges) }
        if let cached { return cached }
        let read = Dictionary(try store.paceEffects().filter(\.isShown).map { ($0.trackID, $0) }, uniquingKeysWith: { a, _ in a })
        control.withLock { s in if s.paceChanges == changes { s.paceEffects = read } }
        return read
    }

    /// "Not now" on a suggestion: lowered for `notNowMs` (`Recommender.Weights.notNow`).
    public func notNow(trackID: Int64) throws {
        guard try store.track(id: trackID) != nil else { throw APIError.notFound("no track \(trackID)") }
        let until = Int64(Date().timeIntervalSince1970 * 1000) + Self.notNowMs
        control.withLock { $0.notNow[trackID] = until; $0.version &+= 1 }
    }

    public func enqueue(trackID: Int64?, query: RecommendationQuery) throws -> QueuedTrack {
        guard let endpoint else { throw Self.mpdUnavailable("no MPD is configured") }
        let track: ListeningModel.Candidate
        var suggestion: Recommender.Suggestion?
        if let trackID {
            let model = try refreshedModel()
            guard let slot = model.slot(of: trackID), let texts = try store.recommenderTexts(ids: [trackID])[trackID] else {
                throw APIError.notFound("no track \(trackID)")
            }
            track = model.candidate(at: slot, texts: texts)
            guard track.inLibrary, track.uri != nil else {
                throw APIError(kind: .conflict, code: "not_in_library", message: "track \(trackID) is not in MPD's library")
            }
        } else {
            var one = query
            one.limit = 1
            let queue: MPDQueue.State
            do { queue = try MPDQueue.state(endpoint: endpoint) } catch { throw Self.mpdUnavailable("MPD: \(error)") }
            guard let top = try recommendations(one, queue: queue)?.suggestions.first else {
                throw APIError.notFound("nothing to suggest for this zone")
            }
            suggestion = top
            track = top.track
        }
        let added: (id: Int, position: Int)
        do {
            added = try MPDQueue.insertAfterCurrent(endpoint: endpoint, uri: track.uri!)
        } catch {
            throw Self.mpdUnavailable("MPD: \(error)")
        }
        queueChanged()
        logger.info("queued \(track.uri!) at \(added.position)")
        var queued = QueuedTrack(track: track, player: playerName, songID: added.id, position: added.position, suggestion: suggestion)
        // The song is queued: a target that cannot be worked out now only means no render.
        if tempo != nil, let target = try? tempoTarget(for: query, now: Date()) {
            queued.tempo = followTempo(songID: added.id, track: track, target: target)
        }
        return queued
    }

    /// The queue cannot change while MPD is unreachable: a conflict with the player's state
    /// (409), not a server fault — Pacenote itself is fine and other routes answer.
    static func mpdUnavailable(_ message: String) -> APIError {
        APIError(kind: .conflict, code: "mpd_unavailable", message: message)
    }

    // MARK: Auto-DJ

    func scheduleAutoQueue() {
        autoQueue.async { [weak self] in self?.keepOneQueued() }
    }

    /// What the auto-DJ's pick is for: the planned segment the next song will mostly play in
    /// and its zone while a plan runs (fixed for a song once it plays: the next song's start
    /// is), else the live zone.
    func autoTarget(now: Date) throws -> (key: String, text: String) {
        if let cadence = heartRate?.cadenceState(now: now), cadence.on {
            // Cadence mode: a pick is for the cadence announced (moves of a few steps are not new).
            let spm = Int((cadence.announced ?? cadence.following.stepsPerMinute).rounded())
            return ("cadence \(spm)", "\(spm) steps a minute")
        }
        if let planned = try plannedTarget(now: now, version: control.withLock { $0.version }) {
            return ("plan \(planned.segment) \(planned.zone?.rawValue ?? -1)", "segment \(planned.segment + 1) of the plan")
        }
        let zone = heartRate?.current(now: now)?.zone
        return ("zone \(zone?.rawValue ?? -1)", zone.map { "Z\($0.rawValue)" } ?? "no zone")
    }

    /// Keeps one suggestion right after the current song: adds one when the next song is
    /// not the auto-DJ's pick, replaces its own pick when what it was for changed (the zone,
    /// or the planned segment ahead), and never removes what the listener queued.
    func keepOneQueued() {
        guard let endpoint else { return }
        do {
            let queue = try MPDQueue.state(endpoint: endpoint)
            guard queue.current != nil else { return }
            let target = try autoTarget(now: Date())
            let pick = control.withLock { $0.autoPick }
            let next = queue.upcomingIDs.first
            if let pick, next == pick.songID {
                guard pick.target != target.key else { return }
                try MPDQueue.delete(endpoint: endpoint, songID: pick.songID)
                queueChanged()
            } else if next != nil {
                // The listener's own songs come next: the auto-DJ leaves them alone.
                return
            }
            let fresh = try MPDQueue.state(endpoint: endpoint)
            guard let list = try recommendations(RecommendationQuery(limit: 1), queue: fresh), let top = list.suggestions.first,
                  let uri = top.track.uri else { return }
            let added = try MPDQueue.insertAfterCurrent(endpoint: endpoint, uri: uri)
            queueChanged()
            control.withLock { $0.autoPick = (added.id, target.key) }
            logger.info("auto-DJ queued \(uri) for \(target.text)")
            followTempo(songID: added.id, track: top.track, target: list.target)
        } catch {
            logger.warning("auto-DJ: \(error)")
        }
    }
}
