import Foundation
import PacenoteCore
import PacenoteStore

/// The live heart rate as the API shows it.
public struct LiveHeartRate: Equatable, Sendable {
    public var bpm: Double
    public var zone: Zone
    public var at: Date
    /// The workout in progress, if any.
    public var workoutID: Int64?

    public init(bpm: Double, zone: Zone, at: Date, workoutID: Int64?) {
        self.bpm = bpm
        self.zone = zone
        self.at = at
        self.workoutID = workoutID
    }
}

/// What the API needs from the heart-rate service (PacenoteApp's `HeartRateService`).
public protocol HeartRateBackend: Sendable {
    /// Stores samples from `source`; returns how many were new.
    func ingest(_ samples: [HeartRateSample], source: String) throws(StoreError) -> Int
    /// The smoothed heart rate while fresh, else nil.
    func current(now: Date) -> LiveHeartRate?
    /// The zone of `bpm` under the settings in force at `at`.
    func zone(at: Date, bpm: Double) -> Zone
    func startWorkout(name: String?, now: Date) throws(StoreError) -> Int64
    /// Stops the workout `id` if it is the one in progress.
    func stopWorkout(id: Int64, now: Date) throws(StoreError) -> Bool
}
