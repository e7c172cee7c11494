import CMPDClient
import Foundation
import Glibc
import Logging
import PacenoteCore
import Synchronization

/// Follows one MPD: connects, waits in `idle` on a dedicated thread (no polling, no CPU
/// while nothing changes), and reconnects with backoff when MPD goes away.
///
/// Blocking libmpdclient calls stay on this watcher's own thread, off Swift's cooperative
/// pool. The thread sleeps in `poll(2)` on the MPD socket and an eventfd that `stop()`
/// signals, so shutdown never waits for MPD.
public final class MPDWatcher: Sendable {
    public struct Settings: Sendable {
        public var name: String
        public var endpoint: MPDEndpoint
        public var connectTimeoutMs: UInt32
        public var reconnectInitial: Double
        public var reconnectMaximum: Double

        public init(name: String, endpoint: MPDEndpoint, connectTimeoutMs: UInt32 = 5000,
                    reconnectInitial: Double = 1, reconnectMaximum: Double = 30) {
            self.name = name
            self.endpoint = endpoint
            self.connectTimeoutMs = connectTimeoutMs
            self.reconnectInitial = reconnectInitial
            self.reconnectMaximum = reconnectMaximum
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

    public func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "mpd-\(settings.name)"
        thread.start()
    }

    /// Wakes the watcher and waits (up to `timeout` seconds) for its thread to finish.
    public func stop(timeout: Double = 10) {
        stopping.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)
        if started.load(ordering: .acquiring) {
            _ = finished.wait(timeout: .now() + timeout)
        }
    }

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
            } catch {
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

    /// Waits in `idle` until MPD reports events or `stop()` is called. Returns when
    /// stopping; throws when the connection breaks.
    private func follow(_ connection: MPDConnection) throws(MPDError) {
        let mask = mpd_idle(MPD_IDLE_DATABASE.rawValue | MPD_IDLE_QUEUE.rawValue
            | MPD_IDLE_PLAYER.rawValue | MPD_IDLE_STICKER.rawValue)
        while !isStopping {
            try connection.sendIdle(mask)
            guard waitReadable(connection.fileDescriptor) else {
                try? connection.cancelIdle()
                return
            }
            let events = try connection.receiveIdle()
            logger.trace("idle events 0x\(String(events.rawValue, radix: 16))")
        }
    }

    /// Sleeps in poll(2) until `fd` is readable (true) or the watcher is stopped (false).
    private func waitReadable(_ fd: Int32) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)]
        while true {
            let n = poll(&fds, 2, -1)
            if n < 0 && errno == EINTR { continue }
            if fds[1].revents != 0 || isStopping { return false }
            return true
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
