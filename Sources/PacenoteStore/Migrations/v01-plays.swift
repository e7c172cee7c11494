import GRDB
import PacenoteCore

/// Migration "v1.plays" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v1Plays(_ db: Database) throws {
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
}
