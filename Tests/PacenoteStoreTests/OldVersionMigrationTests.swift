import Foundation
import GRDB
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteStore

/// Databases left at old versions, with data as those versions wrote it, migrated to the
/// latest: the schema ends as a new database's, the data is all there, the rollups are a
/// recomputation of the plays, and SQLite finds nothing wrong. And the migrations are frozen:
/// what each one leaves (schema after it; the data of these databases after all of them)
/// is pinned by `Fixtures/migrations.golden`.
@Suite struct OldVersionMigrationTests {
    /// Spread over the history: v1's last; v4's, with credits as v2's importer wrote them
    /// (before v5 split them again, v6 filed them under artists and albums and v7 summed the
    /// entity rollups); v8's; v17's (before the ranking heads, v18); v24's.
    static let versions = ["v1.sotd-and-api-keys", "v4.feelings", "v8.month-rollups", "v17.day-entity-rollups", "v24.review-share-snapshots"]

    @Test(arguments: versions)
    func aDatabaseLeftAtAnOldVersionMigratesToTheLatest(_ version: String) throws {
        let dir = try TemporaryDirectory()
        let (old, fresh) = (dir.file("old.sqlite"), dir.file("fresh.sqlite"))
        let before = try MigrationSeed.database(at: version, path: old)
        let queue = try DatabaseQueue(path: old)
        try Schema.migrator.migrate(queue)
        try queue.close()
        let freshQueue = try DatabaseQueue(path: fresh)
        try Schema.migrator.migrate(freshQueue)
        try freshQueue.close()
        // (a) The schema is a new database's.
        #expect(try MigrationSeed.schemaDump(old) == MigrationSeed.schemaDump(fresh), "\(version): the schema after migrating")
        // (b) Every row kept (as it was, in the columns it had), the rollups a recomputation.
        let after = try MigrationSeed.contents(old, tables: Array(before.keys), columnsOf: before)
        for (table, rows) in before.sorted(by: { $0.key < $1.key }) {
            #expect(rows.count > 1, "\(version): \(table) seeded")
            #expect(after[table] == rows, "\(version): \(table) kept")
        }
        let store = try Store.open(path: old, timeZone: MigrationSeed.zone)
        defer { try? store.close() }
        #expect(try store.appliedMigrations() == Store.knownMigrations)
        #expect(try store.counts().plays == before["plays"].map { $0.count - 1 })
        try store.read { db in
            for (table, stored, recomputed) in MigrationSeed.trackRollups {
                let a = try String.fetchAll(db, sql: stored), b = try String.fetchAll(db, sql: recomputed)
                #expect(!a.isEmpty && a == b, "\(version): \(table) as recomputed from plays")
            }
            // Every track with a credit text is credited, every track with an album filed (v5, v6).
            #expect(try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM tracks t WHERE COALESCE(artist, album_artist) IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM track_artists a WHERE a.track_id = t.id AND a.artist_id IS NOT NULL)
                """) == 0, "\(version): every track credited")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks WHERE album IS NOT NULL AND album_id IS NULL") == 0,
                    "\(version): every album filed")
            // (c) SQLite's own checks.
            #expect(try String.fetchAll(db, sql: "PRAGMA integrity_check") == ["ok"], "\(version): integrity")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty, "\(version): foreign keys")
        }
        try EntityRollupTests.expectExact(store, "migrated from \(version)")
        // Every declared rollup (the genres' of v30, filed from the tracks' genre text, too).
        try DeclaredRollupsTests.expectEveryRollupRecomputed(store, "migrated from \(version)")
    }

    /// Each migration leaves the schema it left when it was recorded, and the databases above
    /// end with the data they ended with (migrated to each migration recorded as an end): a
    /// migration's SQL is its own text, so editing live code changes none of it. A new
    /// migration is recorded once, when it is added:
    /// `PACENOTE_WRITE_GOLDEN=1 swift test --filter OldVersionMigrationTests` adds the lines
    /// not yet recorded (and writes `migrations-schema.txt`, the latest schema, to read); it
    /// never changes a recorded line.
    @Test func everyMigrationLeavesWhatItLeftWhenItWasRecorded() throws {
        let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/migrations.golden")
        let schemaFile = golden.deletingLastPathComponent().appendingPathComponent("migrations-schema.txt")
        let recorded = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        func key(_ line: String) -> String { line.split(separator: " ").dropLast().joined(separator: " ") }
        let dir = try TemporaryDirectory()
        var lines: [String] = []
        var lastDump = ""
        let ids = Schema.migrator.migrations
        for (i, id) in ids.enumerated() {
            let path = dir.file("\(i).sqlite")
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: id)
            try queue.close()
            lastDump = try MigrationSeed.schemaDump(path)
            lines.append("schema \(id) \(MigrationSeed.fnv(lastDump))")
        }
        // The ends recorded (those this build knows) and the latest.
        var ends = recorded.filter { $0.hasPrefix("data ") }.compactMap { $0.split(separator: " ")[1].components(separatedBy: "->").last }
            .filter { ids.contains($0) }
        ends = Array(Set(ends + [ids.last!])).sorted { ids.firstIndex(of: $0)! < ids.firstIndex(of: $1)! }
        for version in Self.versions {
            for end in ends {
                let path = dir.file("data-\(version)-\(end).sqlite")
                _ = try MigrationSeed.database(at: version, path: path)
                let queue = try DatabaseQueue(path: path)
                try Schema.migrator.migrate(queue, upTo: end)
                try queue.close()
                lines.append("data \(version)->\(end) \(MigrationSeed.fnv(try MigrationSeed.dataDump(path)))")
            }
        }
        if ProcessInfo.processInfo.environment["PACENOTE_WRITE_GOLDEN"] == "1" {
            let known = Set(recorded.map(key))
            let added = lines.filter { !known.contains(key($0)) }
            try ((recorded + added).joined(separator: "\n") + "\n").write(to: golden, atomically: true, encoding: .utf8)
            try lastDump.write(to: schemaFile, atomically: true, encoding: .utf8)
        }
        let now = try String(contentsOf: golden, encoding: .utf8).split(separator: "\n").map(String.init)
        for line in lines {
            let want = now.first { key($0) == key(line) }
            #expect(want == line, "\(key(line)): \(want == nil ? "not recorded (a new migration: record it)" : "changed since it was recorded")")
        }
        #expect(try String(contentsOf: schemaFile, encoding: .utf8) == lastDump, "a new database's schema (Fixtures/migrations-schema.txt)")
    }
}

/// Databases at a given version, filled with rows as that version wrote them.
enum MigrationSeed {
    static let zone = TimeZone(identifier: "UTC")!

    /// The v1 rollups of tracks (and hours), stored and recomputed from the plays, as text.
    static let trackRollups: [(String, String, String)] = [
        ("rollup_day_track",
         "SELECT day || ' ' || track_id || ' ' || plays || ' ' || skips || ' ' || played_s FROM rollup_day_track ORDER BY 1",
         "SELECT local_day || ' ' || track_id || ' ' || SUM(counted) || ' ' || SUM(1 - counted) || ' ' || SUM(played_s) FROM plays GROUP BY local_day, track_id ORDER BY 1"),
        ("rollup_day_hour",
         "SELECT day || ' ' || hour || ' ' || plays || ' ' || skips || ' ' || played_s FROM rollup_day_hour ORDER BY 1",
         "SELECT local_day || ' ' || local_hour || ' ' || SUM(counted) || ' ' || SUM(1 - counted) || ' ' || SUM(played_s) FROM plays GROUP BY local_day, local_hour ORDER BY 1"),
        ("rollup_year_track",
         "SELECT year || ' ' || track_id || ' ' || plays || ' ' || skips || ' ' || played_s FROM rollup_year_track ORDER BY 1",
         "SELECT substr(local_day, 1, 4) || ' ' || track_id || ' ' || SUM(counted) || ' ' || SUM(1 - counted) || ' ' || SUM(played_s) FROM plays GROUP BY substr(local_day, 1, 4), track_id ORDER BY 1"),
        ("rollup_track_total",
         "SELECT track_id || ' ' || plays || ' ' || skips || ' ' || played_s FROM rollup_track_total ORDER BY 1",
         "SELECT track_id || ' ' || SUM(counted) || ' ' || SUM(1 - counted) || ' ' || SUM(played_s) FROM plays GROUP BY track_id ORDER BY 1"),
    ]

    /// FNV-1a, 64 bits, in hex: a fingerprint of a dump for the golden file.
    static func fnv(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }

    /// `sqlite_master` of a database, a line per table, index, trigger and view, by type and name.
    static func schemaDump(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
                .map { "\($0[0] as String) \($0[1] as String) \($0[2] as String)\n\(($0[3] as String?) ?? "")\n" }.joined()
        }
    }

    /// Every row of every table (the rows' order as stored), the times v6 stamped its new
    /// artists and albums with (and v30 its genres) left out.
    static func dataDump(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var out = ""
            for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name") {
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { $0["name"] as String }
                    .filter { !(($0 == "created_at_ms") && (table == "artists" || table == "albums" || table == "genres")) }
                guard !columns.isEmpty else { continue }
                out += "\(table)\n"
                for row in try Row.fetchAll(db, sql: "SELECT \(columns.map { "quote(\"\($0)\")" }.joined(separator: ", ")) FROM \"\(table)\"") {
                    out += row.databaseValues.map { "\($0)" }.joined(separator: "|") + "\n"
                }
            }
            return out
        }
    }

    /// The rows of `tables` in the columns `columnsOf` names (a dump as `database` returns it).
    static func contents(_ path: String, tables: [String], columnsOf: [String: [String]]? = nil) throws -> [String: [String]] {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var out: [String: [String]] = [:]
            for table in tables {
                var columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\"\(table)\")").map { $0["name"] as String }
                if let header = columnsOf?[table]?.first { columns = header.components(separatedBy: "|") }
                let rows = try String.fetchAll(db, sql: """
                    SELECT \(columns.map { "quote(\"\($0)\")" }.joined(separator: " || '|' || ")) FROM "\(table)" ORDER BY 1
                    """)
                out[table] = [columns.joined(separator: "|")] + rows
            }
            return out
        }
    }

    /// The tables whose rows a migration must keep as they are (in their columns then).
    /// (`track_artists` and `library_files` before v6: v5 and v6 file credits again and mark
    /// every library file for a new read, by design.)
    static func keptTables(_ db: Database, version: Int) throws -> [String] {
        let all = ["tracks", "plays", "hidden_plays", "open_plays", "library_files", "sotd_pins", "api_keys", "zone_settings",
                   "workouts", "hr_samples", "track_feelings", "track_artists", "artists", "albums", "curation_log", "curation_rules",
                   "scrobble_sessions", "forward_targets", "forward_outbox", "forward_sent", "friends", "friend_songs", "review_shares"]
        let existing = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        return all.filter { existing.contains($0) && !(version < 6 && ($0 == "track_artists" || $0 == "library_files")) }
    }

    /// A database at `version` with rows as it wrote them; returns what must survive.
    static func database(at version: String, path: String) throws -> [String: [String]] {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: version)
        let number = Int(version.dropFirst().prefix { $0.isNumber })!
        let kept = try queue.write { db -> [String] in
            try fill(db, version: number)
            return try keptTables(db, version: number)
        }
        try queue.close()
        return try contents(path, tables: kept)
    }

    /// The tracks: title, credit text, album, album artist, MusicBrainz artist and release, BPM.
    static let tracks: [(String, String?, String?, String?, String?, String?, Double?)] = [
        ("Run", "Artist", "Album", "Artist", nil, nil, 128),
        ("Walk", "Artist feat. Guest", "Album", "Artist", nil, nil, nil),
        ("Sprint", "DAFT  Punk", "Discovery", nil, "056e4f3e-d505-4dad-8ec1-d04f521cbb56", "mbrel-1", 123),
        ("Digital Love", "Daft Punk", "Discovery", nil, nil, "mbrel-1", nil),
        ("Together", "A & B", "Joint", nil, nil, nil, nil),
        ("Alone", "Beyoncé", "Solo", "Beyoncé", nil, nil, 96.5),
        ("Untagged file", nil, nil, nil, nil, nil, nil),
        ("Greatest", "Other Artist", "Greatest Hits", nil, nil, nil, nil),
        ("Greatest", "Third Artist", "Greatest Hits", nil, nil, nil, nil),
        ("Radio Song (feat. C)", "Radio", nil, nil, nil, nil, nil),
        ("Duet", "Ann, Bob", "Pair", nil, nil, nil, nil),
    ]

    /// Rows of every table `version` had, written as it wrote them (the rollups by its triggers).
    static func fill(_ db: Database, version v: Int) throws {
        try db.execute(sql: """
            INSERT INTO meta (key, value) VALUES ('rollup_timezone', 'UTC'), ('created_at_ms', '1700000000000'),
              ('library_update:default', '1700000000');
            INSERT INTO zone_settings (id, effective_from_ms, model, max_hr, created_at_ms) VALUES (1, 0, 'percent_max', 190, 0);
            INSERT INTO workouts (id, started_at_ms, ended_at_ms, kind, name, sport, zone_settings_id, hr_avg, hr_max, z3_s)
              VALUES (1, 1711962000000, 1711965600000, 'auto', 'Morning run', 'run', 1, 141.5, 171, 1800);
            INSERT INTO api_keys (id, name, key_hash, key_prefix, scopes, created_at_ms) VALUES (1, 'phone', 'ab12', 'pn_ab', 'write', 0);
            """)
        for i in 0..<12 {
            try db.execute(sql: "INSERT INTO hr_samples (source, at_ms, bpm, rr_ms) VALUES ('http:watch', ?, ?, ?)",
                           arguments: [1_711_962_000_000 + Int64(i) * 300_000, 120 + i * 4, i % 3 == 0 ? "[500,498]" : nil])
        }
        for (i, t) in tracks.enumerated() {
            let id = Int64(i + 1)
            let uri: String? = i < 6 ? "Music/\(t.1 ?? "Unknown")/\(t.0).flac" : nil
            try db.execute(sql: """
                INSERT INTO tracks (id, uri, title, artist, album, album_artist, genre, duration_s, mb_artist_id, mb_release_id,
                                    bpm, bpm_source, bpm_confidence, match_key, first_seen_at_ms, updated_at_ms)
                VALUES (?, ?, ?, ?, ?, ?, 'Electronic', 240, ?, ?, ?, ?, ?, ?, 1700000000000, 1700000000000)
                """, arguments: [id, uri, t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.6 == nil ? nil : "tag", t.6 == nil ? nil : 1.0,
                                 MatchKey.make(artist: t.1 ?? t.3, title: t.0)])
            if uri != nil { try db.execute(sql: "INSERT INTO library_files (player, track_id, modified_at_ms) VALUES ('default', ?, 1700000000000)", arguments: [id]) }
            // Credits: from v2 an import's (only imported tracks had them until v5); from v6
            // every track's, filed under its artists, and its album, as the store wrote them.
            // (Maloja's listed several: their names joined with ", " are the text.)
            if v >= 2 && v < 5 && uri == nil, let text = t.1 {
                for (position, name) in text.components(separatedBy: ", ").enumerated() {
                    try db.execute(sql: "INSERT INTO track_artists (track_id, position, name, role) VALUES (?, ?, ?, 'primary')",
                                   arguments: [id, position, name])
                }
            }
            if v >= 6 {
                let track = Track(id: id, title: t.0, artist: t.1, album: t.2, albumArtist: t.3, musicBrainz: MusicBrainzIDs(release: t.5, artist: t.4))
                var seen: Set<Int64> = []
                for artist in track.credit(separators: [])?.artists ?? [] {
                    let artistID = try entity("artists", key: EntityKey.artist(artist.name), in: db) {
                        try db.execute(sql: "INSERT INTO artists (name, name_key, mbid, created_at_ms) VALUES (?, ?, ?, 1700000000000)",
                                       arguments: [artist.name, EntityKey.artist(artist.name), artist.mbid])
                    }
                    guard seen.insert(artistID).inserted else { continue }
                    try db.execute(sql: """
                        INSERT INTO track_artists (track_id, position, name, role, listed, mbid, artist_id) VALUES (?, ?, ?, ?, 0, ?, ?)
                        """, arguments: [id, seen.count - 1, artist.name, artist.role.rawValue, artist.mbid, artistID])
                }
                if let album = track.albumIdentity {
                    let albumID = try entity("albums", key: album.key, in: db) {
                        try db.execute(sql: "INSERT INTO albums (title, artist, mb_release_id, album_key, created_at_ms) VALUES (?, ?, ?, ?, 1700000000000)",
                                       arguments: [album.title, album.artist, album.release, album.key])
                    }
                    try db.execute(sql: "UPDATE tracks SET album_id = ? WHERE id = ?", arguments: [albumID, id])
                }
            }
        }
        // Plays over two years (and a day's turn), some skipped, some in the workout.
        var state: UInt64 = 53
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        for i in 0..<160 {
            let day = CivilDate.days(year: 2024, month: 1, day: 1) + next(560)
            let at = Int64(day) * 86_400_000 + Int64(next(86_400)) * 1000
            let inWorkout = i < 6
            let start = inWorkout ? 1_711_962_000_000 + Int64(i) * 300_000 : at
            let seconds = [12.5, 95, 240, 240, 601, 30][next(6)]
            let counted = seconds >= 30 ? 1 : 0
            let date = CivilDate.civil(days: Int(start / 86_400_000))
            let local = String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
            try db.execute(sql: """
                INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, hr_avg, hr_max, zone, workout_id,
                                   local_day, local_hour)
                VALUES (?, ?, ?, ?, ?, ?, 'default', ?, ?, ?, ?, ?, ?)
                """, arguments: [1 + next(tracks.count), start, start + Int64(seconds * 1000), seconds, counted,
                                 i % 7 == 0 ? "import:lastfm" : "mpd", inWorkout ? 140.0 + Double(i) : nil, inWorkout ? 160 + i : nil,
                                 inWorkout ? 3 : nil, inWorkout ? 1 : nil, local, Int(start / 3_600_000 % 24)])
        }
        try db.execute(sql: """
            INSERT INTO open_plays (player, track_id, song_uri, song_json, mpd_song_id, started_at_ms, played_s, state, position_s, saved_at_ms)
              VALUES ('default', 1, 'Music/Artist/Run.flac', '{"uri":"Music/Artist/Run.flac"}', 7, 1760000000000, 12.5, 'play', 12.5, 1760000012500);
            INSERT INTO sotd_pins (day, track_id, note, pinned_at_ms) VALUES ('2024-04-01', 3, 'a good one', 1711962000000);
            """)
        if v >= 4 { try db.execute(sql: "INSERT INTO track_feelings (track_id, feeling, source, updated_at_ms) VALUES (1, 'like', 'site', 0), (5, 'dislike', 'api', 0)") }
        if v >= 10 {
            try db.execute(sql: """
                INSERT INTO curation_log (at_ms, kind, summary, request_json, undo_json, touches, source)
                  VALUES (1710000000000, 'edit', 'Edited track 4', '{}', '{}', ' track:4 ', 'site');
                """)
        }
        if v >= 11 {
            try db.execute(sql: """
                INSERT INTO curation_rules (position, action, field, match, value, created_at_ms) VALUES (0, 'hide', 'genre', 'equals', 'Podcast', 0);
                INSERT INTO hidden_plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, local_day, local_hour)
                  VALUES (7, 1715000000000, 1715000100000, 100, 1, 'mpd', '2024-05-06', 12);
                """)
        }
        if v >= 12 {
            try db.execute(sql: """
                INSERT INTO scrobble_sessions (session_key, key_sha256, protocol, client, user_name, created_at_ms)
                  VALUES ('sk1', 'ab12', '2.0', 'client', 'phone', 0);
                UPDATE api_keys SET key_md5 = 'md5md5';
                """)
        }
        if v >= 13 {
            try db.execute(sql: """
                INSERT INTO forward_targets (id, name, kind, url, created_at_ms) VALUES (1, 'lb', 'listenbrainz', 'https://api.listenbrainz.org', 0);
                INSERT INTO forward_outbox (target_id, play_id, queued_at_ms) VALUES (1, 2, 0), (1, 3, 0);
                UPDATE forward_outbox SET parked_at_ms = 5, reason = 'refused' WHERE play_id = 3;
                INSERT INTO forward_sent (target_id, play_id) VALUES (1, 1);
                """)
        }
        if v >= 14 {
            try db.execute(sql: """
                INSERT INTO friends (id, name, url, added_by, created_at_ms) VALUES (1, 'Ann', 'https://ann.example/sotd', 'site', 0);
                INSERT INTO friend_songs (friend_id, entry_id, day, title, artist, seen_at_ms) VALUES (1, 'e1', '2024-04-01', 'Song', 'Band', 0);
                """)
        }
        if v >= 15 {
            try db.execute(sql: """
                INSERT INTO review_shares (token, range_from, range_to, sections, created_at_ms) VALUES ('tok', '2024-01-01', '2024-12-31', 'top,clock', 0)
                """)
        }
        if v >= 24 {
            try db.execute(sql: "UPDATE review_shares SET snapshot_title = 'My 2024', snapshot_html = x'3c703e', snapshot_at_ms = 1")
        }
    }

    /// The id of the artist or album with `key`, added by `insert` if there is none.
    static func entity(_ table: String, key: String, in db: Database, insert: () throws -> Void) throws -> Int64 {
        let column = table == "artists" ? "name_key" : "album_key"
        if let id = try Int64.fetchOne(db, sql: "SELECT id FROM \(table) WHERE \(column) = ?", arguments: [key]) { return id }
        try insert()
        return db.lastInsertedRowID
    }
}
