import GRDB
import PacenoteCore

/// Pacenote's schema, as named migrations recorded in GRDB's `grdb_migrations` table.
///
/// Rules for everyone who adds to this file:
/// - Never edit or rename a migration that has shipped: add a new one. A database created
///   by any earlier version must open in every later one (`Tests/PacenoteStoreTests/Fixtures`).
/// - Every timestamp is UTC, in integer milliseconds since the Unix epoch, in a column
///   named `…_at_ms`. Local days (`local_day`) are derived columns kept for rollups; they
///   follow the display time zone recorded in `meta.rollup_timezone`.
enum Schema {
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        m.registerMigration("v1.meta", migrate: v1Meta)
        m.registerMigration("v1.tracks", migrate: v1Tracks)
        m.registerMigration("v1.heart-rate-and-workouts", migrate: v1HeartRateAndWorkouts)
        m.registerMigration("v1.plays", migrate: v1Plays)
        m.registerMigration("v1.rollups", migrate: v1Rollups)
        m.registerMigration("v1.sotd-and-api-keys", migrate: v1SOTDAndKeys)
        m.registerMigration("v2.import", migrate: v2Import)
        m.registerMigration("v3.lean-day-rollup", migrate: v3LeanDayRollup)
        m.registerMigration("v4.feelings", migrate: v4Feelings)
        m.registerMigration("v5.credits-and-recordings", migrate: v5CreditsAndRecordings)
        m.registerMigration("v6.artists-and-albums", migrate: v6ArtistsAndAlbums)
        m.registerMigration("v7.entity-rollups", migrate: v7EntityRollups)
        m.registerMigration("v8.month-rollups", migrate: v8MonthRollups)
        m.registerMigration("v9.page-indexes", migrate: v9PageIndexes)
        m.registerMigration("v10.curation", migrate: v10Curation)
        m.registerMigration("v11.rules", migrate: v11Rules)
        m.registerMigration("v12.scrobble-sessions", migrate: v12ScrobbleSessions)
        m.registerMigration("v13.forward", migrate: v13Forward)
        m.registerMigration("v14.friends", migrate: v14Friends)
        m.registerMigration("v15.review", migrate: v15Review)
        m.registerMigration("v16.charts-by-time", migrate: v16ChartsByTime)
        m.registerMigration("v17.day-entity-rollups", migrate: v17DayEntityRollups)
        m.registerMigration("v18.ranking-heads", foreignKeyChecks: .immediate, migrate: RankingHeads.migrate)
        // (Immediate foreign-key checks: GRDB's deferred check reads every reference of a
        // long history, and this migration changes none.)
        m.registerMigration("v19.track-source-check", foreignKeyChecks: .immediate, migrate: v19TrackSourceCheck)
        m.registerMigration("v20.month-halves", foreignKeyChecks: .immediate, migrate: v20MonthHalves)
        m.registerMigration("v21.day-heads", foreignKeyChecks: .immediate, migrate: DayHeads.migrate)
        m.registerMigration("v22.year-chart-lengths", foreignKeyChecks: .immediate, migrate: YearChartLengths.migrate)
        m.registerMigration("v23.search-without-sizes", foreignKeyChecks: .immediate, migrate: v23SearchWithoutSizes)
        m.registerMigration("v24.review-share-snapshots", foreignKeyChecks: .immediate, migrate: v24ReviewShareSnapshots)
        m.registerMigration("v25.scrobbler-credentials", foreignKeyChecks: .immediate, migrate: v25ScrobblerCredentials)
        return m
    }

    private static func v1Meta(_ db: Database) throws {
        try db.execute(sql: """
            -- Small facts about this database: when it was created, which time zone the rollups use.
            CREATE TABLE meta (
              key   TEXT PRIMARY KEY NOT NULL,
              value TEXT NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    private static func v1Tracks(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE tracks (
              id                  INTEGER PRIMARY KEY,
              uri                 TEXT UNIQUE,          -- MPD song URI or stream URL; NULL when only imported
              title               TEXT NOT NULL,        -- falls back to the file name when untagged
              artist              TEXT,
              album               TEXT,
              album_artist        TEXT,
              genre               TEXT,
              date                TEXT,                 -- as tagged: '1997', '1997-05-21'
              track_number        INTEGER,
              disc_number         INTEGER,
              duration_s          REAL CHECK (duration_s IS NULL OR duration_s >= 0),
              mb_recording_id     TEXT,
              mb_release_id       TEXT,
              mb_artist_id        TEXT,
              mb_album_artist_id  TEXT,
              mb_release_track_id TEXT,
              bpm                 REAL CHECK (bpm IS NULL OR bpm > 0),
              bpm_source          TEXT CHECK (bpm_source IN ('tag', 'sticker', 'analysis', 'manual', 'import')),
              bpm_confidence      REAL CHECK (bpm_confidence IS NULL OR bpm_confidence BETWEEN 0 AND 1),
              match_key           TEXT NOT NULL,        -- normalised artist + title (PacenoteCore.MatchKey)
              in_library          INTEGER NOT NULL DEFAULT 0 CHECK (in_library IN (0, 1)),  -- in some player's library_files
              first_seen_at_ms    INTEGER NOT NULL,
              updated_at_ms       INTEGER NOT NULL,
              CHECK ((bpm IS NULL) = (bpm_source IS NULL))
            );
            CREATE INDEX tracks_match_key ON tracks(match_key);
            CREATE INDEX tracks_artist ON tracks(artist COLLATE NOCASE);
            CREATE INDEX tracks_album ON tracks(album COLLATE NOCASE);

            -- Full-text search over titles, artists and albums (FTS5, accents folded), kept in
            -- step with tracks by triggers.
            CREATE VIRTUAL TABLE tracks_fts USING fts5(
              title, artist, album, content = 'tracks', content_rowid = 'id',
              tokenize = 'unicode61 remove_diacritics 2'
            );
            CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
              INSERT INTO tracks_fts (rowid, title, artist, album) VALUES (NEW.id, NEW.title, NEW.artist, NEW.album);
            END;
            CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
              INSERT INTO tracks_fts (tracks_fts, rowid, title, artist, album) VALUES ('delete', OLD.id, OLD.title, OLD.artist, OLD.album);
            END;
            CREATE TRIGGER tracks_fts_update AFTER UPDATE OF title, artist, album ON tracks BEGIN
              INSERT INTO tracks_fts (tracks_fts, rowid, title, artist, album) VALUES ('delete', OLD.id, OLD.title, OLD.artist, OLD.album);
              INSERT INTO tracks_fts (rowid, title, artist, album) VALUES (NEW.id, NEW.title, NEW.artist, NEW.album);
            END;

            -- Which files each player's MPD has, as last mirrored. Players (rooms) may have
            -- different libraries; a track is in_library while any player has it.
            CREATE TABLE library_files (
              player         TEXT NOT NULL,
              track_id       INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              modified_at_ms INTEGER NOT NULL,          -- MPD's Last-Modified; -1 until its tags are read
              PRIMARY KEY (player, track_id)
            ) WITHOUT ROWID;
            CREATE INDEX library_files_track ON library_files(track_id);
            CREATE TRIGGER library_files_insert AFTER INSERT ON library_files BEGIN
              UPDATE tracks SET in_library = 1 WHERE id = NEW.track_id;
            END;
            CREATE TRIGGER library_files_delete AFTER DELETE ON library_files BEGIN
              UPDATE tracks SET in_library = EXISTS (SELECT 1 FROM library_files WHERE track_id = OLD.track_id)
              WHERE id = OLD.track_id;
            END;
            """)
    }

    private static func v1HeartRateAndWorkouts(_ db: Database) throws {
        try db.execute(sql: """
            -- Zone settings carry the date from which they apply: changing them never
            -- rewrites past workouts.
            CREATE TABLE zone_settings (
              id                INTEGER PRIMARY KEY,
              effective_from_ms INTEGER NOT NULL UNIQUE,
              model             TEXT NOT NULL CHECK (model IN ('percent_max', 'hrr', 'lthr_run', 'lthr_bike', 'custom')),
              max_hr            INTEGER CHECK (max_hr IS NULL OR max_hr BETWEEN 100 AND 250),
              resting_hr        INTEGER CHECK (resting_hr IS NULL OR resting_hr BETWEEN 25 AND 120),
              lthr              INTEGER CHECK (lthr IS NULL OR lthr BETWEEN 80 AND 230),
              bounds_json       TEXT,                   -- custom: lower bpm bound of Z1..Z5 as a JSON array
              created_at_ms     INTEGER NOT NULL
            );

            CREATE TABLE workouts (
              id               INTEGER PRIMARY KEY,
              started_at_ms    INTEGER NOT NULL,
              ended_at_ms      INTEGER,                 -- NULL while the workout is in progress
              kind             TEXT NOT NULL DEFAULT 'auto' CHECK (kind IN ('auto', 'manual', 'import')),
              name             TEXT,
              sport            TEXT,
              zone_settings_id INTEGER REFERENCES zone_settings(id) ON DELETE RESTRICT,
              hr_avg           REAL,
              hr_max           INTEGER,
              z0_s REAL NOT NULL DEFAULT 0, z1_s REAL NOT NULL DEFAULT 0, z2_s REAL NOT NULL DEFAULT 0,
              z3_s REAL NOT NULL DEFAULT 0, z4_s REAL NOT NULL DEFAULT 0, z5_s REAL NOT NULL DEFAULT 0,
              CHECK (ended_at_ms IS NULL OR ended_at_ms >= started_at_ms)
            );
            CREATE INDEX workouts_started ON workouts(started_at_ms);

            -- One row per sample; the same timestamp from the same source is stored once.
            CREATE TABLE hr_samples (
              source TEXT NOT NULL,                     -- 'http:<key name>', 'feed', 'ble', …
              at_ms  INTEGER NOT NULL,
              bpm    INTEGER NOT NULL CHECK (bpm BETWEEN 25 AND 250),
              rr_ms  TEXT,                              -- RR intervals in ms, JSON array
              PRIMARY KEY (source, at_ms)
            ) WITHOUT ROWID;
            CREATE INDEX hr_samples_at ON hr_samples(at_ms);
            """)
    }

    private static func v1Plays(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE plays (
              id            INTEGER PRIMARY KEY,
              track_id      INTEGER NOT NULL REFERENCES tracks(id) ON DELETE RESTRICT,
              started_at_ms INTEGER NOT NULL,           -- when playback of this play began
              ended_at_ms   INTEGER NOT NULL,
              played_s      REAL NOT NULL CHECK (played_s >= 0),  -- real playing time, pauses excluded
              counted       INTEGER NOT NULL CHECK (counted IN (0, 1)),  -- 0: a skip
              source        TEXT NOT NULL,              -- 'mpd', 'listenbrainz', 'import:lastfm', …
              player        TEXT,                       -- the MPD (room) that played it
              hr_avg        REAL,
              hr_max        INTEGER,
              zone          INTEGER CHECK (zone BETWEEN 0 AND 5),
              workout_id    INTEGER REFERENCES workouts(id) ON DELETE SET NULL,
              local_day     TEXT NOT NULL,              -- 'YYYY-MM-DD' of started_at in meta.rollup_timezone
              local_hour    INTEGER NOT NULL CHECK (local_hour BETWEEN 0 AND 23),
              CHECK (ended_at_ms >= started_at_ms)
            );
            -- The same listen (track and start) is stored once, whoever submits it twice.
            CREATE UNIQUE INDEX plays_identity ON plays(track_id, started_at_ms);
            CREATE INDEX plays_started ON plays(started_at_ms);
            CREATE INDEX plays_local_day ON plays(local_day);
            CREATE INDEX plays_workout ON plays(workout_id) WHERE workout_id IS NOT NULL;

            -- The play in progress on each player, saved on every state change and
            -- periodically, so that a crash or reboot loses nothing and doubles nothing.
            CREATE TABLE open_plays (
              player        TEXT PRIMARY KEY NOT NULL,
              track_id      INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              song_uri      TEXT NOT NULL,              -- MPD's URI (a stream URL for streams)
              song_json     TEXT NOT NULL,              -- the song's tags and duration, to resume exactly
              mpd_song_id   INTEGER,
              started_at_ms INTEGER NOT NULL,
              played_s      REAL NOT NULL DEFAULT 0 CHECK (played_s >= 0),
              state         TEXT NOT NULL CHECK (state IN ('play', 'pause')),
              position_s    REAL,                       -- elapsed time in the song when saved
              saved_at_ms   INTEGER NOT NULL,
              lost_at_ms    INTEGER                     -- when the player was lost from sight, if it was
            ) WITHOUT ROWID;
            """)
    }

    /// Rollups, kept by triggers so that every writer (watcher, imports, deletes) keeps
    /// them right: charts over any range read pre-summed rows, never every play.
    /// - `rollup_day_track`, `rollup_day_hour`: per local day (any range; the listening clock);
    /// - `rollup_year_track`: per local year (a year's chart reads one row per track);
    /// - `rollup_track_total`: all time (the all-time chart reads one row per track).
    /// These are v1's, as its triggers were created: `trackRollups` lists today's.
    static let rollups: [(table: String, keys: [(column: String, expression: String)])] = [
        ("rollup_day_track", [("day", "local_day"), ("track_id", "track_id")]),
        ("rollup_day_hour", [("day", "local_day"), ("hour", "local_hour")]),
        ("rollup_year_track", [("year", "substr(local_day, 1, 4)"), ("track_id", "track_id")]),
        ("rollup_track_total", [("track_id", "track_id")]),
    ]

    /// The rollups by track (and the day's hours) that the `plays_rollup_*` triggers keep
    /// since v8: v1's and `rollup_month_track`, per calendar month (a month's chart, and the
    /// whole months of any range, read a row per track and month).
    static let trackRollups = rollups + [("rollup_month_track", [("month", "substr(local_day, 1, 7)"), ("track_id", "track_id")])]

    /// A key's value for a play (`NEW`, `OLD`): a column of it, or an expression over its `local_day`.
    static func value(of expression: String, in row: String) -> String {
        let prefix = "substr(local_day"
        return expression.hasPrefix(prefix) ? "substr(\(row).local_day" + expression.dropFirst(prefix.count) : "\(row).\(expression)"
    }

    /// The statements that add (`NEW`) or remove (`OLD`) one play from every rollup of `tables`.
    /// (`halves`: `rollup_month_track`'s halves too, from v20 on: `MonthHalves`.)
    static func rollupStatements(_ row: String, adding: Bool,
                                 tables: [(table: String, keys: [(column: String, expression: String)])] = rollups,
                                 halves: Bool = false) -> String {
        tables.map { table, keys in
            let columns = keys.map(\.column).joined(separator: ", ")
            let rowValues = keys.map { value(of: $0.expression, in: row) }
            let match = zip(keys, rowValues).map { "\($0.column) = \($1)" }.joined(separator: " AND ")
            let withHalves = halves && keys.first?.column == "month"
            if adding {
                return """
                    INSERT INTO \(table) (\(columns), plays, skips, played_s\(withHalves ? ", " + MonthHalves.columns : ""))
                      VALUES (\(rowValues.joined(separator: ", ")), \(row).counted, 1 - \(row).counted, \(row).played_s\(
                        withHalves ? ", " + MonthHalves.values(row) : ""))
                      ON CONFLICT (\(columns)) DO UPDATE SET \(EntityRollups.upsert(halves: withHalves));
                    """
            }
            return """
                UPDATE \(table)
                  SET plays = plays - \(row).counted, skips = skips - (1 - \(row).counted), played_s = played_s - \(row).played_s\(
                    withHalves ? ", " + MonthHalves.subtract(row) : "")
                  WHERE \(match);
                DELETE FROM \(table) WHERE \(match) AND plays = 0 AND skips = 0;
                """
        }.joined(separator: "\n")
    }

    private static func v1Rollups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_day_track (
              day      TEXT NOT NULL,
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,                -- counted plays
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, track_id)
            ) WITHOUT ROWID;
            CREATE INDEX rollup_day_track_by_track ON rollup_day_track(track_id, day);

            CREATE TABLE rollup_day_hour (
              day      TEXT NOT NULL,
              hour     INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (day, hour)
            ) WITHOUT ROWID;

            CREATE TABLE rollup_year_track (
              year     TEXT NOT NULL,                   -- 'YYYY' of local_day
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, track_id)
            ) WITHOUT ROWID;
            CREATE INDEX rollup_year_track_top ON rollup_year_track(year, plays DESC, played_s DESC);

            CREATE TABLE rollup_track_total (
              track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            );
            CREATE INDEX rollup_track_total_top ON rollup_track_total(plays DESC, played_s DESC);

            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(rollupStatements("NEW", adding: true))
            END;

            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false))
            END;

            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false))
            \(rollupStatements("NEW", adding: true))
            END;
            """)
    }

    private static func v1SOTDAndKeys(_ db: Database) throws {
        try db.execute(sql: """
            -- A pinned song of the day overrides the computed one for that local day.
            CREATE TABLE sotd_pins (
              day          TEXT PRIMARY KEY NOT NULL,   -- 'YYYY-MM-DD' in the display time zone
              track_id     INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              note         TEXT,
              pinned_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;

            -- API keys are stored as SHA-256 hashes; only the prefix is shown again.
            CREATE TABLE api_keys (
              id              INTEGER PRIMARY KEY,
              name            TEXT NOT NULL UNIQUE,
              key_hash        TEXT NOT NULL UNIQUE,
              key_prefix      TEXT NOT NULL,
              scopes          TEXT NOT NULL DEFAULT 'write',
              created_at_ms   INTEGER NOT NULL,
              last_used_at_ms INTEGER,
              revoked_at_ms   INTEGER
            );
            """)
    }

    private static func v2Import(_ db: Database) throws {
        try db.execute(sql: """
            -- The artists a track is credited to, parsed from its credit text ('A feat. B',
            -- 'Song (feat. C)') or listed by the export (Maloja): position 0 is the primary
            -- artist. tracks.artist keeps the original text.
            CREATE TABLE track_artists (
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              position INTEGER NOT NULL CHECK (position >= 0),
              name     TEXT NOT NULL,
              role     TEXT NOT NULL CHECK (role IN ('primary', 'featured')),
              PRIMARY KEY (track_id, position)
            ) WITHOUT ROWID;
            CREATE INDEX track_artists_name ON track_artists(name COLLATE NOCASE);
            """)
    }

    private static func v3LeanDayRollup(_ db: Database) throws {
        try db.execute(sql: """
            -- rollup_day_track has about a row per play (few songs are played twice a day), so
            -- a second index on it cost as much to keep as plays' own (an eighth of an import,
            -- scripts/bench/import). Its one reader, a track's or an artist's plays by month,
            -- reads plays through plays_identity instead. Tracks are never deleted (plays
            -- restrict it), so the ON DELETE CASCADE it served does not run.
            DROP INDEX rollup_day_track_by_track;
            """)
    }

    private static func v4Feelings(_ db: Database) throws {
        try db.execute(sql: """
            -- Likes and dislikes, one row per track that has one (no row: no feeling). Written
            -- only by Operations.setFeeling(s).
            CREATE TABLE track_feelings (
              track_id      INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
              feeling       TEXT NOT NULL CHECK (feeling IN ('like', 'dislike')),
              source        TEXT NOT NULL,        -- site, api, listenbrainz, import
              updated_at_ms INTEGER NOT NULL
            );
            """)
    }

    private static func v5CreditsAndRecordings(_ db: Database) throws {
        try db.execute(sql: """
            -- listed = 1: the source named the artists one by one (MPD's several Artist tags,
            -- ListenBrainz's artist_names); 0: split from tracks.artist, and split again when
            -- the separators change (meta.credit_separators). mbid: the artist's MusicBrainz id.
            ALTER TABLE track_artists ADD COLUMN listed INTEGER NOT NULL DEFAULT 0 CHECK (listed IN (0, 1));
            ALTER TABLE track_artists ADD COLUMN mbid TEXT;
            -- (No index on (track_id, name): the primary key finds a track's few artists, and a
            -- second index on every credit slows a bulk import of a wide library.)
            -- A recording id decides which track a listen is (Store.saveTrack).
            CREATE INDEX tracks_mb_recording ON tracks(mb_recording_id) WHERE mb_recording_id IS NOT NULL;
            """)
        // Credits v2's importer wrote: Maloja's listed artists (their names joined with ", "
        // are the track's text) become listed, never split again; the rest were split on
        // separators that are now off by default, and are split again with the defaults.
        let imported = try Row.fetchAll(db, sql: """
            SELECT t.id, COALESCE(t.artist, t.album_artist), t.title, t.mb_artist_id,
                   (SELECT group_concat(name, ', ') FROM (SELECT name FROM track_artists WHERE track_id = t.id ORDER BY position)),
                   (SELECT COUNT(*) FROM track_artists WHERE track_id = t.id)
            FROM tracks t WHERE t.id IN (SELECT track_id FROM track_artists) AND COALESCE(t.artist, t.album_artist) IS NOT NULL
            """)
        // Every track gets its credit: until now only imports wrote them, and every artist
        // chart reads them from here on.
        let rows = try Row.fetchAll(db, sql: """
            SELECT id, COALESCE(artist, album_artist), title, mb_artist_id FROM tracks
            WHERE COALESCE(artist, album_artist) IS NOT NULL AND id NOT IN (SELECT track_id FROM track_artists)
            """)
        for row in rows {
            let track = Track(id: row[0], title: row[2], artist: row[1], musicBrainz: MusicBrainzIDs(artist: row[3]))
            if let credit = track.credit(separators: []) {
                try Store.saveCredit(credit, trackID: row[0], newTrack: true, filingArtists: false, in: db)
            }
        }
        for row in imported {
            let text: String = row[1], joined: String? = row[4], count: Int = row[5]
            if isListedV2Credit(text: text, joined: joined, count: count) {
                try db.execute(sql: "UPDATE track_artists SET listed = 1, role = 'primary' WHERE track_id = ?", arguments: [row[0]])
            } else if let credit = Track(title: row[2], artist: text, musicBrainz: MusicBrainzIDs(artist: row[3])).credit(separators: []) {
                try Store.saveCredit(credit, trackID: row[0], filingArtists: false, in: db)
            }
        }
    }

    /// A v2 import's credit that listed its artists (Maloja): several names whose join is the text.
    private static func isListedV2Credit(text: String, joined: String?, count: Int) -> Bool {
        count > 1 && joined == text
    }

    private static func v6ArtistsAndAlbums(_ db: Database) throws {
        try db.execute(sql: """
            -- Artists and albums as entities with stable ids (PacenoteCore.EntityKey says when two
            -- spellings are one): what pages, the API and merges point at.
            CREATE TABLE artists (
              id            INTEGER PRIMARY KEY,
              name          TEXT NOT NULL,              -- as first credited
              name_key      TEXT NOT NULL UNIQUE,       -- EntityKey.artist: case and white space folded
              mbid          TEXT,                       -- MusicBrainz artist id, when a source gave one
              created_at_ms INTEGER NOT NULL
            );
            -- An album is its MusicBrainz release, else its title with its album artist (or
            -- each track's primary artist): two "Greatest Hits" stay apart.
            CREATE TABLE albums (
              id            INTEGER PRIMARY KEY,
              title         TEXT NOT NULL,
              artist        TEXT,
              mb_release_id TEXT,
              album_key     TEXT NOT NULL UNIQUE,       -- EntityKey.album
              created_at_ms INTEGER NOT NULL
            );
            ALTER TABLE track_artists ADD COLUMN artist_id INTEGER REFERENCES artists(id);
            ALTER TABLE tracks ADD COLUMN album_id INTEGER REFERENCES albums(id);
            -- Artists are found by entity now; the index on the name gives way to one on the id.
            DROP INDEX track_artists_name;
            CREATE INDEX track_artists_artist ON track_artists(artist_id);
            CREATE INDEX tracks_album_id ON tracks(album_id) WHERE album_id IS NOT NULL;
            """)
        try Store.fileEveryTrackUnderItsEntities(in: db)
        // From this version MPD's several Artist (and AlbumArtist) values are read: every
        // library file is read again at the next mirror, so that credits and albums of files
        // not modified since follow their tags.
        try db.execute(sql: """
            UPDATE library_files SET modified_at_ms = -1;
            DELETE FROM meta WHERE key LIKE 'library_update:%';
            """)
    }

    /// Rollups by artist and album, for all time and per year, and the year's totals: the
    /// all-time and year charts of artists and albums read a row per artist or album (a few
    /// thousand) instead of summing every track's, and totals a row per year. Kept by their
    /// own triggers on `plays` (a play counts once for every artist its track credits, once
    /// for its album), by the bulk import (`ImportEntityRollups`), and moved along when a
    /// track's credit or album changes (`EntityRollups.move`). No index beyond their keys:
    /// each one cost an eighth more import time (`scripts/bench/scale`), and these tables
    /// are small enough to read whole. Tracks, which are many, have theirs (`Store.topRows`).
    private static func v7EntityRollups(_ db: Database) throws {
        for table in EntityRollups.v7Tables {
            let keys = table.keys.map { "\($0) \($0 == "year" ? "TEXT" : "INTEGER") NOT NULL" }.joined(separator: ", ")
            let primary = table.keys.joined(separator: ", ")
            try db.execute(sql: """
                CREATE TABLE \(table.name) (
                  \(keys),
                  plays    INTEGER NOT NULL,
                  skips    INTEGER NOT NULL,
                  played_s REAL NOT NULL,
                  PRIMARY KEY (\(primary))
                ) WITHOUT ROWID;
                """)
        }
        try db.execute(sql: """
            -- The year's totals (a year or all time is a few rows, not one per track), each
            -- day's (the heatmap, streaks: a row a day, not 24), and each year's hours (the
            -- listening clock of a year or of all time).
            CREATE TABLE rollup_year_total (
              year     TEXT PRIMARY KEY NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE rollup_day_total (
              day      TEXT PRIMARY KEY NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE rollup_year_hour (
              year     TEXT NOT NULL,
              hour     INTEGER NOT NULL CHECK (hour BETWEEN 0 AND 23),
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (year, hour)
            ) WITHOUT ROWID;
            -- The all-time track chart by listening time walks an index too (a year's reads the
            -- year's rows: an index on rollup_year_track by time cost a tenth of an import).
            CREATE INDEX rollup_track_total_by_time ON rollup_track_total(played_s DESC, plays DESC);
            \(entityTriggers(EntityRollups.v7Tables, v7: true))
            """)
        try EntityRollups.rebuild(in: db, v7: true)
    }

    /// Rollups per calendar month, of tracks, artists and albums, and the months' totals:
    /// a range's whole months are a row per track (artist, album) and month, its whole years
    /// a row per year, so a chart of any range reads the best rows of each (`Store.topRows`,
    /// `RangeChart`) instead of a row per day and track. The track and entity triggers are
    /// created again to keep them; existing rows are summed from the day and track rollups.
    /// Indexes that pages and charts read instead of whole tables:
    /// - the plays that have a heart-rate zone, by track: a track's, artist's or album's page
    ///   counts its plays per zone from these alone (most plays have none: an import's never
    ///   do), not from every play of its tracks;
    /// - artists and albums of all time and of each year by plays, as tracks have had since
    ///   v1: their charts read about as many rows as they show (`Store.topRows`), not a row
    ///   per artist or album.
    private static func v9PageIndexes(_ db: Database) throws {
        try db.execute(sql: """
            CREATE INDEX plays_zoned ON plays(track_id, zone, counted) WHERE zone IS NOT NULL;
            CREATE INDEX rollup_artist_total_top ON rollup_artist_total(plays DESC, played_s DESC);
            CREATE INDEX rollup_album_total_top ON rollup_album_total(plays DESC, played_s DESC);
            CREATE INDEX rollup_year_artist_top ON rollup_year_artist(year, plays DESC, played_s DESC);
            CREATE INDEX rollup_year_album_top ON rollup_year_album(year, plays DESC, played_s DESC);
            """)
    }

    private static func v8MonthRollups(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_month_track (
              month    TEXT NOT NULL,                   -- 'YYYY-MM' of local_day
              track_id INTEGER NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (month, track_id)
            ) WITHOUT ROWID;
            CREATE TABLE rollup_month_total (
              month    TEXT PRIMARY KEY NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL
            ) WITHOUT ROWID;
            """)
        for table in EntityRollups.monthTables { try createPeriodRollup(table, in: db) }
        // Each month's best rows, walked by the charts: a month's chart reads about as many
        // rows as it shows, and a range of months the first rows of each.
        for table in ["rollup_month_track"] + EntityRollups.monthTables.map(\.name) {
            try db.execute(sql: "CREATE INDEX \(table)_top ON \(table)(month, plays DESC, played_s DESC)")
        }
        try db.execute(sql: """
            INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s)
              SELECT substr(day, 1, 7), track_id, SUM(plays), SUM(skips), SUM(played_s) FROM rollup_day_track GROUP BY 1, 2;
            """)
        for table in EntityRollups.monthTables { try EntityRollups.rebuild(table, halves: false, in: db) }
        try EntityRollups.rebuildMonthTotals(in: db)
        // Plays by local day were read only by the song of the day, which finds a few days'
        // plays through `plays_started` as well; the index cost a bulk import about a
        // twentieth of its time (scripts/bench/scale), the month rollups more than that.
        try db.execute(sql: "DROP INDEX plays_local_day")
        try db.execute(sql: """
            DROP TRIGGER plays_rollup_insert;
            DROP TRIGGER plays_rollup_delete;
            DROP TRIGGER plays_rollup_update;
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(rollupStatements("NEW", adding: true, tables: trackRollups))
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups))
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups))
            \(rollupStatements("NEW", adding: true, tables: trackRollups))
            END;
            \(entityTriggers(EntityRollups.v7Tables + EntityRollups.monthTables))
            """)
    }

    /// An entity's rollup per period (v8's months, v17's days): the period's text and the
    /// entity's id as its key.
    static func createPeriodRollup(_ table: EntityRollups.Table, in db: Database) throws {
        let period = table.keys[0], id = table.keys[1]
        try db.execute(sql: """
            CREATE TABLE \(table.name) (
              \(period.padding(toLength: 8, withPad: " ", startingAt: 0)) TEXT NOT NULL,
              \(id) INTEGER NOT NULL,
              plays    INTEGER NOT NULL,
              skips    INTEGER NOT NULL,
              played_s REAL NOT NULL,
              PRIMARY KEY (\(period), \(id))
            ) WITHOUT ROWID;
            """)
    }

    /// The triggers that keep the entity rollups `tables` (and the period totals; `v7`: v7's
    /// only) as plays come, go and change.
    static func entityTriggers(_ tables: [EntityRollups.Table], v7: Bool = false, halves: Bool = false) -> String {
        """
        CREATE TRIGGER plays_entity_rollup_insert AFTER INSERT ON plays BEGIN
        \(EntityRollups.statements("NEW", adding: true, v7: v7, tables: tables, halves: halves))
        END;
        CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN
        \(EntityRollups.statements("OLD", adding: false, v7: v7, tables: tables, halves: halves))
        END;
        CREATE TRIGGER plays_entity_rollup_update
        AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
        \(EntityRollups.statements("OLD", adding: false, v7: v7, tables: tables, halves: halves))
        \(EntityRollups.statements("NEW", adding: true, v7: v7, tables: tables, halves: halves))
        END;
        """
    }

    /// Curation (`Store+Curation`): every delete, edit, addition and merge is one entry of
    /// `curation_log`, with what undoing it needs; a merged track, artist or album keeps its
    /// row, pointing at the one it was merged into (`merged_into`), so that a later play,
    /// submission or import under its name, file or key lands on the kept one.
    private static func v10Curation(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE curation_log (
              id           INTEGER PRIMARY KEY,
              at_ms        INTEGER NOT NULL,
              kind         TEXT NOT NULL CHECK (kind IN ('delete', 'edit', 'add', 'merge', 'rule')),
              summary      TEXT NOT NULL,             -- one line for people: 'Merged artist 4 into 2'
              request_json TEXT NOT NULL,             -- what was asked, as the API takes it
              undo_json    TEXT NOT NULL,             -- what undoing it needs (CurationUndo)
              touches      TEXT NOT NULL,             -- ' play:1 track:2 artist:3 ': what a later entry may depend on
              source       TEXT NOT NULL,             -- 'api', 'site', 'listenbrainz', 'cli'
              undone_at_ms INTEGER
            );
            ALTER TABLE tracks ADD COLUMN merged_into INTEGER REFERENCES tracks(id);
            ALTER TABLE artists ADD COLUMN merged_into INTEGER REFERENCES artists(id);
            ALTER TABLE albums ADD COLUMN merged_into INTEGER REFERENCES albums(id);
            """)
    }

    /// Rules (`Store+Rules`): what to ignore, hide or rewrite at ingest and in the past.
    /// Hidden plays are logged in `hidden_plays`, the same columns as `plays` but no rollup
    /// triggers: every chart, song of the day, streak and the recommender read `plays` and
    /// its rollups, so they leave hidden plays out without a change to any of them.
    private static func v11Rules(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE curation_rules (
              id            INTEGER PRIMARY KEY,
              position      INTEGER NOT NULL,           -- the order among rules of one origin
              action        TEXT NOT NULL CHECK (action IN ('ignore', 'hide', 'rewrite')),
              field         TEXT NOT NULL CHECK (field IN ('artist', 'album', 'title', 'genre', 'path', 'stream', 'duration')),
              match         TEXT NOT NULL CHECK (match IN ('equals', 'prefix', 'contains', 'regex', 'shorter_than')),
              value         TEXT NOT NULL,
              replacement   TEXT,
              enabled       INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
              from_config   INTEGER NOT NULL DEFAULT 0 CHECK (from_config IN (0, 1)),  -- `[[rules]]`, replaced at each start
              created_at_ms INTEGER NOT NULL
            );
            CREATE TABLE hidden_plays (
              id            INTEGER PRIMARY KEY,
              track_id      INTEGER NOT NULL REFERENCES tracks(id) ON DELETE RESTRICT,
              started_at_ms INTEGER NOT NULL,
              ended_at_ms   INTEGER NOT NULL,
              played_s      REAL NOT NULL CHECK (played_s >= 0),
              counted       INTEGER NOT NULL CHECK (counted IN (0, 1)),
              source        TEXT NOT NULL,
              player        TEXT,
              hr_avg        REAL,
              hr_max        INTEGER,
              zone          INTEGER CHECK (zone BETWEEN 0 AND 5),
              workout_id    INTEGER REFERENCES workouts(id) ON DELETE SET NULL,
              local_day     TEXT NOT NULL,
              local_hour    INTEGER NOT NULL CHECK (local_hour BETWEEN 0 AND 23),
              CHECK (ended_at_ms >= started_at_ms)
            );
            CREATE UNIQUE INDEX hidden_plays_identity ON hidden_plays(track_id, started_at_ms);
            CREATE INDEX hidden_plays_started ON hidden_plays(started_at_ms);
            """)
    }

    /// The Last.fm protocols' sessions (`Store+Scrobbles`): a session key a player got from
    /// `auth.getMobileSession` or the 1.2 handshake, tied to the API key that opened it by
    /// that key's SHA-256 (revoking the key ends its sessions). `api_keys.key_md5`: the
    /// MD5 of a named key, which the protocols' tokens are made of (`md5(md5(password)+t)`);
    /// keys made before v12 have none and log in with their plain text only (2.0's `password`).
    private static func v12ScrobbleSessions(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE scrobble_sessions (
              session_key   TEXT PRIMARY KEY,
              key_sha256    TEXT NOT NULL,            -- the API key that opened it
              protocol      TEXT NOT NULL CHECK (protocol IN ('2.0', '1.2')),
              client        TEXT NOT NULL,            -- 1.2's client id, 2.0's api_key
              user_name     TEXT NOT NULL,            -- as the player sent it: names the player
              created_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            ALTER TABLE api_keys ADD COLUMN key_md5 TEXT;
            """)
    }

    /// Forwarding (`[[forward]]`): the targets the configuration names, and a durable outbox
    /// that a counted play enters in the transaction that stores it (`Store.insertPlay`).
    private static func v13Forward(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE forward_targets (
              id                 INTEGER PRIMARY KEY,
              name               TEXT NOT NULL UNIQUE,
              kind               TEXT NOT NULL CHECK (kind IN ('listenbrainz', 'lastfm')),
              url                TEXT NOT NULL,
              active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),  -- in the configuration now
              sources            TEXT,          -- char(31)-wrapped list of the sources it takes; NULL: all
              players            TEXT,          -- likewise players; NULL: all
              session_key        TEXT,          -- lastfm: from `pacenote forward login`
              session_user       TEXT,
              queued             INTEGER NOT NULL DEFAULT 0,  -- kept by the outbox's triggers
              parked             INTEGER NOT NULL DEFAULT 0,
              sent               INTEGER NOT NULL DEFAULT 0,
              last_success_at_ms INTEGER,
              last_error         TEXT,
              last_error_at_ms   INTEGER,
              created_at_ms      INTEGER NOT NULL
            );
            -- A play on its way to a target; gone once the target took it. A play the target
            -- keeps refusing is parked (with the reason) so that the rest go on.
            CREATE TABLE forward_outbox (
              target_id    INTEGER NOT NULL REFERENCES forward_targets(id) ON DELETE CASCADE,
              play_id      INTEGER NOT NULL REFERENCES plays(id) ON DELETE CASCADE,
              queued_at_ms INTEGER NOT NULL,
              attempts     INTEGER NOT NULL DEFAULT 0,
              parked_at_ms INTEGER,
              reason       TEXT,
              PRIMARY KEY (target_id, play_id)
            ) WITHOUT ROWID;
            CREATE INDEX forward_outbox_play ON forward_outbox(play_id);
            -- What each target took, so that a backfill never sends a play twice.
            CREATE TABLE forward_sent (
              target_id INTEGER NOT NULL,
              play_id   INTEGER NOT NULL,
              PRIMARY KEY (target_id, play_id)
            ) WITHOUT ROWID;
            CREATE TRIGGER forward_outbox_in AFTER INSERT ON forward_outbox BEGIN
              UPDATE forward_targets SET queued = queued + (NEW.parked_at_ms IS NULL),
                                         parked = parked + (NEW.parked_at_ms IS NOT NULL)
              WHERE id = NEW.target_id;
            END;
            CREATE TRIGGER forward_outbox_out AFTER DELETE ON forward_outbox BEGIN
              UPDATE forward_targets SET queued = queued - (OLD.parked_at_ms IS NULL),
                                         parked = parked - (OLD.parked_at_ms IS NOT NULL)
              WHERE id = OLD.target_id;
            END;
            CREATE TRIGGER forward_outbox_park AFTER UPDATE OF parked_at_ms ON forward_outbox
            WHEN (OLD.parked_at_ms IS NULL) <> (NEW.parked_at_ms IS NULL) BEGIN
              UPDATE forward_targets SET queued = queued + (NEW.parked_at_ms IS NULL) - (OLD.parked_at_ms IS NULL),
                                         parked = parked + (NEW.parked_at_ms IS NOT NULL) - (OLD.parked_at_ms IS NOT NULL)
              WHERE id = NEW.target_id;
            END;
            """)
    }

    /// Friends' songs of the day (`Store+Friends`): whom this Pacenote follows (the
    /// configuration's `[[friends]]`, replaced at each start, and those added on the site),
    /// what the poller last learnt of each feed (validators for conditional GETs, the last
    /// success and error, the backoff), and the songs their feeds gave, kept while a friend
    /// is down; a song's cover is copied here (`cover`), so pages never load another server's
    /// pictures and still show it when that server is gone.
    private static func v14Friends(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE friends (
              id                INTEGER PRIMARY KEY,
              name              TEXT NOT NULL,
              url               TEXT NOT NULL UNIQUE,     -- as given: a feed, or a page naming one
              added_by          TEXT NOT NULL CHECK (added_by IN ('config', 'site')),
              feed_url          TEXT,                     -- the feed found from url (a page's link, a permanent redirect)
              etag              TEXT,
              last_modified     TEXT,
              last_polled_at_ms INTEGER,
              last_ok_at_ms     INTEGER,
              last_error        TEXT,
              failures          INTEGER NOT NULL DEFAULT 0,  -- in a row: the backoff grows with them
              next_poll_at_ms   INTEGER,                  -- NULL: as soon as the poller runs
              created_at_ms     INTEGER NOT NULL
            );
            CREATE TABLE friend_songs (
              id             INTEGER PRIMARY KEY,
              friend_id      INTEGER NOT NULL REFERENCES friends(id) ON DELETE CASCADE,
              entry_id       TEXT NOT NULL,               -- the feed entry's id: one per day
              day            TEXT,                        -- the friend's local day, YYYY-MM-DD
              updated_at_ms  INTEGER,
              title          TEXT NOT NULL,
              artist         TEXT,
              link           TEXT,                        -- the friend's share page
              cover_url      TEXT,
              note           TEXT,
              cover          BLOB,                        -- a copy of cover_url's picture
              cover_type     TEXT,
              seen_at_ms     INTEGER NOT NULL,
              UNIQUE (friend_id, entry_id)
            );
            CREATE INDEX friend_songs_latest ON friend_songs(friend_id, day, updated_at_ms);
            """)
    }

    /// The year in review (`Store+Review`):
    /// - `rollup_track_first`: each track's first counted play's local day, so the songs first
    ///   heard in a period are an index range (and an artist's first day is its tracks'
    ///   earliest). Kept by the track rollups' triggers (created again here with its
    ///   statements, `firstPlayStatements`), so it is set aside and rebuilt wherever they are:
    ///   the bulk import writes it per batch (`ImportRollups`), a merge sums it again
    ///   (`recomputeTrackRollups`), a change of time zone rebuilds it (`alignRollups`).
    /// - `plays_zoned_by_day`: the plays that have a heart-rate zone by local day, with what a
    ///   zone's soundtrack needs (covering): a period's zoned plays without reading the others.
    /// - `review_shares`: published reviews, each behind a random token, with what the owner
    ///   chose to show; withdrawing one deletes its row.
    private static func v15Review(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE rollup_track_first (
              track_id INTEGER PRIMARY KEY REFERENCES tracks(id) ON DELETE CASCADE,
              day      TEXT NOT NULL                    -- local_day of the track's first counted play
            );
            CREATE INDEX rollup_track_first_day ON rollup_track_first(day);
            -- One pass over the plays and a sort (through plays_identity, a look-up per play: 4 times longer).
            INSERT INTO rollup_track_first (track_id, day)
              SELECT track_id, MIN(local_day) FROM plays NOT INDEXED WHERE counted = 1 GROUP BY track_id;
            CREATE INDEX plays_zoned_by_day ON plays(local_day, zone, track_id, counted, played_s) WHERE zone IS NOT NULL;
            CREATE TABLE review_shares (
              token         TEXT PRIMARY KEY NOT NULL,  -- random, in the public address
              range_from    TEXT NOT NULL,              -- the period's first day, YYYY-MM-DD
              range_to      TEXT NOT NULL,              -- its last (a year's 31 December while it is under way)
              sections      TEXT NOT NULL,              -- what it shows: ReviewSection names, comma-separated
              created_at_ms INTEGER NOT NULL
            ) WITHOUT ROWID;
            DROP TRIGGER plays_rollup_insert;
            DROP TRIGGER plays_rollup_delete;
            DROP TRIGGER plays_rollup_update;
            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(rollupStatements("NEW", adding: true, tables: trackRollups))
            \(firstPlayStatements("NEW", adding: true))
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups))
            \(firstPlayStatements("OLD", adding: false))
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups))
            \(rollupStatements("NEW", adding: true, tables: trackRollups))
            \(firstPlayStatements("OLD", adding: false))
            \(firstPlayStatements("NEW", adding: true))
            END;
            """)
    }

    /// Charts by listening time of any range read the best rows of each piece, as charts by
    /// plays do (`Store.ranked`, `RankedSum` by seconds): each year's and month's rollups of
    /// tracks, artists and albums get an index by time, and the artists' and albums' totals
    /// one as the tracks' have had since v7. Without them a range of three years summed
    /// every row of each year (119 ms p99 at 5M plays, scripts/bench/scale). They cost a bulk
    /// import about 6 % (1M plays, whole-process medians of 3 pairs). Setting every chart
    /// index aside during a large import and sorting them at its end cost 5 % more at 5M
    /// when first tried; with the WAL started over between transactions and the sort's runs
    /// in a file, it saves a quarter of a 5M import (`DeferredIndexes`).
    private static func v16ChartsByTime(_ db: Database) throws {
        for table in ["rollup_year_track", "rollup_year_artist", "rollup_year_album"] {
            try db.execute(sql: "CREATE INDEX \(table)_by_time ON \(table)(year, played_s DESC, plays DESC)")
        }
        for table in ["rollup_month_track", "rollup_month_artist", "rollup_month_album"] {
            try db.execute(sql: "CREATE INDEX \(table)_by_time ON \(table)(month, played_s DESC, plays DESC)")
        }
        try db.execute(sql: """
            CREATE INDEX rollup_artist_total_by_time ON rollup_artist_total(played_s DESC, plays DESC);
            CREATE INDEX rollup_album_total_by_time ON rollup_album_total(played_s DESC, plays DESC);
            """)
    }

    /// Artists and albums per local day (`EntityRollups.dayTables`), summed from the day's
    /// track rollup, kept by the entity triggers (created again with them) and the bulk
    /// import. Only their keys: a range of days reads its days' rows whole, in key order,
    /// and a day's rows are a few hundred at most. They cost a bulk import of 5M plays
    /// about a row per play in each (figures in docs/PERFORMANCE.md).
    private static func v17DayEntityRollups(_ db: Database) throws {
        for table in EntityRollups.dayTables {
            try createPeriodRollup(table, in: db)
            try EntityRollups.rebuild(table, halves: false, in: db)
        }
        try db.execute(sql: """
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            \(entityTriggers(EntityRollups.v7Tables + EntityRollups.monthTables + EntityRollups.dayTables))
            """)
    }

    /// v19: the tracks' check of `bpm_source` as comparisons, the same rule. SQLite (3.40)
    /// checks `x IN (five constants)` by building a temporary B-tree of the five every time a
    /// track is stored — a pager opened and closed per row, 7 % of an import of new tracks'
    /// writer. The table's SQL is changed in place (`PRAGMA writable_schema`, then a new
    /// schema version): SQLite documents that way for removing a check; here the new check
    /// accepts exactly the values the old one did, so every stored row meets it, and no row
    /// is rewritten. A tracks table whose SQL does not hold the old check (changed by hand)
    /// is left as it is: the rule is the same, only slower to check.
    static let v18SourceCheck = "CHECK (bpm_source IN ('tag', 'sticker', 'analysis', 'manual', 'import'))"
    static let v19SourceCheck = """
        CHECK (bpm_source = 'tag' OR bpm_source = 'sticker' OR bpm_source = 'analysis' OR bpm_source = 'manual' OR bpm_source = 'import')
        """

    private static func v19TrackSourceCheck(_ db: Database) throws {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        defer { try? db.execute(sql: "PRAGMA writable_schema = OFF") }
        try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, ?1, ?2) WHERE type = 'table' AND name = 'tracks' AND instr(sql, ?1)",
                       arguments: [v18SourceCheck, v19SourceCheck])
        // The new version makes every connection read the schema again (this one at its next
        // statement: a rewrite SQLite could not parse would fail the migration there).
        if db.changesCount > 0 { try db.execute(sql: "PRAGMA schema_version = \(version + 1)") }
    }

    /// v20: the month rollups of tracks, artists and albums hold their month's first half
    /// too (`MonthHalves`), summed from the day rollups; the track and entity triggers are
    /// created again to keep them (the same statements as before, and the halves').
    private static func v20MonthHalves(_ db: Database) throws {
        for (entity, id) in [("track", "track_id"), ("artist", "artist_id"), ("album", "album_id")] {
            let table = "rollup_month_\(entity)"
            try db.execute(sql: """
                ALTER TABLE \(table) ADD COLUMN first_half_plays INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE \(table) ADD COLUMN first_half_played_s REAL NOT NULL DEFAULT 0.0;
                UPDATE \(table) AS m SET first_half_plays = d.plays, first_half_played_s = d.played_s
                  FROM (SELECT substr(day, 1, 7) AS month, \(id) AS id, SUM(plays) AS plays, SUM(played_s) AS played_s
                        FROM rollup_day_\(entity) WHERE substr(day, 9) <= '\(MonthHalves.lastDayOfFirst)' GROUP BY 1, 2) d
                  WHERE m.month = d.month AND m.\(id) = d.id;
                """)
        }
        try db.execute(sql: """
            DROP TRIGGER plays_rollup_insert;
            DROP TRIGGER plays_rollup_delete;
            DROP TRIGGER plays_rollup_update;
            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(rollupStatements("NEW", adding: true, tables: trackRollups, halves: true))
            \(firstPlayStatements("NEW", adding: true))
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups, halves: true))
            \(firstPlayStatements("OLD", adding: false))
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(rollupStatements("OLD", adding: false, tables: trackRollups, halves: true))
            \(rollupStatements("NEW", adding: true, tables: trackRollups, halves: true))
            \(firstPlayStatements("OLD", adding: false))
            \(firstPlayStatements("NEW", adding: true))
            END;
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            \(entityTriggers(EntityRollups.v7Tables + EntityRollups.monthTables + EntityRollups.dayTables, halves: true))
            """)
    }

    /// v23: the search index without its per-row column sizes (FTS5's `columnsize=0`). They
    /// serve only ranking by relevance (bm25), which no search here does (a search filters
    /// the plays: `Store+Plays`); without them an index row is a third cheaper to write, which
    /// an import of new music pays once per track. Built again from `tracks`.
    private static func v23SearchWithoutSizes(_ db: Database) throws {
        try db.execute(sql: """
            DROP TABLE tracks_fts;
            CREATE VIRTUAL TABLE tracks_fts USING fts5(
              title, artist, album, content = 'tracks', content_rowid = 'id',
              tokenize = 'unicode61 remove_diacritics 2', columnsize = 0
            );
            INSERT INTO tracks_fts (tracks_fts) VALUES ('rebuild');
            """)
    }

    /// The Last.fm protocols' credentials made as strong as the keys (`ScrobblerCredentials`):
    /// `api_keys.key_md5_sealed`, md5(key) sealed with a secret kept outside the database
    /// (the plain `key_md5` of older keys is sealed and cleared when the server starts, as
    /// only it has the secret: `Store.sealScrobblerMD5s`); sessions that end 90 days after
    /// their last use (`last_used_at_ms`); and the tokens already used, refused when sent
    /// again (`expires_at_ms`: when a 1.2 token's timestamp is too old to be taken anyway;
    /// NULL for 2.0's, which carry no time and are remembered while their key lives).
    private static func v25ScrobblerCredentials(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE api_keys ADD COLUMN key_md5_sealed TEXT;
            ALTER TABLE scrobble_sessions ADD COLUMN last_used_at_ms INTEGER;
            CREATE INDEX scrobble_sessions_key ON scrobble_sessions(key_sha256);
            CREATE TABLE scrobble_tokens_used (
              token_id      TEXT PRIMARY KEY,        -- ScrobblerCredentials.tokenID: a hash, not the token
              key_sha256    TEXT NOT NULL,           -- the key it logged in with
              expires_at_ms INTEGER                  -- forgotten after; NULL: while the key lives
            ) WITHOUT ROWID;
            CREATE INDEX scrobble_tokens_used_key ON scrobble_tokens_used(key_sha256);
            """)
    }

    /// The statements that keep `rollup_track_first` as a counted play comes (`NEW`) or goes
    /// (`OLD`): a new play moves its track's first day earlier. A play that leaves its track's
    /// first day takes the row with it; the day comes back at once when another counted play
    /// of the track has it (looked up by the track and a start within two days, through
    /// `plays_identity`); otherwise it is the earliest day of the track's counted plays (a
    /// read of them: once per first day emptied, not per play).
    static func firstPlayStatements(_ row: String, adding: Bool) -> String {
        if adding {
            return """
                INSERT INTO rollup_track_first (track_id, day) SELECT \(row).track_id, \(row).local_day WHERE \(row).counted = 1
                  ON CONFLICT (track_id) DO UPDATE SET day = excluded.day WHERE excluded.day < rollup_track_first.day;
                """
        }
        let missing = "\(row).counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = \(row).track_id)"
        return """
            DELETE FROM rollup_track_first WHERE \(row).counted = 1 AND track_id = \(row).track_id AND day = \(row).local_day;
            INSERT INTO rollup_track_first (track_id, day) SELECT \(row).track_id, \(row).local_day WHERE \(missing)
              AND EXISTS (SELECT 1 FROM plays WHERE track_id = \(row).track_id
                            AND started_at_ms BETWEEN \(row).started_at_ms - 172800000 AND \(row).started_at_ms + 172800000
                            AND counted = 1 AND local_day = \(row).local_day);
            INSERT INTO rollup_track_first (track_id, day)
              SELECT \(row).track_id, (SELECT MIN(local_day) FROM plays WHERE track_id = \(row).track_id AND counted = 1)
              WHERE \(missing) AND EXISTS (SELECT 1 FROM plays WHERE track_id = \(row).track_id AND counted = 1);
            """
    }
}
