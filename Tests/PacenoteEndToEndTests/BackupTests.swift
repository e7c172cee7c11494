import Foundation
import PacenoteTestSupport
import Synchronization
import Testing

/// `pacenote backup`, `restore` and the daemon's own backups, with the built binary against
/// a live daemon: listens keep arriving through the ListenBrainz API, and the daemon is
/// killed with SIGKILL now and then.
@Suite struct BackupTests {
    typealias Daemon = PacenoteDaemon

    /// What the submitting client shares with the test.
    private final class ClientState: Sendable {
        /// Listens the server answered 200 for, by start time in ms.
        let acknowledged = Mutex<[Int64]>([])
        let running = Atomic<Bool>(true)
    }

    /// `pacenote ARGS` with the daemon's configuration and database.
    private func pacenote(_ daemon: Daemon, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try PacenoteProcess.run(arguments + ["--config", daemon.dir.file("config.toml"), "--db", daemon.db],
                                environment: ["HOME": daemon.dir.path])
    }

    private func sqlite(_ path: String, _ query: String) throws -> String {
        try run(try Tools.require("sqlite3"), [path, query]).stdout
    }

    /// The start times (ms) of the plays in a database file, sorted.
    private func plays(in path: String) throws -> [Int64] {
        try sqlite(path, "SELECT started_at_ms FROM plays ORDER BY 1").split(separator: "\n").compactMap { Int64($0) }
    }

    @Test func backupsOfALiveDatabaseHoldEveryAcknowledgedListenAndRestoreExactly() throws {
        let daemon = try Daemon(mpd: "127.0.0.1:1", config: "[backup]\ninterval = \"off\"\n")
        let key = daemon.apiKey
        let url = daemon.base + "/1/submit-listens"
        let shared = ClientState()
        // The client: one listen per request, each a new song a second later than the last,
        // recorded once the server answered 200. While the daemon is down, requests fail
        // and the client carries on with the next listen.
        let clientStopped = DispatchSemaphore(value: 0)
        let client = Thread {
            defer { clientStopped.signal() }
                var n: Int64 = 0
            while shared.running.load(ordering: .relaxed) {
                n += 1
                let at = 1_763_794_800 + n
                let body = #"{"listen_type": "single", "payload": [{"listened_at": \#(at), "track_metadata": {"artist_name": "Client", "track_name": "Song \#(n)"}}]}"#
                if let r = try? HTTP.request("POST", url, headers: ["Authorization": "Token \(key)", "Content-Type": "application/json"],
                                             body: Data(body.utf8)), r.status == 200 {
                    shared.acknowledged.withLock { $0.append(at * 1000) }
                }
                usleep(3000)  // a steady stream of writes while the backups run, not a flood
            }
        }
        client.start()
        defer { shared.running.store(false, ordering: .relaxed) }

        var backups: [(path: String, before: [Int64])] = []
        for round in 0..<6 {
            _ = eventually(timeout: 5) { shared.acknowledged.withLock { $0.count } > (round + 1) * 40 }
            let before = shared.acknowledged.withLock { $0 }
            let path = daemon.dir.file("backup-\(round).sqlite")
            if round % 2 == 0 {
                let result = try pacenote(daemon, ["backup", "--output", path])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stdout.hasPrefix("backup: \(path)\n"), "\(result.stdout)")
                #expect(result.stdout.contains("plays: "), "\(result.stdout)")
            } else {
                // Every other round the daemon is killed with SIGKILL while the backup runs,
                // half-way through whatever it was writing, and started again.
                let backup = try PacenoteProcess(["backup", "--output", path, "--config", daemon.dir.file("config.toml"), "--db", daemon.db],
                                                 environment: ["HOME": daemon.dir.path])
                try daemon.restart(kill9: true, samePort: true)
                #expect(try backup.wait() == 0, "\(backup.stderr)")
            }
            backups.append((path, before))
        }
        shared.running.store(false, ordering: .relaxed)
        #expect(clientStopped.wait(timeout: .now() + 30) == .success, "the client stopped")
        // Listens were acknowledged in each of the daemon's lives, across three SIGKILLs.
        #expect(backups[4].before.count > backups[2].before.count && backups[2].before.count > backups[0].before.count)

        for backup in backups {
            #expect(try sqlite(backup.path, "PRAGMA integrity_check") == "ok\n")
            let stored = Set(try plays(in: backup.path))
            let missing = backup.before.filter { !stored.contains($0) }
            #expect(missing.isEmpty, "\(backup.path) lacks \(missing.count) of \(backup.before.count) acknowledged listens")
            let mode = try FileManager.default.attributesOfItem(atPath: backup.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(!FileManager.default.fileExists(atPath: backup.path + "-wal"))
        }

        // Restoring one gives back exactly its plays, and keeps what it replaced.
        let chosen = backups[3].path
        let expected = try plays(in: chosen)
        let current = try plays(in: daemon.db)
        #expect(current.count > expected.count)
        try daemon.stop()
        let restored = try pacenote(daemon, ["restore", chosen])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("restored \(chosen) into \(daemon.db)"), "\(restored.stdout)")
        #expect(restored.stdout.contains("plays: \(expected.count), from 2025-11-22"), "\(restored.stdout)")
        let replaced = try FileManager.default.contentsOfDirectory(atPath: daemon.dir.path).filter { $0.hasPrefix("pacenote.sqlite.replaced-") }
        #expect(replaced.count == 1)
        if let name = replaced.first { #expect(try plays(in: daemon.dir.file(name)) == current) }
        try daemon.restart()
        let listens = try daemon.listens()
        #expect(listens.compactMap { $0.startedAt.map { Int64($0.timeIntervalSince1970 * 1000) } } == expected)
        #expect(try sqlite(daemon.db, "PRAGMA integrity_check") == "ok\n")
    }

    @Test func restoreRefusesWhileTheDaemonRunsAndFilesThatAreNotGoodBackups() throws {
        let daemon = try Daemon(mpd: "127.0.0.1:1", config: "[backup]\ninterval = \"off\"\n")
        let listen = #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#
        #expect(try daemon.post("/1/submit-listens", body: listen).status == 200)
        let good = daemon.dir.file("good.sqlite")
        #expect(try pacenote(daemon, ["backup", "--output", good]).status == 0)
        // --output never overwrites.
        let again = try pacenote(daemon, ["backup", "--output", good])
        #expect(again.status == 1 && again.stderr.contains("already exists"), "\(again.stderr)")

        let running = try pacenote(daemon, ["restore", good])
        #expect(running.status == 1)
        #expect(running.stderr.contains("in use by a running pacenote serve (process \(daemon.process.process.processIdentifier))"),
                "\(running.stderr)")
        // A second daemon on the same database is refused the same way.
        let second = try PacenoteProcess.run(["serve", "--config", daemon.dir.file("config.toml"), "--db", daemon.db,
                                              "--http", "127.0.0.1:0", "--mpd", "127.0.0.1:1"], environment: ["HOME": daemon.dir.path])
        #expect(second.status == 1 && second.stderr.contains("in use by another pacenote serve"), "\(second.stderr)")
        try daemon.stop()

        // Damaged: garbage over the plays table's root page.
        let damaged = daemon.dir.file("damaged.sqlite")
        try FileManager.default.copyItem(atPath: good, toPath: damaged)
        let root = try #require(Int(try sqlite(good, "SELECT rootpage FROM sqlite_master WHERE name = 'plays'").trimmingCharacters(in: .whitespacesAndNewlines)))
        let pageSize = try #require(Int(try sqlite(good, "PRAGMA page_size").trimmingCharacters(in: .whitespacesAndNewlines)))
        let handle = try #require(FileHandle(forWritingAtPath: damaged))
        try handle.seek(toOffset: UInt64((root - 1) * pageSize))
        handle.write(Data(repeating: 0x5A, count: 200))
        try handle.close()
        // Not Pacenote's: another SQLite database, and a text file.
        let foreign = daemon.dir.file("foreign.sqlite")
        _ = try sqlite(foreign, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hello')")
        let text = daemon.dir.file("notes.txt")
        try String(repeating: "not a database\n", count: 500).write(toFile: text, atomically: true, encoding: .utf8)
        // From a newer Pacenote.
        let newer = daemon.dir.file("newer.sqlite")
        try FileManager.default.copyItem(atPath: good, toPath: newer)
        _ = try sqlite(newer, "INSERT INTO grdb_migrations VALUES ('v99.future')")

        let before = try plays(in: daemon.db)
        for (file, message) in [(damaged, "is damaged (integrity_check: "), (foreign, "is not a Pacenote database"),
                                (text, "is not a Pacenote database"), (newer, "newer Pacenote (unknown migrations: v99.future)"),
                                (daemon.dir.file("missing.sqlite"), "no such file")] {
            let r = try pacenote(daemon, ["restore", file])
            #expect(r.status == 1, "\(file): \(r.stdout)")
            #expect(r.stderr.hasPrefix("pacenote: refusing to restore: ") && r.stderr.contains(file) && r.stderr.contains(message),
                    "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
        #expect(try plays(in: daemon.db) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.dir.path).allSatisfy { !$0.contains(".replaced-") })
    }

    @Test func theDaemonBacksUpOnItsIntervalAndKeepsTheNewest() throws {
        let daemon = try Daemon(mpd: "127.0.0.1:1", config: "[backup]\ninterval = \"1s\"\nkeep = 2\n")
        let folder = daemon.dir.file("backups")
        #expect(eventually(timeout: 15) { daemon.process.stderr.components(separatedBy: "backup: wrote").count > 4 },
                "\(daemon.process.stderr)")
        #expect(daemon.process.stderr.contains("backup: removed"))
        // The status tells trusted callers when the last one was taken and how big it is.
        let backup = try #require(try daemon.status()["backup"] as? [String: Any])
        let at = try #require((backup["last_at"] as? String).flatMap { try? Date($0, strategy: .iso8601) })
        #expect(abs(at.timeIntervalSinceNow) < 10)
        #expect((backup["size_bytes"] as? Int ?? 0) > 4096)
        // The files once the daemon has stopped: while it runs, one listed may be removed
        // before it is read (keep = 2, a backup a second), and sqlite3 would create it anew.
        try daemon.stop()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".sqlite") }.sorted()
        #expect((2...3).contains(files.count), "\(files)")  // keep = 2, and perhaps one just written
        for file in files {
            #expect(try FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.posixPermissions] as? Int == 0o600)
            #expect(try sqlite(folder + "/" + file, "PRAGMA integrity_check") == "ok\n")
        }
        #expect(try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int == 0o700)
    }

    @Test func aBackupIsTakenBeforeAMigrationChangesTheSchema() throws {
        let dir = try TemporaryDirectory("pacenote-migrate")
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PacenoteStoreTests/Fixtures/v1.sqlite").path
        let db = dir.file("pacenote.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: db)
        let v1Migrations = try sqlite(db, "SELECT identifier FROM grdb_migrations ORDER BY rowid")

        let migrate = try PacenoteProcess.run(["migrate", "--db", db], environment: ["HOME": dir.path])
        #expect(migrate.status == 0, "\(migrate.stderr)")
        // Said before it happens: on a long history the upgrade takes a while.
        #expect(migrate.stderr.contains("upgrading the database \(db) (v2.import, "), "\(migrate.stderr)")
        let backups = try FileManager.default.contentsOfDirectory(atPath: dir.file("backups"))
        #expect(backups.count == 1 && backups.first?.hasSuffix("-before-migration.sqlite") == true, "\(backups)")
        let backup = dir.file("backups/" + (backups.first ?? ""))
        #expect(try sqlite(backup, "PRAGMA integrity_check") == "ok\n")
        #expect(try sqlite(backup, "SELECT identifier FROM grdb_migrations ORDER BY rowid") == v1Migrations)
        #expect(try sqlite(backup, "SELECT COUNT(*) FROM plays") == "3\n")
        #expect(try sqlite(db, "SELECT COUNT(*) FROM grdb_migrations") == "39\n")  // through v34.playlists-loudness
        // v5 credited every track of the old database (artist charts read track_artists).
        #expect(try sqlite(db, "SELECT COUNT(*) FROM track_artists") != "0\n")
        #expect(try sqlite(db, """
            SELECT COUNT(*) FROM tracks WHERE COALESCE(artist, album_artist) IS NOT NULL AND id NOT IN (SELECT track_id FROM track_artists)
            """) == "0\n")

        // Nothing to migrate, nothing backed up; a new database has nothing to keep.
        let again = try PacenoteProcess.run(["migrate", "--db", db], environment: ["HOME": dir.path])
        #expect(again.status == 0 && !again.stderr.contains("upgrading"), "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("backups")).count == 1)
        let fresh = try TemporaryDirectory("pacenote-fresh")
        #expect(try PacenoteProcess.run(["migrate", "--db", fresh.file("new.sqlite")], environment: ["HOME": fresh.path]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: fresh.file("backups")))

        // The backup restores, and the next open upgrades it again (keeping another backup).
        try FileManager.default.createDirectory(atPath: dir.file("elsewhere"), withIntermediateDirectories: false)
        let restored = try PacenoteProcess.run(["restore", backup, "--db", dir.file("elsewhere/pacenote.sqlite")],
                                               environment: ["HOME": dir.path])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("plays: 3, from "), "\(restored.stdout)")
        #expect(restored.stdout.contains("it is upgraded (v2.import, v3.lean-day-rollup, v4.feelings, v5.credits-and-recordings, v6.artists-and-albums, v7.entity-rollups, v8.month-rollups, v9.page-indexes, v10.curation, v11.rules, v12.scrobble-sessions, v13.forward, v14.friends, v15.review, v16.charts-by-time, v17.day-entity-rollups, v18.ranking-heads, v19.track-source-check, v20.month-halves, v21.day-heads, v22.year-chart-lengths, v23.search-without-sizes, v24.review-share-snapshots, v25.scrobbler-credentials, v26.motion-samples, v27.training-load-and-hrv, v28.curation-facts, v29.pace-effects, v30.genres, v31.plans, v32.tempo-plays, v33.beat-confidence, v34.playlists-loudness) when pacenote next opens it"), "\(restored.stdout)")

        // Over a new database (8 KiB pages, in WAL mode) a backup of 4 KiB pages restores too,
        // and keeps its pages; the database it replaced is kept beside it.
        let newDB = fresh.file("new.sqlite")
        #expect(try sqlite(newDB, "PRAGMA page_size") == "8192\n" && sqlite(backup, "PRAGMA page_size") == "4096\n")
        let over = try PacenoteProcess.run(["restore", backup, "--db", newDB], environment: ["HOME": fresh.path])
        #expect(over.status == 0, "\(over.stderr)")
        #expect(try sqlite(newDB, "SELECT COUNT(*) FROM plays") == "3\n")
        #expect(try sqlite(newDB, "PRAGMA page_size") == "4096\n")
        #expect(try sqlite(newDB, "PRAGMA journal_mode") == "wal\n")
        #expect(try sqlite(newDB, "PRAGMA integrity_check") == "ok\n")
        let replaced = try FileManager.default.contentsOfDirectory(atPath: fresh.path).filter { $0.hasPrefix("new.sqlite.replaced-") }
        #expect(replaced.count == 1, "\(replaced)")
        #expect(try sqlite(fresh.file(replaced.first ?? "-"), "PRAGMA page_size") == "8192\n")
    }

    /// Another process reading the database (a shell, `pacenote backup`) does not stop a restore
    /// of pages of its size; one of another size must take the file out of WAL mode, which
    /// needs it alone: refused with a clear message, nothing changed, and done once it is.
    @Test func restoreOverADatabaseAnotherProcessHasOpen() throws {
        let dir = try TemporaryDirectory("pacenote-restore-open")
        let env = ["HOME": dir.path]
        let db = dir.file("pacenote.sqlite")
        let listen = dir.file("one.jsonl")
        try #"{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}"#.write(toFile: listen, atomically: true, encoding: .utf8)
        #expect(try PacenoteProcess.run(["import", "--db", db, listen], environment: env).status == 0)
        let same = dir.file("same.sqlite")
        #expect(try PacenoteProcess.run(["backup", "--db", db, "--output", same], environment: env).status == 0)
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PacenoteStoreTests/Fixtures/v1.sqlite").path
        let older = dir.file("older.sqlite")
        try FileManager.default.copyItem(atPath: fixture, toPath: older)
        #expect(try sqlite(db, "PRAGMA page_size") == "8192\n" && sqlite(older, "PRAGMA page_size") == "4096\n")

        // A shell with the database open.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: try Tools.require("sqlite3"))
        shell.arguments = [db]
        let input = Pipe(), output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        try shell.run()
        defer { if shell.isRunning { shell.terminate() } }
        input.fileHandleForWriting.write(Data("SELECT COUNT(*) FROM plays;\n".utf8))
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) == "1\n")

        let refused = try PacenoteProcess.run(["restore", older, "--db", db], environment: env)
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("another process has it open"), "\(refused.stderr)")
        #expect(try plays(in: db).count == 1 && sqlite(db, "PRAGMA page_size") == "8192\n")
        let sameSize = try PacenoteProcess.run(["restore", same, "--db", db], environment: env)
        #expect(sameSize.status == 0, "\(sameSize.stderr)")
        #expect(try plays(in: db).count == 1)

        try input.fileHandleForWriting.close()
        shell.waitUntilExit()
        let restored = try PacenoteProcess.run(["restore", older, "--db", db], environment: env)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try plays(in: db).count == 3 && sqlite(db, "PRAGMA page_size") == "4096\n")
        #expect(try sqlite(db, "PRAGMA journal_mode") == "wal\n" && sqlite(db, "PRAGMA integrity_check") == "ok\n")
    }
}
