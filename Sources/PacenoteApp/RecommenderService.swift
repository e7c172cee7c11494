import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import PacenoteWeb
import Synchronization

/// Next-track suggestions for the API, the site and the auto-DJ: keeps a `ListeningModel`
/// in memory (built on first use, then fed only the plays logged since), asks the
/// heart-rate service for the live zone and MPD for the queue, and queues picks right
/// after the current song.
public final class RecommenderService: RecommenderBackend {
    /// The model and what it was made from. Its lock is only ever held briefly (new plays,
    /// changed tracks, the swap of a finished build): a build runs outside it (`builder`).
    struct ModelState {
        var model = ListeningModel()
        var lastPlayID: Int64 = 0
        var tracksVersion = ""
        /// The `Control.rewrites` its build began at; nil: none built yet.
        var builtAt: UInt64?
        /// Moves on whenever a build replaces the model: tracks read for one model are not
        /// put into the next (`refreshTracks`).
        var generation: UInt64 = 0
    }

    /// What the write path's announcements set, likes, "not now" and the auto-DJ's pick. Its
    /// lock is held for a few assignments only: an announcement (on the writer's thread,
    /// after its commit) and a suggestion's key never wait for a build. Lock order:
    /// `model` before `control`, never the other way.
    struct Control {
        /// Changes to past plays announced so far (an import, a delete, a merge): a model
        /// built at an earlier count is stale as a whole and is built again on next use.
        var rewrites: UInt64 = 0
        /// `ModelState.builtAt`, readable without the model's lock.
        var builtAt: UInt64?
        /// A track's tempo changed: the tracks are read again on next use.
        var tracksChanged = false
        /// Announced changes to tracks (tempo, merges): a build that saw it move while it ran
        /// read its tracks too early, and leaves `tracksChanged` set.
        var trackChanges: UInt64 = 0
        /// Announced changes to likes: feelings read while it moved are not kept.
        var feelingChanges: UInt64 = 0
        /// The auto-DJ's own pick: MPD song id and what it was chosen for (`autoTarget`).
        var autoPick: (songID: Int, target: String)?
        /// Likes and dislikes by track id; nil: read again on next use (`.trackFeeling`).
        var feelings: [Int64: Feeling]?
        /// Songs' effect on pace on runs (`Store.paceEffects`), shown ones by track; nil: read
        /// again on next use (a workout measured, a merge).
        var paceEffects: [Int64: PaceEffect.Song]?
        /// Announced changes to workouts: effects read while it moved are not kept.
        var paceChanges: UInt64 = 0
        /// "Not now": track ids and until when (ms) they are lowered. In memory only.
        var notNow: [Int64: Int64] = [:]
        /// Moves on with every change to the above that a suggestion depends on (the model,
        /// the tracks, likes, "not now", a pending rebuild): part of a kept answer's key.
        var version: UInt64 = 0
    }

    /// Everything a list of suggestions is made from, besides the model and the clock:
    /// an answer is kept while these are equal (`kept`), for at most `keptFor`.
    struct SuggestionInputs: Equatable {
        var query: RecommendationQuery
        var zone: Zone?
        /// The tempo of the planned segment the next song will mostly play in, if a plan runs.
        var planned: TempoTarget?
        var playing: Recommender.SongRef?
        var queue: MPDQueue.State?
        /// `Store.commitCount` and `State.version`, read before the answer was made.
        var commits: UInt64
        var version: UInt64
        var seed: UInt64
    }

    /// Suggestions kept by their inputs. Why: every dashboard view asked for three, which
    /// scored every track of the library (perf, 1M plays of 150k tracks, wrk on `/`: a fifth
    /// of the server's CPU, views queued on the model's lock while it read new plays), and
    /// connected to MPD for its queue. At most a second old: the clock moves what was played
    /// "recently", familiarity's decay and "not now"'s end, all slowly.
    let kept = Mutex<[RecommendationQuery: (inputs: SuggestionInputs, at: UInt64, list: RecommendationList)]>([:])
    static let keptForNanoseconds: UInt64 = 1_000_000_000

    /// MPD's queue as last read, with the default player's `observations` then: kept while
    /// its watcher has reported nothing new (a `playlist` or `player` event, a lost
    /// connection), and for at most a second (a watcher that has not seen a change yet, or
    /// no watcher at all: MPD unreachable). Queueing here forgets it at once.
    let keptQueue = Mutex<(observations: UInt64?, at: UInt64, queue: MPDQueue.State?, error: String?)?>(nil)

    /// The pre-run playlist last prepared (`PlanPlaylist`, issue 55), for the swaps that follow
    /// its build: the library's tempo fits are worked out once per plan and library.
    let preparedPlaylist = Mutex<(key: String, playlist: PlanPlaylist, size: Int)?>(nil)
    /// The library's song lengths and their median, by the `State.version` they were read at:
    /// how long the next song is taken to last when a plan looks ahead, and which lengths fit.
    let libraryLengthsKept = Mutex<(version: UInt64, durations: [Int64: Int], median: Double)?>(nil)
    let store: Store
    let settings: Config.Recommender
    let heartRate: HeartRateService?
    let players: [PlayerService]
    let endpoint: MPDEndpoint?
    /// Tempo-matched playback (`[tempo]`), when enabled: a queued song is rendered to the target.
    let tempo: TempoService?
    let playerName: String
    let logger: Logger
    let model = Mutex(ModelState())
    /// Where each build keeps its transitions (`TransitionFileStorage`: a file in `tmp/`).
    private let transitions: any TransitionStorage
    let control = Mutex(Control())
    /// Held by the one build under way (seconds on a large history: 8 s at 5M plays).
    private let builder = Mutex(())
    let autoQueue = DispatchQueue(label: "pacenote.auto-dj")
    private let subscription = Mutex<EventBus.Subscription?>(nil)
    private let events: EventBus?
    // nonisolated(unsafe): a dispatch source is thread-safe; it is only resumed in init and
    // cancelled in deinit.
    private nonisolated(unsafe) let trackTimer = DispatchSource.makeTimerSource(
        queue: DispatchQueue(label: "pacenote.recommender-tracks", qos: .utility))

    public init(store: Store, settings: Config.Recommender, heartRate: HeartRateService?, players: [PlayerService],
                endpoint: MPDEndpoint?, playerName: String, events: EventBus?, logger: Logger,
                transitionDirectory: String? = nil, tempo: TempoService? = nil) {
        self.tempo = tempo
        self.store = store
        transitions = transitionDirectory.map { TransitionFileStorage(directory: $0, logger: logger) }
            ?? InMemoryTransitionStorage()
        self.settings = settings
        self.heartRate = heartRate
        self.players = players
        self.endpoint = endpoint
        self.playerName = playerName
        self.logger = logger
        self.events = events
        startTrackRefresh(every: 2)
        if let events {
            let autoQueue = settings.autoQueue
            let token = events.subscribe { [weak self] event in
                switch event {
                case .changed(let change, _):
                    self?.follow(change)
                    // A plan started or pressed (next, pause): the song ahead may be for another segment.
                    if autoQueue, case .workout = change { self?.scheduleAutoQueue() }
                case .nowPlaying(let player, _) where autoQueue && player == playerName: self?.scheduleAutoQueue()
                case .zoneChanged where autoQueue: self?.scheduleAutoQueue()
                // Cadence mode switched, a target set, or the runner's cadence moved: a new pick.
                case .cadence where autoQueue: self?.scheduleAutoQueue()
                default: break
                }
            }
            subscription.withLock { $0 = token }
        }
    }

    /// Follows the write path's announcements. New plays need nothing: the next use reads
    /// the rows above the last id it saw. Plays that were imported (older than their ids),
    /// deleted or edited make the model stale as a whole; a new tempo, the tracks. Called on
    /// the writer's thread: it takes only `control`'s lock, never the model's.
    func follow(_ change: DataChange) {
        switch change {
        // A play's zone is read at the next build (`.playsTagged`), like any other play's.
        case .playsAdded, .songOfTheDay, .friends, .playsTagged, .forwarding, .credentials,
             .heartRateSamples, .playInProgress, .privateSession, .plans, .playlists: break
        // The songs' effect on pace changed (`PaceEffect`): read again on next use.
        // A workout's plays measured (`PaceEffect`): the songs' effect on pace is read again.
        case .workout: break
        case .paceEffects: control.withLock { $0.paceEffects = nil; $0.paceChanges &+= 1; $0.version &+= 1 }
        case .playsRewritten:
            control.withLock {
                $0.rewrites &+= 1
                $0.version &+= 1
                ready.store(false, ordering: .releasing)
            }
        case .trackBPM, .library: control.withLock { $0.tracksChanged = true; $0.trackChanges &+= 1; $0.version &+= 1 }
        case .trackFeeling: control.withLock { $0.feelings = nil; $0.feelingChanges &+= 1; $0.version &+= 1 }
        // A merge moves plays, likes and BPMs between tracks: all of it is read again.
        case .curated:
            control.withLock {
                $0.rewrites &+= 1
                $0.tracksChanged = true
                $0.trackChanges &+= 1
                $0.feelings = nil
                $0.feelingChanges &+= 1
                $0.paceEffects = nil
                $0.paceChanges &+= 1
                $0.version &+= 1
                ready.store(false, ordering: .releasing)
            }
        }
    }

    /// Whether suggestions can be made without a build. Read without any lock. False until
    /// the first build and again from the moment past
    /// plays change (an import, a delete, a merge: `.playsRewritten`, `.curated`) until the
    /// model is built again: the dashboard then asks for that build in the background
    /// (`prepare`, through `recommendationsIfReady`) and shows no suggestions meanwhile.
    public var isReady: Bool { ready.load(ordering: .acquiring) }
    private let ready = Atomic<Bool>(false)
    private let preparing = Atomic<Bool>(false)

    /// The first suggestion reads the whole history (seconds on a large one): the
    /// dashboard asks for it here, in the background, instead of waiting.
    public func prepare() {
        prepare(quietFirst: false)
    }

    /// How long past plays must go unchanged before a background build that follows
    /// changes made during the last one (tests lengthen it).
    nonisolated(unsafe) var quietSeconds: Double = 1

    /// `quietFirst`: past plays changed during the last build; wait until they have been
    /// still for `quietSeconds`. An import announces each of its transactions (every
    /// second or so): without the wait, the model was built again and again for as long
    /// as it ran, each build reading the whole history beside it. One such task at a time
    /// (`preparing`), which builds until the model is ready or the service stops.
    func prepare(quietFirst: Bool) {
        guard !isReady, !stopped.load(ordering: .relaxed),
              preparing.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            var quiet = quietFirst, failed = false
            while !isReady, !stopped.load(ordering: .relaxed) {
                if quiet, !waitForQuiet() { break }
                do { _ = try refreshedModel() } catch {
                    failed = true
                    logger.warning("recommender: \(error)")
                    break
                }
                // Past plays changed while it built: built again once they pause.
                quiet = true
            }
            preparing.store(false, ordering: .relaxed)
            // A change announced after the last check and before `preparing` was clear (its
            // `prepare` was dropped): once more.
            if !failed, !isReady { prepare(quietFirst: true) }
        }
    }

    /// Waits until no change to past plays has been announced for `quietSeconds`; false if
    /// the service stopped meanwhile.
    private func waitForQuiet() -> Bool {
        var seen = control.withLock { $0.rewrites }
        while !stopped.load(ordering: .relaxed) {
            Thread.sleep(forTimeInterval: quietSeconds)
            let now = control.withLock { $0.rewrites }
            if now == seen { return !stopped.load(ordering: .relaxed) }
            seen = now
        }
        return false
    }

    private let stopped = Atomic<Bool>(false)

    /// `TransitionFileStorage.readFailures` as last seen.
    private let seenReadFailures = Atomic<Int>(0)

    /// After a transition row could not be read from its file (an I/O error; that
    /// suggestion went without it), the model is stale as a whole: built again, in new files.
    private func rebuildIfTransitionsUnreadable() {
        guard let files = transitions as? TransitionFileStorage else { return }
        let failures = files.readFailures.load(ordering: .relaxed)
        guard seenReadFailures.exchange(failures, ordering: .relaxed) != failures else { return }
        control.withLock {
            $0.rewrites &+= 1
            $0.version &+= 1
            ready.store(false, ordering: .releasing)
        }
    }

    func refreshedModel() throws -> ListeningModel {
        try refreshedModel(rebuilding: true)!
    }

    /// The model brought up to date; without `rebuilding`, nil instead of building it (first
    /// or again). Past plays as they were when asked: a model built since will do, so a
    /// request waits for at most the build under way and one more, however often past plays
    /// change meanwhile (an import announces each of its transactions).
    func refreshedModel(rebuilding: Bool) throws -> ListeningModel? {
        rebuildIfTransitionsUnreadable()
        let wanted = control.withLock { $0.rewrites }
        while true {
            if let model = try refreshedModel(builtSince: wanted) { return model }
            if !rebuilding { return nil }
            try build(since: wanted)
        }
    }

    /// The model brought up to date with new plays and changed tracks, if it was built from
    /// past plays as they were at the `wanted`th change or later; nil if it must be built first.
    func refreshedModel(builtSince wanted: UInt64) throws -> ListeningModel? {
        let tracksChanged = control.withLock { c -> Bool? in
            guard let builtAt = c.builtAt, builtAt >= wanted else { return nil }
            defer { c.tracksChanged = false }
            return c.tracksChanged
        }
        guard let tracksChanged else { return nil }
        if tracksChanged {
            model.withLock { $0.tracksVersion = "" }
            try refreshTracks()
        }
        return try model.withLock { m throws -> ListeningModel? in
            // As checked above (a build only ever moves `builtAt` on).
            guard let builtAt = m.builtAt, builtAt >= wanted else { return nil }
            let new = try store.recommenderEvents(afterID: m.lastPlayID)
            // Tracks first seen in these plays (a scrobble of a new song stores its track and
            // its play at once, before the background check of the tracks): read first, or
            // their plays would be passed over until the next build.
            var unknown = Set<Int64>()
            for event in new.events where m.model.slot(of: event.trackID) == nil { unknown.insert(event.trackID) }
            for candidate in try store.recommenderCandidates(ids: unknown.sorted()) { m.model.upsert(candidate) }
            for event in new.events { m.model.record(event) }
            m.lastPlayID = new.lastID
            m.model.settle()
            if !new.events.isEmpty { control.withLock { $0.version &+= 1 } }
            return m.model
        }
    }

    /// Builds the model from the database as it is now, outside the model's lock: what does
    /// not need the model itself (the dashboard, `isReady`, the write path's announcements,
    /// the background check of the tracks) goes on meanwhile. One build at a time; a caller
    /// that waited for another's build returns at once if that one began at the `wanted`th
    /// change to past plays or later.
    func build(since wanted: UInt64) throws {
        try builder.withLock { _ throws in
            let start = control.withLock { c -> (rewrites: UInt64, trackChanges: UInt64)? in
                if let builtAt = c.builtAt, builtAt >= wanted { return nil }
                return (c.rewrites, c.trackChanges)
            }
            guard let (target, trackChanges) = start else { return }
            // The stale model stays until this one replaces it: a request made before the
            // change this build is for still answers from it at once (for ~12 MiB more
            // during a build at 5M plays).
            whileBuilding?()
            // Read before the tracks: a change meanwhile shows as another version later.
            let tracksVersion = try store.recommenderTracksVersion()
            let candidates = try store.recommenderCandidates().map(ListeningModel.Prepared.init)
            var fresh = ListeningModel(transitions: transitions)
            for candidate in candidates { fresh.upsert(candidate) }
            let lastPlayID = try store.forEachRecommenderEvent { fresh.record($0) }
            fresh.settle()
            let (tracks, plays) = (fresh.trackCount, fresh.eventCount)
            model.withLock { m in
                m = ModelState(model: fresh, lastPlayID: lastPlayID, tracksVersion: tracksVersion, builtAt: target,
                               generation: m.generation &+ 1)
                control.withLock { c in
                    c.builtAt = target
                    c.version &+= 1
                    // A tempo announced while it built may have come after its read of the
                    // tracks (and a request that took the flag meanwhile read them into the
                    // model this one replaces): read again on next use.
                    if c.trackChanges != trackChanges { c.tracksChanged = true }
                    // Not ready while another rebuild is due (a change announced meanwhile).
                    if c.rewrites == target { ready.store(true, ordering: .releasing) }
                }
            }
            logger.info("recommender: \(tracks) tracks, \(plays) plays")
            // The build read every play through short-lived rows and merged the transitions
            // a few times: free heap that glibc keeps in its arenas unless asked.
            _ = glibcMallocTrim(0)
        }
    }

    /// Called during a build, outside the model's lock (tests: to hold a build while
    /// checking what goes on meanwhile).
    nonisolated(unsafe) var whileBuilding: (() -> Void)?

    /// Re-reads the tracks when any changed (tags, BPM, library membership).
    func refreshTracks() throws {
        let (generation, current) = model.withLock { ($0.generation, $0.tracksVersion) }
        let version = try store.recommenderTracksVersion()
        guard version != current else { return }
        // Keys made here, outside the model's lock: suggestions wait only for the interning.
        let candidates = try store.recommenderCandidates().map(ListeningModel.Prepared.init)
        model.withLock { m in
            // A build replaced the model meanwhile: it read the tracks itself.
            guard m.generation == generation, m.builtAt != nil else { return }
            for candidate in candidates { m.model.upsert(candidate) }
            m.tracksVersion = version
            control.withLock { $0.version &+= 1 }
        }
    }

    /// Checks the tracks every `seconds` in the background, once the model exists.
    private func startTrackRefresh(every seconds: Double) {
        let timer = trackTimer
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler { [weak self] in
            guard let self, self.control.withLock({ $0.builtAt != nil }) else { return }
            do { try self.refreshTracks() } catch { self.logger.warning("recommender: \(error)") }
        }
        timer.resume()
    }

    deinit { trackTimer.cancel() }

    /// Stops the background work before the database closes: the track refresh, the
    /// background builds (none starts after this), the auto-DJ's subscription, and a
    /// queueing in progress (waited for).
    public func stop() {
        stopped.store(true, ordering: .relaxed)
        if let token = subscription.withLock({ $0.take() }) { events?.unsubscribe(token) }
        trackTimer.cancel()
        autoQueue.sync {}
        // A background build reads the database until its next check of `stopped`: waited
        // for, so that the database is not closed under it (a test that closed its store
        // right after crashed in SQLite on the build's thread).
        let deadline = Date().addingTimeInterval(30)
        while preparing.load(ordering: .relaxed), Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    }
}

/// glibc's `malloc_trim` (declared in <malloc.h>, which the Glibc module does not import):
/// returns the whole free pages of every arena to the system.
@_silgen_name("malloc_trim")
func glibcMallocTrim(_ pad: Int) -> Int32
