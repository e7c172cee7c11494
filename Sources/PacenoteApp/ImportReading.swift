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

/// Bytes from a file descriptor, a zip entry or memory, read in 1 MiB chunks. Lines are
/// bounded (`forEachLine`), and so is what is read whole (`readAll`).
final class ByteSource {
    /// Reads the next bytes into the buffer; 0 at the end. Nil: everything is in `storage`.
    private let readMore: ((UnsafeMutableRawBufferPointer) throws -> Int)?
    private let onClose: () -> Void
    /// Bytes read and not yet handed out are `storage[start..<count]` (read by the JSON
    /// array's reader too: ImportReading+JSON.swift).
    var storage: UnsafeMutableRawBufferPointer
    var count = 0
    var start = 0
    private var atEnd: Bool
    /// Bytes handed out so far (for progress).
    var consumed: Int64 = 0
    /// Line feeds handed out so far by the JSON array's reader (for its rows' line numbers).
    var lineFeeds = 0
    static let chunk = 1 << 20

    /// A line of `forEachLine`: its bytes, or how long it was when it is too long to read.
    enum Line {
        case text(UnsafeBufferPointer<UInt8>)
        case tooLong(bytes: Int64)
    }

    init(fd: Int32, closeOnEnd: Bool) {
        readMore = { target in
            var n: Int
            repeat {
                n = read(fd, target.baseAddress!, target.count)
            } while n < 0 && errno == EINTR
            guard n >= 0 else { throw ListenImporter.FileError(description: "cannot read the file: \(String(cString: strerror(errno)))") }
            return n
        }
        onClose = { if closeOnEnd { _ = Glibc.close(fd) } }
        storage = .allocate(byteCount: Self.chunk, alignment: 16)
        atEnd = false
    }

    init(read: @escaping (UnsafeMutableRawBufferPointer) throws -> Int) {
        readMore = read
        onClose = {}
        storage = .allocate(byteCount: Self.chunk, alignment: 16)
        atEnd = false
    }

    init(bytes: [UInt8]) {
        readMore = nil
        onClose = {}
        storage = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        storage.copyBytes(from: bytes)
        count = bytes.count
        atEnd = true
    }

    deinit { storage.deallocate() }

    func close() { onClose() }

    private var pending: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: storage[start..<count]) }

    /// Reads more (up to a chunk) after what is pending; false at the end of the input.
    func fill() throws -> Bool {
        guard !atEnd, let readMore else { return false }
        if start > 0 {
            if count > start { storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: count - start) }
            count -= start
            start = 0
        }
        if storage.count - count < Self.chunk {
            let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(storage.count * 2, count + Self.chunk), alignment: 16)
            larger.baseAddress!.copyMemory(from: storage.baseAddress!, byteCount: count)
            storage.deallocate()
            storage = larger
        }
        let n = try readMore(UnsafeMutableRawBufferPointer(rebasing: storage[count..<(count + Self.chunk)]))
        guard n > 0 else {
            atEnd = true
            return false
        }
        count += n
        return true
    }

    /// Up to `count` bytes from the current position, without consuming them.
    func peek(_ wanted: Int) throws -> [UInt8] {
        while count - start < wanted, try fill() {}
        return Array(UnsafeRawBufferPointer(rebasing: storage[start..<min(count, start + wanted)]))
    }

    /// Everything left, unless it is more than `limit` bytes (then nothing is returned).
    func readAll(limit: Int) throws -> [UInt8] {
        repeat {
            if count - start > limit {
                throw ListenImporter.FileError(
                    description: "larger than \(limit >> 20) MiB: a JSON array or CSV file is read whole, and one this large is not read")
            }
        } while try fill()
        let rest = Array(pending)
        consumed += Int64(rest.count)
        start = count
        return rest
    }

    /// Each line without its line feed, the last one even without a final line feed. A
    /// line longer than `maxLength` is not held: it is passed over to its end and given as
    /// `.tooLong`. One pass: every byte is looked at once, and at most `maxLength` plus a
    /// chunk are held.
    func forEachLine(maxLength: Int, _ body: (Line) throws -> Void) throws {
        // storage[start..<scanned] holds no line feed; `skipped`: bytes of a too long line
        // already dropped.
        var scanned = start
        var skipped: Int64?
        while true {
            let base = storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
            if scanned < count, let hit = memchr(base + scanned, 0x0A, count - scanned) {
                let end = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                let length = (skipped ?? 0) + Int64(end - start)
                if skipped != nil || length > maxLength {
                    try body(.tooLong(bytes: length))
                } else {
                    try body(.text(UnsafeBufferPointer(start: base + start, count: end - start)))
                }
                skipped = nil
                consumed += Int64(end + 1 - start)
                start = end + 1
                scanned = start
                continue
            }
            if skipped != nil || count - start > maxLength {
                skipped = (skipped ?? 0) + Int64(count - start)
                consumed += Int64(count - start)
                start = count
            }
            let seen = count - start
            if try fill() {
                scanned = start + seen
                continue
            }
            // (fill may have moved the storage.)
            if let skipped {
                try body(.tooLong(bytes: skipped))
            } else if start < count {
                let base = storage.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let length = count - start
                if length > maxLength {
                    try body(.tooLong(bytes: Int64(length)))
                } else {
                    try body(.text(UnsafeBufferPointer(start: base + start, count: length)))
                }
                consumed += Int64(length)
            }
            start = count
            return
        }
    }
}
