import Dispatch
import Foundation
import PacenoteCore
import PacenoteStore

/// The songs that made you faster (`PaceEffect`), on the heart-rate service's queue: a
/// workout's plays are measured when it ends or is imported (`summarise`); a write that brings
/// plays or motion for an ended workout's time later (a phone's listens, an import, motion
/// uploaded late, an undone deletion) marks it in the same transaction, and the marked ones are
/// measured here in the background (`catchUpPaces`), a few at a time.
extension HeartRateService {
    /// Measures the plays of a run against the minutes before them and stores the effects;
    /// a workout of another sport, or one that cannot be measured, is marked measured with none.
    func measurePaces(of workout: Workout, end: Date) throws(StoreError) {
        var effects: [PaceEffect.Measured] = []
        if PaceEffect.countsAsRun(sport: workout.sport) {
            let motion = try store.motionSamples(from: workout.startedAt, to: end)
            if !motion.isEmpty {
                let plays = try store.plays(overlapping: workout.startedAt, end).compactMap { p in
                    p.play.id.map { PaceEffect.Play(id: $0, start: p.play.startedAt, end: p.play.endedAt) }
                }
                effects = PaceEffect.measure(plays, motion: motion)
            }
        }
        try operations.setPaceEffects(workoutID: workout.id, effects)
    }

    /// Measures the workouts waiting for it for up to `budget` seconds on the queue, then
    /// lets readings through and goes on later: years of runs marked by an import never hold
    /// a strap's reading for long. One that fails is logged and marked measured with none, so
    /// the rest are not held behind it.
    func catchUpPaces(budget: TimeInterval = 0.05) {
        let started = Date()
        do {
            while Date().timeIntervalSince(started) < budget {
                let stale = try store.workoutsNeedingPaceEffects(limit: 8)
                if stale.isEmpty { return }
                for workout in stale {
                    do {
                        try measurePaces(of: workout, end: workout.endedAt ?? workout.startedAt)
                    } catch {
                        logger.error("measuring the songs' effect on pace in workout \(workout.id): \(error)")
                        try operations.setPaceEffects(workoutID: workout.id, [])
                    }
                }
            }
            schedulePaceCatchUp()
        } catch {
            logger.error("measuring the songs' effect on pace: \(error)")
        }
    }

    /// Catches up after what the queue is doing now (a reading, an upload's answer).
    func schedulePaceCatchUp() {
        queue.async { [weak self] in self?.catchUpPaces() }
    }

    /// A play logged for the time of an ended workout (a phone's listens sent after the run):
    /// that workout is marked and measured again. Most plays fall in no workout: a read tells,
    /// and nothing is written for them (a client's batch of a thousand old listens is a thousand
    /// plays logged).
    func playLoggedLate(from: Date, to: Date) {
        do {
            guard try store.hasMeasuredWorkout(from: from, to: to) else { return }
            if try operations.markPacesStale(from: from, to: to) > 0 { schedulePaceCatchUp() }
        } catch {
            logger.error("marking a workout to measure again: \(error)")
        }
    }
}
