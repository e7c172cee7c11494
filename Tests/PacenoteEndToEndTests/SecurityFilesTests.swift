import Foundation
import PacenoteTestSupport
import Testing

/// Issue 15, rows 5 and 6 against the real binary: files private from their first byte
/// (umask 077, every created file's mode seen by strace at its creation), and imports that
/// refuse zip bombs and overlong lines quickly, in bounded memory, storing nothing partial.
@Suite struct SecurityFilesTests {
    static func line(_ title: String, _ i: Int) -> String {
        #"{"listened_at": \#(1_706_781_600 + i * 300), "track_metadata": {"artist_name": "Dool", "track_name": "\#(title)"}}"# + "\n"
    }

    /// Runs a Python script with the arguments (zips are made with Python's zipfile).
    static func python(_ script: String, _ arguments: [String]) throws {
        _ = try run(try Tools.require("python3"), ["-c", script] + arguments)
    }

    /// `pacenote ARGS` under /usr/bin/time: its status, stderr, seconds and peak RSS in MiB.
    static func timed(_ arguments: [String]) throws -> (status: Int32, stderr: String, seconds: Double, peakMiB: Double) {
        let dir = try TemporaryDirectory()
        let started = Date()
        let r = try run(try Tools.require("time"), ["-f", "peak-kib %M", "-o", dir.file("time"), try PacenoteProcess.binary()] + arguments,
                        environment: PacenoteProcess.cleanEnvironment([:]), allowFailure: true)
        let seconds = Date().timeIntervalSince(started)
        let report = try String(contentsOfFile: dir.file("time"), encoding: .utf8)
        let kib = report.split(separator: "\n").first { $0.hasPrefix("peak-kib ") }.flatMap { Double($0.dropFirst(9)) } ?? .infinity
        return (r.status, r.stderr, seconds, kib / 1024)
    }

    static func plays(_ db: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: db) else { return 0 }
        return Int(try run(try Tools.require("sqlite3"), [db, "SELECT count(*) FROM plays"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    // MARK: Row 5: private from the first byte

    @Test func theDaemonRunsWithUmask077() throws {
        let daemon = try PacenoteDaemon(mpd: nil)
        let status = try String(contentsOfFile: "/proc/\(daemon.process.process.processIdentifier)/status", encoding: .utf8)
        let umask = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        #expect(umask?.split(separator: "\t").last == "0077", "\(umask ?? "no Umask line")")
        // An upload a crashed daemon left in tmp/ is gone when it starts again.
        try FileManager.default.createDirectory(atPath: daemon.dir.file("tmp"), withIntermediateDirectories: true)
        let stale = daemon.dir.file("tmp/upload-1.tmp")
        #expect(FileManager.default.createFile(atPath: stale, contents: Data("half an upload".utf8)))
        try daemon.restart(kill9: true)
        #expect(!FileManager.default.fileExists(atPath: stale))
        try daemon.stop()
    }

    /// Every file and folder created while the key, the database, an import and an export
    /// are made, seen by strace at its creation: the mode asked for, less the umask in force
    /// then, has no bit for the group or others; and nothing is chmodded wider afterwards.
    @Test func noFileIsEverCreatedWiderThanItsOwner() throws {
        let strace = try Tools.require("strace")
        let dir = try TemporaryDirectory()
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        let db = data + "/pacenote.sqlite"
        try Self.python("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("listens/2024/2.jsonl", sys.argv[2])
            """, [dir.file("export.zip"), Self.line("Oweynagat", 0) + Self.line("Summerland", 1)])
        let commands: [[String]] = [
            ["key", "--new", "--db", db],
            ["migrate", "--db", db],
            ["import", "--db", db, dir.file("export.zip")],
            ["export", "--db", db, "--format", "listenbrainz", "--output", data + "/plays.jsonl"],
        ]
        for command in commands {
            let log = dir.file("strace.log")
            let r = try run(strace, ["-f", "-qq", "-o", log, "-e", "trace=openat,open,creat,chmod,fchmod,fchmodat,mkdir,mkdirat,umask",
                                     try PacenoteProcess.binary()] + command,
                            environment: PacenoteProcess.cleanEnvironment(["HOME": dir.path]), allowFailure: true)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
            var umask: Int?
            var created: [String] = []
            for call in calls {
                if let value = Self.octal(after: "umask(", in: call) {
                    umask = value
                    continue
                }
                let creates = call.contains("O_CREAT") || call.contains("mkdir(") || call.contains("mkdirat(") || call.contains("creat(")
                if creates, let mode = Self.mode(of: call) {
                    guard let mask = umask else {
                        Issue.record("\(command): a file is created before the umask is set: \(call)")
                        continue
                    }
                    #expect(mask == 0o077, "\(command): \(call)")
                    #expect(mode & ~mask & 0o077 == 0, "\(command): created wider than its owner: \(call)")
                    if call.contains(dir.path) { created.append(call) }
                }
                if call.contains("chmod("), let mode = Self.mode(of: call) {
                    #expect(mode & 0o077 == 0, "\(command): chmodded wider: \(call)")
                }
            }
            #expect(umask == 0o077, "\(command): no umask(077) call")
            // The data files of each command were seen being created.
            // (The key is written under a temporary name, then renamed.)
            #expect(!created.isEmpty, "\(command): no file seen created")
            let expected = switch command[0] {
            case "migrate": ["pacenote.sqlite\"", "pacenote.sqlite-wal", "pacenote.sqlite-shm"]
            case "export": ["plays.jsonl"]
            default: [String]()
            }
            for name in expected {
                #expect(created.contains { $0.contains(name) }, "\(command): \(name) not seen created:\n\(created.joined(separator: "\n"))")
            }
        }
        // And as they are now.
        for name in ["pacenote.sqlite", "api-key", "plays.jsonl"] {
            let mode = try FileManager.default.attributesOfItem(atPath: data + "/" + name)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(name): \(String(mode ?? -1, radix: 8))")
        }
        #expect(try Self.plays(db) == 2)
    }

    /// `0600` in `open(…, 0600)`, `mkdir("…", 0700)`, `chmod("…", 0644)`: the last octal argument.
    static func mode(of call: String) -> Int? {
        // `…, 0600) = 3`, `…, 0600) = -1 EEXIST (File exists)`, `…, 0600 <unfinished ...>`
        guard let close = call.range(of: " <unfinished") ?? call.range(of: ") = ", options: .backwards) else { return nil }
        let arguments = call[..<close.lowerBound]
        guard let comma = arguments.range(of: ", ", options: .backwards) else { return nil }
        let last = arguments[comma.upperBound...]
        guard last.hasPrefix("0"), last.allSatisfy({ $0.isNumber }) else { return nil }
        return Int(last, radix: 8)
    }

    static func octal(after prefix: String, in call: String) -> Int? {
        guard let range = call.range(of: prefix) else { return nil }
        return Int(call[range.upperBound...].prefix { $0.isNumber }, radix: 8)
    }

    // MARK: Row 6: bounded imports

    /// Refused with its reason within seconds, under 200 MiB, storing nothing.
    func expectRefused(_ zip: String, db: String, reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try Self.timed(["import", "--db", db, zip])
        #expect(r.status != 0, sourceLocation: sourceLocation)
        #expect(r.stderr.contains(reason), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.seconds < 10, "\(r.seconds) s", sourceLocation: sourceLocation)
        #expect(r.peakMiB < 200, "peak RSS \(r.peakMiB) MiB", sourceLocation: sourceLocation)
        #expect(try Self.plays(db) == 0, sourceLocation: sourceLocation)
    }

    @Test func zipBombsAreRefusedQuicklyAndStoreNothing() throws {
        let dir = try TemporaryDirectory()
        try Self.python("""
            import os, struct, sys, zipfile
            good, listen = sys.argv[1], sys.argv[2]
            os.chdir(sys.argv[3])
            # 300 MiB of one byte in ~300 KB, zip64 headers.
            with zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
                with z.open("listens/2024/1.jsonl", "w", force_zip64=True) as f:
                    for _ in range(300): f.write(b"a" * (1 << 20))
            # One listen, then 1 GiB without a line feed, in ~1 MB.
            with zipfile.ZipFile("longline.zip", "w", zipfile.ZIP_DEFLATED) as z:
                with z.open("listens/2024/1.jsonl", "w", force_zip64=True) as f:
                    f.write(listen.encode())
                    for _ in range(1024): f.write(b"x" * (1 << 20))
            # Good listens, then an entry whose directory claims 1 KiB and which inflates to 8 MiB.
            with zipfile.ZipFile("lying.zip", "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("listens/2024/1.jsonl", good)
                z.writestr("listens/2024/2.jsonl", listen * (8 * 1024 * 1024 // len(listen)))
            data = bytearray(open("lying.zip", "rb").read())
            at = data.rfind(b"PK\\x01\\x02")
            struct.pack_into("<I", data, at + 24, 1024)
            open("lying.zip", "wb").write(bytes(data))
            # A deflate stream that never ends: a stored block claiming 64 KiB runs into the
            # directory and the end of the file (ZIPFoundation 0.9.20 spins forever on it).
            name, body = b"listens.jsonl", b"\\x00\\xff\\xff\\x00\\x00" + listen.encode()
            local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0, 0, len(body), 100, len(name), 0) + name + body
            central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8, 0, 0, 0, len(body), 100, len(name), 0, 0, 0, 0, 0, 0) + name
            end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(central), len(local), 0)
            open("endless.zip", "wb").write(local + central + end)
            # Two entries sharing one compressed stream (the overlapping-files bomb).
            with zipfile.ZipFile("overlap.zip", "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("listens/a.jsonl", good)
            data = open("overlap.zip", "rb").read()
            cd = data.rfind(b"PK\\x01\\x02")
            eocd = data.rfind(b"PK\\x05\\x06")
            entry = data[cd:eocd]
            second = entry.replace(b"listens/a.jsonl", b"listens/b.jsonl")
            new_cd = entry + second
            end = bytearray(data[eocd:])
            struct.pack_into("<HHII", end, 8, 2, 2, len(new_cd), cd)
            open("overlap.zip", "wb").write(data[:cd] + new_cd + bytes(end))
            """, [Self.line("a", 0) + Self.line("b", 1), Self.line("one", 2), dir.path])
        let cases = [
            ("bomb.zip", "more than 100 times: a zip bomb is not read"),
            ("longline.zip", "more than 100 times: a zip bomb is not read"),
            ("lying.zip", "inflates past the 1024 bytes its directory declares"),
            ("endless.zip", "its deflate stream does not end within its compressed size"),
            ("overlap.zip", "entries of the zip overlap"),
        ]
        for (zip, reason) in cases {
            try expectRefused(dir.file(zip), db: dir.file(zip + ".sqlite"), reason: reason)
        }
    }

    /// An entry is read by its own name only: one named `*.jsonl` is not a pattern that
    /// reads the others again.
    @Test func entryNamesAreNamesNotPatterns() throws {
        let dir = try TemporaryDirectory()
        try Self.python("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("*.jsonl", sys.argv[2])
                z.writestr("listens/2024/1.jsonl", sys.argv[3])
                z.writestr("listens/[0-9].jsonl", sys.argv[4])
            """, [dir.file("star.zip"), Self.line("star", 0), Self.line("a", 1) + Self.line("b", 2), Self.line("class", 3)])
        let db = dir.file("p.sqlite")
        let r = try PacenoteProcess.run(["import", "--db", db, dir.file("star.zip")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("read 4, imported 4, duplicates 0"), "\(r.stdout)")
        #expect(try Self.plays(db) == 4)
    }

    /// Zip64 directories (over 65,535 entries or 4 GiB, or written so by the tool): the
    /// sizes and offsets come from the zip64 records.
    @Test func zip64DirectoriesAreRead() throws {
        let dir = try TemporaryDirectory()
        try Self.python("""
            import struct, sys, zlib
            name, body = b"listens/2024/1.jsonl", sys.argv[2].encode()
            packed = zlib.compressobj(6, zlib.DEFLATED, -15)
            data = packed.compress(body) + packed.flush()
            crc = zlib.crc32(body)
            extra = struct.pack("<HHQQ", 1, 16, len(body), len(data))
            local = struct.pack("<IHHHHHIIIHH", 0x04034b50, 45, 0, 8, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra)) + name + extra + data
            cdextra = struct.pack("<HHQQQ", 1, 24, len(body), len(data), 0)
            central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 45, 45, 0, 8, 0, 0, crc, 0xFFFFFFFF, 0xFFFFFFFF,
                                  len(name), len(cdextra), 0, 0, 0, 0, 0xFFFFFFFF) + name + cdextra
            record_at = len(local) + len(central)
            record = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 1, 1, len(central), len(local))
            locator = struct.pack("<IIQI", 0x07064b50, 0, record_at, 1)
            end = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
            open(sys.argv[1], "wb").write(local + central + record + locator + end)
            """, [dir.file("z64.zip"), Self.line("a", 0) + Self.line("b", 1) + Self.line("c", 2)])
        let db = dir.file("p.sqlite")
        let r = try PacenoteProcess.run(["import", "--db", db, dir.file("z64.zip")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.plays(db) == 3)
    }

    /// A JSON lines file with a line of 256 MiB between two listens: one pass, bounded
    /// memory, the long line an unreadable row named by its number, the others imported.
    @Test func anOverlongLineIsOneUnreadableRowReadInOnePass() throws {
        let dir = try TemporaryDirectory()
        let file = dir.file("long.jsonl")
        try Self.python("""
            import sys
            with open(sys.argv[1], "wb") as f:
                f.write(sys.argv[2].encode())
                chunk = b"y" * (1 << 20)
                for _ in range(256): f.write(chunk)
                f.write(b"\\n" + sys.argv[3].encode())
            """, [file, Self.line("first", 0), Self.line("last", 1)])
        let db = dir.file("p.sqlite")
        let r = try Self.timed(["import", "--keep-going", "--db", db, file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("\(file):2: a line of 268435456 bytes, longer than 1 MiB: not read"), "\(r.stderr)")
        #expect(r.seconds < 20, "\(r.seconds) s")
        #expect(r.peakMiB < 200, "peak RSS \(r.peakMiB) MiB")
        #expect(try Self.plays(db) == 2)
    }
}
