import Foundation
import PacenoteTestSupport
import Testing

/// `pacenote import` / `export` and `POST /api/v1/import` on a fixture of each format,
/// each with odd rows: missing album, non-ASCII, commas and quotes, feat. credits,
/// duplicates, an unreadable row and a truncated end.
@Suite struct ListenImportTests {
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/import/\(name)").path
    }

    /// A ListenBrainz export zip: listens in listens/YYYY/M.jsonl, beside files that are not listens.
    static func makeZip(_ path: String) throws {
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("user.json", '{"user_id": 1, "user_name": "me"}')
                z.writestr("feedback.jsonl", '{"recording_msid": "x", "score": 1, "created": 1706000000}\\n')
                z.writestr("listens/2024/2.jsonl",
                    '{"listened_at": 1706781600, "track_metadata": {"artist_name": "Dool", "track_name": "Oweynagat", "release_name": "Summerland"}}\\n'
                    '{"listened_at": 1706782000, "track_metadata": {"artist_name": "Emma Ruth Rundle", "track_name": "Marked for Death"}}\\n')
            """
        _ = try run(try Tools.require("python3"), ["-c", script, path])
    }

    /// "FILE: read 8, imported 5, …" → [read, imported, duplicates, skipped, errors]
    static func counts(_ stdout: String, _ file: String) -> [Int]? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix(file + ": read ") }) else { return nil }
        return line.dropFirst(file.count + 2).split(separator: ",").compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
    }

    static let plays = """
        SELECT t.artist, t.title, IFNULL(t.album, '-'), IFNULL(t.duration_s, '-'), p.started_at_ms, p.ended_at_ms, p.played_s, p.counted,
               IFNULL(p.player, '-') FROM plays p JOIN tracks t ON t.id = p.track_id ORDER BY p.started_at_ms, t.title
        """

    /// Every rollup row equals what the plays add up to (rows missing on either side included).
    static func rollupsMatchPlays(_ sqlite: String, _ db: String) throws {
        let checks = [
            ("rollup_day_track", "day, track_id", "local_day, track_id"),
            ("rollup_day_hour", "day, hour", "local_day, local_hour"),
            ("rollup_year_track", "year, track_id", "substr(local_day, 1, 4), track_id"),
            ("rollup_track_total", "track_id", "track_id"),
        ]
        for (table, keys, expression) in checks {
            let rollup = "SELECT \(keys), plays, skips, round(played_s, 6) FROM \(table)"
            let fromPlays = "SELECT \(expression), SUM(counted), SUM(1 - counted), round(SUM(played_s), 6) FROM plays GROUP BY \(expression)"
            let diff = try run(sqlite, [db, "\(rollup) EXCEPT \(fromPlays); \(fromPlays) EXCEPT \(rollup);"]).stdout
            #expect(diff.isEmpty, "\(table): \(diff)")
        }
    }

    @Test func eachFormatImportsExactlyOnceAndRoundTrips() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let zip = dir.file("listenbrainz-export.zip")
        try Self.makeZip(zip)
        let files = [
            ("listenbrainz.jsonl", [8, 5, 1, 0, 2]),
            // The first row is the listen of line 2 above, from Last.fm (minutes, not seconds).
            ("lastfm.csv", [7, 3, 2, 0, 2]),
            ("lastfm-header.csv", [2, 2, 0, 0, 0]),
            ("Streaming_History_Audio_2024.json", [7, 3, 1, 2, 1]),
            ("maloja_export.json", [4, 2, 1, 0, 1]),
        ]
        // Rows in error are reported and the rest imported; --keep-going exits 0 all the same.
        var r = try PacenoteProcess.run(["import", "--keep-going", "--db", db] + files.map { Self.fixture($0.0) } + [zip])
        #expect(r.status == 0, "\(r.stderr)")
        for (name, expected) in files {
            #expect(Self.counts(r.stdout, Self.fixture(name)) == expected, "\(name): \(r.stdout)")
        }
        // The zip's feedback.jsonl names a recording Pacenote does not have: unmatched.
        #expect(Self.counts(r.stdout, zip) == [2, 2, 0, 0, 0, 0, 0, 1], "\(r.stdout)")
        #expect(r.stdout.contains("total: read 30, imported 17, duplicates 5, skipped 2, errors 6"), "\(r.stdout)")
        // Unreadable rows, with file and line; progress as plain lines (not a terminal).
        for problem in ["listenbrainz.jsonl:7: no track_metadata.artist_name", "listenbrainz.jsonl:8: unreadable JSON",
                        "lastfm.csv:6: unreadable date 'not a date'", "lastfm.csv:7: expected 4 columns, found 3",
                        "Streaming_History_Audio_2024.json:128: unreadable JSON", "maloja_export.json:57: no track.artists"] {
            #expect(r.stderr.contains(problem), "\(problem): \(r.stderr)")
        }
        #expect(r.stderr.contains("import \(Self.fixture("lastfm.csv")): 100% 7 read"), "\(r.stderr)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM plays"]).stdout == "17\n")
        #expect(try run(sqlite, [db, "SELECT source, COUNT(*), SUM(counted) FROM plays GROUP BY source ORDER BY source"]).stdout
                == "import:lastfm|5|5\nimport:listenbrainz|7|7\nimport:maloja|2|2\nimport:spotify|3|2\n")
        // Credits: the original text is kept, the artists are parsed (Maloja lists its
        // artists one by one: both primary, as listed).
        let credits = try run(sqlite, [db, """
            SELECT t.artist, t.title, group_concat(a.role || ':' || a.name, ' / ') FROM tracks t JOIN track_artists a ON a.track_id = t.id
            WHERE t.title LIKE 'Get Lucky%' OR t.title LIKE 'Otis%' GROUP BY t.id ORDER BY t.id
            """]).stdout
        #expect(credits == """
            Daft Punk feat. Pharrell Williams|Get Lucky (feat. Nile Rodgers)|primary:Daft Punk / featured:Pharrell Williams / featured:Nile Rodgers
            Kanye West feat. Jay-Z|Otis (feat. Otis Redding)|primary:Kanye West / featured:Jay-Z / featured:Otis Redding
            Daft Punk, Pharrell Williams|Get Lucky|primary:Daft Punk / primary:Pharrell Williams

            """, "\(credits)")
        #expect(try run(sqlite, [db, "SELECT artist, album IS NULL FROM tracks WHERE title = 'Helplessly Hoping \"Demo\"'"]).stdout
                == "Crosby, Stills & Nash|1\n")
        try Self.rollupsMatchPlays(sqlite, db)
        let before = try run(sqlite, [db, Self.plays]).stdout

        // Again: nothing new; without --keep-going, the files with rows in error end it with status 1.
        r = try PacenoteProcess.run(["import", "--db", db] + files.map { Self.fixture($0.0) } + [zip])
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("pass --keep-going to accept them"), "\(r.stderr)")
        #expect(r.stdout.contains("total: read 30, imported 0, duplicates 22, skipped 2, errors 6"), "\(r.stdout)")
        #expect(try run(sqlite, [db, Self.plays]).stdout == before)
        try Self.rollupsMatchPlays(sqlite, db)

        // Export -> import into an empty database -> the same plays, for both formats.
        for format in ["listenbrainz", "csv"] {
            let out = dir.file("export.\(format)")
            r = try PacenoteProcess.run(["export", "--db", db, "--format", format, "--output", out])
            #expect(r.status == 0, "\(r.stderr)")
            let copy = dir.file("copy-\(format).sqlite")
            r = try PacenoteProcess.run(["import", "--db", copy, out])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(Self.counts(r.stdout, out) == [17, 17, 0, 0, 0], "\(format): \(r.stdout) \(r.stderr)")
            let copied = try run(sqlite, [copy, Self.plays]).stdout
            if format == "listenbrainz" {
                #expect(copied == before, "\(copied)")
            } else {
                // CSV keeps no track duration.
                let withoutDuration = "SELECT artist, title, album, started, ended, played, counted, player FROM (\(Self.plays.replacingOccurrences(of: "p.started_at_ms, p.ended_at_ms", with: "p.started_at_ms AS started, p.ended_at_ms AS ended").replacingOccurrences(of: "p.played_s, p.counted", with: "p.played_s AS played, p.counted").replacingOccurrences(of: "IFNULL(t.album, '-')", with: "IFNULL(t.album, '-') AS album").replacingOccurrences(of: "IFNULL(p.player, '-')", with: "IFNULL(p.player, '-') AS player")))"
                #expect(try run(sqlite, [copy, withoutDuration]).stdout == (try run(sqlite, [db, withoutDuration]).stdout))
            }
            try Self.rollupsMatchPlays(sqlite, copy)
        }
        // A date range: only the plays of 2 January (UTC).
        r = try PacenoteProcess.run(["export", "--db", db, "--format", "csv", "--from", "2024-01-02T00:00:00Z", "--to", "2024-01-03T00:00:00Z"])
        #expect(r.stdout.split(separator: "\n").count == 3, "\(r.stdout)")  // header + the two Radiohead plays
        #expect(r.stdout.contains("Paranoid Android"))
    }

    @Test func anInterruptedImportRunsAgainWithoutHarm() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let file = dir.file("big.jsonl")
        let n = 60_000
        try Self.writeListens(n, to: file)
        let process = try PacenoteProcess(["import", "--db", db, "--batch-size", "2000", file])
        // Killed (no chance to clean up) once some batches are committed.
        #expect(try eventually(timeout: 60) {
            Int(try run(sqlite, ["-cmd", ".timeout 2000", db, "SELECT COUNT(*) FROM plays"], allowFailure: true).stdout
                .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 4000
        })
        process.signal(SIGKILL)
        _ = try process.wait()
        let partial = Int(try run(sqlite, [db, "SELECT COUNT(*) FROM plays"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        #expect(partial > 0 && partial % 2000 == 0, "\(partial)")  // whole batches only
        try Self.rollupsMatchPlays(sqlite, db)
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'plays_rollup_insert'"]).stdout == "1\n")
        // An import into an empty database drops the rollups' ranking indexes and the tracks'
        // by artist and album text until it ends (`DeferredIndexes`): killed, it left
        // them dropped, and recorded.
        let fresh = dir.file("fresh.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", fresh]).status == 0)
        let expected = try Self.rankingIndexes(sqlite, fresh)
        #expect(expected.split(separator: "\n").count == 30, "\(expected)")  // with v21's day heads and v30's genres
        #expect(try Self.rankingIndexes(sqlite, db) == "")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "1\n")
        let r = try PacenoteProcess.run(["import", "--db", db, file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(Self.counts(r.stdout, file) == [n, n - partial, partial, 0, 0], "\(r.stdout)")
        #expect(r.stderr.contains("pacenote: building the charts' indexes again, which an import that did not finish had dropped"), "\(r.stderr)")
        // It dropped them too (under 50,000 plays stored), and said when it built them.
        #expect(r.stderr.contains("\(n) read, \(n - partial) imported; building the charts' indexes"), "\(r.stderr)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*), SUM(played_s) FROM plays"]).stdout == "\(n)|\(Double(n) * 190.5)\n")
        try Self.rollupsMatchPlays(sqlite, db)
        // The next open built them again (their process was gone), as a new database has them.
        #expect(try Self.rankingIndexes(sqlite, db) == expected)
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "0\n")
        #expect(try run(sqlite, [db, "PRAGMA integrity_check"]).stdout == "ok\n")
    }

    /// `n` listens of 700 songs by 50 artists, 200 s apart, as ListenBrainz JSON lines.
    static func writeListens(_ n: Int, to file: String) throws {
        var text = ""
        for i in 0..<n {
            text += #"{"listened_at": \#(1_600_000_000 + i * 200), "track_metadata": {"artist_name": "Artist \#(i % 50)", "track_name": "Song \#(i % 700)", "additional_info": {"duration_ms": 190500}}}"# + "\n"
        }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }

    /// The plays stored, read beside a writer.
    static func plays(_ sqlite: String, _ db: String) throws -> Int {
        Int(try run(sqlite, ["-cmd", ".timeout 5000", db, "SELECT COUNT(*) FROM plays"], allowFailure: true).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Ctrl-C stops an import cleanly: the plays in flight are stored whole, the charts'
    /// indexes it set aside are built again, it says what it kept, and it exits with 130.
    /// A second Ctrl-C stops it at once (what was committed stays), and the next import
    /// goes on from there.
    @Test func ctrlCStopsAnImportCleanlyAndASecondStopsItAtOnce() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let file = dir.file("big.jsonl")
        let n = 150_000
        try Self.writeListens(n, to: file)
        // An unreadable row on line 3: a stopped import tells it too.
        var lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines.insert("not a listen", at: 2)
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let fresh = dir.file("fresh.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", fresh]).status == 0)
        let expected = try Self.rankingIndexes(sqlite, fresh)

        var process = try PacenoteProcess(["import", "--db", db, "--batch-size", "2000", file])
        #expect(try eventually(timeout: 60) { try Self.plays(sqlite, db) >= 4000 })
        process.signal(SIGINT)
        #expect(try process.wait(timeout: 60) == 130, "\(process.stderr)")
        let kept = try Self.plays(sqlite, db)
        #expect(kept > 0 && kept < n && kept % 2000 == 0, "\(kept)")  // whole batches only
        #expect(process.stderr.contains("pacenote: stopping after the plays in flight are stored (press Ctrl-C again to stop at once)"),
                "\(process.stderr)")
        #expect(process.stderr.contains("pacenote: \(file): stopped after \(kept) new plays (whole batches); importing again continues"),
                "\(process.stderr)")
        #expect(process.stderr.contains("pacenote: \(file):3: "), "\(process.stderr)")
        // It had set the indexes aside (an empty database), said so, and built them again.
        #expect(process.stderr.contains("\(kept + 1) read, \(kept) imported; building the charts' indexes"), "\(process.stderr)")
        #expect(try Self.rankingIndexes(sqlite, db) == expected)
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "0\n")
        try Self.rollupsMatchPlays(sqlite, db)

        // Twice: it stops at once, after a small file it had finished, whose line is kept. (A
        // clean stop takes well under a second here; the test has it pause 5 s, to press
        // Ctrl-C again meanwhile. Two signals sent at once are one: the kernel keeps one pending.)
        let small = dir.file("small.jsonl")
        try Self.writeListens(500, to: small)
        process = try PacenoteProcess(["import", "--db", db, "--batch-size", "2000", small, file],
                                      environment: ["PACENOTE_TEST_STOP_PAUSE_S": "5"], captureOutput: true)
        #expect(try eventually(timeout: 60) { try Self.plays(sqlite, db) >= kept + 4000 })
        process.signal(SIGINT)
        #expect(try eventually(timeout: 10) { process.stderr.contains("stopping after the plays in flight") })
        process.signal(SIGINT)
        #expect(try process.wait(timeout: 10) == 130, "\(process.stderr)")
        #expect(process.stderr.contains("pacenote: stopped at once: the plays stored so far are kept"), "\(process.stderr)")
        #expect(process.stdout.contains("\(small): read 500, imported 0, duplicates 500"), "\(process.stdout)")
        let second = try Self.plays(sqlite, db)
        #expect(second > kept && second % 2000 == 0, "\(second)")
        try Self.rollupsMatchPlays(sqlite, db)
        // It had set the indexes aside (fewer than 50,000 plays stored) and left them so:
        // it did not stop to build them.
        #expect(try Self.rankingIndexes(sqlite, db) == "")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "1\n")

        // And the next import goes on from there: every play once, the indexes whole (its
        // one unreadable row reported; --keep-going exits 0 all the same).
        let r = try PacenoteProcess.run(["import", "--keep-going", "--db", db, file])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("pacenote: building the charts' indexes again, which an import that did not finish had dropped"), "\(r.stderr)")
        #expect(Self.counts(r.stdout, file) == [n + 1, n - second, second, 0, 1], "\(r.stdout)")
        #expect(try Self.plays(sqlite, db) == n)
        try Self.rollupsMatchPlays(sqlite, db)
        #expect(try Self.rankingIndexes(sqlite, db) == expected)
        #expect(try run(sqlite, [db, "PRAGMA integrity_check"]).stdout == "ok\n")
    }

    /// Ctrl-C once every play is stored, while the indexes the import set aside are built:
    /// nothing is left to stop, so it says so, finishes them and exits with 0 (130, naming
    /// them, when files were left). Pressed again, it stops at once (130) and leaves them
    /// recorded, for the next open to build.
    @Test func ctrlCWhileTheIndexesAreBuiltFinishesThemAndASecondLeavesThemForLater() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let file = dir.file("listens.jsonl")
        let n = 20_000
        try Self.writeListens(n, to: file)
        let fresh = dir.file("fresh.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", fresh]).status == 0)
        let expected = try Self.rankingIndexes(sqlite, fresh)
        let building = "\(n) read, \(n) imported; building the charts' indexes"
        // The import waits 10 s before it builds them (a test hook): time to press Ctrl-C, on
        // a machine busy with the other tests.
        let pause = ["PACENOTE_TEST_BUILD_PAUSE_S": "10"]

        let db = dir.file("once.sqlite")
        var process = try PacenoteProcess(["import", "--db", db, file], environment: pause, captureOutput: true)
        #expect(try eventually(timeout: 60) { process.stderr.contains(building) }, "\(process.stderr)")
        process.signal(SIGINT)
        #expect(try process.wait(timeout: 30) == 0, "\(process.stderr)")
        #expect(process.stderr.contains("pacenote: every play read is stored; finishing the charts' indexes it set aside (press Ctrl-C again to stop at once"),
                "\(process.stderr)")
        #expect(!process.stderr.contains("stopping after the plays in flight"), "\(process.stderr)")
        #expect(Self.counts(process.stdout, file) == [n, n, 0, 0, 0], "\(process.stdout)")
        #expect(try Self.plays(sqlite, db) == n)
        #expect(try Self.rankingIndexes(sqlite, db) == expected)
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "0\n")
        try Self.rollupsMatchPlays(sqlite, db)

        // Of two files, the first finished: the second is not begun, and it says so (130).
        let second = dir.file("second.jsonl")
        try Self.writeListens(100, to: second)
        let two = dir.file("two.sqlite")
        process = try PacenoteProcess(["import", "--db", two, file, second], environment: pause, captureOutput: true)
        #expect(try eventually(timeout: 60) { process.stderr.contains(building) }, "\(process.stderr)")
        process.signal(SIGINT)
        #expect(try process.wait(timeout: 30) == 130, "\(process.stderr)")
        #expect(process.stderr.contains("pacenote: stopped: not begun: \(second) (importing them again continues)"), "\(process.stderr)")
        #expect(Self.counts(process.stdout, file) == [n, n, 0, 0, 0], "\(process.stdout)")
        #expect(try Self.plays(sqlite, two) == n)
        #expect(try Self.rankingIndexes(sqlite, two) == expected)

        let twice = dir.file("twice.sqlite")
        process = try PacenoteProcess(["import", "--db", twice, file], environment: pause, captureOutput: true)
        #expect(try eventually(timeout: 60) { process.stderr.contains(building) }, "\(process.stderr)")
        process.signal(SIGINT)
        #expect(try eventually(timeout: 10) { process.stderr.contains("every play read is stored; finishing") }, "\(process.stderr)")
        process.signal(SIGINT)
        #expect(try process.wait(timeout: 10) == 130, "\(process.stderr)")
        #expect(process.stderr.contains("pacenote: stopped at once: the plays stored so far are kept"), "\(process.stderr)")
        #expect(try Self.plays(sqlite, twice) == n)
        #expect(try Self.rankingIndexes(sqlite, twice) == "")
        #expect(try run(sqlite, [twice, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "1\n")
        // The next open builds them (their process is gone): every play once, the indexes whole.
        let r = try PacenoteProcess.run(["migrate", "--db", twice])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("building the charts' indexes again, which an import that did not finish had dropped"), "\(r.stderr)")
        #expect(try Self.rankingIndexes(sqlite, twice) == expected)
        #expect(try run(sqlite, [twice, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "0\n")
        try Self.rollupsMatchPlays(sqlite, twice)
        #expect(try run(sqlite, [twice, "PRAGMA integrity_check"]).stdout == "ok\n")
    }

    /// A daemon that is running builds the indexes an import killed in another process had
    /// set aside (`AbandonedIndexes`), rather than leave its charts without them until it
    /// starts again.
    @Test func aRunningDaemonBuildsTheIndexesAKilledImportSetAside() throws {
        let sqlite = try Tools.require("sqlite3")
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1", environment: ["PACENOTE_TEST_INDEX_CHECK_S": "0.5"])
        let dir = try TemporaryDirectory()
        let file = dir.file("big.jsonl")
        try Self.writeListens(300_000, to: file)
        let fresh = dir.file("fresh.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", fresh]).status == 0)
        let expected = try Self.rankingIndexes(sqlite, fresh)
        #expect(try Self.rankingIndexes(sqlite, daemon.db) == expected)

        let process = try PacenoteProcess(["import", "--db", daemon.db, "--batch-size", "2000", file])
        #expect(try eventually(timeout: 60) { try Self.plays(sqlite, daemon.db) >= 4000 })
        // While it runs, the indexes are its to build: the daemon, looking every 0.5 s, leaves them.
        Thread.sleep(forTimeInterval: 1.6)
        #expect(process.process.isRunning, "the import ended before the daemon had looked three times")
        #expect(try Self.rankingIndexes(sqlite, daemon.db) == "")
        #expect(try run(sqlite, ["-cmd", ".timeout 5000", daemon.db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "1\n")
        process.signal(SIGKILL)
        _ = try process.wait()
        #expect(try eventually(timeout: 30) {
            try Self.rankingIndexes(sqlite, daemon.db) == expected
                && run(sqlite, ["-cmd", ".timeout 5000", daemon.db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "0\n"
        })
        #expect(try eventually(timeout: 10) { daemon.process.stderr.contains("built the charts' indexes in") }, "\(daemon.process.stderr)")
        #expect(daemon.process.stderr.contains("building the charts' indexes again, which an import that did not finish had dropped"))
        try Self.rollupsMatchPlays(sqlite, daemon.db)
        // Its charts answer from them, with every play the import committed.
        let plays = try Self.plays(sqlite, daemon.db)
        let stats = try HTTP.get(daemon.base + "/api/v1/stats?range=all")
        #expect(stats.status == 200 && (stats.json?["totals"] as? [String: Any])?["plays"] as? Int == plays, "\(stats.text)")
        #expect(daemon.process.process.isRunning)
    }

    /// A ListenBrainz export of many months is one import: its entries share a session, so
    /// the charts' indexes are set aside and built once for the zip, not once a month; the
    /// same track in two months is one track.
    @Test func aZipOfManyMonthsIsOneImport() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let zip = dir.file("export.zip")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for month in range(1, 7):
                    lines = ['{"listened_at": %d, "track_metadata": {"artist_name": "Artist %d", "track_name": "Song %d"}}'
                             % (1704067200 + (month - 1) * 2678400 + i * 600, i % 40, i % 300) for i in range(1500)]
                    z.writestr("listens/2024/%d.jsonl" % month, "\\n".join(lines) + "\\n")
            """
        _ = try run(try Tools.require("python3"), ["-c", script, zip])
        let r = try PacenoteProcess.run(["import", "--db", db, zip])
        #expect(r.status == 0, "\(r.stderr)")
        let building = r.stderr.components(separatedBy: "building the charts' indexes").count - 1
        #expect(building == 1, "\(r.stderr)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*), COUNT(DISTINCT track_id) FROM plays"]).stdout == "9000|600\n")  // 600 artist-and-title pairs
        try Self.rollupsMatchPlays(sqlite, db)
        let fresh = dir.file("fresh.sqlite")
        #expect(try PacenoteProcess.run(["migrate", "--db", fresh]).status == 0)
        #expect(try Self.rankingIndexes(sqlite, db) == (try Self.rankingIndexes(sqlite, fresh)))
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM meta WHERE key = 'deferred_indexes'"]).stdout == "0\n")
    }

    /// The indexes an import sets aside of a database, a line each (name and SQL): the
    /// rollups' ranking indexes and the tracks' by artist and album text, which it never reads.
    static func rankingIndexes(_ sqlite: String, _ db: String) throws -> String {
        try run(sqlite, [db, """
            SELECT name, sql FROM sqlite_master WHERE type = 'index' AND ((tbl_name LIKE 'rollup%'
            AND (name LIKE '%_top' OR name LIKE '%_by_time')) OR name IN ('tracks_artist', 'tracks_album')) ORDER BY name
            """]).stdout
    }

    /// A batch the database refuses (here a trigger raises, as a full disk would fail a
    /// write) ends the import at once with the error: the reader thread, a batch ahead, is
    /// stopped, the batches before stay whole, and the schema keeps its triggers.
    @Test func aBatchTheDatabaseRefusesEndsTheImportCleanly() throws {
        let sqlite = try Tools.require("sqlite3")
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        let file = dir.file("big.jsonl")
        var text = ""
        for i in 0..<20_000 {
            text += #"{"listened_at": \#(1_600_000_000 + i * 200), "track_metadata": {"artist_name": "Artist \#(i % 50)", "track_name": "Song \#(i % 700)", "additional_info": {"duration_ms": 190500}}}"# + "\n"
        }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try PacenoteProcess.run(["migrate", "--db", db]).status == 0)
        _ = try run(sqlite, [db, """
            CREATE TRIGGER refuse BEFORE INSERT ON plays WHEN NEW.started_at_ms >= \(Int64(1_600_000_000 + 5_000 * 200) * 1000)
            BEGIN SELECT RAISE(ABORT, 'the disk is full'); END;
            """])
        let started = Date()
        let r = try PacenoteProcess.run(["import", "--db", db, "--batch-size", "2000", file])
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(r.status != 0)
        #expect(r.stderr.contains("the disk is full"), "\(r.stderr)")
        #expect(try run(sqlite, [db, "SELECT COUNT(*) FROM plays"]).stdout == "4000\n")  // two whole batches
        try Self.rollupsMatchPlays(sqlite, db)
        let triggers = try run(sqlite, [db, "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name IN ('plays_rollup_insert', 'tracks_fts_insert') ORDER BY name"]).stdout
        #expect(triggers == "plays_rollup_insert\ntracks_fts_insert\n")
        #expect(try run(sqlite, [db, "PRAGMA foreign_key_check; PRAGMA integrity_check"]).stdout == "ok\n")
    }

    @Test func workoutFilesStillImportAndBadFilesAreRefused() throws {
        let dir = try TemporaryDirectory()
        let db = dir.file("p.sqlite")
        try "hello".write(toFile: dir.file("notes.txt"), atomically: true, encoding: .utf8)
        let r = try PacenoteProcess.run(["import", "--db", db, dir.file("notes.txt"), Self.fixture("lastfm-header.csv")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("notes.txt: not a TCX, GPX or FIT file"), "\(r.stderr)")
        #expect(Self.counts(r.stdout, Self.fixture("lastfm-header.csv")) == [2, 2, 0, 0, 0], "\(r.stdout)")
        let forced = try PacenoteProcess.run(["import", "--db", db, "--format", "nonsense", Self.fixture("lastfm.csv")])
        #expect(forced.status != 0 && forced.stderr.contains("--format"), "\(forced.stderr)")
        // ListenBrainz's older export: one JSON array, pretty-printed; the format forced.
        let lines = try String(contentsOfFile: Self.fixture("listenbrainz.jsonl"), encoding: .utf8).split(separator: "\n").prefix(6)
        try ("[\n  " + lines.joined(separator: ",\n  ") + "\n]\n").write(toFile: dir.file("listens.json"), atomically: true, encoding: .utf8)
        let array = try PacenoteProcess.run(["import", "--db", db, "--format", "listenbrainz", dir.file("listens.json")])
        #expect(array.status == 0, "\(array.stderr)")
        #expect(Self.counts(array.stdout, dir.file("listens.json")) == [6, 5, 1, 0, 0], "\(array.stdout)")
    }

    @Test func importOverHTTP() throws {
        let daemon = try PacenoteDaemon(mpd: "127.0.0.1:1")
        let spotify = try Data(contentsOf: URL(fileURLWithPath: Self.fixture("Streaming_History_Audio_2024.json")))
        let url = daemon.base + "/api/v1/import?name=history.json"
        var r = try HTTP.request("POST", url, headers: ["Authorization": "Token \(daemon.apiKey)"], body: spotify)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json?["format"] as? String == "spotify")
        for (key, value) in [("read", 7), ("imported", 3), ("duplicates", 1), ("skipped", 2), ("errors", 1)] {
            #expect(r.json?[key] as? Int == value, "\(key): \(r.text)")
        }
        let problem = (r.json?["problems"] as? [[String: Any]])?.first
        #expect(problem?["file"] as? String == "history.json" && problem?["line"] as? Int == 128, "\(r.text)")
        r = try HTTP.request("POST", url, headers: ["Authorization": "Token \(daemon.apiKey)"], body: spotify)
        #expect(r.json?["imported"] as? Int == 0 && r.json?["duplicates"] as? Int == 4, "\(r.text)")
        let listens = try daemon.listens()
        #expect(listens.map(\.title) == ["Vantablack", "Hoppípolla", "Группа крови"])
        #expect(listens.map(\.counted) == [true, false, true])
        #expect(listens.allSatisfy { $0.json["source"] as? String == "import:spotify" })
        // The song of that day comes from the rollups the import wrote.
        let sotd = try HTTP.get(daemon.base + "/api/v1/sotd/2024-01-03")
        #expect(sotd.status == 200 && (sotd.text.contains("Vantablack") || sotd.text.contains("Группа крови")), "\(sotd.text)")

        let dir = try TemporaryDirectory()
        try Self.makeZip(dir.file("export.zip"))
        r = try HTTP.request("POST", daemon.base + "/api/v1/import", headers: ["Authorization": "Token \(daemon.apiKey)", "Content-Type": "application/zip"],
                             body: try Data(contentsOf: URL(fileURLWithPath: dir.file("export.zip"))))
        #expect(r.status == 200 && r.json?["imported"] as? Int == 2, "\(r.text)")

        r = try HTTP.request("POST", url, headers: ["Authorization": "Token \(daemon.apiKey)"], body: Data("hello".utf8))
        #expect(r.status == 415 && (r.json?["error"] as? [String: Any])?["code"] as? String == "unsupported_format", "\(r.text)")
        r = try HTTP.request("POST", url, body: spotify)
        #expect(r.status == 401)
        #expect(try daemon.listens().count == 5)
    }
}
