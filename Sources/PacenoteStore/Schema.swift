import GRDB
import PacenoteCore

/// Pacenote's schema, as named migrations recorded in GRDB's `grdb_migrations` table.
///
/// Each migration is a file of its own in `Migrations/` (`v07-entity-rollups.swift`), named
/// after it; this file registers them in order.
///
/// Rules for everyone who adds a migration:
/// - Never edit or rename a migration that has shipped: add a new one. A database created
///   by any earlier version must open in every later one (`Tests/PacenoteStoreTests/Fixtures`,
///   `OldVersionMigrationTests`).
/// - A migration is frozen: its SQL is literal text in its file (or an earlier migration's
///   frozen text, such as `v1RollupsAddNew`), never made by live code that may change later
///   (a generator, a type's constants, a store helper). Where it must transform rows in
///   Swift, the transformation is frozen into its file, or the live function it calls is
///   pinned by a golden test (`FrozenFunctionTests`), its file saying which and why.
///   `OldVersionMigrationTests` pins what each one leaves (`Fixtures/migrations.golden`):
///   record a new migration there once, when it is added.
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
        m.registerMigration("v18.ranking-heads", foreignKeyChecks: .immediate, migrate: v18RankingHeads)
        // (Immediate foreign-key checks: GRDB's deferred check reads every reference of a
        // long history, and this migration changes none.)
        m.registerMigration("v19.track-source-check", foreignKeyChecks: .immediate, migrate: v19TrackSourceCheck)
        m.registerMigration("v20.month-halves", foreignKeyChecks: .immediate, migrate: v20MonthHalves)
        m.registerMigration("v21.day-heads", foreignKeyChecks: .immediate, migrate: v21DayHeads)
        m.registerMigration("v22.year-chart-lengths", foreignKeyChecks: .immediate, migrate: v22YearChartLengths)
        m.registerMigration("v23.search-without-sizes", foreignKeyChecks: .immediate, migrate: v23SearchWithoutSizes)
        m.registerMigration("v24.review-share-snapshots", foreignKeyChecks: .immediate, migrate: v24ReviewShareSnapshots)
        m.registerMigration("v25.scrobbler-credentials", foreignKeyChecks: .immediate, migrate: v25ScrobblerCredentials)
        m.registerMigration("v26.motion-samples", foreignKeyChecks: .immediate, migrate: v26MotionSamples)
        m.registerMigration("v27.training-load-and-hrv", foreignKeyChecks: .immediate, migrate: v27TrainingLoadAndHRV)
        m.registerMigration("v28.curation-facts", foreignKeyChecks: .immediate, migrate: v28CurationFacts)
        m.registerMigration("v29.pace-effects", foreignKeyChecks: .immediate, migrate: v29PaceEffects)
        m.registerMigration("v30.genres", foreignKeyChecks: .immediate, migrate: v30Genres)
        m.registerMigration("v31.plans", foreignKeyChecks: .immediate, migrate: v31Plans)
        m.registerMigration("v32.tempo-plays", foreignKeyChecks: .immediate, migrate: v32TempoPlays)
        m.registerMigration("v33.beat-confidence", foreignKeyChecks: .immediate, migrate: v33BeatConfidence)
        m.registerMigration("v34.playlists-loudness", foreignKeyChecks: .immediate, migrate: v34PlaylistsLoudness)
        return m
    }

    /// The rollups as the old migrations created their triggers (today's are declared in
    /// `Rollups.all`, and their triggers made from it at open: `RollupTriggers`).
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

    /// The statements that keep `rollup_track_first` as a counted play comes (`NEW`) or goes
    /// (`OLD`): a new play moves its track's first day earlier. A play that leaves its track's
    /// first day takes the row with it; the day comes back at once when another counted play
    /// of the track has it (looked up by the track and a start within two days, through
    /// `plays_identity`); otherwise it is the earliest day of the track's counted plays (a
    /// read of them: once per first day emptied, not per play).
    /// (Live code's: v15 and v20 carry their own frozen copy, `v15FirstAddNew` and `v15FirstRemoveOld`.)
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
