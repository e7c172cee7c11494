import Foundation
import PacenoteCore

// The import's plumbing: the hand-off between the reading thread and the storing one, and
// the buffered byte source both read lines from.

/// A value handed to another thread that is not `Sendable` by type: used by one thread
/// at a time (the reader thread while it runs, the caller after `waitForProducer`).
final class UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A bounded queue between one producer thread and one consumer.
final class Handoff<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written with `condition` held.
    enum Message: Sendable {
        case item(T)
        case end
        case failed(UncheckedBox<any Error>)
    }

    private let condition = NSCondition()
    private var queue: [Message] = []
    private let capacity: Int
    private var cancelled = false
    private var producerDone = false
    private var putCount = 0
    private var takenCount = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Waits for room, then until the consumer has taken the message: the producer works
    /// on at most one item ahead of the consumer's (an import holds two batches, not three).
    /// False when the consumer has gone away.
    func put(_ message: Message) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .item = message {} else { producerDone = true }
        while queue.count >= capacity && !cancelled { condition.wait() }
        if !cancelled {
            queue.append(message)
            putCount += 1
            let ticket = putCount
            condition.broadcast()
            while takenCount < ticket && !cancelled { condition.wait() }
            if takenCount >= ticket { return true }
        }
        producerDone = true
        condition.broadcast()
        return false
    }

    func take() -> Message {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty { condition.wait() }
        let message = queue.removeFirst()
        takenCount += 1
        condition.broadcast()
        return message
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    func waitForProducer() {
        condition.lock()
        while !producerDone { condition.wait() }
        condition.unlock()
    }
}

/// Line numbers of byte offsets, counted forward as offsets grow.
struct LineCounter {
    let buffer: UnsafeBufferPointer<UInt8>
    var offset = 0
    var lines = 1

    init(_ buffer: UnsafeBufferPointer<UInt8>) { self.buffer = buffer }

    mutating func line(at target: Int) -> Int {
        while offset < min(target, buffer.count) {
            if buffer[offset] == 0x0A { lines += 1 }
            offset += 1
        }
        return lines
    }
}

/// Bytes from a file descriptor (a file, unzip's pipe) or from memory, read in 1 MiB chunks.
final class ByteSource {
    private let fd: Int32
    private let closeOnEnd: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var atEnd: Bool
    /// Bytes handed out so far (for progress).
    private(set) var consumed: Int64 = 0
    static let chunk = 1 << 20

    init(fd: Int32, closeOnEnd: Bool) {
        self.fd = fd
        self.closeOnEnd = closeOnEnd
        self.buffer = []
        self.atEnd = false
    }

    init(bytes: [UInt8]) {
        self.fd = -1
        self.closeOnEnd = false
        self.buffer = bytes
        self.atEnd = true
    }

    func close() {
        if closeOnEnd && fd >= 0 { _ = Glibc.close(fd) }
    }

    /// Reads more into the buffer; false at the end of the input.
    private func fill() -> Bool {
        guard !atEnd else { return false }
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: Self.chunk))
        var n: Int
        repeat {
            n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + old, Self.chunk) }
        } while n < 0 && errno == EINTR
        buffer.removeLast(Self.chunk - max(0, n))
        if n <= 0 { atEnd = true }
        return n > 0
    }

    /// Up to `count` bytes from the current position, without consuming them.
    func peek(_ count: Int) -> [UInt8] {
        while buffer.count - start < count, fill() {}
        return Array(buffer[start..<min(buffer.count, start + count)])
    }

    /// Everything left.
    func readAll() -> [UInt8] {
        while fill() {}
        let rest = start == 0 ? buffer : Array(buffer[start...])
        consumed += Int64(rest.count)
        buffer = []
        start = 0
        return rest
    }

    /// Each line without its line feed, the last one even without a final line feed.
    func forEachLine(_ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws {
        while true {
            let found: Int? = buffer.withUnsafeBufferPointer { b in
                guard start < b.count, let base = b.baseAddress,
                      let hit = memchr(base + start, 0x0A, b.count - start) else { return nil }
                return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            }
            if let end = found {
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
                consumed += Int64(end + 1 - start)
                start = end + 1
                continue
            }
            if fill() { continue }
            if start < buffer.count {
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start...])) }
                consumed += Int64(buffer.count - start)
            }
            buffer = []
            start = 0
            return
        }
    }
}
