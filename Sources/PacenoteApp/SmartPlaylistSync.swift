import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import PacenoteWeb
import Synchronization

/// Keeps every smart playlist and mood (issue 57) in MPD as a stored playlist of the same
/// name, as `LikesSync` keeps "Liked": refreshed when the history, the likes, the tempos, the
/// library or the definitions change (each change announced by Operations); every
/// `checkEvery` seconds it looks whether another process wrote (`Store.smartPlaylistsStamp`)
/// or the hour turned (rules relative to now), and refreshes only then: a refresh reads every
/// definition's songs (400 ms on a 20,000-track library), which once a minute on an idle
/// server would be most of its CPU. A playlist is written only when its
/// songs changed; a definition renamed or deleted takes its old MPD playlist with it. All MPD
/// work is on one serial queue, off the request path; MPD's errors are kept per playlist and
/// shown, never thrown.
public final class SmartPlaylistSync: SmartPlaylistStates, Sendable {
    private let store: Store
    private let endpoint: MPDEndpoint
    private let tempo: TempoTable
    private let logger: Logger
    private let events: EventBus?
    private let queue = DispatchQueue(label: "pacenote.smart-playlists")
    private struct State {
        /// What was last written for each definition: its name and songs.
        var written: [Int64: (name: String, uris: [String])] = [:]
        var states: [Int64: SmartPlaylistState] = [:]
        var pending = false
        var subscription: EventBus.Subscription?
        var refreshes = 0
        var looks = 0
        var last: (at: Date, seconds: Double)?
        /// What the last refresh chose from, and its hour (`lookAgain`).
        var stamp: (data: String, hour: Int64)?
    }
    private let state = Mutex(State())
    // nonisolated(unsafe): set once in start, cancelled in stop (the service group calls them in
    // turn); made in start because a timer made and never resumed aborts when released.
    private nonisolated(unsafe) var timer: DispatchSourceTimer?

    /// The time (tests fix it: the hour is part of when to refresh).
    private let clock: @Sendable () -> Date

    public init(store: Store, endpoint: MPDEndpoint, tempo: TempoTable, events: EventBus?, logger: Logger,
                clock: @escaping @Sendable () -> Date = { Date() }) {
        self.clock = clock
        self.store = store
        self.endpoint = endpoint
        self.tempo = tempo
        self.events = events
        self.logger = logger
    }

    public func start(checkEvery seconds: Double = 60) {
        if let events {
            let token = events.subscribe { [weak self] event in
                guard case .changed(let change, _) = event, Self.matters(change) else { return }
                self?.schedule()
            }
            state.withLock { $0.subscription = token }
        }
        schedule()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pacenote.smart-playlists-timer"))
        timer.schedule(deadline: .now() + seconds, repeating: seconds)
        timer.setEventHandler { [weak self] in self?.lookAgain() }
        timer.resume()
        self.timer = timer
    }

    public func stop() {
        if let token = state.withLock({ $0.subscription.take() }) { events?.unsubscribe(token) }
        timer?.cancel()
        // Twice: a look drained by the first may have queued a refresh.
        queue.sync {}
        queue.sync {}
    }

    /// The songs kept for a playlist MPD did not take: never equal to a real list, so it is written again.
    static let notWritten = ["\u{0}"]

    /// The changes that can change a playlist's songs.
    static func matters(_ change: DataChange) -> Bool {
        switch change {
        case .playsAdded, .playsRewritten, .curated, .playsTagged, .workout, .paceEffects, .trackBPM, .trackFeeling,
             .library, .playlists: true
        case .songOfTheDay, .friends, .forwarding, .credentials, .heartRateSamples, .playInProgress, .privateSession, .plans: false
        }
    }

    /// One refresh queued, however many changes come before it runs.
    private func schedule() {
        let first = state.withLock { s in defer { s.pending = true }; return !s.pending }
        guard first else { return }
        queue.async { [self] in
            state.withLock { $0.pending = false }
            refresh()
        }
    }

    /// The periodic look: a refresh only when the data changed without an announcement
    /// (another process) or the hour turned since the last one.
    private func lookAgain() {
        queue.async { [self] in
            let last = state.withLock { $0.looks += 1; return $0.stamp }
            if let last, last.hour == Self.hour(clock()), let data = try? store.smartPlaylistsStamp(), data == last.data { return }
            schedule()
        }
    }

    static func hour(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 / 3600).rounded(.down)) }

    /// How many refreshes ran, and how many periodic looks (tests).
    public func counts() -> (refreshes: Int, looks: Int) { state.withLock { ($0.refreshes, $0.looks) } }

    /// Waits until the changes announced so far are in MPD (tests, the bench).
    public func settle() {
        queue.sync {}
        queue.sync {}
    }

    public func states() -> [Int64: SmartPlaylistState] { state.withLock { $0.states } }

    public func lastRefresh() -> (at: Date, seconds: Double)? { state.withLock { $0.last } }

    private func refresh() {
        let now = clock()
        let started = ContinuousClock.now
        let all: [(SmartPlaylist, [SmartPlaylist.Candidate])]
        // Read before the songs: a write between the two makes the next look refresh again.
        let stamp = try? store.smartPlaylistsStamp()
        do { all = try store.everySmartPlaylistsSongs(tempo: tempo, now: now) } catch {
            logger.warning("smart playlists: cannot read them: \(error)")
            return
        }
        let written = state.withLock { $0.refreshes += 1; return $0.written }
        var states: [Int64: SmartPlaylistState] = [:]
        var kept: [Int64: (name: String, uris: [String])] = [:]
        let ids = Set(all.map(\.0.id))
        // Gone or renamed: the old MPD playlist goes.
        for (id, old) in written where !ids.contains(id) || all.first(where: { $0.0.id == id })?.0.name != old.name {
            do { try MPDQueue.edit(endpoint: endpoint, playlist: old.name, .delete) } catch {
                logger.debug("smart playlists: could not remove \(old.name): \(error)")
            }
        }
        var unreachable: String?
        for (playlist, songs) in all {
            let uris = songs.map(\.uri)
            // MPD away: the rest wait for the next refresh rather than a timeout each.
            if let unreachable {
                kept[playlist.id] = written[playlist.id] ?? (playlist.name, Self.notWritten)
                states[playlist.id] = SmartPlaylistState(songs: uris.count, seconds: 0, writtenAt: nil, error: unreachable)
                continue
            }
            let seconds = songs.reduce(0) { $0 + ($1.durationS ?? 0) }
            if let old = written[playlist.id], old.name == playlist.name, old.uris == uris {
                kept[playlist.id] = old
                states[playlist.id] = state.withLock { $0.states[playlist.id] } ?? SmartPlaylistState(songs: uris.count, seconds: seconds, writtenAt: now)
                continue
            }
            do {
                try MPDQueue.savePlaylist(endpoint: endpoint, name: playlist.name, uris: uris)
                kept[playlist.id] = (playlist.name, uris)
                states[playlist.id] = SmartPlaylistState(songs: uris.count, seconds: seconds, writtenAt: now)
                logger.debug("smart playlists: \(playlist.name) has \(uris.count) songs")
            } catch {
                let before = state.withLock { $0.states[playlist.id]?.error }
                if before != error.description {
                    logger.warning("smart playlists: cannot write \(playlist.name) to MPD: \(error)")
                }
                states[playlist.id] = SmartPlaylistState(songs: uris.count, seconds: seconds, writtenAt: nil, error: error.description)
                // Still ours by this name: a rename or delete later removes what MPD may hold.
                kept[playlist.id] = (playlist.name, Self.notWritten)
                if error.isFatal { unreachable = error.description }
            }
        }
        let took = ContinuousClock.now - started
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        state.withLock {
            $0.written = kept; $0.states = states; $0.last = (now, seconds)
            // A playlist MPD did not take is tried again at the next look.
            let failed = states.values.contains { $0.error != nil }
            $0.stamp = failed ? nil : stamp.map { ($0, Self.hour(now)) }
        }
    }
}
