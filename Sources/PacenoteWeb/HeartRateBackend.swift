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

/// A workout file stored through `POST /api/v1/import` (TCX, GPX, FIT).
public struct WorkoutImport: Equatable, Sendable {
    /// `tcx`, `gpx` or `fit`.
    public var format: String
    public var samples: Int
    /// Samples not stored before.
    public var stored: Int
    /// The new workout, or nil when one already covered that time (imported before).
    public var workoutID: Int64?
    public var name: String?
    public var sport: String?
    /// Motion samples read (after cleaning), and how many were new.
    public var motion = 0
    public var motionStored = 0
    public var laps = 0
    /// What the reader dropped as impossible, one line per reason (`MotionCleaning.Report`).
    public var cleaned: [String] = []

    public init(format: String, samples: Int, stored: Int, workoutID: Int64?, name: String?, sport: String?) {
        self.format = format
        self.samples = samples
        self.stored = stored
        self.workoutID = workoutID
        self.name = name
        self.sport = sport
    }
}

/// A workout file that could not be read, with the reason (a 400 of the import).
public struct WorkoutFileRejected: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// What the API needs from the heart-rate service (PacenoteApp's `HeartRateService`).
public protocol HeartRateBackend: Sendable {
    /// Stores samples from `source`; returns how many were new.
    func ingest(_ samples: [HeartRateSample], source: String) throws(StoreError) -> Int
    /// Stores motion samples (cleaned) from `source`; returns how many were new.
    func ingestMotion(_ samples: [MotionSample], source: String) throws(StoreError) -> Int
    /// Live cadence and what cadence mode follows (issue 56).
    func cadenceState(now: Date) -> CadenceState
    func changeCadence(_ change: CadenceChange, now: Date) -> CadenceState
    /// The smoothed heart rate while fresh, else nil.
    func current(now: Date) -> LiveHeartRate?
    /// The zone of `bpm` under the settings in force at `at`.
    func zone(at: Date, bpm: Double) -> Zone
    func startWorkout(name: String?, now: Date) throws(StoreError) -> Int64
    /// Stops the workout `id` if it is the one in progress.
    func stopWorkout(id: Int64, now: Date) throws(StoreError) -> Bool
    /// Starts a resting HRV reading of the RR intervals stored over `seconds` from `start`:
    /// completed at once when that window has passed, else when it does.
    /// Whose training load the stored TRIMPs are (`[athlete]`).
    var athlete: Athlete { get }
    func startRestingReading(from start: Date, seconds: Double, now: Date) throws(StoreError) -> HRVReading
}

/// A heart-rate source Pacenote reads itself (a Bluetooth strap, footpod or cadence sensor),
/// for the status.
public struct HeartRateSourceStatus: Sendable, Equatable {
    public var source: String
    /// `ble`.
    public var kind: String
    /// What it measures (`[[heart_rate.ble]] sensor`): `heart_rate`, `footpod` or `cycling`.
    public var sensor = "heart_rate"
    /// A footpod's or cadence sensor's last cadence (steps or revolutions a minute) and speed (m/s).
    public var lastCadence: Double?
    public var lastSpeed: Double?
    /// The address configured; nil: the first strap seen (`auto`).
    public var wanted: String?
    public var address: String?
    public var name: String?
    public var connected: Bool
    /// Readings are coming (notifications are on).
    public var streaming: Bool
    /// Battery level in %, when the strap reports it.
    public var battery: Int?
    public var lastReadingAt: Date?
    public var lastBPM: Int?
    /// Whether the sensor touches the skin, when it says.
    public var contact: Bool?
    public var problem: String?

    public init(source: String, kind: String, wanted: String?, address: String?, name: String?, connected: Bool,
                streaming: Bool, battery: Int?, lastReadingAt: Date?, lastBPM: Int?, contact: Bool?, problem: String?) {
        self.source = source
        self.kind = kind
        self.wanted = wanted
        self.address = address
        self.name = name
        self.connected = connected
        self.streaming = streaming
        self.battery = battery
        self.lastReadingAt = lastReadingAt
        self.lastBPM = lastBPM
        self.contact = contact
        self.problem = problem
    }
}

/// A change to what cadence mode follows (`POST /api/v1/cadence`, the dashboard's controls).
public enum CadenceChange: Equatable, Sendable {
    case mode(on: Bool)
    /// A target in steps a minute; nil: follow the live cadence.
    case target(Double?)
    /// −5 / +5 from the cadence followed now; switches cadence mode on.
    case step(Double)
    case follow
}
