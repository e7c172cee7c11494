import Dispatch
import Foundation
import Logging
import Metrics
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteWeb

/// Heart rate in, zones and workouts out: stores samples, keeps the live (smoothed) heart
/// rate and zone, detects workouts, and gives plays their heart rate (back-filling when
/// samples arrive late). Everything runs on one serial queue, in order.
public final class HeartRateService: HeartRateBackend, @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only on `queue`.
    let store: Store
    /// Tags plays and writes workouts, announced; samples and zone settings are this service's.
    let operations: Operations
    let events: EventBus
    let logger: Logger
    private let settings: Config.HeartRate
    /// `[workouts]`: whether positions are stored.
    private let workouts: Config.Workouts
    let queue = DispatchQueue(label: "pacenote.heart-rate")
    private let timer: DispatchSourceTimer

    private(set) var zoneSettings: [ZoneSettings]
    /// Whose training load (`[athlete]`, filled from `[heart_rate]`).
    public let athlete: Athlete
    private var smoother = HeartRateSmoother()
    private var detector: WorkoutDetector
    private var liveZone: Zone?
    private var workoutID: Int64?
    /// The workout in progress's figures so far, reading by reading (`WorkoutFigures`).
    private var progress: (startedAt: Date, figures: WorkoutFigures)?
    /// Each live source's distance along its positions so far (`ingestMotion`).
    private var liveDistances: [String: LiveDistance] = [:]
    /// Live cadence and what cadence mode follows (`HeartRateService+Cadence`).
    var cadence = CadenceControl()
    private var subscription: EventBus.Subscription?

    public init(store: Store, events: EventBus, settings: Config.HeartRate, workouts: Config.Workouts = Config.Workouts(),
                athlete: Athlete = Athlete(), cadence: Double = 170, logger: Logger) throws {
        self.store = store
        self.cadence.state.fallback = cadence
        self.workouts = workouts
        self.operations = Operations(store: store, events: events)
        self.events = events
        self.settings = settings
        self.athlete = athlete
        self.logger = logger
        // Settings carry the date they apply from; a change applies from now on.
        try store.recordZoneSettings(try settings.model, from: Date())
        zoneSettings = try store.zoneSettings()
        detector = WorkoutDetector(startAfter: settings.workoutStartAfterSeconds, endAfter: settings.workoutEndAfterSeconds)
        if let open = try store.openWorkout() {
            let latest = try store.latestSampleTime()
            detector.resume(workoutStartedAt: open.startedAt, lastReading: latest, manual: open.kind == "manual")
            workoutID = open.id
            progress = (open.startedAt, try Self.figures(of: open, through: max(latest ?? open.startedAt, open.startedAt),
                                                         store: store, zoneSettings: zoneSettings))
        }
        timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        queue.async { [weak self] in self?.tick() }  // a workout left open may have ended while we were away
        queue.async { [weak self] in self?.catchUp() }  // loads and resting readings left to compute
        queue.async { [weak self] in self?.catchUpPaces() }  // runs whose songs are not measured yet
        subscription = events.subscribe { [weak self] event in
            guard let self else { return }
            switch event {
            case .playLogged(_, let play, _):
                queue.async { [weak self] in
                    self?.tagPlays(from: play.startedAt, to: play.endedAt)
                    self?.playLoggedLate(from: play.startedAt, to: play.endedAt)
                }
            // An import marked the runs its plays fell in; an undo may have put plays back.
            case .changed(.playsRewritten(.imported), _), .changed(.curated, _):
                queue.async { [weak self] in self?.catchUpPaces() }
            default:
                break
            }
        }
    }

    public func stop() {
        if let subscription { events.unsubscribe(subscription) }
        timer.cancel()
        queue.sync {}
    }

    // MARK: HeartRateBackend

    public func ingest(_ samples: [HeartRateSample], source: String) throws(StoreError) -> Int {
        let result = queue.sync { () -> Result<Int, StoreError> in
            do throws(StoreError) {
                return .success(try ingestOnQueue(samples.sorted { $0.at < $1.at }, source: source))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    public func current(now: Date) -> LiveHeartRate? {
        queue.sync {
            guard let current = smoother.current, now.timeIntervalSince(current.at) <= settings.freshForSeconds else { return nil }
            return LiveHeartRate(bpm: current.bpm, zone: zone(at: current.at, bpm: current.bpm), at: current.at, workoutID: workoutID)
        }
    }

    public func zone(at date: Date, bpm: Double) -> Zone {
        zoneSettings.model(at: date).zone(for: bpm)
    }

    public func startWorkout(name: String?, now: Date) throws(StoreError) -> Int64 {
        try queue.sync { () -> Result<Int64, StoreError> in
            if let workoutID {
                // The one in progress becomes manual, and stays so after a restart.
                _ = detector.startManually(at: now)
                do throws(StoreError) {
                    try operations.amendWorkout(id: workoutID, kind: "manual")
                } catch {
                    return .failure(error)
                }
                return .success(workoutID)
            }
            _ = detector.startManually(at: now)
            do throws(StoreError) {
                return .success(try begin(at: now, kind: "manual", name: name, through: now))
            } catch {
                return .failure(error)
            }
        }.get()
    }

    public func stopWorkout(id: Int64, now: Date) throws(StoreError) -> Bool {
        try queue.sync { () -> Result<Bool, StoreError> in
            guard id == workoutID else { return .success(false) }
            for case .ended(let end) in detector.stopManually(at: now) {
                do throws(StoreError) { try finish(at: end) } catch { return .failure(error) }
            }
            return .success(true)
        }.get()
    }

    /// Stores a workout read from a file (TCX, GPX, FIT) in one transaction: its heart-rate
    /// and motion samples (positions only with `[workouts] keep_positions`), its laps and
    /// calories, and the workout spanning them unless a stored one already covers that time
    /// (importing twice adds nothing); then its figures and the heart rate of the plays of
    /// that time.
    public func importWorkout(_ file: WorkoutFile, source: String) throws(StoreError) -> RecordingStored {
        try queue.sync { () -> Result<RecordingStored, StoreError> in
            do throws(StoreError) {
                var recording = WorkoutRecording(
                    source: source, heartRate: file.samples,
                    motion: workouts.keepPositions ? file.motion : MotionCleaning.withoutPositions(file.motion),
                    laps: file.laps, calories: file.calories, name: file.name, sport: file.sport)
                guard let (first, last) = recording.span else {
                    return .success(.nothing)
                }
                recording.zoneSettingsID = zoneSettings.last { $0.effectiveFrom <= first }?.id ?? zoneSettings.first?.id
                let stored = try operations.importRecording(recording)
                if let id = stored.newWorkoutID, let workout = try store.workout(id: id) {
                    try summarise(workout, end: last)
                } else {
                    tagPlays(from: first, to: last)
                    schedulePaceCatchUp()  // its motion marked the workout it joined to be measured again
                }
                return .success(stored)
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// Stores motion pushed live (`POST /api/v1/hr`), positions only with
    /// `[workouts] keep_positions`. Returns how many samples were new.
    public func ingestMotion(_ samples: [MotionSample], source: String) throws(StoreError) -> Int {
        try queue.sync { () -> Result<Int, StoreError> in
            // The distance along the positions first (`LiveDistance`), as for a GPX file:
            // the positions themselves may be dropped next.
            var state = liveDistances[source, default: LiveDistance()]
            let measured = (samples: state.fill(samples), state: state)
            let kept = workouts.keepPositions ? measured.samples : MotionCleaning.withoutPositions(measured.samples)
            followCadence(samples, source: source)
            do throws(StoreError) {
                let stored = try operations.storeMotion(kept, source: source)
                liveDistances[source] = measured.state  // once stored: a push sent again is summed again
                // Motion for an ended workout's time (uploaded late) marked it: measured soon.
                if stored > 0, let first = kept.first?.at, first < Date().addingTimeInterval(-settings.workoutEndAfterSeconds) {
                    schedulePaceCatchUp()
                }
                return .success(stored)
            } catch {
                return .failure(error)
            }
        }.get()
    }

    // MARK: On the queue

    private func ingestOnQueue(_ received: [HeartRateSample], source: String) throws(StoreError) -> Int {
        // To the millisecond, as stored: the running figures are then the sums over the
        // stored samples to the last bit.
        let samples = received.map { sample in
            var sample = sample
            sample.at = Date(timeIntervalSince1970: (sample.at.timeIntervalSince1970 * 1000).rounded() / 1000)
            return sample
        }
        guard let first = samples.first, let last = samples.last else { return 0 }
        let inserted = try operations.storeSamples(samples, source: source)
        Counter(label: "pacenote_hr_samples_total").increment(by: inserted)
        // Samples newer than what we have seen are live; older ones arrived late (a watch
        // syncing after the run) and only back-fill.
        let liveFrom = detector.lastReading ?? .distantPast
        let live = samples.filter { $0.at >= liveFrom }
        let late = samples.filter { $0.at < liveFrom }
        let now = Date()
        var announced = false
        // The readings the workout in progress counted in this batch, for its progress event.
        var counted: [HeartRateSample] = []
        var progressed = false
        // A reading the running figures cannot simply add (late, or no newer than the
        // latest: sent twice, or another source's at the same millisecond): they are summed
        // again over everything stored, as the API sums them.
        var sumAgain = false
        for sample in live {
            if let value = smoother.add(sample) {
                let zone = zone(at: sample.at, bpm: value)
                if zone != liveZone {
                    events.publish(.zoneChanged(from: liveZone, to: zone))
                    liveZone = zone
                }
            }
            // Every fresh reading the smoother took is announced at once, at the strap's own
            // rate: nothing here batches or throttles them (issue 21: within 100 ms).
            if let current = smoother.current, current.at == sample.at, now.timeIntervalSince(sample.at) <= settings.freshForSeconds {
                events.publish(.heartRate(bpm: current.bpm, zone: zone(at: current.at, bpm: current.bpm), at: current.at))
                announced = true
            }
            let workoutBefore = workoutID
            var seeded = false
            for event in detector.add(sample.at) { seeded = try handle(event, through: sample.at) || seeded }
            if workoutID != workoutBefore {
                // That workout ended (and perhaps another began): what was counted was its.
                counted = []
                progressed = false
                sumAgain = false
            }
            if seeded {
                progressed = true
                counted.append(sample)
            } else if var running = progress, sample.at >= running.startedAt {
                if running.figures.latest.map({ sample.at > $0.at }) ?? true {
                    running.figures.add(sample)
                    progress = running
                } else {
                    sumAgain = true
                }
                progressed = true
                counted.append(sample)
            }
        }
        if !announced, let current = smoother.current, !live.isEmpty {
            // Readings that were already stale, or a jump held until the next one confirms it.
            events.publish(.heartRate(bpm: current.bpm, zone: zone(at: current.at, bpm: current.bpm), at: current.at))
        }
        if !late.isEmpty {
            try backfillWorkouts(late)
            let during = progress.map { running in late.filter { $0.at >= running.startedAt } } ?? []
            if !during.isEmpty {
                sumAgain = true
                progressed = true
                counted = (counted + during).sorted { $0.at < $1.at }
            }
        }
        if sumAgain, let id = workoutID, let latest = detector.lastReading, let workout = try store.workout(id: id) {
            progress = (workout.startedAt, try figures(of: workout, through: latest))
        }
        if progressed, let running = progress, let id = workoutID {
            events.publish(.workoutProgress(WorkoutProgress(id: id, startedAt: running.startedAt, figures: running.figures,
                                                            samples: counted)))
        }
        tagPlays(from: first.at, to: last.at)
        armTimer()
        return inserted
    }

    /// Returns whether a workout began whose figures count the readings through `through`
    /// (they were stored before the detector saw them).
    private func handle(_ event: WorkoutDetector.Event, through: Date) throws(StoreError) -> Bool {
        switch event {
        case .started(let at):
            _ = try begin(at: at, kind: "auto", name: nil, through: through)
            return true
        case .ended(let at):
            try finish(at: at)
            return false
        }
    }

    /// Starts a workout at `at`; its figures so far are those of the readings stored from
    /// `at` through `through`.
    private func begin(at: Date, kind: String, name: String?, through: Date) throws(StoreError) -> Int64 {
        let settingsID = zoneSettings.last { $0.effectiveFrom <= at }?.id ?? zoneSettings.first?.id
        let id = try operations.startWorkout(at: at, kind: kind, name: name, zoneSettingsID: settingsID)
        workoutID = id
        if let workout = try store.workout(id: id) {
            // From the start as stored (to the millisecond), as the API sums it.
            progress = (workout.startedAt, try figures(of: workout, through: max(through, at)))
        }
        logger.info("workout \(id) started (\(kind))")
        events.publish(.workoutStarted(id: id, at: at))
        return id
    }

    private func finish(at end: Date) throws(StoreError) {
        guard let id = workoutID, let workout = try store.workout(id: id) else { return }
        try summarise(workout, end: end)
        schedulePaceCatchUp()  // and any marked meanwhile (motion uploaded late for an earlier run)
        workoutID = nil
        progress = nil
        logger.info("workout \(id) ended")
        events.publish(.workoutEnded(id: id, at: end))
    }

    /// Average, maximum and time in zone of a workout from its samples, with the zone
    /// settings that applied when it began.
    private func summarise(_ workout: Workout, end: Date) throws(StoreError) {
        let figures = try figures(of: workout, through: end)
        try operations.updateWorkout(id: workout.id, endedAt: end, average: figures.average, max: figures.maximum,
                                secondsInZone: figures.secondsByZone(until: end))
        try storeLoad(of: workout, end: end)
        try measurePaces(of: workout, end: end)
        tagPlays(from: workout.startedAt, to: end)
    }

    /// The figures of a workout's stored readings from its start through `through`, under the
    /// zone settings it began with: the same sum whether it has ended or not.
    private func figures(of workout: Workout, through: Date) throws(StoreError) -> WorkoutFigures {
        try Self.figures(of: workout, through: through, store: store, zoneSettings: zoneSettings)
    }

    private static func figures(of workout: Workout, through: Date, store: Store,
                                zoneSettings: [ZoneSettings]) throws(StoreError) -> WorkoutFigures {
        WorkoutFigures(try store.samples(from: workout.startedAt, to: through),
                       model: zoneSettings.model(settingsID: workout.zoneSettingsID, at: workout.startedAt))
    }

    /// Workouts in samples that arrived late (a watch syncing after the run, perhaps in
    /// several requests): detected over everything stored around them, so a sync split
    /// into chunks makes one workout; one that meets a stored workout extends it.
    private func backfillWorkouts(_ samples: [HeartRateSample]) throws(StoreError) {
        guard let first = samples.first?.at, let last = samples.last?.at else { return }
        let pad = settings.workoutEndAfterSeconds
        let around = try store.samples(from: first.addingTimeInterval(-pad), to: last.addingTimeInterval(pad))
        for (start, end) in WorkoutDetector.workouts(in: around.map(\.at), startAfter: settings.workoutStartAfterSeconds,
                                                     endAfter: settings.workoutEndAfterSeconds) {
            // The live workout is the live detector's business.
            if let live = workoutID, let current = try store.workout(id: live), current.startedAt <= end.addingTimeInterval(pad) {
                continue
            }
            let near = try store.workouts(overlapping: start.addingTimeInterval(-pad), end.addingTimeInterval(pad))
                .filter { $0.id != workoutID && $0.endedAt != nil }
            if let existing = near.first {
                let newStart = min(existing.startedAt, start)
                let newEnd = max(existing.endedAt ?? end, end)
                try operations.amendWorkout(id: existing.id, startedAt: newStart)
                if var workout = try store.workout(id: existing.id) {
                    workout.startedAt = newStart
                    try summarise(workout, end: newEnd)
                }
                logger.info("workout \(existing.id) extended by samples uploaded late")
            } else {
                let settingsID = zoneSettings.last { $0.effectiveFrom <= start }?.id
                let id = try operations.startWorkout(at: start, kind: "auto", zoneSettingsID: settingsID)
                if let workout = try store.workout(id: id) { try summarise(workout, end: end) }
                logger.info("workout \(id) found in samples uploaded late")
            }
        }
    }

    private func tagPlays(from: Date, to: Date) {
        do {
            try operations.tagPlays(from: from, to: to) { [unowned self] at, bpm in zone(at: at, bpm: bpm) }
        } catch {
            logger.error("tagging plays with heart rate: \(error)")
        }
    }

    private func tick() {
        for event in detector.tick(now: Date()) {
            do { _ = try handle(event, through: Date()) } catch { logger.error("ending the workout: \(error.description)") }
        }
        armTimer()
    }

    /// Wakes up when the workout in progress would end for lack of readings; no timer runs
    /// while there is none.
    private func armTimer() {
        if let endsAt = detector.endsAt {
            timer.schedule(deadline: .now() + max(0, endsAt.timeIntervalSinceNow) + 0.1)
        } else {
            timer.schedule(deadline: .distantFuture)
        }
    }
}
