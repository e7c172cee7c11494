import CMPDClient
import Foundation
import Glibc
import Logging
import PacenoteCore
import Synchronization

/// Receives what a watcher sees, on the watcher's own thread, in order.
public protocol MPDWatcherDelegate: AnyObject, Sendable {
    /// A fresh look at the player: after connecting, and after every `player` or
    /// `playlist` event.
    func watcher(_ watcher: MPDWatcher, observed snapshot: PlayerSnapshot, at time: Date)
    /// The connection broke (or the watcher is stopping) at `time`.
    func watcher(_ watcher: MPDWatcher, lostConnectionAt time: Date)
    /// Periodically (every `tickInterval`) while MPD is playing, to save progress.
    func watcher(_ watcher: MPDWatcher, tickAt time: Date)
    /// Whether the delegate has slow work to do in small steps between events (reading the
    /// tags of a large library), so that play logging is never held up by it.
    func watcherHasBackgroundWork(_ watcher: MPDWatcher) -> Bool
    /// Do one short step (tens of milliseconds) of that work through `library`.
    func watcher(_ watcher: MPDWatcher, doBackgroundWorkWith library: MPDLibrary)
    /// MPD's library may have changed: read it through `library` while this call lasts.
    func watcher(_ watcher: MPDWatcher, libraryMayHaveChanged library: MPDLibrary, because reason: LibraryChange)
}

/// Why the library should be looked at again.
public enum LibraryChange: Sendable {
    /// Just connected: the library may have changed while we were away.
    case connected
    /// MPD's `database` event: its database was updated.
    case database
    /// MPD's `sticker` event: only stickers changed.
    case stickers
}

/// Read access to one MPD's library, valid only during
/// `MPDWatcherDelegate.watcher(_:libraryMayHaveChanged:because:)` (it uses the watcher's
/// connection). Not `~Copyable`, though it should be: swiftc 6.3.1 crashes in release
/// builds when inlining a non-copyable struct here ("Cannot initialize a nonCopyable type
/// with a guaranteed value").
public struct MPDLibrary {
    let connection: MPDConnection

    /// MPD's last database update (Unix time), to skip a library that has not changed.
    public func updateTime() throws(MPDError) -> Int { try connection.databaseUpdateTime() }

    /// Every song in the library, one at a time.
    public func forEachSong(_ body: (SongInfo) -> Void) throws(MPDError) { try connection.forEachSong(body) }

    /// The Vorbis/FLAC/APE comments (and ID3 TXXX frames) of files, upper-cased keys.
    public func comments(of uris: [String]) throws(MPDError) -> [String: [String: String]] {
        try connection.readComments(uris)
    }

    /// Every song's sticker `name`, URI → value; `nil` when MPD has no sticker database.
    public func stickers(named name: String) throws(MPDError) -> [String: String]? {
        try connection.stickers(named: name)
    }
}

/// Follows one MPD: connects, waits in `idle` on a dedicated thread (no polling, no CPU
/// while nothing changes), and reconnects with backoff when MPD goes away.
///
/// Blocking libmpdclient calls stay on this watcher's own thread, off Swift's cooperative
/// pool. The thread sleeps in `poll(2)` on the MPD socket and a self-pipe that `stop()`
/// signals, so shutdown never waits for MPD.
public final class MPDWatcher: Sendable {
    public struct Settings: Sendable {
        public var name: String
        public var endpoint: MPDEndpoint
        public var connectTimeoutMs: UInt32
        public var reconnectInitial: Double
        public var reconnectMaximum: Double
        /// How often progress is saved while playing (at least every 15 s).
        public var tickInterval: Double

        public init(name: String, endpoint: MPDEndpoint, connectTimeoutMs: UInt32 = 5000,
                    reconnectInitial: Double = 1, reconnectMaximum: Double = 30, tickInterval: Double = 15) {
            self.name = name
            self.endpoint = endpoint
            self.connectTimeoutMs = connectTimeoutMs
            self.reconnectInitial = reconnectInitial
            self.reconnectMaximum = reconnectMaximum
            self.tickInterval = tickInterval
        }
    }

    public let settings: Settings
    private let logger: Logger
    private let state: Mutex<PlayerStatus>
    private let stopping = Atomic<Bool>(false)
    /// A self-pipe: `stop()` writes a byte to wake the thread out of poll(2).
    private let wakePipe: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)
    private let listeners = Mutex<[@Sendable (PlayerStatus) -> Void]>([])

    /// Set once by `start(delegate:)` before the watcher's thread exists, then only read
    /// from that thread: thread creation orders the write before every read.
    nonisolated(unsafe) private var delegate: (any MPDWatcherDelegate)?

    public init(settings: Settings, logger: Logger) {
        self.settings = settings
        var logger = logger
        logger[metadataKey: "mpd"] = "\(settings.name)"
        self.logger = logger
        self.state = Mutex(PlayerStatus(
            name: settings.name, endpoint: settings.endpoint.description, connected: false,
            serverVersion: nil, lastError: nil, since: Date()))
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 {
            fatalError("pipe failed: \(String(cString: strerror(errno)))")
        }
        for fd in fds {
            _ = fcntl(fd, F_SETFL, O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        }
        self.wakePipe = (fds[0], fds[1])
    }

    deinit {
        close(wakePipe.read)
        close(wakePipe.write)
    }

    public var status: PlayerStatus { state.withLock { $0 } }

    /// Calls `listener` on the watcher's thread on every connection change.
    public func onStatusChange(_ listener: @escaping @Sendable (PlayerStatus) -> Void) {
        listeners.withLock { $0.append(listener) }
    }

    /// Starts the watcher's thread; `delegate` receives everything it sees.
    public func start(delegate: (any MPDWatcherDelegate)? = nil) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        self.delegate = delegate
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "mpd-\(settings.name)"
        thread.start()
    }

    /// Wakes the watcher and waits (up to `timeout` seconds) for its thread to finish.
    /// Returns whether it did.
    @discardableResult
    public func stop(timeout: Double = 10) -> Bool {
        requestStop()
        return waitUntilStopped(timeout: timeout)
    }

    /// Asks the watcher's thread to finish, without waiting (to stop several at once).
    public func requestStop() {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
    }

    /// Waits up to `timeout` seconds for the thread to finish; true if it has (or never ran).
    public func waitUntilStopped(timeout: Double) -> Bool {
        guard started.load(ordering: .acquiring), !joined.load(ordering: .acquiring) else { return true }
        guard finished.wait(timeout: .now() + timeout) == .success else { return false }
        joined.store(true, ordering: .releasing)
        return true
    }

    private let joined = Atomic<Bool>(false)

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }

    private func run() {
        var backoff = Backoff(initial: settings.reconnectInitial, maximum: settings.reconnectMaximum)
        while !isStopping {
            do {
                let connection = try MPDConnection(endpoint: settings.endpoint, timeoutMs: settings.connectTimeoutMs)
                backoff.succeeded()
                logger.info("connected to MPD \(connection.serverVersion) at \(settings.endpoint)")
                update(connected: true, version: connection.serverVersion, error: nil)
                try follow(connection)
                delegate?.watcher(self, lostConnectionAt: Date())
            } catch {
                if status.connected { delegate?.watcher(self, lostConnectionAt: Date()) }
                if isStopping { break }
                let delay = backoff.failed()
                if status.connected || status.lastError != error.message {
                    logger.warning("MPD at \(settings.endpoint): \(error.message); retrying in \(delay) s")
                } else {
                    logger.debug("MPD still unreachable: \(error.message); retrying in \(delay) s")
                }
                update(connected: false, version: nil, error: error.message)
                sleep(seconds: delay)
            }
        }
        update(connected: false, version: nil, error: nil)
    }

    /// Looks at the player, then waits in `idle` until MPD reports events or `stop()` is
    /// called. Returns when stopping; throws when the connection breaks.
    private func follow(_ connection: MPDConnection) throws(MPDError) {
        var playing = try look(connection)
        delegate?.watcher(self, libraryMayHaveChanged: MPDLibrary(connection: connection), because: .connected)
        // Mixer and options too: the volume and the modes are on the controls (issue 57).
        let mask = mpd_idle(MPD_IDLE_DATABASE.rawValue | MPD_IDLE_QUEUE.rawValue
            | MPD_IDLE_PLAYER.rawValue | MPD_IDLE_STICKER.rawValue | MPD_IDLE_MIXER.rawValue | MPD_IDLE_OPTIONS.rawValue)
        var nextTick = Date().addingTimeInterval(settings.tickInterval)
        while !isStopping {
            try connection.sendIdle(mask)
            let hasWork = delegate?.watcherHasBackgroundWork(self) ?? false
            // With background work pending, only check for events (MPD answers `idle` at
            // once when something happened) and then do one step of it. While playing, wake
            // up to save progress every tickInterval. Otherwise sleep until MPD or stop()
            // wakes us: no CPU at all while paused or stopped.
            let timeout: Double? = hasWork ? 0 : (playing ? max(0, nextTick.timeIntervalSinceNow) : nil)
            let events: mpd_idle
            switch waitReadable(connection.fileDescriptor, timeout: timeout) {
            case .stopping:
                try? connection.cancelIdle()
                return
            case .timedOut:
                events = try connection.cancelIdle()
            case .readable:
                events = try connection.receiveIdle()
            }
            if events.rawValue != 0 { playing = try handle(events, connection) }
            let now = Date()
            if !playing {
                nextTick = now.addingTimeInterval(settings.tickInterval)
            } else if now >= nextTick {
                delegate?.watcher(self, tickAt: now)
                nextTick = now.addingTimeInterval(settings.tickInterval)
            }
            if hasWork && events.rawValue == 0 {
                delegate?.watcher(self, doBackgroundWorkWith: MPDLibrary(connection: connection))
            }
        }
    }

    private func handle(_ events: mpd_idle, _ connection: MPDConnection) throws(MPDError) -> Bool {
        logger.trace("idle events 0x\(String(events.rawValue, radix: 16))")
        var playing = currentlyPlaying
        if events.rawValue & (MPD_IDLE_PLAYER.rawValue | MPD_IDLE_QUEUE.rawValue | MPD_IDLE_MIXER.rawValue | MPD_IDLE_OPTIONS.rawValue) != 0 {
            playing = try look(connection)
        }
        if events.rawValue & MPD_IDLE_DATABASE.rawValue != 0 {
            delegate?.watcher(self, libraryMayHaveChanged: MPDLibrary(connection: connection), because: .database)
        } else if events.rawValue & MPD_IDLE_STICKER.rawValue != 0 {
            delegate?.watcher(self, libraryMayHaveChanged: MPDLibrary(connection: connection), because: .stickers)
        }
        return playing
    }

    private let playingNow = Atomic<Bool>(false)
    private var currentlyPlaying: Bool { playingNow.load(ordering: .relaxed) }

    /// Reads status and current song and hands them to the delegate; returns whether MPD plays.
    private func look(_ connection: MPDConnection) throws(MPDError) -> Bool {
        let snapshot = try connection.snapshot()
        delegate?.watcher(self, observed: snapshot, at: Date())
        playingNow.store(snapshot.state == .play, ordering: .relaxed)
        return snapshot.state == .play
    }

    private enum Wake { case readable, timedOut, stopping }

    /// Sleeps in poll(2) until `fd` is readable, `timeout` seconds pass, or the watcher is stopped.
    private func waitReadable(_ fd: Int32, timeout: Double?) -> Wake {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        while true {
            let ms = deadline.map { Int32(max(0, $0.timeIntervalSinceNow) * 1000) + 1 } ?? -1
            let n = poll(&fds, 2, ms)
            if n < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 || isStopping { return .stopping }
            if n == 0 {
                if let deadline, deadline.timeIntervalSinceNow > 0 { continue }
                return .timedOut
            }
            return .readable
        }
    }

    /// Sleeps for `seconds`, or less if the watcher is stopped.
    private func sleep(seconds: Double) {
        var fds = [pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        let deadline = Date().addingTimeInterval(seconds)
        while !isStopping {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return }
            _ = poll(&fds, 1, Int32(left * 1000) + 1)
        }
    }

    private func update(connected: Bool, version: String?, error: String?) {
        let (changed, snapshot) = state.withLock { s -> (Bool, PlayerStatus) in
            let changed = s.connected != connected
            if changed { s.since = Date() }
            s.connected = connected
            s.serverVersion = version
            s.lastError = error
            return (changed, s)
        }
        guard changed else { return }
        for listener in listeners.withLock({ $0 }) { listener(snapshot) }
    }
}
