import GRDB
import PacenoteCore

/// Migration "v26.motion-samples" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// What a workout records beyond heart rate (issue 54), in `MotionSample`'s SI units:
    /// `motion_samples` beside `hr_samples`, one row per source and time, each value checked
    /// against what a body on foot or on a bike can do (the readers drop the rest first,
    /// `MotionCleaning`; the checks are the last word); positions only with
    /// `[workouts] keep_positions`. A workout's laps as the device marked them, and the
    /// calories the device counted.
    static func v26MotionSamples(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE motion_samples (
              source   TEXT NOT NULL,                   -- as hr_samples.source: 'import:fit', 'http', …
              at_ms    INTEGER NOT NULL,
              speed    REAL CHECK (speed IS NULL OR speed BETWEEN 0 AND 42),            -- m/s (150 km/h)
              distance REAL CHECK (distance IS NULL OR distance BETWEEN 0 AND 10000000), -- m from the start
              altitude REAL CHECK (altitude IS NULL OR altitude BETWEEN -500 AND 9000),  -- m
              cadence  REAL CHECK (cadence IS NULL OR cadence BETWEEN 0 AND 300),        -- steps or rpm a minute
              power    REAL CHECK (power IS NULL OR power BETWEEN 0 AND 3000),           -- W
              lat      REAL CHECK (lat IS NULL OR lat BETWEEN -90 AND 90),               -- degrees
              lon      REAL CHECK (lon IS NULL OR lon BETWEEN -180 AND 180),
              CHECK ((lat IS NULL) = (lon IS NULL)),
              PRIMARY KEY (source, at_ms)
            ) WITHOUT ROWID;
            CREATE INDEX motion_samples_at ON motion_samples(at_ms);

            CREATE TABLE workout_laps (
              workout_id INTEGER NOT NULL REFERENCES workouts(id) ON DELETE CASCADE,
              start_ms   INTEGER NOT NULL,
              end_ms     INTEGER NOT NULL,
              calories   REAL CHECK (calories IS NULL OR calories BETWEEN 0 AND 100000),  -- kcal
              CHECK (end_ms >= start_ms),
              PRIMARY KEY (workout_id, start_ms)
            ) WITHOUT ROWID;

            ALTER TABLE workouts ADD COLUMN calories REAL CHECK (calories IS NULL OR calories BETWEEN 0 AND 100000);
            """)
    }
}
