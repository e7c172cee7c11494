import GRDB
import PacenoteCore

/// Migration "v11.rules" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Rules (`Store+Rules`): what to ignore, hide or rewrite at ingest and in the past.
    /// Hidden plays are logged in `hidden_plays`, the same columns as `plays` but no rollup
    /// triggers: every chart, song of the day, streak and the recommender read `plays` and
    /// its rollups, so they leave hidden plays out without a change to any of them.
    static func v11Rules(_ db: Database) throws {
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
}
