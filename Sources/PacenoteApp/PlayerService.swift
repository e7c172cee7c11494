import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteStore
import Synchronization

/// One player (one MPD): what its watcher sees becomes plays in the store, the library
/// mirror, and events on the bus. Runs on the watcher's thread.
public final class PlayerService: MPDWatcherDelegate {
    public let name: String
    public let watcher: MPDWatcher
    private let store: Store
    private let events: EventBus
    private let logger: Logger

    private struct State {
        var tracker: PlayTracker
        /// Finished plays the store has not accepted yet (a full disk, a locked file);
        /// retried with the next change, so a failed write loses nothing.
        var pending: [FinishedPlay] = []
        var nowPlaying: NowPlaying?
        /// The stored track of the song playing now (its id and BPM), looked up once per song.
        var storedTrack: (uri: String, track: Track?)?
    }
    private let state: Mutex<State>

    public var nowPlaying: NowPlaying? { state.withLock { $0.nowPlaying } }

    init(name: String, watcher: MPDWatcher, rule: PlayRule, store: Store, events: EventBus, logger: Logger) throws(StoreError) {
        self.name = name
        self.watcher = watcher
        self.store = store
        self.events = events
        var logger = logger
        logger[metadataKey: "player"] = "\(name)"
        self.logger = logger
        let saved = try store.openPlay(player: name)
        if let saved {
            logger.info("resuming the play of \(saved.song.uri) saved at \(ISO8601.string(saved.asOf))")
        }
        state = Mutex(State(tracker: PlayTracker(rule: rule, resuming: saved)))
    }

    public func start() { watcher.start(delegate: self) }
    public func stop() { watcher.stop() }

    // MARK: MPDWatcherDelegate

    public func watcher(_ watcher: MPDWatcher, observed snapshot: PlayerSnapshot, at time: Date) {
        apply(state.withLock { $0.tracker.observe(snapshot, at: time) }, at: time)
    }

    public func watcher(_ watcher: MPDWatcher, lostConnectionAt time: Date) {
        apply(state.withLock { $0.tracker.lost(at: time) }, at: time)
    }

    public func watcher(_ watcher: MPDWatcher, tickAt time: Date) {
        guard let progress = state.withLock({ $0.tracker.progress(at: time) }) else { return }
        do {
            try store.saveProgress(player: name, progress)
        } catch {
            logger.error("saving the play in progress: \(error.description)")
        }
    }

    public func watcher(_ watcher: MPDWatcher, libraryMayHaveChanged library: MPDLibrary, because reason: LibraryChange) {
        do {
            let started = Date()
            let updateTime = try library.updateTime()
            var changed: [SongInfo] = []
            var removed: [String] = []
            var tagBPM: [String: Double] = [:]
            var listed = false
            // MPD's update time has a one-second resolution: after a `database` event the
            // library is listed whatever it says; on connecting, an unchanged time skips it.
            let needsListing = switch reason {
            case .connected: try store.libraryUpdateTime(player: name) != updateTime
            case .database: true
            case .stickers: false
            }
            if needsListing {
                let known = try store.libraryIndex()
                var seen = Set<String>()
                seen.reserveCapacity(known.count)
                try library.forEachSong { song in
                    seen.insert(song.uri)
                    let modified = song.lastModified.map { Int64($0 * 1000) } ?? -1
                    if known[song.uri] != modified { changed.append(song) }
                }
                removed = known.keys.filter { !seen.contains($0) }
                for (uri, comments) in try library.comments(of: changed.map(\.uri)) {
                    if let bpm = BPM.fromComments(comments) { tagBPM[uri] = bpm }
                }
                listed = true
            }
            let stickers = try library.stickers(named: "bpm").compactMapValues(BPM.parse)
            let summary = try store.applyLibrary(
                changed: changed, tagBPM: tagBPM, removed: removed, stickers: stickers,
                updateTime: listed ? updateTime : nil, player: name)
            if listed {
                logger.info("""
                    library mirrored in \(String(format: "%.2f", Date().timeIntervalSince(started))) s: \
                    \(summary.added) added, \(summary.updated) updated, \(summary.removed) removed, \
                    BPM from \(summary.bpmFromTags) tags and \(summary.bpmFromStickers) stickers
                    """)
            }
        } catch let error as MPDError {
            logger.warning("mirroring the library: \(error.message)")
            if error.isFatal { return }
        } catch {
            logger.error("mirroring the library: \(error)")
        }
    }

    // MARK: Applying the tracker's decisions

    private func apply(_ decisions: [PlayEvent], at time: Date) {
        var finished: [FinishedPlay] = []
        var open: OpenPlayUpdate = .keep
        for decision in decisions {
            switch decision {
            case .finished(let play): finished.append(play)
            case .progress(let play?): open = .save(play)
            case .progress(nil): open = .clear
            }
        }
        let toStore = state.withLock { s -> [FinishedPlay] in
            s.pending += finished
            return s.pending
        }
        do {
            let logged = try store.record(player: name, finished: toStore, open: open)
            state.withLock { $0.pending.removeAll() }
            for entry in logged {
                logger.info("""
                    logged \(entry.play.counted ? "play" : "skip"): \(entry.track.artist ?? "?") – \(entry.track.title) \
                    (\(String(format: "%.1f", entry.play.playedSeconds)) s)
                    """)
                events.publish(.playLogged(id: entry.id, play: entry.play, track: entry.track))
            }
        } catch {
            logger.error("storing \(toStore.count) play(s) failed, will retry: \(error.description)")
        }
        publishNowPlaying(at: time)
    }

    private func publishNowPlaying(at time: Date) {
        let current = state.withLock { $0.tracker.current }
        var stored: Track?
        if let song = current?.song, !song.isStream {
            let cached = state.withLock { $0.storedTrack }
            if let cached, cached.uri == song.uri {
                stored = cached.track
            } else {
                stored = try? store.track(uri: song.uri)
                state.withLock { $0.storedTrack = (song.uri, stored) }
            }
        }
        let (changed, now) = state.withLock { s -> (Bool, NowPlaying?) in
            let now = s.tracker.current.flatMap { play -> NowPlaying? in
                guard play.lostAt == nil else { return nil }
                var track = play.song.track
                if let stored {
                    track.id = stored.id
                    track.bpm = stored.bpm
                }
                return NowPlaying(
                    player: name, state: play.isPlaying ? .play : .pause, track: track,
                    startedAt: play.startedAt, playedSeconds: play.playedSeconds, elapsed: play.position,
                    duration: play.duration, at: play.asOf)
            }
            let changed = now != s.nowPlaying
            s.nowPlaying = now
            return (changed, now)
        }
        if changed { events.publish(.nowPlaying(player: name, now)) }
    }
}
