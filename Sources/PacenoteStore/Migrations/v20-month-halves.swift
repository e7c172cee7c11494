import GRDB
import PacenoteCore

/// Migration "v20.month-halves" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// A play added to v20's rollups of tracks and hours (`NEW`), and taken from them (`OLD`).
    static let v20TrackTriggersAdd = [v1RollupsAddNew, v20MonthTrackAddNew].joined(separator: "\n")
    static let v20TrackTriggersRemove = [v1RollupsRemoveOld, v20MonthTrackRemoveOld].joined(separator: "\n")

    /// A play added to v20's rollups of artists and albums and its totals (`NEW`), and taken from them (`OLD`).
    static let v20EntityTriggersAdd = [v7EntityAddNew, v20MonthEntityAddNew, v17DayEntityAddNew,
                                       v7PeriodsAddNew, v8MonthTotalAddNew].joined(separator: "\n")
    static let v20EntityTriggersRemove = [v7EntityRemoveOld, v20MonthEntityRemoveOld, v17DayEntityRemoveOld,
                                          v7PeriodsRemoveOld, v8MonthTotalRemoveOld].joined(separator: "\n")

    /// A play (`NEW`) added to `rollup_month_track` with its halves (days 1 to 15: its counted play and
    /// seconds, else 0). (Frozen with this migration; later ones that create the triggers again reuse
    /// it.)
    static let v20MonthTrackAddNew = """
        INSERT INTO rollup_month_track (month, track_id, plays, skips, played_s, first_half_plays, first_half_played_s)
          VALUES (substr(NEW.local_day, 1, 7), NEW.track_id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END)
          ON CONFLICT (month, track_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
        """
    /// A play (`OLD`) taken from it and its halves. (Frozen with this migration; later ones that create
    /// the triggers again reuse it.)
    static let v20MonthTrackRemoveOld = """
        UPDATE rollup_month_track
          SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted), played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END)
          WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id;
        DELETE FROM rollup_month_track WHERE month = substr(OLD.local_day, 1, 7) AND track_id = OLD.track_id AND plays = 0 AND skips = 0;
        """
    /// A play (`NEW`) added to the months' rollups of artists and albums with their halves. (Frozen
    /// with this migration; later ones that create the triggers again reuse it.)
    static let v20MonthEntityAddNew = """
        INSERT INTO rollup_month_artist (month, artist_id, plays, skips, played_s, first_half_plays, first_half_played_s)
          SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END
          FROM (SELECT artist_id AS id FROM track_artists WHERE track_id = NEW.track_id AND artist_id IS NOT NULL) e WHERE true
          ON CONFLICT (month, artist_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
        INSERT INTO rollup_month_album (month, album_id, plays, skips, played_s, first_half_plays, first_half_played_s)
          SELECT substr(NEW.local_day, 1, 7), e.id, NEW.counted, 1 - NEW.counted, NEW.played_s, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.counted ELSE 0 END, CASE WHEN substr(NEW.local_day, 9) <= '15' THEN NEW.played_s ELSE 0.0 END
          FROM (SELECT album_id AS id FROM tracks WHERE id = NEW.track_id AND album_id IS NOT NULL) e WHERE true
          ON CONFLICT (month, album_id) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips, played_s = played_s + excluded.played_s, first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s + excluded.first_half_played_s;
        """
    /// A play (`OLD`) taken from them and their halves. (Frozen with this migration; later ones that
    /// create the triggers again reuse it.)
    static let v20MonthEntityRemoveOld = """
        UPDATE rollup_month_artist SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END) WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL);
        DELETE FROM rollup_month_artist WHERE month = substr(OLD.local_day, 1, 7) AND artist_id IN (SELECT artist_id AS id FROM track_artists WHERE track_id = OLD.track_id AND artist_id IS NOT NULL) AND plays = 0 AND skips = 0;
        UPDATE rollup_month_album SET plays = plays - OLD.counted, skips = skips - (1 - OLD.counted),
          played_s = played_s - OLD.played_s, first_half_plays = first_half_plays - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.counted ELSE 0 END), first_half_played_s = first_half_played_s - (CASE WHEN substr(OLD.local_day, 9) <= '15' THEN OLD.played_s ELSE 0.0 END) WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL);
        DELETE FROM rollup_month_album WHERE month = substr(OLD.local_day, 1, 7) AND album_id IN (SELECT album_id AS id FROM tracks WHERE id = OLD.track_id AND album_id IS NOT NULL) AND plays = 0 AND skips = 0;
        """

    /// v20: the month rollups of tracks, artists and albums hold their month's first half
    /// too (`MonthHalves`), summed from the day rollups; the track and entity triggers are
    /// created again to keep them (the same statements as before, and the halves').
    static func v20MonthHalves(_ db: Database) throws {
        for (entity, id) in [("track", "track_id"), ("artist", "artist_id"), ("album", "album_id")] {
            let table = "rollup_month_\(entity)"
            try db.execute(sql: """
                ALTER TABLE \(table) ADD COLUMN first_half_plays INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE \(table) ADD COLUMN first_half_played_s REAL NOT NULL DEFAULT 0.0;
                UPDATE \(table) AS m SET first_half_plays = d.plays, first_half_played_s = d.played_s
                  FROM (SELECT substr(day, 1, 7) AS month, \(id) AS id, SUM(plays) AS plays, SUM(played_s) AS played_s
                        FROM rollup_day_\(entity) WHERE substr(day, 9) <= '15' GROUP BY 1, 2) d
                  WHERE m.month = d.month AND m.\(id) = d.id;
                """)
        }
        try db.execute(sql: """
            DROP TRIGGER plays_rollup_insert;
            DROP TRIGGER plays_rollup_delete;
            DROP TRIGGER plays_rollup_update;
            CREATE TRIGGER plays_rollup_insert AFTER INSERT ON plays BEGIN
            \(v20TrackTriggersAdd)
            \(v15FirstAddNew)
            END;
            CREATE TRIGGER plays_rollup_delete AFTER DELETE ON plays BEGIN
            \(v20TrackTriggersRemove)
            \(v15FirstRemoveOld)
            END;
            CREATE TRIGGER plays_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v20TrackTriggersRemove)
            \(v20TrackTriggersAdd)
            \(v15FirstRemoveOld)
            \(v15FirstAddNew)
            END;
            DROP TRIGGER plays_entity_rollup_insert;
            DROP TRIGGER plays_entity_rollup_delete;
            DROP TRIGGER plays_entity_rollup_update;
            CREATE TRIGGER plays_entity_rollup_insert AFTER INSERT ON plays BEGIN
            \(v20EntityTriggersAdd)
            END;
            CREATE TRIGGER plays_entity_rollup_delete AFTER DELETE ON plays BEGIN
            \(v20EntityTriggersRemove)
            END;
            CREATE TRIGGER plays_entity_rollup_update
            AFTER UPDATE OF track_id, counted, played_s, local_day, local_hour ON plays BEGIN
            \(v20EntityTriggersRemove)
            \(v20EntityTriggersAdd)
            END;
            """)
    }
}
