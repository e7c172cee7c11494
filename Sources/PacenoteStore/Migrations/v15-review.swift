import GRDB
import PacenoteCore

/// Migration "v15.review" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A play added to v15's rollups of tracks and hours (`NEW`), and taken from them (`OLD`).
    static let v15TrackTriggersAdd = [v1RollupsAddNew, v8MonthTrackAddNew].joined(separator: "\n")
    static let v15TrackTriggersRemove = [v1RollupsRemoveOld, v8MonthTrackRemoveOld].joined(separator: "\n")

    /// A counted play (`NEW`) moves its track's first day earlier. (Frozen with this migration; later
    /// ones that create the triggers again reuse it.)
    static let v15FirstAddNew = """
        INSERT INTO rollup_track_first (track_id, day) SELECT NEW.track_id, NEW.local_day WHERE NEW.counted = 1
          ON CONFLICT (track_id) DO UPDATE SET day = excluded.day WHERE excluded.day < rollup_track_first.day;
        """
    /// A counted play (`OLD`) that leaves its track's first day takes the row with it; the day comes
    /// back at once when another counted play of the track has it (looked up by the track and a start
    /// within two days, through `plays_identity`); otherwise it is the earliest day of the track's
    /// counted plays (a read of them: once per first day emptied, not per play). (Frozen with this
    /// migration; later ones that create the triggers again reuse it.)
    static let v15FirstRemoveOld = """
        DELETE FROM rollup_track_first WHERE OLD.counted = 1 AND track_id = OLD.track_id AND day = OLD.local_day;
        INSERT INTO rollup_track_first (track_id, day) SELECT OLD.track_id, OLD.local_day WHERE OLD.counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = OLD.track_id)
          AND EXISTS (SELECT 1 FROM plays WHERE track_id = OLD.track_id
                        AND started_at_ms BETWEEN OLD.started_at_ms - 172800000 AND OLD.started_at_ms + 172800000
                        AND counted = 1 AND local_day = OLD.local_day);
        INSERT INTO rollup_track_first (track_id, day)
          SELECT OLD.track_id, (SELECT MIN(local_day) FROM plays WHERE track_id = OLD.track_id AND counted = 1)
          WHERE OLD.counted = 1 AND NOT EXISTS (SELECT 1 FROM rollup_track_first WHERE track_id = OLD.track_id) AND EXISTS (SELECT 1 FROM plays WHERE track_id = OLD.track_id AND counted = 1);
        """

    /// The year in review (`Store+Review`):
    /// - `rollup_track_first`: each track's first counted play's local day, so the songs first
    ///   heard in a period are an index range (and an artist's first day is its tracks'
    ///   earliest). Kept by the track rollups' triggers (created again here with its
    ///   statements, `v15FirstAddNew`, `v15FirstRemoveOld`), so it is set aside and rebuilt wherever they are:
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
            \(v15TrackTriggersAdd)
            \(v15FirstAddNew)
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(v15TrackTriggersRemove)
            \(v15FirstRemoveOld)
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v15TrackTriggersRemove)
            \(v15TrackTriggersAdd)
            \(v15FirstRemoveOld)
            \(v15FirstAddNew)
            END;
            """)
    }
}
