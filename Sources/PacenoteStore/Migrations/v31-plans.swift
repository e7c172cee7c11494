import GRDB

/// Migration "v31.plans" (registered in `Schema.migrator`). Never edit it once shipped: add a new one.
extension Schema {
    /// Workouts you plan (issue 55): `plans` holds the templates — each a `WorkoutPlan` in the
    /// JSON the API writes (`WorkoutPlan.json`), with its name (unique, case folded: `pacenote
    /// workout start NAME` finds it) and its fixed length for lists. A workout records the plan
    /// it ran twice: `plan_id` (the template, NULL once deleted) and `plan_json` (the plan as
    /// it was when started: editing a template later does not rewrite past workouts), and
    /// `plan_started_at_ms` when it began following it (an auto-detected warm-up may come first).
    /// `workout_plan_marks` holds the runner's presses (next segment, pause, resume): with the
    /// start and the plan they say which segment ran when (`PlanProgress`).
    static func v31Plans(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE plans (
              id            INTEGER PRIMARY KEY,
              name          TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
              plan_json     TEXT NOT NULL,
              seconds       INTEGER NOT NULL CHECK (seconds >= 0),   -- without open-ended segments
              open_ended    INTEGER NOT NULL CHECK (open_ended IN (0, 1)),
              created_at_ms INTEGER NOT NULL,
              updated_at_ms INTEGER NOT NULL
            );
            CREATE UNIQUE INDEX plans_name ON plans(name COLLATE NOCASE);
            ALTER TABLE workouts ADD COLUMN plan_id INTEGER REFERENCES plans(id) ON DELETE SET NULL;
            ALTER TABLE workouts ADD COLUMN plan_json TEXT;
            ALTER TABLE workouts ADD COLUMN plan_started_at_ms INTEGER;   -- a workout in progress may take a plan later
            CREATE INDEX workouts_plan ON workouts(plan_id, started_at_ms) WHERE plan_id IS NOT NULL;
            CREATE TABLE workout_plan_marks (
              workout_id INTEGER NOT NULL REFERENCES workouts(id) ON DELETE CASCADE,
              at_ms      INTEGER NOT NULL,
              seq        INTEGER NOT NULL,                            -- order within a millisecond
              kind       TEXT NOT NULL CHECK (kind IN ('next', 'pause', 'resume')),
              PRIMARY KEY (workout_id, at_ms, seq)
            ) WITHOUT ROWID;
            """)
    }
}
