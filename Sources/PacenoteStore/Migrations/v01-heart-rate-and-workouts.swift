import GRDB
import PacenoteCore

/// Migration "v1.heart-rate-and-workouts" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    static func v1HeartRateAndWorkouts(_ db: Database) throws {
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
}
