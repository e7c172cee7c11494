import GRDB
import PacenoteCore

/// Migration "v15.review" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
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
    static func v15Review(_ db: Database) throws {
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
}
