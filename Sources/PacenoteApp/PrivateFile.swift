import Foundation

/// Files that hold someone's data (plays, heart rate, covers, uploads), created readable by
/// their owner only from their first byte: `open` is given mode 0600 (folders 0700) itself,
/// rather than a file being made with the default mode and narrowed afterwards, which leaves
/// a moment in which another local user can open it and keep the handle. `pacenote` also
/// sets its umask to 077 at start (`Pacenote.main`), so nothing it creates is wider.
public enum PrivateFile {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String

        init(_ what: String, _ path: String, errno code: Int32 = errno) {
            description = "\(path): cannot \(what) (\(String(cString: strerror(code))))"
        }
    }

    /// A new file, mode 0600, that did not exist before (O_EXCL: nor does a planted link
    /// get followed).
    public static func create(_ path: String) throws(Failure) -> FileHandle {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure("create the file", path) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// A file to write, created with mode 0600 when missing (an existing file keeps its
    /// mode), emptied first unless `append`.
    public static func openForWriting(_ path: String, append: Bool = false) throws(Failure) -> FileHandle {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0o600)
        guard fd >= 0 else { throw Failure("write the file", path) }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Writes `bytes` to a new private file beside `path`, flushed to the disk, then renames
    /// it over `path`: a reader (or a machine that lost power) sees the old content or the
    /// new, never half of it.
    public static func write(_ bytes: Data, atomicallyTo path: String) throws(Failure) {
        let temporary = path + ".\(UInt64.random(in: 0...UInt64.max)).tmp"
        let handle = try create(temporary)
        do {
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(temporary)
            throw Failure("write the file", temporary, errno: EIO)
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure("rename the file into place", path, errno: code)
        }
    }

    /// A folder with mode 0700, made if missing (its parent must exist). An existing folder
    /// is left as it is.
    public static func makeDirectory(_ path: String) throws(Failure) {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        throw Failure("create the folder", path)
    }
}
