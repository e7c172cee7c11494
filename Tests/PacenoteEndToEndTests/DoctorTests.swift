import Foundation
import PacenoteTestSupport
import Testing

/// `pacenote doctor` as a user runs it, against a real MPD and a real database: passing on
/// a healthy setup, failing with its message for each thing a user gets wrong.
@Suite struct DoctorTests {
    /// A set-up instance: the database `serve` made, its key file, a config naming the
    /// music folder, and an MPD.
    final class Setup {
        let mpd: MPDInstance
        let dir: TemporaryDirectory
        var db: String { dir.file("pacenote.sqlite") }
        var key: String { dir.file("api-key") }

        init(password: String? = nil) throws {
            mpd = try MPDInstance(password: password)
            dir = try TemporaryDirectory("pacenote-doctor")
            try "[mpd]\nmusic_directory = \"\(mpd.musicDirectory)\"\n"
                .write(toFile: dir.file("config.toml"), atomically: true, encoding: .utf8)
            // Made as a user's first run makes them: the database, then the key file.
            for command in [["migrate"], ["key"]] {
                let r = try PacenoteProcess.run(command + ["--db", db], environment: ["HOME": dir.path])
                guard r.status == 0 else { throw HarnessError("pacenote \(command) failed: \(r.stderr)") }
            }
        }

        /// Runs `pacenote doctor` against `host` (default: this MPD, with its password).
        func doctor(mpd host: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
            let target = host ?? "\(mpd.hostForClients):\(mpd.port)"
            return try PacenoteProcess.run(
                ["doctor", "--config", dir.file("config.toml"), "--db", db, "--mpd", target], environment: ["HOME": dir.path])
        }
    }

    static func line(_ output: String, _ prefix: String) -> String? {
        output.split(separator: "\n").map(String.init).first { $0.hasPrefix(prefix) }
    }

    @Test func passesOnAHealthySetup() throws {
        let setup = try Setup()
        let r = try setup.doctor()
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(!r.stdout.contains("FAIL"), "\(r.stdout)")
        // Not a terminal: plain words, one line per check.
        #expect(Self.line(r.stdout, "ok   configuration: valid (\(setup.dir.file("config.toml")))") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   database: \(setup.db): 0 plays, quick_check ok") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   disk space: ") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   durability: changes are answered after a sync; ") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   plays waiting: none") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   mpd default: 127.0.0.1:\(setup.mpd.port): protocol 0.") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   playlists default: MPD keeps stored playlists (0 now)") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   music directory (default): \(setup.mpd.musicDirectory) readable") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   api key: \(setup.key): mode 0600, yours") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   trusted networks: listens on 127.0.0.1:6680") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "info heart rate: no sample yet") != nil, "\(r.stdout)")
        #expect(Self.line(r.stdout, "WARN backup: no backup in \(setup.dir.file("backups"))") != nil, "\(r.stdout)")
        #expect(r.stdout.hasSuffix("0 failed, 1 warning (of 13 checks)\n"), "\(r.stdout)")
        // --strict turns the warning into a failure.
        let strict = try PacenoteProcess.run(
            ["doctor", "--strict", "--config", setup.dir.file("config.toml"), "--db", setup.db,
             "--mpd", "127.0.0.1:\(setup.mpd.port)"], environment: ["HOME": setup.dir.path])
        #expect(strict.status == 1)
    }

    @Test func passesWithTheRightMPDPassword() throws {
        let setup = try Setup(password: "s3cret")
        let r = try setup.doctor()
        #expect(r.status == 0, "\(r.stdout)")
        #expect(Self.line(r.stdout, "ok   mpd default: 127.0.0.1:\(setup.mpd.port): protocol 0.")?.hasSuffix(", password accepted") == true,
                "\(r.stdout)")
        #expect(!r.stdout.contains("s3cret"), "the password is never shown")
    }

    /// A database on a filesystem in memory (a real tmpfs) gets a warning: a sync there
    /// keeps nothing over a power cut (issue 59).
    @Test func warnsWhenTheDatabaseIsInMemory() throws {
        let disk = try FullDiskTests.SmallDisk(megabytes: 8)
        let setup = try Setup()
        let r = try PacenoteProcess.run(["doctor", "--config", setup.dir.file("config.toml"), "--db", disk.path + "/pacenote.sqlite",
                                         "--mpd", "127.0.0.1:1"], environment: ["HOME": setup.dir.path])
        let line = Self.line(r.stdout, "WARN durability: the database is in memory: \(disk.path) (tmpfs)")
        #expect(line != nil, "\(r.stdout)")
        #expect(r.stdout.contains("-> put database.path on a disk"), "\(r.stdout)")
    }

    @Test func failsWhenMPDIsDown() throws {
        let setup = try Setup()
        setup.mpd.stop()
        let r = try setup.doctor()
        #expect(r.status == 1)
        let line = Self.line(r.stdout, "FAIL mpd default: ")
        #expect(line?.hasPrefix("FAIL mpd default: cannot reach 127.0.0.1:\(setup.mpd.port): ") == true, "\(r.stdout)")
        #expect(r.stdout.contains("    -> is MPD running? check mpd.host and mpd.port"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("1 failed, 1 warning (of 13 checks)\n"), "only MPD fails: \(r.stdout)")
        #expect(Self.line(r.stdout, "info playlists default: not checked: MPD cannot be reached") != nil, "\(r.stdout)")
    }

    @Test func failsOnAWrongMPDPassword() throws {
        let setup = try Setup(password: "right")
        let wrong = try setup.doctor(mpd: "wrong@127.0.0.1:\(setup.mpd.port)")
        #expect(wrong.status == 1)
        #expect(Self.line(wrong.stdout, "FAIL mpd default: 127.0.0.1:\(setup.mpd.port) refused the password: ") != nil, "\(wrong.stdout)")
        #expect(wrong.stdout.contains("-> check mpd.password (or the `password@` in mpd.host)"), "\(wrong.stdout)")
        #expect(!wrong.stdout.contains("wrong@"), "the password is never shown")
        // No password at all, where MPD needs one.
        let none = try setup.doctor(mpd: "127.0.0.1:\(setup.mpd.port)")
        #expect(none.status == 1)
        #expect(none.stdout.contains("-> this MPD needs a password: set mpd.password"), "\(none.stdout)")
    }

    /// Tests run as root, which reads any file whatever its mode: a file that is not SQLite
    /// is what "unreadable" can mean here.
    @Test func failsOnADatabaseThatCannotBeRead() throws {
        let setup = try Setup()
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: setup.db))
        let r = try setup.doctor()
        #expect(r.status == 1)
        let line = Self.line(r.stdout, "FAIL database: ")
        #expect(line == "FAIL database: \(setup.db) cannot be read: cannot open database \(setup.db): file is not a database",
                "\(r.stdout)")
        #expect(r.stdout.contains("-> restore the last backup (`pacenote restore FILE`)"), "\(r.stdout)")
        #expect(Self.line(r.stdout, "info heart rate: unknown (the database cannot be read)") != nil, "\(r.stdout)")
        // Nothing was written to it.
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.db)) == Data(repeating: 0x5A, count: 8192))
        // And a missing one says so.
        try FileManager.default.removeItem(atPath: setup.db)
        let missing = try setup.doctor()
        #expect(Self.line(missing.stdout, "FAIL database: no database at \(setup.db) (database.path from --db)") != nil, "\(missing.stdout)")
        #expect(!FileManager.default.fileExists(atPath: setup.db), "doctor creates nothing")
    }

    @Test func failsOnAKeyFileReadableByOthers() throws {
        let setup = try Setup()
        #expect(chmod(setup.key, 0o644) == 0)
        let r = try setup.doctor()
        #expect(r.status == 1)
        #expect(Self.line(r.stdout, "FAIL api key: \(setup.key) is readable by others (mode 0644)") != nil, "\(r.stdout)")
        #expect(r.stdout.contains("    -> chmod 600 \(setup.key), then `pacenote key --new` if others may have read it"), "\(r.stdout)")
    }

    @Test func failsOnABadConfiguration() throws {
        let setup = try Setup()
        try "[mpd]\nport = \"not a port\"\n".write(toFile: setup.dir.file("config.toml"), atomically: true, encoding: .utf8)
        let r = try setup.doctor()
        #expect(r.status == 1)
        #expect(r.stdout.hasPrefix("FAIL configuration: "), "\(r.stdout)")
        #expect(r.stdout.contains("mpd.port"), "names the key: \(r.stdout)")
    }
}
