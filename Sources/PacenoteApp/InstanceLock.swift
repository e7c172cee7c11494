import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock on `InstanceFiles.lock`, held by `serve` for as long as it runs and by
/// `restore` while it replaces the database. `flock(2)` locks belong to the open file, so
/// the kernel releases them when the process ends, even by SIGKILL: a stale lock cannot
/// outlive its daemon, which a pid file alone could. The holder's pid is written inside,
/// for messages only.
public final class InstanceLock: Sendable {
    private let descriptor: Int32
    public let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Why the lock could not be taken.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// Another process holds it (its pid, when it wrote one).
        case held(path: String, pid: Int32?)
        case cannotOpen(path: String, reason: String)

        public var description: String {
            switch self {
            case .held(let path, let pid): "\(path) is held by \(pid.map { "process \($0)" } ?? "another process")"
            case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
            }
        }
    }

    /// Takes the lock without waiting, and writes this process's pid into the file.
    public static func acquire(_ files: InstanceFiles) throws(Problem) -> InstanceLock {
        let path = files.lock
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(fd)
            if busy { throw .held(path: path, pid: holder(path)) }
            throw .cannotOpen(path: path, reason: reason)
        }
        let pid = Data("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return InstanceLock(descriptor: fd, path: path)
    }

    /// Empties the file and lets the lock go (closing the file releases it).
    public func release() {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }

    /// The pid written by whoever holds the lock.
    private static func holder(_ path: String) -> Int32? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
