import Foundation
import PacenoteTestSupport
import Testing

/// Issue 52's "nothing lost without a word" and its small words, through the built binary: a
/// broken CSV row is one error at its line and the rest imports; a file with errors exits 1
/// unless --keep-going; a missing file says so; export takes its format from the extension.
@Suite struct NothingLostTests {
    static let rows = [
        "Band,Album,Song 1,01 Jan 2024 10:00",
        "Band,\"Album,Song 2,01 Jan 2024 10:05",
        "Band,Album,Song 3,01 Jan 2024 10:10",
        "Band,Album,Song 4,01 Jan 2024 10:15",
        "Band,Album,Song 5,01 Jan 2024 10:20",
        "Band,Album,Song 6,01 Jan 2024 10:25",
    ]

    static func plays(_ db: String) throws -> String {
        try run(try Tools.require("sqlite3"), [db, "SELECT COUNT(*) FROM plays"]).stdout
    }

    @Test func aBrokenCSVRowIsOneErrorAndTheRestImports() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let csv = dir.file("scrobbles.csv")
        try (Self.rows.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)

        let first = try PacenoteProcess.run(["import", "--db", db, csv], environment: ["HOME": dir.path])
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.stdout == "\(csv): read 6, imported 5, duplicates 0, skipped 0, errors 1\n", "\(first.stdout)")
        #expect(first.stderr.contains("pacenote: \(csv):2: a quote (\") opened on this line is not closed"), "\(first.stderr)")
        #expect(first.stderr.contains("pass --keep-going to accept them as lost"), "\(first.stderr)")
        #expect(try Self.plays(db) == "5\n")

        // --keep-going: the same report, status 0 (and nothing doubled).
        let going = try PacenoteProcess.run(["import", "--keep-going", "--db", db, csv], environment: ["HOME": dir.path])
        #expect(going.status == 0, "\(going.stderr)")
        #expect(going.stdout == "\(csv): read 6, imported 0, duplicates 5, skipped 0, errors 1\n", "\(going.stdout)")
        #expect(going.stderr.contains("\(csv):2: a quote"), "\(going.stderr)")

        // The row fixed, the plain command again: the one play that was missing, status 0.
        var fixed = Self.rows
        fixed[1] = "Band,\"Album\",Song 2,01 Jan 2024 10:05"
        try (fixed.joined(separator: "\n") + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        let again = try PacenoteProcess.run(["import", "--db", db, csv], environment: ["HOME": dir.path])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "\(csv): read 6, imported 1, duplicates 5, skipped 0, errors 0\n", "\(again.stdout)")
        #expect(try Self.plays(db) == "6\n")
    }

    /// The upload says the same as the command, in its JSON.
    @Test func theHTTPImportReportsTheSameRow() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let body = Data((Self.rows.joined(separator: "\n") + "\n").utf8)
        let r = try HTTP.request("POST", daemon.base + "/api/v1/import?name=scrobbles.csv",
                                 headers: ["Authorization": "Token \(daemon.apiKey)"], body: body)
        #expect(r.status == 200, "\(r.text)")
        for (key, value) in [("read", 6), ("imported", 5), ("duplicates", 0), ("skipped", 0), ("errors", 1)] {
            #expect(r.json?[key] as? Int == value, "\(key): \(r.text)")
        }
        let problems = r.json?["problems"] as? [[String: Any]]
        #expect(problems?.count == 1 && problems?.first?["line"] as? Int == 2 && problems?.first?["file"] as? String == "scrobbles.csv",
                "\(r.text)")
        #expect((problems?.first?["message"] as? String)?.hasPrefix("a quote (\") opened on this line is not closed") == true, "\(r.text)")
    }

    @Test func aMissingFileSaysSoAndTheNextCommandWorks() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let csv = dir.file("scrobbles.csv")
        let missing = try PacenoteProcess.run(["import", "--db", db, csv], environment: ["HOME": dir.path])
        #expect(missing.status == 1)
        #expect(missing.stderr == "pacenote: \(csv): no such file\n", "\(missing.stderr)")
        try (Self.rows[0] + "\n").write(toFile: csv, atomically: true, encoding: .utf8)
        let found = try PacenoteProcess.run(["import", "--db", db, csv], environment: ["HOME": dir.path])
        #expect(found.status == 0 && found.stdout == "\(csv): read 1, imported 1, duplicates 0, skipped 0, errors 0\n",
                "\(found.stdout)\(found.stderr)")
        for flag in ["--loved", "--curation"] {
            let other = try PacenoteProcess.run(["import", flag, "--db", db, dir.file("gone.csv")], environment: ["HOME": dir.path])
            #expect(other.status == 1 && other.stderr.contains("gone.csv: no such file"), "\(flag): \(other.stderr)")
        }

        // A configuration file that is not there: doctor says how to make one, not "fix that key".
        let doctor = try PacenoteProcess.run(["doctor", "--config", dir.file("pacenote.toml"), "--db", db], environment: ["HOME": dir.path])
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("FAIL configuration: config (--config): no such file: \(dir.file("pacenote.toml"))"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("-> create it: copy docs/pacenote.example.toml"), "\(doctor.stdout)")
        #expect(!doctor.stdout.contains("fix that key"), "\(doctor.stdout)")
        // The command it gives writes a file that loads.
        let written = try PacenoteProcess.run(["config", "--db", db], environment: ["HOME": dir.path])
        #expect(written.status == 0)
        try written.stdout.write(toFile: dir.file("pacenote.toml"), atomically: true, encoding: .utf8)
        let loaded = try PacenoteProcess.run(["config", "--config", dir.file("pacenote.toml")], environment: ["HOME": dir.path])
        #expect(loaded.status == 0, "\(loaded.stderr)")

        // restore's count of the plays it replaced: "(1 play)".
        let backup = try PacenoteProcess.run(["backup", "--db", db], environment: ["HOME": dir.path])
        #expect(backup.status == 0, "\(backup.stderr)")
        let file = try #require(backup.stdout.split(separator: "\n").first { $0.hasPrefix("backup: ") }).dropFirst("backup: ".count)
        let restore = try PacenoteProcess.run(["restore", "--db", db, String(file)], environment: ["HOME": dir.path])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stdout.contains("the database it replaced (1 play) is kept as"), "\(restore.stdout)")
    }

    @Test func exportTakesItsFormatFromTheExtension() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        try (Self.rows[0] + "\n").write(toFile: dir.file("one.csv"), atomically: true, encoding: .utf8)
        #expect(try PacenoteProcess.run(["import", "--db", db, dir.file("one.csv")]).status == 0)

        let lines = try PacenoteProcess.run(["export", "--db", db, "--output", dir.file("x.jsonl")])
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(lines.stderr == "\(dir.file("x.jsonl")): 1 play\n", "\(lines.stderr)")
        #expect(try String(contentsOfFile: dir.file("x.jsonl"), encoding: .utf8).hasPrefix("{\"listened_at\""))
        let csv = try PacenoteProcess.run(["export", "--db", db, "--output", dir.file("x.CSV")])
        #expect(csv.status == 0, "\(csv.stderr)")
        #expect(try String(contentsOfFile: dir.file("x.CSV"), encoding: .utf8).hasPrefix("uts,"))
        // --format wins over the extension.
        let forced = try PacenoteProcess.run(["export", "--db", db, "--format", "csv", "--output", dir.file("y.jsonl")])
        #expect(forced.status == 0)
        #expect(try String(contentsOfFile: dir.file("y.jsonl"), encoding: .utf8).hasPrefix("uts,"))
        // An extension export does not write, or none: one line, no file.
        let unknown = try PacenoteProcess.run(["export", "--db", db, "--output", dir.file("x.txt")])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "pacenote: --format: .txt (\(dir.file("x.txt"))) is not a format export writes: name it .jsonl "
                + "(ListenBrainz JSON lines) or .csv, or give --format listenbrainz (JSON lines) or --format csv\n", "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.txt")))
        let bare = try PacenoteProcess.run(["export", "--db", db])
        #expect(bare.status == 1 && bare.stderr.contains("standard output has no file extension"), "\(bare.stderr)")
    }
}
