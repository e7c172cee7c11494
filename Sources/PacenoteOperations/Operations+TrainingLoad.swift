import Foundation
import PacenoteCore
import PacenoteStore

/// Training load and resting heart-rate variability: figures the heart-rate service derives
/// from the samples and stores (`TRIMP`, `HeartRateVariability`).
extension Operations {
    /// Stores a workout's load (and the `[athlete]` basis it was computed on); announced as a
    /// change of that workout, which the training-load chart follows.
    public func setWorkoutLoad(id: Int64, _ load: TRIMP, basis: String) throws(StoreError) {
        try store.setWorkoutLoad(id: id, load, basis: basis)
        announce(.workout(id: id))
    }

    /// Starts a resting HRV reading over [at, ends].
    public func startHRVReading(at: Date, ends: Date) throws(StoreError) -> HRVReading {
        let reading = try store.startHRVReading(at: at, ends: ends)
        announce(.heartRateSamples)
        return reading
    }

    /// Completes a resting reading from the RR intervals stored in its window.
    @discardableResult
    public func completeHRVReading(_ reading: HRVReading) throws(StoreError) -> HRVReading {
        let figures = HeartRateVariability(rr: try store.rrIntervals(from: reading.startedAt, to: reading.endsAt))
        try store.completeHRVReading(id: reading.id, figures)
        announce(.heartRateSamples)
        var done = reading
        done.figures = figures
        done.done = true
        return done
    }
}
