import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether this process's user may write the database, its folder and SQLite's side files.
/// SQLite opens a database it may not write read-only, fails at the first write ("attempt to
/// write a readonly database"), and meanwhile makes the `-shm` with the database file's mode:
/// a start with the database at 0444 left a `-shm` at 0444 that kept every later start
/// read-only after the database's mode was fixed (issue 52). So `Store.open` asks this before
/// SQLite makes anything, and `pacenote doctor` reports every problem with its fix.
public enum DatabaseFileAccess {
    public struct Problem: Equatable, Sendable, CustomStringConvertible {
        /// The file or folder.
        public var path: String
        /// What is wrong with it: its mode and owner.
        public var detail: String
        /// The command that fixes it.
        public var fix: String

        public var description: String { "\(detail): \(fix)" }
    }

    /// Every problem, the database first, then its `-wal` and `-shm` (those that exist), then
    /// the folder (SQLite makes and removes the side files there).
    public static func problems(databasePath path: String) -> [Problem] {
        var found: [Problem] = []
        let directory = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            if let problem = judge(file, info, access: W_OK) { found.append(problem) }
        }
        var info = stat()
        if stat(directory, &info) == 0, let problem = judge(directory, info, access: W_OK | X_OK, folder: true) {
            found.append(problem)
        }
        return found
    }

    /// What stands in the way of the database's owner, whoever asks (root may write
    /// anything, the service's user may not): the database or a side file without its owner's
    /// write bit, a side file that belongs to another user than the database (left by a
    /// command run as root). `others`: more files the daemon writes beside it (the key, the
    /// spool, folders), held to the same owner. `pacenote doctor` reports these beside `problems`.
    public static func ownerProblems(databasePath path: String, others: [String] = []) -> [Problem] {
        var database = stat()
        guard stat(path, &database) == 0 else { return [] }
        var found: [Problem] = []
        for file in [path, path + "-wal", path + "-shm"] + others {
            var info = stat()
            guard stat(file, &info) == 0 else { continue }
            let mode = "0" + String(info.st_mode & 0o777, radix: 8)
            let folder = (info.st_mode & S_IFMT) == S_IFDIR
            if info.st_uid != database.st_uid {
                found.append(Problem(path: file, detail: "\(file) belongs to \(userName(info.st_uid)), the database to \(userName(database.st_uid))",
                                     fix: "`chown \(folder ? "-R " : "")\(userArgument(database.st_uid)) \(file)`"))
            } else if info.st_mode & 0o200 == 0 {
                found.append(Problem(path: file, detail: "\(file) is not writable by its owner (mode \(mode))", fix: "`chmod u+w \(file)`"))
            }
        }
        return found
    }

    /// One file's judgement: nil when this user may write it (`access(2)`, which answers for
    /// the real user, who is the user `pacenote` runs as).
    static func judge(_ path: String, _ info: stat, access wanted: Int32, folder: Bool = false) -> Problem? {
        guard access(path, wanted) != 0 else { return nil }
        let reason = String(cString: strerror(errno))
        let mode = "0" + String(info.st_mode & 0o777, radix: 8)
        let me = geteuid()
        let what = folder ? "the folder \(path)" : path
        if errno == EROFS {
            return Problem(path: path, detail: "\(what) is on a read-only file system", fix: "mount it read-write, or move database.path")
        }
        if info.st_uid != me {
            return Problem(path: path, detail: "\(what) belongs to \(userName(info.st_uid)), not to \(userName(me)) (mode \(mode); \(reason))",
                           fix: "`chown \(userArgument(me)) \(path)` (or run pacenote as \(userArgument(info.st_uid)))")
        }
        return Problem(path: path, detail: "\(what) is not writable (mode \(mode); \(reason))",
                       fix: "`chmod u+w\(folder ? "x" : "") \(path)`")
    }

    /// `pacenote (uid 998)`, or the bare uid when it has no name.
    static func userName(_ uid: uid_t) -> String {
        let argument = userArgument(uid)
        return argument == String(uid) ? "uid \(uid)" : "\(argument) (uid \(uid))"
    }

    /// The user's name as `chown` takes it, else the uid.
    public static func userArgument(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return String(uid) }
        return String(cString: name)
    }
}
