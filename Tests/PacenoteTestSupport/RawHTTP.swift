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

/// The number of threads of a process (Linux).
public func threadCount(pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return nil }
    return Int(line.dropFirst("Threads:".count).trimmingCharacters(in: .whitespaces))
}
