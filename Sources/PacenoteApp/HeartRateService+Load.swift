import Dispatch
import Foundation
import PacenoteCore
import PacenoteStore

/// Training load and resting HRV readings, on the heart-rate service's queue like the rest.
extension HeartRateService {
    /// Stores a workout's TRIMP from its readings, under the zone settings it began with; it
    /// ends when a workout ends, is imported or found in samples uploaded late (`summarise`).
    func storeLoad(of workout: Workout, end: Date) throws(StoreError) {
        let samples = try store.samples(from: workout.startedAt, to: end)
        let zones = zoneSettings.model(settingsID: workout.zoneSettingsID, at: workout.startedAt)
        try operations.setWorkoutLoad(id: workout.id, TRIMP(samples, end: end, athlete: athlete, zones: zones),
                                      basis: athlete.trimpBasis)
    }

    /// Loads missing (workouts from before training load existed) or computed with other
    /// `[athlete]` figures, in batches so that readings arriving meanwhile wait at most one;
    /// then resting readings whose window passed while the server was down.
    func catchUp() {
        do {
            let stale = try store.workoutsNeedingLoad(basis: athlete.trimpBasis, limit: 200)
            for workout in stale { try storeLoad(of: workout, end: workout.endedAt ?? workout.startedAt) }
            if stale.count == 200 {
                queue.async { [weak self] in self?.catchUp() }
                return
            }
            if !stale.isEmpty { logger.info("training load computed for older workouts") }
            for reading in try store.pendingHRVReadings() { schedule(reading) }
        } catch {
            logger.error("computing training load: \(error)")
        }
    }

    /// Starts a resting HRV reading over `seconds` from `start` (now, or earlier: readings
    /// already stored). It is completed when its window has passed: at once for one in the
    /// past, else by a timer on this queue.
    public func startRestingReading(from start: Date, seconds: Double, now: Date) throws(StoreError) -> HRVReading {
        try queue.sync { () -> Result<HRVReading, StoreError> in
            do throws(StoreError) {
                let reading = try operations.startHRVReading(at: start, ends: start.addingTimeInterval(seconds))
                if reading.endsAt <= now { return .success(try operations.completeHRVReading(reading)) }
                schedule(reading)
                return .success(reading)
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// Completes `reading` once its window has passed (a second later: the last readings of
    /// the window may still be on their way).
    func schedule(_ reading: HRVReading) {
        let wait = max(0, reading.endsAt.timeIntervalSinceNow) + 1
        queue.asyncAfter(deadline: .now() + wait) { [weak self] in
            guard let self else { return }
            do {
                try operations.completeHRVReading(reading)
            } catch {
                logger.error("completing HRV reading \(reading.id): \(error)")
            }
        }
    }
}
