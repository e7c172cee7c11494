import Foundation
import Glibc
import PacenoteCore

/// The spool file (`InstanceFiles.spool`): plays the database could not take, kept on disk
/// so that a stop or a reboot before space returns loses none of them.
///
/// Its space is reserved when the daemon starts (`posix_fallocate`, 64 KiB: a few hundred
/// plays), so writing a line into it when the disk is full needs no new blocks. The lines
/// (`SpooledPlay`, JSON) come first and the rest of the file is zeros; a write is followed by
/// `fdatasync`. Lines are appended; the file is zeroed again once every waiting play is
/// stored. A line whose play was stored meanwhile may stay until then: replaying it is
/// harmless, since the store keeps one play per (track, start).
///
/// On a file system that copies on write (btrfs, ZFS) an overwrite needs new blocks too, so
/// the reservation only helps on the usual ones (ext4, XFS, tmpfs).
final class PlaySpool: @unchecked Sendable {
    // @unchecked Sendable: used only on `WaitingPlays`' serial queue (and by its opener).

    /// Bytes reserved at start-up.
    static let reservedBytes = 64 * 1024

    let path: String
    private let fd: Int32
    /// The file's size: what can be written without new blocks.
    private(set) var capacity: Int
    /// Bytes of lines at the start of the file.
    private(set) var used: Int
    /// The last line was cut short (a crash while writing): the next line starts on a new one.
    private var needsNewline: Bool
    /// What was in the file when it was opened.
    let found: (plays: [SpooledPlay], damaged: Int)
    /// Why the space could not be reserved (a disk already full), if so: writes may then fail.
    let reservationProblem: String?

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Opens the spool (creating it, mode 0600), reads what it holds and reserves its space.
    init(path: String, reserve: Int = PlaySpool.reservedBytes) throws(Failure) {
        self.path = path
        let created = access(path, F_OK) != 0
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        var info = stat()
        fstat(fd, &info)
        let bytes = PlaySpool.readAll(fd, size: Int(info.st_size))
        found = SpooledPlay.parse(bytes)
        used = bytes.firstIndex(of: 0) ?? bytes.count
        needsNewline = used > 0 && bytes[used - 1] != 0x0A
        capacity = max(Int(info.st_size), reserve)
        if Int(info.st_size) < reserve {
            // posix_fallocate returns the error (it does not set errno); glibc writes zeros
            // itself where the file system cannot allocate.
            let result = posix_fallocate(fd, 0, off_t(reserve))
            if result == 0 {
                reservationProblem = nil
                _ = fsync(fd)
            } else {
                reservationProblem = "cannot reserve \(reserve / 1024) KiB for \(path): \(String(cString: strerror(result)))"
                capacity = Int(info.st_size)
            }
        } else {
            reservationProblem = nil
        }
        if created { PlaySpool.syncDirectory(of: path) }
    }

    deinit { close(fd) }

    /// Appends the lines of `plays` and flushes them to disk. False when they do not fit in
    /// the reserved space (nothing is written then).
    func append(_ plays: [SpooledPlay]) throws(Failure) -> Bool {
        guard !plays.isEmpty else { return true }
        var bytes: [UInt8] = needsNewline ? [0x0A] : []
        for play in plays { bytes += play.line }
        guard used + bytes.count <= capacity else { return false }
        try write(bytes, at: used)
        used += bytes.count
        needsNewline = false
        return true
    }

    /// Replaces the lines with those of `plays`, as many as fit, oldest first; returns how
    /// many were written.
    func rewrite(_ plays: [SpooledPlay]) throws(Failure) -> Int {
        var bytes: [UInt8] = []
        var written = 0
        for play in plays {
            let line = play.line
            guard bytes.count + line.count <= capacity else { break }
            bytes += line
            written += 1
        }
        if used > bytes.count { bytes += [UInt8](repeating: 0, count: used - bytes.count) }
        try write(bytes, at: 0)
        used = written == 0 ? 0 : bytes.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        needsNewline = false
        return written
    }

    /// Zeroes the lines: nothing waits.
    func clear() throws(Failure) {
        guard used > 0 || needsNewline else { return }
        try write([UInt8](repeating: 0, count: max(used, 1)), at: 0)
        used = 0
        needsNewline = false
    }

    /// The plays in the spool at `path` without opening it for writing (`pacenote doctor`);
    /// nil when there is no spool.
    static func read(path: String) -> (plays: [SpooledPlay], damaged: Int)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        fstat(fd, &info)
        return SpooledPlay.parse(readAll(fd, size: Int(info.st_size)))
    }

    private func write(_ bytes: [UInt8], at offset: Int) throws(Failure) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, bytes.count - done, off_t(offset + done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot write \(path): \(String(cString: strerror(errno)))")
            }
            done += n
        }
        guard fdatasync(fd) == 0 else { throw Failure(description: "cannot flush \(path): \(String(cString: strerror(errno)))") }
    }

    private static func readAll(_ fd: Int32, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            done += n
        }
        return Array(bytes[..<done])
    }

    /// A new file's name is durable once its directory is flushed.
    private static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }
}
