import Dispatch
import Foundation
import PacenoteCore
import PacenoteStore

/// The songs that made you faster (`PaceEffect`), on the heart-rate service's queue: a
/// workout's plays are measured when it ends or is imported (`summarise`), and again when
/// plays or motion come for its time later (marked in the same write, measured here).
extension HeartRateService {
    /// Measures the plays of a run against the minutes before them and stores the effects;
    /// a workout of another sport is marked measured with none.
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

    /// Measures the workouts waiting for it, a batch at a time so that readings arriving
    /// meanwhile wait for one batch at most.
    func catchUpPaces() {
        do {
            let batch = 20
            let stale = try store.workoutsNeedingPaceEffects(limit: batch)
            for workout in stale { try measurePaces(of: workout, end: workout.endedAt ?? workout.startedAt) }
            if stale.count == batch { queue.async { [weak self] in self?.catchUpPaces() } }
        } catch {
            logger.error("measuring the songs' effect on pace: \(error)")
        }
    }

    /// A play logged for the time of an ended workout (a phone's listens sent after the run):
    /// that workout is measured again.
    func playLoggedLate(from: Date, to: Date) {
        do {
            if try operations.markPacesStale(from: from, to: to) > 0 { catchUpPaces() }
        } catch {
            logger.error("marking a workout to measure again: \(error)")
        }
    }

    /// Plays imported (any time): every workout is measured again, in the background.
    func playsImported() {
        do {
            if try operations.markAllPacesStale() > 0 { catchUpPaces() }
        } catch {
            logger.error("marking workouts to measure again: \(error)")
        }
    }
}
