import Foundation
import Logging
import PacenoteCore
import Synchronization

/// The recommender's transition rows (`Transitions`, PacenoteCore) in files of their own in
/// the instance's `tmp/`, read a row at a time with `pread`: the ~4.8 MiB of rows at 5M plays
/// over 150k tracks sit in the kernel's page cache, which it can give back under pressure,
/// and not in the daemon's heap. A suggestion reads its current track's row and those of
/// its artist's tracks, a few hundred bytes.
///
/// Each merge writes a new file, unnamed (`O_TMPFILE`; where the file system has none, a
/// named one removed at once), so it goes with its last reader, and nothing is left
/// behind by a crash. A file that cannot be written (a full disk) leaves that merge's rows
/// in memory, and every later one: the model loses nothing, its error is logged once. A row
/// that cannot be read (an I/O error) is read as the bytes that could be, logged once.
final class TransitionFileStorage: TransitionStorage {
    let directory: String
    private let logger: Logger
    /// Set by the first failure: from then on rows are kept in memory.
    private let failed = Atomic<Bool>(false)

    init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    func makeWriter(capacity: Int) throws -> any TransitionWriter {
        if failed.load(ordering: .relaxed) { return InMemoryTransitionStorage().makeWriter(capacity: capacity) }
        do {
            return Writer(file: try openUnnamed(), storage: self)
        } catch {
            report(error)
            throw error
        }
    }

    /// Logs the first failure and keeps the rows in memory from then on.
    fileprivate func report(_ error: any Error) {
        if failed.exchange(true, ordering: .relaxed) { return }
        logger.error("recommender: its transitions are kept in memory from now on: \(error)")
    }

    private func openUnnamed() throws -> Descriptor {
        try PrivateFile.makeDirectory(directory)
        // O_TMPFILE is (__O_TMPFILE | O_DIRECTORY), a macro Swift does not import.
        let oTmpFile: Int32 = 0o20_000_000 | O_DIRECTORY
        var fd = open(directory, oTmpFile | O_RDWR | O_CLOEXEC, 0o600)
        if fd < 0 {
            let path = directory + "/transitions-\(UInt64.random(in: 0...UInt64.max))"
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw PrivateFile.Failure("create the file", path) }
            unlink(path)
        }
        return Descriptor(fd)
    }

    /// An open file, closed with its last user.
    fileprivate final class Descriptor: Sendable {
        let fd: Int32
        init(_ fd: Int32) { self.fd = fd }
        deinit { close(fd) }
    }

    private struct Writer: TransitionWriter {
        let file: Descriptor
        let storage: TransitionFileStorage
        var written = 0

        init(file: Descriptor, storage: TransitionFileStorage) {
            self.file = file
            self.storage = storage
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) throws {
            guard let base = bytes.baseAddress else { return }
            var done = 0
            while done < bytes.count {
                let n = pwrite(file.fd, base + done, bytes.count - done, off_t(written + done))
                if n > 0 {
                    done += n
                } else if n < 0, errno == EINTR {
                    continue
                } else {
                    let error = PrivateFile.Failure("write the recommender's transitions", storage.directory,
                                                    errno: n < 0 ? errno : ENOSPC)
                    storage.report(error)
                    throw error
                }
            }
            written += done
        }

        mutating func finish() -> any TransitionBytes {
            Rows(file: file, count: written, storage: storage)
        }
    }

    private final class Rows: TransitionBytes {
        let file: Descriptor
        let count: Int
        let storage: TransitionFileStorage

        init(file: Descriptor, count: Int, storage: TransitionFileStorage) {
            self.file = file
            self.count = count
            self.storage = storage
        }

        func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            let wanted = range.clamped(to: 0..<count)
            guard !wanted.isEmpty else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: wanted.count) { buffer in
                var done = 0
                while done < wanted.count {
                    let n = pread(file.fd, buffer.baseAddress! + done, wanted.count - done, off_t(wanted.lowerBound + done))
                    if n > 0 {
                        done += n
                    } else if n < 0, errno == EINTR {
                        continue
                    } else {
                        storage.report(PrivateFile.Failure("read the recommender's transitions", storage.directory,
                                                           errno: n < 0 ? errno : EIO))
                        break
                    }
                }
                return body(UnsafeBufferPointer(rebasing: buffer[..<done]))
            }
        }
    }
}
