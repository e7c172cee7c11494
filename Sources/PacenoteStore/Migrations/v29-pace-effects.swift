import GRDB
import PacenoteCore

/// Migration "v29.pace-effects" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// The songs that made you faster (issue 54, point 5): each play of a run measured against
    /// the minutes before it (`PaceEffect`), stored when its workout ends or is imported, so
    /// that years of runs are put together per song without reading their samples again.
    /// `workouts.paces_measured_ms` says when a workout's plays were measured; NULL: not yet
    /// (workouts from before, or whose plays or motion changed since), which the heart-rate
    /// service catches up on.
    static func v29PaceEffects(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE pace_effects (
              play_id        INTEGER PRIMARY KEY REFERENCES plays(id) ON DELETE CASCADE,
              workout_id     INTEGER NOT NULL REFERENCES workouts(id) ON DELETE CASCADE,
              speed_before   REAL NOT NULL CHECK (speed_before > 0 AND speed_before <= 42),   -- m/s, moving
              speed_during   REAL NOT NULL CHECK (speed_during >= 0 AND speed_during <= 42),
              cadence_before REAL CHECK (cadence_before IS NULL OR cadence_before BETWEEN 0 AND 300),
              cadence_during REAL CHECK (cadence_during IS NULL OR cadence_during BETWEEN 0 AND 300)
            );
            CREATE INDEX pace_effects_workout ON pace_effects(workout_id);
            ALTER TABLE workouts ADD COLUMN paces_measured_ms INTEGER;
            -- The workouts waiting to be measured, found without reading every workout.
            CREATE INDEX workouts_paces_pending ON workouts(started_at_ms) WHERE paces_measured_ms IS NULL AND ended_at_ms IS NOT NULL;
            """)
    }
}
