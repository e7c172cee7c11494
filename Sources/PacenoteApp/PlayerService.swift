import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteMPD
import PacenoteStore
import Synchronization

/// One player (one MPD): what its watcher sees becomes plays in the store, the library
/// mirror, and events on the bus. Runs on the watcher's thread.
public final class PlayerService: MPDWatcherDelegate {
    public let name: String
    public let watcher: MPDWatcher
    private let store: Store
    /// Library mirror and tag tempos go through it (announced); the open play is this service's own row.
    private let operations: Operations
    private let events: EventBus
    /// Where plays the store cannot take yet wait (shared by every player).
    private let waiting: WaitingPlays
    private let logger: Logger

    private struct State {
        var tracker: PlayTracker
        var nowPlaying: NowPlaying?
        /// The stored track of the song playing now (its id and BPM), looked up once per song.
        var storedTrack: (uri: String, track: Track?)?
        /// Files of the library mirror whose tags are still to be read.
        var tagQueue: TagQueue?
        /// Files that were in a batch that broke the connection: read one at a time.
        var suspectFiles: Set<String> = []
    }

    /// The files of one mirror pass whose tags remain to be read, in order.
    struct TagQueue {
        var files: [(uri: String, modifiedMs: Int64)]
        var position = 0
        let updateTime: Int
        let started = Date()
        var withBPM = 0
        var total: Int { files.count }
        var isDone: Bool { position >= files.count }

        init(files: [(uri: String, modifiedMs: Int64)], updateTime: Int) {
            self.files = files
            self.updateTime = updateTime
        }

        /// The next `count` files, or just one if it is among `alone`; a batch stops
        /// before such a file.
        mutating func next(_ count: Int, alone: Set<String>) -> [(uri: String, modifiedMs: Int64)] {
            var batch: [(uri: String, modifiedMs: Int64)] = []
            while position < files.count, batch.count < count {
                let file = files[position]
                if alone.contains(file.uri) {
                    if batch.isEmpty {
                        batch.append(file)
                        position += 1
                    }
                    break
                }
                batch.append(file)
                position += 1
            }
            return batch
        }
    }
    private let state: Mutex<State>

    public var nowPlaying: NowPlaying? { state.withLock { $0.nowPlaying } }

    /// The controls as the watcher last saw them (nil before it first looked).
    public var controls: PlayerControls? { lastControls.withLock { $0 } }
    private let lastControls = Mutex<PlayerControls?>(nil)

    /// The controls' state as last read (by the watcher, or after a press): every open page
    /// hears each change once (the position moves on by itself and is not one).
    public func remember(_ controls: PlayerControls) {
        let changed = lastControls.withLock { last in
            defer { last = controls }
            return controls.differsFromWhatIsShown(last)
        }
        if changed { events.publish(.playerControls(player: name, controls)) }
    }

    /// Tempo-matched playback's copies: a copy MPD plays is logged as its original, and the
    /// copies in MPD's library are never mirrored as tracks.
    let tempo: TempoService?

    init(name: String, watcher: MPDWatcher, rule: PlayRule, store: Store, events: EventBus, waiting: WaitingPlays,
         logger: Logger, tempo: TempoService? = nil) throws(StoreError) {
        self.name = name
        self.tempo = tempo
        self.waiting = waiting
        self.watcher = watcher
        self.store = store
        self.operations = Operations(store: store, events: events)
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
    public func requestStop() { watcher.requestStop() }
    public func waitUntilStopped(timeout: Double) -> Bool { watcher.waitUntilStopped(timeout: timeout) }

    // MARK: MPDWatcherDelegate

    /// Moves on before every look the watcher reports (after each `player` or `playlist`
    /// event from MPD, after connecting) and when the connection is lost: while it stands
    /// still, MPD's queue has not changed as far as this process can know (the recommender
    /// keeps the queue it read until it moves).
    public var observations: UInt64 { observed.load(ordering: .acquiring) }
    private let observed = Atomic<UInt64>(0)

    public func watcher(_ watcher: MPDWatcher, observed snapshot: PlayerSnapshot, at time: Date) {
        observed.add(1, ordering: .releasing)
        if let controls = snapshot.controls { remember(controls) }
        var snapshot = snapshot
        if let tempo, let song = snapshot.song, let original = tempo.original(of: song) { snapshot.song = original }
        apply(state.withLock { $0.tracker.observe(snapshot, at: time) }, at: time)
    }

    public func watcher(_ watcher: MPDWatcher, lostConnectionAt time: Date) {
        observed.add(1, ordering: .releasing)
        lastControls.withLock { $0 = nil }  // what MPD's controls show is unknown until it is back
        apply(state.withLock { $0.tracker.lost(at: time) }, at: time)
    }

    public func watcher(_ watcher: MPDWatcher, tickAt time: Date) {
        guard let progress = state.withLock({ $0.tracker.progress(at: time) }) else { return }
        do {
            try operations.saveProgress(player: name, progress)
        } catch {
            logger.error("saving the play in progress: \(error.description)")
        }
    }

    public func watcher(_ watcher: MPDWatcher, libraryMayHaveChanged library: MPDLibrary, because reason: LibraryChange) {
        do {
            let started = Date()
            let updateTime = try library.updateTime()
            // MPD's update time has a one-second resolution: after a `database` event the
            // library is listed whatever it says; on connecting, an unchanged time skips it.
            let needsListing = switch reason {
            case .connected: try store.libraryUpdateTime(player: name) != updateTime
            case .database: true
            case .stickers: false
            }
            var changed: [SongInfo] = []
            var removed: [String] = []
            if needsListing {
                let known = try store.libraryIndex(player: name)
                var seen = Set<String>()
                seen.reserveCapacity(known.count)
                try library.forEachSong { song in
                    if let tempo, tempo.isCopy(song.uri) { return }
                    seen.insert(song.uri)
                    if known[song.uri] != Self.modifiedMs(song) { changed.append(song) }
                }
                removed = known.keys.filter { !seen.contains($0) }
            }
            let stickers = try library.stickers(named: "bpm")?.compactMapValues(BPM.parse)
            let summary = try operations.mirrorLibrary(player: name, changed: changed, removed: removed, stickers: stickers)
            refreshNowPlaying()
            guard needsListing else { return }
            // Tags (for BPM) are read file by file by MPD: slow for a large library, so
            // in small steps between player events (see doBackgroundWorkWith).
            state.withLock {
                $0.tagQueue = TagQueue(files: changed.map { ($0.uri, Self.modifiedMs($0)) }, updateTime: updateTime)
            }
            logger.info("""
                library mirrored in \(String(format: "%.2f", Date().timeIntervalSince(started))) s: \
                \(summary.added) added, \(summary.updated) updated, \(summary.removed) removed, \
                BPM from \(summary.bpmFromStickers) stickers; reading the tags of \(changed.count) files
                """)
        } catch let error as MPDError {
            logger.warning("mirroring the library: \(error.message)")
        } catch {
            logger.error("mirroring the library: \(error)")
        }
    }

    public func watcherHasBackgroundWork(_ watcher: MPDWatcher) -> Bool {
        state.withLock { $0.tagQueue != nil }
    }

    /// Reads the tags of the next files of the library mirror (one MPD command list).
    public func watcher(_ watcher: MPDWatcher, doBackgroundWorkWith library: MPDLibrary) {
        // A file that broke a batch before (a comment too long for libmpdclient, say) is
        // read on its own, so one bad file cannot stop the others.
        guard let batch = state.withLock({ s in s.tagQueue?.next(Self.tagBatch, alone: s.suspectFiles) }) else { return }
        do {
            let comments = try library.comments(of: batch.map(\.uri))
            let withBPM = try operations.applyTagBPM(player: name, batch.map { file in
                (file.uri, file.modifiedMs, comments[file.uri].flatMap(BPM.fromComments))
            })
            if let uri = state.withLock({ $0.tracker.current?.song.uri }), batch.contains(where: { $0.uri == uri }) {
                refreshNowPlaying()
            }
            let finished = state.withLock { s -> TagQueue? in
                s.tagQueue?.withBPM += withBPM
                guard let queue = s.tagQueue, queue.isDone else { return nil }
                s.tagQueue = nil
                return queue
            }
            if let finished {
                try store.setLibraryUpdateTime(finished.updateTime, player: name)
                logger.info("""
                    tags of \(finished.total) files read in \
                    \(String(format: "%.2f", Date().timeIntervalSince(finished.started))) s: \(finished.withBPM) with a BPM
                    """)
            }
        } catch let error as MPDError where batch.count == 1 {
            // This file alone breaks the connection: give up on its tags, keep the file.
            logger.warning("cannot read the tags of \(batch[0].uri): \(error.message)")
            _ = try? operations.applyTagBPM(player: name, [(batch[0].uri, batch[0].modifiedMs, nil)])
            _ = state.withLock { $0.suspectFiles.remove(batch[0].uri) }
        } catch let error as MPDError {
            // The files stay marked unread; after reconnecting, the next pass reads this
            // batch file by file.
            logger.warning("reading tags: \(error.message)")
            state.withLock { s in
                for file in batch { s.suspectFiles.insert(file.uri) }
                if !error.isFatal { s.tagQueue = nil }
            }
        } catch {
            logger.error("reading tags: \(error)")
            state.withLock { $0.tagQueue = nil }
        }
    }

    /// Files per `readcomments` command list: about 30 ms of MPD's time.
    static let tagBatch = 256

    static func modifiedMs(_ song: SongInfo) -> Int64 {
        song.lastModified.map { Int64($0 * 1000) } ?? 0
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
        switch waiting.record(player: name, finished: finished, open: open) {
        case .stored(let logged, let refused):
            for entry in logged { Self.logStored(entry, logger: logger) }
            for (play, message) in refused { Self.logRefused(play, message, logger: logger) }
        case .waiting(let count, let error) where count > 0:
            logger.error("storing \(count) play(s) failed; they wait in the spool and are retried: \(error)")
        case .waiting(_, let error):
            logger.error("saving the play in progress failed: \(error)")
        }
        publishNowPlaying(at: time)
    }

    static func logStored(_ entry: LoggedPlay, logger: Logger) {
        logger.info("""
            logged \(entry.play.counted ? "play" : "skip"): \(entry.track.artist ?? "?") – \(entry.track.title) \
            (\(String(format: "%.1f", entry.play.playedSeconds)) s)
            """)
    }

    /// A play the database refuses (a clock that ran backwards, say): logged in full, since
    /// retrying would block every later play behind it.
    static func logRefused(_ play: FinishedPlay, _ message: String, logger: Logger) {
        logger.error("""
            play refused by the database (\(message)): \(play.song.uri) from \(ISO8601.string(play.startedAt)) \
            to \(ISO8601.string(play.endedAt)), \(play.playedSeconds) s played
            """)
    }

    /// The stored track of the current song may have changed (its BPM): look it up again.
    private func refreshNowPlaying() {
        state.withLock { $0.storedTrack = nil }
        publishNowPlaying(at: Date())
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
