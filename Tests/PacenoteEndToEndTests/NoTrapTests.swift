import Foundation
import PacenoteTestSupport
import Testing

/// Issue 52's traps, through the built binary: a read-only database, a port in use, a broken
/// CSV and a missing file each end in one clear message and a state the next plain command
/// fixes.
@Suite struct NoTrapTests {
    /// The user `pacenote` runs as. Tests run as root, which writes any file whatever its
    /// mode; so the commands that must meet a read-only file run as `nobody` (setpriv(1)),
    /// on files that belong to it, as a packaged service runs as its own user.
    struct ServiceUser {
        let uid: UInt32 = geteuid() == 0 ? 65534 : geteuid()
        var switches: Bool { geteuid() == 0 }

        func own(_ path: String) {
            if switches { chown(path, uid, uid) }
        }

        private func command(_ arguments: [String]) throws -> (String, [String]) {
            guard switches else { return (try PacenoteProcess.binary(), arguments) }
            return (try Tools.require("setpriv"),
                    ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "--", try PacenoteProcess.binary()] + arguments)
        }

        func run(_ arguments: [String], home: String) throws -> (status: Int32, stdout: String, stderr: String) {
            let (executable, all) = try command(arguments)
            return try PacenoteTestSupport.run(executable, all, environment: PacenoteProcess.cleanEnvironment(["HOME": home]),
                                               allowFailure: true)
        }

        func start(_ arguments: [String], home: String) throws -> PacenoteProcess {
            let (executable, all) = try command(arguments)
            return try PacenoteProcess(all, environment: ["HOME": home], binary: executable)
        }
    }

    static func names(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Each file of the folder with its mode and owner: `pacenote.sqlite-wal 600 65534`.
    static func states(_ directory: String) -> [String] {
        names(directory).map { name in
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0 else { return name }
            return "\(name) \(String(info.st_mode & 0o777, radix: 8)) \(info.st_uid)"
        }
    }

    /// `serve` until it serves, then stopped: whether it started.
    static func serves(_ user: ServiceUser, _ arguments: [String], home: String) throws -> Bool {
        let process = try user.start(["serve", "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"] + arguments, home: home)
        let served = eventually(timeout: 20) { process.stderr.contains("serving http://") || !process.process.isRunning }
            && process.stderr.contains("serving http://")
        process.signal(SIGTERM)
        #expect(try process.wait(timeout: 20) == 0, "\(process.stderr)")
        return served
    }

    @Test func aReadOnlyDatabaseIsOneMessageAndChmodFixesIt() throws {
        let user = ServiceUser()
        let dir = try TemporaryDirectory("pacenote-readonly")
        user.own(dir.path)
        let db = dir.file("pacenote.sqlite")
        #expect(try user.run(["migrate", "--db", db], home: dir.path).status == 0)
        let made = Self.names(dir.path)
        let states = Self.states(dir.path)

        chmod(db, 0o444)
        let failed = try user.run(["serve", "--db", db, "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"], home: dir.path)
        #expect(failed.status == 1)
        #expect(failed.stderr.split(separator: "\n").count == 1, "one line: \(failed.stderr)")
        #expect(failed.stderr.contains("\(db) is not writable (mode 0444"), "\(failed.stderr)")
        #expect(failed.stderr.contains("`chmod u+w \(db)`"), "\(failed.stderr)")
        // Nothing was made beside it: no -shm as read-only as the database, no lock, no key.
        #expect(Self.names(dir.path) == made, "\(Self.names(dir.path))")

        // doctor, as the service's user, names the file and the fix.
        let doctor = try user.run(["doctor", "--db", db, "--mpd", "127.0.0.1:1"], home: dir.path)
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("FAIL database files: \(db) is not writable (mode 0444"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("-> `chmod u+w \(db)`; then start pacenote again"), "\(doctor.stdout)")
        // doctor changes nothing: SQLite's read-only look made the -wal again at 0444 (and
        // as root, root's) before it was put back.
        #expect(Self.states(dir.path) == states.map { $0.hasPrefix("pacenote.sqlite ") ? "pacenote.sqlite 444 \(user.uid)" : $0 },
                "\(Self.states(dir.path))")
        let asRoot = try PacenoteProcess.run(["doctor", "--db", db, "--mpd", "127.0.0.1:1"], environment: ["HOME": dir.path])
        #expect(asRoot.stdout.contains("FAIL database files: \(db) is not writable"), "\(asRoot.stdout)")
        #expect(Self.states(dir.path) == states.map { $0.hasPrefix("pacenote.sqlite ") ? "pacenote.sqlite 444 \(user.uid)" : $0 },
                "\(Self.states(dir.path))")

        // The fix it gave, then the plain command.
        chmod(db, 0o600)
        #expect(try Self.serves(user, ["--db", db], home: dir.path))
    }

    /// A `-shm` left read-only (as a start before issue 52 left it) or owned by another user
    /// (a command run as root): doctor names it with its fix, serve says so in one line.
    @Test func aSideFileLeftReadOnlyOrByRootIsNamedWithItsFix() throws {
        let user = ServiceUser()
        let dir = try TemporaryDirectory("pacenote-shm")
        user.own(dir.path)
        let db = dir.file("pacenote.sqlite")
        let shm = db + "-shm"
        #expect(try user.run(["migrate", "--db", db], home: dir.path).status == 0)
        #expect(FileManager.default.createFile(atPath: shm, contents: nil))
        user.own(shm)
        chmod(shm, 0o444)

        let doctor = try user.run(["doctor", "--db", db, "--mpd", "127.0.0.1:1"], home: dir.path)
        #expect(doctor.stdout.contains("FAIL database files: \(shm) is not writable (mode 0444"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("-> `chmod u+w \(shm)`"), "\(doctor.stdout)")
        let failed = try user.run(["serve", "--db", db, "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"], home: dir.path)
        #expect(failed.status == 1 && failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        #expect(failed.stderr.contains("\(shm) is not writable (mode 0444"), "\(failed.stderr)")
        chmod(shm, 0o600)
        #expect(try Self.serves(user, ["--db", db], home: dir.path))

        guard user.switches else { return }
        // Left by root: root itself may write it, so doctor run as root still names it.
        #expect(FileManager.default.createFile(atPath: shm, contents: nil))
        chown(shm, 0, 0)
        chmod(shm, 0o644)
        let asRoot = try PacenoteProcess.run(["doctor", "--db", db, "--mpd", "127.0.0.1:1"], environment: ["HOME": dir.path])
        #expect(asRoot.stdout.contains("FAIL database files: \(shm) belongs to root (uid 0), the database to nobody (uid 65534)"),
                "\(asRoot.stdout)")
        #expect(asRoot.stdout.contains("-> `chown nobody \(shm)`"), "\(asRoot.stdout)")
        let asService = try user.run(["doctor", "--db", db, "--mpd", "127.0.0.1:1"], home: dir.path)
        #expect(asService.stdout.contains("FAIL database files: \(shm) belongs to root (uid 0), not to nobody (uid 65534)"),
                "\(asService.stdout)")
        chown(shm, user.uid, user.uid)
        // A backups folder that `sudo pacenote backup` made: the daemon's own would fail.
        try FileManager.default.createDirectory(atPath: dir.file("backups"), withIntermediateDirectories: false)
        let backups = try PacenoteProcess.run(["doctor", "--db", db, "--mpd", "127.0.0.1:1"], environment: ["HOME": dir.path])
        #expect(backups.stdout.contains("FAIL database files: \(dir.file("backups")) belongs to root (uid 0), the database to nobody"),
                "\(backups.stdout)")
        #expect(backups.stdout.contains("-> `chown -R nobody \(dir.file("backups"))`"), "\(backups.stdout)")
        chown(dir.file("backups"), user.uid, user.uid)
        #expect(try Self.serves(user, ["--db", db], home: dir.path))
    }

    /// A port held by another program: the one-line error, and nothing made in a fresh data
    /// folder (issue 52: the database, key, spool and lock were made first).
    @Test func aPortInUseMakesNothing() throws {
        let holder = try Listener()
        let home = try TemporaryDirectory("pacenote-port")
        let r = try PacenoteProcess.run(["serve", "--http", "127.0.0.1:\(holder.port)", "--mpd", "127.0.0.1:1"],
                                        environment: ["HOME": home.path])
        #expect(r.status == 1)
        #expect(r.stderr == "pacenote: --http 127.0.0.1:\(holder.port): cannot listen: Address already in use\n", "\(r.stderr)")
        #expect(Self.names(home.path) == [], "made: \(Self.names(home.path))")
        // With --db in a folder of its own: nothing there either.
        let dir = try TemporaryDirectory("pacenote-port-db")
        let named = try PacenoteProcess.run(["serve", "--db", dir.file("p.sqlite"), "--http", "127.0.0.1:\(holder.port)",
                                             "--mpd", "127.0.0.1:1"], environment: ["HOME": home.path])
        #expect(named.status == 1 && named.stderr.contains("Address already in use"), "\(named.stderr)")
        #expect(Self.names(dir.path) == [], "made: \(Self.names(dir.path))")
        // The port let go, the same command serves on it.
        let port = holder.port
        holder.close()
        let process = try PacenoteProcess(["serve", "--http", "127.0.0.1:\(port)", "--mpd", "127.0.0.1:1"],
                                          environment: ["HOME": home.path])
        #expect(eventually(timeout: 20) { process.stderr.contains("serving http://127.0.0.1:\(port)/") }, "\(process.stderr)")
        process.signal(SIGTERM)
        #expect(try process.wait(timeout: 20) == 0)
    }

    /// A start that fails after the database, spool and lock were made (here the key given
    /// in the environment is too short) removes them; one on a database that was there
    /// leaves it as it was.
    @Test func aFailedStartRemovesWhatItMade() throws {
        let dir = try TemporaryDirectory("pacenote-failed-start")
        let db = dir.file("p.sqlite")
        let arguments = ["serve", "--db", db, "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"]
        let failed = try PacenoteProcess.run(arguments, environment: ["HOME": dir.path, "PACENOTE_API_KEY": "short"])
        #expect(failed.status == 1 && failed.stderr == "pacenote: PACENOTE_API_KEY: must be at least 16 characters\n", "\(failed.stderr)")
        #expect(Self.names(dir.path) == [], "left: \(Self.names(dir.path))")
        // The default data folder too, when the start made it.
        let home = try TemporaryDirectory("pacenote-failed-home")
        let fresh = try PacenoteProcess.run(["serve", "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"],
                                            environment: ["HOME": home.path, "PACENOTE_API_KEY": "short"])
        #expect(fresh.status == 1)
        #expect(!FileManager.default.fileExists(atPath: home.file(".local/share/pacenote")), "\(Self.names(home.file(".local/share")))")

        #expect(try PacenoteProcess.run(["migrate", "--db", db]).status == 0)
        let before = Self.states(dir.path)
        let again = try PacenoteProcess.run(arguments, environment: ["HOME": dir.path, "PACENOTE_API_KEY": "short"])
        #expect(again.status == 1)
        #expect(Self.states(dir.path) == before, "\(Self.states(dir.path))")
        // The key fixed (here: left to the key file), the same command serves.
        let process = try PacenoteProcess(arguments, environment: ["HOME": dir.path])
        #expect(eventually(timeout: 20) { process.stderr.contains("serving http://") }, "\(process.stderr)")
        process.signal(SIGTERM)
        #expect(try process.wait(timeout: 20) == 0)
    }

    /// A socket listening on a port of the kernel's choice, as another program would hold it.
    final class Listener {
        private var fd: Int32
        let port: UInt16

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard fd >= 0, bound == 0, listen(fd, 8) == 0 else { throw HarnessError("cannot listen on 127.0.0.1") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            self.fd = fd
            port = UInt16(bigEndian: address.sin_port)
        }

        func close() {
            if fd >= 0 { _ = Glibc.close(fd) }
            fd = -1
        }

        deinit { close() }
    }
}
