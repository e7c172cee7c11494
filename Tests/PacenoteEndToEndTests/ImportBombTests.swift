import Foundation
import PacenoteTestSupport
import Testing

/// Files that say little and once made an import hold a lot (issue 51, row 8): a 2.7 MB zip
/// of a 250 MiB JSON array took 549 MB, a 4 MiB FIT of compressed-timestamp records 185 MB
/// more and 2.1 million samples, a 4 MiB TCX of empty elements 164 MB more. Each is built
/// here, imported with `pacenote import` and over `POST /api/v1/import`, and the process's
/// peak resident memory must stay under 150 MB, with the reason or a bounded result.
@Suite(.serialized) struct ImportBombTests {
    static let limitMB = 150.0
    /// FIT time 1_100_000_000 (2024-11-09): its low five bits are 0.
    static let fitStart: UInt32 = 1_100_000_000

    /// A zip (deflate) of one `listens.json`: a 250 MiB array, compressed ~90 times (under
    /// the zip reader's ratio limit of 100, so that it is read, not refused at the door),
    /// whose first element makes it a ListenBrainz export and whose second is the rest.
    static func zipBomb(_ path: String, in dir: TemporaryDirectory) throws {
        let script = dir.file("zipbomb.py")
        try """
            import os, sys, zipfile
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                with z.open('listens.json', 'w', force_zip64=True) as f:
                    f.write(b'[{"track_metadata": {}}, "')
                    written = 0
                    while written < 250 << 20:
                        data = b''.join(os.urandom(6).hex().encode() + b'a' * 988 for _ in range(1024))
                        f.write(data)
                        written += len(data)
                    f.write(b'"]')
            """.write(toFile: script, atomically: true, encoding: .utf8)
        try run(try Tools.require("python3"), [script, path])
    }

    /// The CRC-16 of the FIT protocol (the SDK's nibble table, polynomial 0xA001).
    static func fitCRC(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                               0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
        var crc: UInt16 = 0
        for byte in bytes {
            var tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int(byte & 0xF)]
            tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int((byte >> 4) & 0xF)]
        }
        return crc
    }

    static func le(_ v: UInt32, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    /// A 4 MiB FIT activity, written byte by byte after the FIT protocol: a file_id, one
    /// record with a full timestamp, then two-byte records with a compressed-timestamp header
    /// (local type 2, a heart rate each). `offset(i)`: record i's five bits of seconds.
    static func fitBomb(_ path: String, offset: (Int) -> UInt8) throws {
        var data: [UInt8] = []
        // Definition (0x40 | local), reserved, little-endian, global number, fields (number, size, base type).
        data += [0x40, 0, 0] + le(0, 2) + [1, 0, 1, 0x00]       // file_id: type
        data += [0x00, 4]                                       // an activity
        data += [0x41, 0, 0] + le(20, 2) + [2, 253, 4, 0x86, 3, 1, 0x02]  // record: timestamp, heart_rate
        data += [0x01] + le(fitStart, 4) + [120]
        data += [0x42, 0, 0] + le(20, 2) + [1, 3, 1, 0x02]      // record: heart_rate only
        var i = 0
        while data.count < (4 << 20) - 16 {
            data += [0x80 | 2 << 5 | (offset(i) & 0x1F), 120]
            i += 1
        }
        var file: [UInt8] = [14, 0x20] + le(2195, 2) + le(UInt32(data.count), 4) + Array(".FIT".utf8)
        file += le(UInt32(fitCRC(file)), 2)
        file += data
        file += le(UInt32(fitCRC(file)), 2)
        try Data(file).write(to: URL(fileURLWithPath: path))
    }

    /// A 4 MiB TCX of a million empty elements.
    static func tcxBomb(_ path: String) throws {
        var text = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        text += #"<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>"#
        text += String(repeating: "<a/>", count: 1 << 20)
        text += "</Activities></TrainingCenterDatabase>\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// `pacenote ARGS` as a child of python3, which reports the child's peak resident memory
    /// (getrusage's ru_maxrss, in KiB): exit status, output, and the peak in MB.
    static func measured(_ arguments: [String], home: String) throws -> (status: Int32, stdout: String, stderr: String, peakMB: Double) {
        let wrapper = """
            import resource, subprocess, sys
            p = subprocess.run(sys.argv[1:], capture_output=True)
            sys.stdout.buffer.write(p.stdout)
            sys.stderr.buffer.write(p.stderr)
            sys.stderr.write("\\nPEAK_KIB %d\\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(p.returncode)
            """
        let r = try run(try Tools.require("python3"), ["-c", wrapper, try PacenoteProcess.binary()] + arguments,
                        environment: PacenoteProcess.cleanEnvironment(["HOME": home]), allowFailure: true)
        let kib = r.stderr.components(separatedBy: "PEAK_KIB ").last.flatMap { Double($0.prefix { $0.isNumber }) } ?? .infinity
        return (r.status, r.stdout, r.stderr, kib / 1024)
    }

    /// The daemon's peak resident memory so far (VmHWM), in MB.
    static func peakMB(_ daemon: PacenoteDaemon) throws -> Double {
        let status = try String(contentsOfFile: "/proc/\(daemon.process.process.processIdentifier)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "") ?? .infinity) / 1024
    }

    /// `POST /api/v1/import` of the file with the admin key (curl: the upload may take a while).
    static func upload(_ path: String, to daemon: PacenoteDaemon, name: String) throws -> (status: Int, json: [String: Any]) {
        let r = try run(try Tools.require("curl"), ["-s", "--max-time", "300", "-w", "\n%{http_code}",
                                                     "-H", "Authorization: Token \(daemon.apiKey)", "--data-binary", "@" + path,
                                                     daemon.base + "/api/v1/import?name=\(name)"], allowFailure: true)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let body = lines.dropLast().joined(separator: "\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? ["raw": body]
        return (status, json)
    }

    static func message(_ json: [String: Any]) -> String { (json["error"] as? [String: Any])?["message"] as? String ?? "\(json)" }

    @Test func bombsFromTheCommandLineStayUnderTheLimit() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let sqlite = try Tools.require("sqlite3")
        #expect(try PacenoteProcess.run(["migrate", "--db", db]).status == 0)

        // The zip: its array is read an element at a time; the 250 MiB element is passed
        // over, with its length and the line it began on.
        try Self.zipBomb(dir.file("export.zip"), in: dir)
        var r = try Self.measured(["import", "--db", db, dir.file("export.zip")], home: dir.path)
        print("pacenote import, zip of a 250 MiB JSON array: peak \(Int(r.peakMB)) MB")
        #expect(r.peakMB < Self.limitMB, "\(r.peakMB) MB: \(r.stderr.suffix(500))")
        #expect(r.stderr.contains("listens.json:1: an element of \((250 << 20) + 2) bytes, longer than 1 MiB: not read"), "\(r.stderr.suffix(500))")
        #expect(r.stdout.contains("read 2, imported 0"), "\(r.stdout)")

        // FIT: 2.1 million records a second apart, in 4 MiB: refused past two days of them.
        try Self.fitBomb(dir.file("seconds.fit")) { UInt8(($0 + 1) % 32) }
        r = try Self.measured(["import", "--db", db, dir.file("seconds.fit")], home: dir.path)
        print("pacenote import, 4 MiB FIT of compressed-timestamp records: peak \(Int(r.peakMB)) MB")
        #expect(r.peakMB < Self.limitMB, "\(r.peakMB) MB")
        #expect(r.status == 1)
        #expect(r.stderr.contains("seconds.fit: a FIT activity of more than 172800 records of different seconds (two days at one a second): not imported"),
                "\(r.stderr)")

        // FIT: 2.1 million records of one second: one sample.
        try Self.fitBomb(dir.file("moment.fit")) { _ in 0 }
        r = try Self.measured(["import", "--db", db, dir.file("moment.fit")], home: dir.path)
        #expect(r.peakMB < Self.limitMB, "\(r.peakMB) MB")
        #expect(r.status == 0 && r.stdout.contains("moment.fit: 1 sample (1 new)"), "\(r.stdout) \(r.stderr)")

        // TCX: a million empty elements are read one at a time, and say nothing.
        try Self.tcxBomb(dir.file("empty.tcx"))
        r = try Self.measured(["import", "--db", db, dir.file("empty.tcx")], home: dir.path)
        print("pacenote import, 4 MiB TCX of empty elements: peak \(Int(r.peakMB)) MB")
        #expect(r.peakMB < Self.limitMB, "\(r.peakMB) MB")
        #expect(r.status == 1 && r.stderr.contains("empty.tcx: the file has no heart rate"), "\(r.stderr)")

        #expect(try run(sqlite, [db, "SELECT (SELECT COUNT(*) FROM plays), (SELECT COUNT(*) FROM hr_samples), (SELECT COUNT(*) FROM workouts)"]).stdout
                == "0|1|1\n", "only the one-second FIT stored anything")
        // A normal export still imports.
        r = try Self.measured(["import", "--keep-going", "--db", db, ListenImportTests.fixture("Streaming_History_Audio_2024.json")],
                              home: dir.path)
        #expect(r.status == 0 && r.stdout.contains("imported 3"), "\(r.stdout) \(r.stderr)")
    }

    @Test func bombsOverHTTPStayUnderTheLimit() throws {
        let dir = try TemporaryDirectory()
        try Self.zipBomb(dir.file("export.zip"), in: dir)
        try Self.fitBomb(dir.file("seconds.fit")) { UInt8(($0 + 1) % 32) }
        try Self.tcxBomb(dir.file("empty.tcx"))
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let before = try Self.peakMB(daemon)

        var r = try Self.upload(dir.file("export.zip"), to: daemon, name: "export.zip")
        #expect(r.status == 200 && r.json["read"] as? Int == 2 && r.json["imported"] as? Int == 0 && r.json["errors"] as? Int == 2, "\(r.json)")
        let problems = (r.json["problems"] as? [[String: Any]])?.compactMap { $0["message"] as? String } ?? []
        #expect(problems.contains("an element of \((250 << 20) + 2) bytes, longer than 1 MiB: not read"), "\(r.json)")
        let afterZip = try Self.peakMB(daemon)

        r = try Self.upload(dir.file("seconds.fit"), to: daemon, name: "seconds.fit")
        #expect(r.status == 400 && (r.json["error"] as? [String: Any])?["code"] as? String == "invalid_workout_file", "\(r.json)")
        #expect(Self.message(r.json).hasPrefix("a FIT activity of more than 172800 records"), "\(r.json)")
        let afterFIT = try Self.peakMB(daemon)

        r = try Self.upload(dir.file("empty.tcx"), to: daemon, name: "empty.tcx")
        #expect(r.status == 400 && Self.message(r.json) == "the file has no heart rate, speed, distance, altitude, cadence, power or position", "\(r.json)")
        let afterTCX = try Self.peakMB(daemon)
        print("pacenote serve, peak resident: \(Int(before)) MB at start, \(Int(afterZip)) after the zip, \(Int(afterFIT)) after the FIT, \(Int(afterTCX)) after the TCX")
        #expect(afterTCX < Self.limitMB, "\(afterTCX) MB")

        // Nothing was stored, and a normal export still imports.
        #expect(try daemon.sql("SELECT (SELECT COUNT(*) FROM plays), (SELECT COUNT(*) FROM hr_samples), (SELECT COUNT(*) FROM workouts)") == "0|0|0\n")
        r = try Self.upload(ListenImportTests.fixture("Streaming_History_Audio_2024.json"), to: daemon, name: "history.json")
        #expect(r.status == 200 && r.json["imported"] as? Int == 3, "\(r.json)")
    }
}
