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
/// named one removed at once), so it goes with its last reader, and a crash leaves nothing
/// behind. A file that cannot be written (a full disk) leaves that merge's rows in memory,
/// and every later one's until the daemon restarts: the model loses nothing, the error is
/// logged once. A row that cannot be read (an I/O error) reads as no pairs, and a merge
/// that cannot read the old rows keeps them as they were; each such error is counted
/// (`readFailures`: the recommender then builds its model again, in new files) and the
/// first logged.
///
/// The pages are the kernel's page cache: not in the daemon's resident size, but counted in
/// its cgroup's memory (a systemd unit's `MemoryCurrent`), and written to the database's
/// disk before the kernel can take them back (the files are never synced).
final class TransitionFileStorage: TransitionStorage {
    let directory: String
    private let logger: Logger
    /// Set by the first write failure: from then on rows are kept in memory.
    private let writeFailed = Atomic<Bool>(false)
    /// Rows or windows that could not be read.
    let readFailures = Atomic<Int>(0)

    init(directory: String, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    func makeWriter(capacity: Int) throws -> any TransitionWriter {
        if writeFailed.load(ordering: .relaxed) { return InMemoryTransitionStorage().makeWriter(capacity: capacity) }
        do {
            return Writer(file: try openUnnamed(), storage: self)
        } catch {
            reportWrite(error)
            throw error
        }
    }

    /// Logs the first write failure and keeps the rows in memory from then on.
    fileprivate func reportWrite(_ error: any Error) {
        if writeFailed.exchange(true, ordering: .relaxed) { return }
        logger.error("recommender: its transitions are kept in memory until the daemon restarts: \(error)")
    }

    /// Counts a read failure, logging the first.
    fileprivate func reportRead(_ error: any Error) {
        if readFailures.wrappingAdd(1, ordering: .relaxed).oldValue > 0 { return }
        logger.error("recommender: its transitions could not be read, the model will be built again: \(error)")
    }

    private func openUnnamed() throws -> Descriptor {
        try PrivateFile.makeDirectory(directory)
        var fd: Int32 = -1
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        // O_TMPFILE is (__O_TMPFILE | O_DIRECTORY), a macro Swift does not import; __O_TMPFILE
        // is 0o20000000 on these architectures. O_EXCL: it can never be given a name.
        let oTmpFile: Int32 = 0o20_000_000 | O_DIRECTORY
        fd = open(directory, oTmpFile | O_RDWR | O_EXCL | O_CLOEXEC, 0o600)
        #endif
        if fd < 0 {
            let path = directory + "/transitions-\(UInt64.random(in: 0...UInt64.max))"
            fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw PrivateFile.Failure("create the file", path) }
            guard unlink(path) == 0 else {
                let failure = PrivateFile.Failure("remove the file", path)
                close(fd)
                throw failure
            }
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
                    storage.reportWrite(error)
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

        func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
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
                        storage.reportRead(PrivateFile.Failure("read the recommender's transitions", storage.directory,
                                                               errno: n < 0 ? errno : EIO))
                        return body(nil)
                    }
                }
                return body(UnsafeBufferPointer(rebasing: buffer[..<done]))
            }
        }
    }
}
