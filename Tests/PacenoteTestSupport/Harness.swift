import Foundation
import Glibc
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A failure of the test harness itself (a missing tool, a process that did not start).
/// Tests throw it, so a missing `mpd` or `sox` fails the run instead of skipping.
public struct HarnessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

public enum Tools {
    /// The absolute path of a required program. Missing tools are an error, never a skip:
    /// `scripts/test` installs them.
    public static func require(_ name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"]
        for dir in dirs {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw HarnessError("'\(name)' is not installed; run scripts/test (it installs mpd, mpc and sox)")
    }
}

/// A temporary directory, removed when the value is deinitialised.
public final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked Sendable: `path` is immutable; the directory itself is only touched by the test that owns it.
    public let path: String

    public init(_ label: String = "pacenote") throws {
        let template = FileManager.default.temporaryDirectory.path + "/\(label)-XXXXXX"
        var buffer = Array(template.utf8CString)
        guard mkdtemp(&buffer) != nil else { throw HarnessError("mkdtemp failed") }
        path = String(cString: buffer)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

public enum Ports {
    /// A TCP port on 127.0.0.1 that is free now, for a server a test starts on a port of
    /// its choosing (MPD, Maloja, a proxy). Ports are handed out outside the kernel's ephemeral
    /// range, so a server that binds port 0 (`pacenote serve --http 127.0.0.1:0`) or a client's
    /// connection cannot take one between this call and the server's bind, and never twice
    /// in one test run.
    public static func free() throws -> UInt16 {
        guard let range = outsideEphemeral else { return try kernelsChoice() }
        for _ in range {
            let port = next.withLock { (n: inout Int) -> UInt16 in
                let p = range.lowerBound + n % range.count
                n += 1
                return UInt16(p)
            }
            if canListen(port) { return port }
        }
        throw HarnessError("no free TCP port in \(range)")
    }

    /// Ports the kernel never hands out for port 0 or to clients: below its ephemeral range,
    /// or else above it; nil when it leaves fewer than a thousand.
    private static let outsideEphemeral: Range<Int>? = {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let bounds = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        let (low, high) = bounds.count == 2 ? (bounds[0], bounds[1]) : (32_768, 60_999)
        if low - 10_000 >= 1_000 { return 10_000..<low }
        if 65_535 - high >= 1_000 { return (high + 1)..<65_536 }
        return nil
    }()

    /// A port the kernel gives for port 0, closed again (when no range is outside its own).
    private static func kernelsChoice() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw HarnessError("bind to port 0 failed") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Where the next port is looked for: a different start for each test process.
    private static let next = Mutex<Int>(Int(getpid()) * 7)

    /// `body` with the socket address 127.0.0.1:`port` and its length.
    static func withLoopback<T>(_ port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// A TCP connection to 127.0.0.1:`port` (the caller closes it), or nil.
    public static func connect(_ port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withLoopback(port) { Glibc.connect(fd, $0, $1) == 0 }
        if connected { return fd }
        close(fd)
        return nil
    }

    /// Whether a new listener could take 127.0.0.1:`port` now: bind and listen with
    /// `SO_REUSEADDR`, as a server does, so connections left in TIME_WAIT do not count and
    /// only a socket still bound to the port does. The socket is closed again.
    public static func canListen(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withLoopback(port) { bind(fd, $0, $1) == 0 }
        return bound && listen(fd, 1) == 0
    }

    /// Waits until something accepts TCP connections on 127.0.0.1:`port`.
    public static func waitUntilListening(_ port: UInt16, timeout: Double = 10) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let fd = connect(port) {
                close(fd)
                return
            }
            usleep(20_000)
        }
        throw HarnessError("nothing listens on 127.0.0.1:\(port) after \(timeout) s")
    }
}

/// Runs a program to completion and returns its exit status and output.
@discardableResult
public func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                allowFailure: Bool = false, input: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = input.map { _ in Pipe() }
    process.standardInput = stdin ?? FileHandle.nullDevice
    try process.run()
    if let stdin, let input {
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
    }
    // Read both pipes before waiting, so a chatty program cannot block on a full pipe.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let result = (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    if !allowFailure && result.0 != 0 {
        throw HarnessError("\(executable) \(arguments.joined(separator: " ")) exited \(result.0): \(result.2)")
    }
    return result
}

/// `run`, awaited on a thread of its own. A test that waits minutes for a program must not
/// hold a thread of Swift's cooperative pool meanwhile: the pool has one per core (two on the
/// CI box), and every other test of the run waits for one of them.
public func runOffThePool(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                          allowFailure: Bool = false) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            continuation.resume(with: Result { try run(executable, arguments, environment: environment, allowFailure: allowFailure) })
        }.start()
    }
}

/// Polls `condition` until it holds or `timeout` passes; returns whether it held.
public func eventually(timeout: Double = 10, interval: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try condition() { return true }
        usleep(UInt32(interval * 1_000_000))
    } while Date() < deadline
    return try condition()
}
