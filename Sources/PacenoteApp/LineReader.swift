import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Lines of standard input (a pipe) as they arrive, without waiting for its end; and,
/// when a signal stops the feed, the lines already waiting in the pipe (`InputDrain`).
struct LineReader: Sequence, IteratorProtocol {
    let fd: Int32
    let drain: InputDrain
    private var buffer: [UInt8] = []
    private var finished = false

    init(_ handle: FileHandle, drain: InputDrain) {
        self.fd = handle.fileDescriptor
        self.drain = drain
    }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[..<newline]
                defer { buffer.removeSubrange(...newline) }
                return String(decoding: line, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            }
            if finished {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            switch drain.read(fd) {
            case .bytes(let chunk): buffer += chunk
            case .end: finished = true
            case .drained:
                // Stopped by a signal with the pipe empty: an unfinished last line is not a reading.
                return nil
            }
        }
    }
}

/// Between the reading thread and a signal's handler: a stop takes the readings already
/// in the pipe (a strap bridge's last second, lines written just before Ctrl-C) before the
/// rest goes to the buffer file. The reader reads without blocking once a stop is asked,
/// until the pipe is empty; a reader already blocked on an empty pipe is not waited for.
public final class InputDrain: @unchecked Sendable {
    // @unchecked Sendable: every field is guarded by `condition`.
    private let condition = NSCondition()
    private var requested = false
    private var state = State.working
    private enum State { case working, reading, done }

    enum Chunk { case bytes([UInt8]), end, drained }

    public init() {}

    /// On the reading thread: one read(2) of `fd`, blocking until a stop is asked.
    func read(_ fd: Int32) -> Chunk {
        let draining = condition.withLock { () -> Bool in
            if !requested { state = .reading }
            return requested
        }
        if draining {
            let flags = fcntl(fd, F_GETFL)
            if flags >= 0, flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
        }
        var bytes = [UInt8](repeating: 0, count: 65_536)
        var n: Int
        repeat { n = Glibc.read(fd, &bytes, bytes.count) } while n < 0 && errno == EINTR
        let empty = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
        return condition.withLock {
            let chunk: Chunk = n > 0 ? .bytes(Array(bytes[..<n])) : empty ? .drained : .end
            if case .bytes = chunk { state = .working } else { state = .done }
            condition.broadcast()
            return chunk
        }
    }

    /// From the signal's handler: asks the reader to take what is in the pipe and waits
    /// until it has (at most `timeout` seconds: a producer that never pauses is cut there).
    /// A reader blocked for 0.1 s in a read asked before the stop has an empty pipe: not waited for.
    public func stopReading(timeout: Double = 3) {
        let deadline = Date().addingTimeInterval(timeout)
        condition.withLock {
            requested = true
            while state != .done, Date() < deadline {
                if state == .reading {
                    let woke = condition.wait(until: min(deadline, Date().addingTimeInterval(0.1)))
                    if !woke, state == .reading { return }
                } else {
                    _ = condition.wait(until: deadline)
                }
            }
        }
    }

    /// Whether the reader stopped because a stop was asked (not at the input's end).
    var wasStopped: Bool { condition.withLock { requested } }
}
