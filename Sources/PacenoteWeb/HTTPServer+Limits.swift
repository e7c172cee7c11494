import Foundation
import Glibc
import Logging
import Metrics

/// What one client (a peer address) may hold at once, and what all clients together may:
/// open connections per address, a deadline for every request's headers and every body,
/// bodies being received per address, and the memory all bodies in flight take — bodies
/// that come before any credential (`keyless`) in a pool of their own. One address cannot
/// take the service from another, and clients without a key cannot take it from the owner.
///
/// libmicrohttpd's own timeout is for inactivity, so a client sending one header line every
/// few seconds would keep its slot for ever (slowloris). Here every connection is known from
/// its start (`MHD_OPTION_NOTIFY_CONNECTION`); one that waits for its request's headers for
/// longer than the deadline is cut off by a sweep, once a second, with `shutdown(2)`:
/// libmicrohttpd then reads end-of-file and closes it as it would any other. The same sweep
/// cuts off a body that trickles: after a grace period every body must have come at
/// `minBodyBytesPerSecond` on average since its headers, and a keyless body must be complete
/// within `keylessBodySeconds` (16 KiB takes milliseconds on any real link; a client that
/// announces it and sends a byte every 20 s would otherwise hold its memory for ever).
final class ClientLimits: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is guarded by `lock`.
    struct Settings: Sendable {
        var connectionsPerAddress: Int
        var headerTimeout: Double
        var uploadsPerAddress: Int
        var bodyMemoryBytes: Int
        var keylessBodyMemoryBytes: Int
        var keylessBodySeconds: Double
        var minBodyBytesPerSecond: Int
        var bodyGraceSeconds: Double
        /// Addresses the per-address limits do not apply to (trusted reverse proxies, which
        /// carry many clients on their connections).
        var exempt: @Sendable (String) -> Bool
    }

    private struct Connection {
        let fd: Int32
        let address: String
        /// Since when it waits for a request's headers (its first, or the next one on a kept-alive
        /// connection); nil while a request is being received or answered.
        var waitingSince: UInt64?
        var cutOff = false
        /// The body being received: since when, how much has come, and whether keyless.
        var body: (since: UInt64, received: Int, keyless: Bool)?
    }

    let settings: Settings
    private let logger: Logger
    private let lock = NSLock()
    private var connections: [OpaquePointer: Connection] = [:]
    private var connectionsByAddress: [String: Int] = [:]
    /// Places the accept policy granted that have not started yet, by when.
    private var pendingByAddress: [String: [UInt64]] = [:]
    private var uploadsByAddress: [String: Int] = [:]
    private var bodyMemoryInUse = 0
    private var keylessMemoryInUse = 0
    private let sweeper: DispatchSourceTimer
    private var sweeping = false

    init(settings: Settings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        sweeper = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "pacenote.http-deadlines"))
        // Armed only while connections are open: an idle server never wakes up for it.
        sweeper.schedule(deadline: .distantFuture)
        sweeper.setEventHandler { [weak self] in self?.sweep() }
        sweeper.resume()
    }

    deinit { sweeper.cancel() }

    // MARK: Connections

    /// libmicrohttpd's accept policy: below the limit for the address, or exempt. Worker
    /// threads accept at the same time, and a connection is counted only when it starts
    /// (`opened`): the place is reserved here, so that two threads cannot both take the last
    /// one. A reservation that never became a connection (libmicrohttpd gave up on it after
    /// the policy said yes) lapses after a second.
    func mayConnect(from address: String) -> Bool {
        if settings.exempt(address) { return true }
        let now = DispatchTime.now().uptimeNanoseconds
        let allowed = lock.withLock {
            var pending = pendingByAddress[address, default: []].filter { now &- $0 < 1_000_000_000 }
            guard connectionsByAddress[address, default: 0] + pending.count < settings.connectionsPerAddress else { return false }
            pending.append(now)
            pendingByAddress[address] = pending
            return true
        }
        if !allowed { Counter(label: "pacenote_http_connections_refused_total").increment() }
        return allowed
    }

    func opened(_ connection: OpaquePointer, fd: Int32, address: String) {
        lock.withLock {
            if var pending = pendingByAddress[address], !pending.isEmpty {
                pending.removeFirst()
                pendingByAddress[address] = pending.isEmpty ? nil : pending
            }
            connections[connection] = Connection(fd: fd, address: address, waitingSince: DispatchTime.now().uptimeNanoseconds)
            connectionsByAddress[address, default: 0] += 1
            if !sweeping {
                sweeping = true
                sweeper.schedule(deadline: .now() + 1, repeating: 1, leeway: .milliseconds(100))
            }
        }
    }

    /// Called by libmicrohttpd before it closes the socket, so `sweep` (under the same lock)
    /// never shuts down a descriptor that already belongs to someone else.
    func closed(_ connection: OpaquePointer) {
        lock.withLock {
            guard let gone = connections.removeValue(forKey: connection) else { return }
            let left = connectionsByAddress[gone.address, default: 1] - 1
            connectionsByAddress[gone.address] = left > 0 ? left : nil
            if connections.isEmpty, sweeping {
                sweeping = false
                sweeper.schedule(deadline: .distantFuture)
            }
        }
    }

    /// Connections libmicrohttpd has started and not yet closed.
    var openConnections: Int { lock.withLock { connections.count } }

    /// A request's headers are in: its deadline is met.
    func requestStarted(on connection: OpaquePointer) {
        lock.withLock { connections[connection]?.waitingSince = nil }
    }

    /// Answered: the next request's headers have the deadline from now.
    func requestEnded(on connection: OpaquePointer) {
        lock.withLock {
            connections[connection]?.waitingSince = DispatchTime.now().uptimeNanoseconds
            connections[connection]?.body = nil
        }
    }

    /// A body is coming: its deadline runs from now.
    func bodyBegan(on connection: OpaquePointer, keyless: Bool) {
        lock.withLock { connections[connection]?.body = (DispatchTime.now().uptimeNanoseconds, 0, keyless) }
    }

    func bodyReceived(on connection: OpaquePointer, bytes: Int) {
        lock.withLock { connections[connection]?.body?.received += bytes }
    }

    /// The whole body is in: the handler's time is not the client's.
    func bodyEnded(on connection: OpaquePointer) {
        lock.withLock { connections[connection]?.body = nil }
    }

    /// Whether a body begun `elapsed` seconds ago with `received` bytes is too slow: a keyless
    /// one past its deadline, or any past the grace period below the minimum average rate.
    static func bodyIsLate(elapsed: Double, received: Int, keyless: Bool, settings: Settings) -> Bool {
        if keyless && elapsed > settings.keylessBodySeconds { return true }
        guard settings.minBodyBytesPerSecond > 0, elapsed > settings.bodyGraceSeconds else { return false }
        return Double(received) < (elapsed - settings.bodyGraceSeconds) * Double(settings.minBodyBytesPerSecond)
    }

    private func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(settings.headerTimeout * 1e9)
        var cutHeaders = 0, cutBodies = 0
        lock.withLock {
            for (key, connection) in connections where !connection.cutOff {
                if let since = connection.waitingSince, now &- since > limit {
                    cutHeaders += 1
                } else if let body = connection.body,
                          Self.bodyIsLate(elapsed: Double(now &- body.since) / 1e9, received: body.received,
                                          keyless: body.keyless, settings: settings) {
                    cutBodies += 1
                } else {
                    continue
                }
                shutdown(connection.fd, Int32(SHUT_RDWR))
                connections[key]?.cutOff = true
            }
        }
        if cutHeaders > 0 {
            Counter(label: "pacenote_http_header_timeouts_total").increment(by: cutHeaders)
            logger.debug("http: closed \(cutHeaders) connection(s) whose request headers took over \(settings.headerTimeout) s")
        }
        if cutBodies > 0 {
            Counter(label: "pacenote_http_body_timeouts_total").increment(by: cutBodies)
            logger.debug("http: closed \(cutBodies) connection(s) whose request body came too slowly")
        }
    }

    // MARK: Bodies

    /// One more body being received from `address`; false when it has its share already.
    func beginUpload(from address: String) -> Bool {
        if settings.exempt(address) { return true }
        return lock.withLock {
            let count = uploadsByAddress[address, default: 0]
            guard count < settings.uploadsPerAddress else { return false }
            uploadsByAddress[address] = count + 1
            return true
        }
    }

    func endUpload(from address: String) {
        if settings.exempt(address) { return }
        lock.withLock {
            let left = uploadsByAddress[address, default: 1] - 1
            uploadsByAddress[address] = left > 0 ? left : nil
        }
    }

    /// Takes `bytes` of the memory bodies in flight share (keyless ones their own pool);
    /// false when they do not fit.
    func reserve(_ bytes: Int, keyless: Bool = false) -> Bool {
        lock.withLock {
            if keyless {
                guard bytes <= settings.keylessBodyMemoryBytes - keylessMemoryInUse else { return false }
                keylessMemoryInUse += bytes
            } else {
                guard bytes <= settings.bodyMemoryBytes - bodyMemoryInUse else { return false }
                bodyMemoryInUse += bytes
            }
            return true
        }
    }

    func release(_ bytes: Int, keyless: Bool = false) {
        guard bytes > 0 else { return }
        lock.withLock {
            if keyless { keylessMemoryInUse -= bytes } else { bodyMemoryInUse -= bytes }
        }
    }

    var bodyMemoryUsed: Int { lock.withLock { bodyMemoryInUse } }
    var keylessBodyMemoryUsed: Int { lock.withLock { keylessMemoryInUse } }
}

/// A request body written to a private file as it arrives (`O_CREAT|O_EXCL`, mode 0600, in a
/// folder only the owner can enter); removed when the request is over.
final class UploadFile: @unchecked Sendable {
    // @unchecked Sendable: written by libmicrohttpd's thread while the body arrives, then only
    // read (by the handler) and removed in deinit.
    let path: String
    private var fd: Int32
    private(set) var size = 0

    init(in directory: String) throws(HTTPServerError) {
        var random = SystemRandomNumberGenerator()
        let name = "upload-" + String(random.next(), radix: 16) + String(random.next(), radix: 16)
        path = (directory as NSString).appendingPathComponent(name)
        fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HTTPServerError(message: "cannot create \(path): \(String(cString: strerror(errno)))") }
    }

    /// Appends `count` bytes; false when the disk refuses them.
    func write(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, bytes + done, count - done)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        size += count
        return true
    }

    /// Closes the file for writing (the handler opens it again to read).
    func finish() {
        if fd >= 0 { close(fd); fd = -1 }
    }

    deinit {
        finish()
        unlink(path)
    }

    /// The uploads folder, created mode 0700 (or made so), emptied of uploads a crash left.
    static func prepare(_ directory: String) throws(HTTPServerError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw HTTPServerError(message: "cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard lstat(directory, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR, info.st_uid == geteuid() else {
            throw HTTPServerError(message: "\(directory) is not a folder of this user")
        }
        if info.st_mode & 0o777 != 0o700 { chmod(directory, 0o700) }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix("upload-") {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}
