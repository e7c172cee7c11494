import Foundation

/// A raw HTTP connection on loopback, for responses that never end (Server-Sent Events)
/// and for many idle clients at once.
public final class RawHTTPConnection: @unchecked Sendable {
    // @unchecked Sendable: used by the one test that owns it.
    private let fd: Int32
    private var raw: [UInt8] = []

    /// The response so far: the head as sent, and the body with any chunked transfer
    /// encoding undone (as an EventSource client sees it).
    public var received: String {
        let bytes = raw
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }) else {
            return String(decoding: bytes, as: UTF8.self)
        }
        let head = String(decoding: bytes[..<(end + 4)], as: UTF8.self)
        var body = Array(bytes[(end + 4)...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = RawHTTPConnection.dechunk(body) }
        return head + String(decoding: body, as: UTF8.self)
    }

    static func dechunk(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < data.count {
            guard let lineEnd = data[i...].indices.dropLast().first(where: { data[$0] == 13 && data[$0 + 1] == 10 }),
                  let size = Int(String(decoding: data[i..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16)
            else { break }
            let start = lineEnd + 2
            if size == 0 { break }
            let end = min(start + size, data.count)
            out += data[start..<end]
            i = end + 2
        }
        return out
    }

    public init(port: UInt16, request: String) throws {
        guard let fd = Ports.connect(port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        self.fd = fd
        _ = request.withCString { send(fd, $0, strlen($0), 0) }
    }

    deinit { close(fd) }

    /// Reads until `text` has arrived (true) or `timeout` passes (false).
    public func waitFor(_ text: String, timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 8192)
        while !received.contains(text) {
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return received.contains(text) }
            raw += buffer[0..<n]
        }
        return true
    }

    public static func get(_ path: String, headers: [String: String] = [:]) -> String {
        var text = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (k, v) in headers { text += "\(k): \(v)\r\n" }
        return text + "\r\n"
    }
}

/// A Server-Sent Events client that notes when each event arrived: a thread of its own reads
/// the stream as the server sends it, so a test can time events against what caused them.
public final class EventStreamClient: @unchecked Sendable {
    // @unchecked Sendable: `raw`, `events` and `stopped` are guarded by `lock`; `fd` is read
    // by the reading thread until `stop` has waited for it to end.
    public struct Event: Sendable {
        public var id: Int?
        public var name: String
        public var data: String
        /// `DispatchTime.now().uptimeNanoseconds` when its last byte was read.
        public var arrived: UInt64
        public var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] }
    }

    private let fd: Int32
    private let lock = NSLock()
    private var raw: [UInt8] = []
    private var parsed: [Event] = []
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    public init(port: UInt16, path: String = "/api/v1/events", headers: [String: String] = [:]) throws {
        guard let fd = Ports.connect(port) else { throw HarnessError("cannot connect to 127.0.0.1:\(port)") }
        self.fd = fd
        _ = RawHTTPConnection.get(path, headers: headers).withCString { send(fd, $0, strlen($0), 0) }
        let thread = Thread { [self] in read() }
        thread.start()
    }

    deinit {
        stop()
        close(fd)
    }

    /// Events so far, in the order they came.
    public var events: [Event] { lock.withLock { parsed } }

    /// Whether the server has sent the stream's first comment (`: connected`).
    public func waitUntilConnected(timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if lock.withLock({ String(decoding: raw, as: UTF8.self).contains(": connected") }) { return true }
            usleep(10_000)
        }
        return false
    }

    /// Waits until `condition` holds for the events so far, or `timeout` passes.
    public func wait(timeout: Double = 5, until condition: ([Event]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition(events) { return true }
            usleep(5_000)
        }
        return condition(events)
    }

    public func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if wasRunning { finished.wait() }
    }

    private func read() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !lock.withLock({ stopped }) {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 50) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return }
            let now = DispatchTime.now().uptimeNanoseconds
            lock.withLock {
                raw += buffer[0..<n]
                parse(arrived: now)
            }
        }
    }

    /// Under `lock`: the frames complete so far that were not parsed yet.
    private func parse(arrived: UInt64) {
        guard let end = raw.indices.dropLast(3).first(where: { raw[$0] == 13 && raw[$0 + 1] == 10 && raw[$0 + 2] == 13 && raw[$0 + 3] == 10 }) else {
            return
        }
        let head = String(decoding: raw[..<(end + 4)], as: UTF8.self).lowercased()
        var body = Array(raw[(end + 4)...])
        if head.contains("transfer-encoding: chunked") { body = RawHTTPConnection.dechunk(body) }
        let frames = String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").dropLast()  // the last is incomplete
        let events = frames.compactMap { frame -> Event? in
            var id: Int?, name: String?, data: [String] = []
            for line in frame.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix("id: ") { id = Int(line.dropFirst(4)) }
                else if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                else if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            return name.map { Event(id: id, name: $0, data: data.joined(separator: "\n"), arrived: arrived) }
        }
        if events.count > parsed.count { parsed += events[parsed.count...] }
    }
}

/// The number of threads of a process (Linux).
public func threadCount(pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return nil }
    return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
}

/// A non-blocking TCP client on loopback from a chosen source address (`127.0.0.2`: Linux
/// answers for all of 127/8), for floods of many slow or large requests: it never blocks the
/// test, whatever the server does with it.
public final class RawClient: @unchecked Sendable {
    // @unchecked Sendable: used by the one test that owns it.
    public let fd: Int32
    public let source: String
    private var raw: [UInt8] = []
    /// The server closed the connection (end of file or reset).
    public private(set) var closedByServer = false

    public init(port: UInt16, from source: String = "127.0.0.1") throws {
        self.source = source
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0 else { close(fd); throw HarnessError("bind \(source): \(String(cString: strerror(errno)))") }
        let rc = Ports.withLoopback(port) { Glibc.connect(fd, $0, $1) }
        guard rc == 0 || errno == EINPROGRESS else { close(fd); throw HarnessError("connect: \(String(cString: strerror(errno)))") }
    }

    deinit { close(fd) }

    /// Many clients, connected a batch at a time (the server's listen queue holds 128): each
    /// connected, or closed by the server at once, when it is returned.
    public static func connect(_ count: Int, port: UInt16, from source: (Int) -> String) throws -> [RawClient] {
        var all: [RawClient] = []
        for start in stride(from: 0, to: count, by: 32) {
            let batch = try (start..<min(count, start + 32)).map { try RawClient(port: port, from: source($0)) }
            for client in batch {
                var pfd = pollfd(fd: client.fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 3000)
            }
            all += batch
        }
        return all
    }

    /// Sends what the socket takes now; the number of bytes taken (0 when full or closed).
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Int {
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&pfd, 1, 200) > 0 else { return 0 }
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n < 0, errno == EPIPE || errno == ECONNRESET { closedByServer = true }
        return max(0, n)
    }

    @discardableResult
    public func send(_ text: String) -> Int { send(Array(text.utf8)) }

    /// Whether the connection is established (a connect still waiting for its SYN to be
    /// answered — the server's backlog was full — is not).
    public var isEstablished: Bool {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }

    /// Whether bytes from the server wait to be read (they are not read).
    public var hasDataWaiting: Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0 && pfd.revents & Int16(POLLIN) != 0
    }

    /// Reads whatever has arrived, without waiting.
    public func drain() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while !closedByServer {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 { raw += buffer[0..<n]; continue }
            if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) { closedByServer = true }
            break
        }
    }

    public var received: String { String(decoding: raw, as: UTF8.self) }

    /// The status code of the response that has arrived, if one has.
    public var status: Int? {
        let text = received
        guard text.hasPrefix("HTTP/1.1 "), text.count >= 12 else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// Waits until `condition` holds (true) or `timeout` passes (false), reading as it goes.
    public func wait(timeout: Double, until condition: (RawClient) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            drain()
            if condition(self) { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 || closedByServer { return condition(self) }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&pfd, 1, Int32(min(left, 0.2) * 1000) + 1)
        }
    }
}

/// A process's resident memory now and at its peak, in bytes (`VmRSS`, `VmHWM`; Linux).
public func residentMemory(pid: Int32) -> (now: Int, peak: Int)? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    func kB(_ name: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
        return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "").map { $0 * 1024 }
    }
    guard let now = kB("VmRSS"), let peak = kB("VmHWM") else { return nil }
    return (now, peak)
}
