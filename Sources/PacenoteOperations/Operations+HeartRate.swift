import Foundation
import PacenoteCore
import PacenoteStore

/// Heart rate given to plays, and workouts. The samples and zone settings are the heart-rate
/// service's own rows; the plays it tags and the workouts are read by charts and reviews.
extension Operations {
    /// Gives every play overlapping [from, to] its heart rate, zone (by `zone`) and workout,
    /// and announces the plays that changed (`.playsTagged`), so a zone chart is fresh right
    /// after. Returns their ids.
    @discardableResult
    public func tagPlays(from: Date, to: Date, zone: (Date, Double) -> Zone) throws -> [Int64] {
        let changed = try store.tagPlays(from: from, to: to, zone: zone)
        if !changed.isEmpty { announce(.playsTagged(ids: changed)) }
        return changed
    }

    /// Stores heart-rate samples (a strap, a push, a file) and announces them
    /// (`.heartRateSamples`: the pages that show heart rate follow it, charts do not).
    /// Returns how many were new.
    @discardableResult
    public func storeSamples(_ samples: [HeartRateSample], source: String) throws(StoreError) -> Int {
        let inserted = try store.insertSamples(samples, source: source)
        if inserted > 0 { announce(.heartRateSamples) }
        return inserted
    }

    /// Stores motion samples (a push, a feed) and announces them as heart rate's
    /// (`.heartRateSamples`: the workout pages read both). Returns how many were new.
    @discardableResult
    public func storeMotion(_ samples: [MotionSample], source: String) throws(StoreError) -> Int {
        let inserted = try store.insertMotionSamples(samples, source: source)
        if inserted > 0 { announce(.heartRateSamples) }
        return inserted
    }

    /// Stores a workout file whole in one transaction (`Store.importRecording`): its samples,
    /// a new workout unless one covers its time, its laps and calories.
    public func importRecording(_ recording: WorkoutRecording) throws(StoreError) -> RecordingStored {
        let stored = try store.importRecording(recording)
        if stored.heartRate + stored.motion > 0 { announce(.heartRateSamples) }
        if let id = stored.workoutID, stored.newWorkoutID != nil || stored.laps > 0 { announce(.workout(id: id)) }
        return stored
    }

    /// Starts a workout at `at`; returns its id.
    public func startWorkout(at: Date, kind: String, name: String? = nil, sport: String? = nil,
                             zoneSettingsID: Int64?) throws(StoreError) -> Int64 {
        let id = try store.startWorkout(at: at, kind: kind, name: name, sport: sport, zoneSettingsID: zoneSettingsID)
        announce(.workout(id: id))
        return id
    }

    /// Stores a workout's figures (and its end, once ended) and links the plays during it.
    public func updateWorkout(id: Int64, endedAt: Date?, average: Double?, max: Int?, secondsInZone: [Zone: Double]) throws(StoreError) {
        try store.updateWorkout(id: id, endedAt: endedAt, average: average, max: max, secondsInZone: secondsInZone)
        announce(.workout(id: id))
    }

    /// Moves a workout's start, or changes its kind.
    public func amendWorkout(id: Int64, startedAt: Date? = nil, kind: String? = nil) throws(StoreError) {
        try store.amendWorkout(id: id, startedAt: startedAt, kind: kind)
        announce(.workout(id: id))
    }
}
