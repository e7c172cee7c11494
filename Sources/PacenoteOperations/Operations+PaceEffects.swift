import Foundation
import PacenoteCore
import PacenoteStore

/// The songs that made you faster: each run's plays measured against the minutes before them
/// (`PaceEffect`), stored per play by the heart-rate service when a workout ends or is
/// imported, and measured again when plays or motion arrive for its time later.
extension Operations {
    /// Stores a workout's measured plays (replacing what was there) and announces them when
    /// they changed (`.paceEffects`; measured again the same, nothing is said).
    public func setPaceEffects(workoutID: Int64, _ effects: [PaceEffect.Measured], at now: Date = Date()) throws(StoreError) {
        if try store.setPaceEffects(workoutID: workoutID, effects, at: now) { announce(.paceEffects(workoutID: workoutID)) }
    }

    /// Marks the ended workouts overlapping [from, to] to be measured again (a play or motion
    /// came for their time); the heart-rate service measures them (`workoutsNeedingPaceEffects`).
    /// Nothing shown changes until then, so nothing is announced. Returns how many.
    @discardableResult
    public func markPacesStale(from: Date, to: Date) throws(StoreError) -> Int {
        try store.markPacesStale(from: from, to: to)
    }

}
