import GRDB
import PacenoteCore

/// Migration "v27.training-load-and-hrv" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Training load and resting heart-rate variability (issue 54, points 3 and 4).
    ///
    /// A workout's TRIMP is stored when it ends or is imported (`TRIMP`), so that the
    /// fitness/fatigue chart over years reads one number per workout, not every reading
    /// (five years of daily hour-long workouts at 1 Hz are 6.5M samples). `trimp_basis` names
    /// the `[athlete]` figures it was computed with (`Athlete.trimpBasis`): when they change,
    /// the server computes the stored loads again (`HeartRateService`), and workouts stored
    /// before this migration (NULL) get theirs the same way.
    ///
    /// `hrv_readings`: resting readings, two minutes still with the strap on. A reading is
    /// stored when it starts (`done` 0, its figures NULL) and completed from the RR intervals
    /// stored in its window once that has passed; figures stay NULL when the strap sent too
    /// few clean intervals.
    static func v27TrainingLoadAndHRV(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE workouts ADD COLUMN trimp REAL;
            ALTER TABLE workouts ADD COLUMN trimp_zones TEXT;     -- the same load by zone, JSON [z0 … z5]
            ALTER TABLE workouts ADD COLUMN trimp_basis TEXT;
            CREATE TABLE hrv_readings (
              id          INTEGER PRIMARY KEY,
              started_at_ms INTEGER NOT NULL,
              ends_at_ms  INTEGER NOT NULL,
              done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
              rmssd_ms    REAL,
              sdnn_ms     REAL,
              mean_nn_ms  REAL,
              beats       INTEGER,
              outliers    INTEGER,
              ectopic     INTEGER,
              CHECK (ends_at_ms > started_at_ms)
            );
            CREATE INDEX hrv_readings_started ON hrv_readings(started_at_ms);
            """)
    }
}
