import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteApp

@Suite struct HeartRateServiceTests {
    final class Recorder: Sendable {
        let events = Mutex<[PacenoteEvent]>([])
    }

    @Test func zoneChangesAreEventsAndSettingsApplyFromTheirDate() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let bus = EventBus()
        let recorder = Recorder()
        bus.subscribe { event in recorder.events.withLock { $0.append(event) } }
        var settings = Config.HeartRate()
        settings.maxHR = 200
        settings.workoutStartAfterSeconds = 5
        settings.workoutEndAfterSeconds = 10
        let service = try HeartRateService(store: store, events: bus, settings: settings, logger: Logger(label: "test"))
        let now = Date()
        let t0 = now.addingTimeInterval(-20)
        // 100 bpm (Z1 of 200), then 150 bpm (Z3): one zone change after the first.
        let samples = (0..<20).map { HeartRateSample(at: t0.addingTimeInterval(Double($0)), bpm: $0 < 10 ? 100 : 150) }
        #expect(try service.ingest(samples, source: "test") == 20)
        let zones = recorder.events.withLock { $0 }.compactMap { event -> Zone? in
            if case .zoneChanged(_, let to) = event { return to }
            return nil
        }
        #expect(zones == [.z1, .z3])
        #expect(recorder.events.withLock { $0 }.contains { if case .workoutStarted = $0 { true } else { false } })
        #expect(service.current(now: now)?.zone == .z3)
        #expect(service.current(now: now.addingTimeInterval(30)) == nil, "stale after fresh_for_s")
        service.stop()

        // New settings apply from now on: the workout keeps the ones it began with.
        settings.maxHR = 150
        let later = try HeartRateService(store: store, events: bus, settings: settings, logger: Logger(label: "test"))
        defer { later.stop() }
        let all = try store.zoneSettings()
        #expect(all.map(\.model) == [.percentMax(maxHR: 200), .percentMax(maxHR: 150)])
        #expect(try store.workouts().first?.zoneSettingsID == all.first?.id)
        #expect(later.zone(at: t0, bpm: 150) == .z3)             // judged by the old settings
        #expect(later.zone(at: Date().addingTimeInterval(1), bpm: 150) == .z5)
    }

    /// A heart-rate service on a new database (zones of 200 bpm), and what it announces.
    final class Running {
        let dir: TemporaryDirectory
        let store: Store
        let recorder = Recorder()
        let service: HeartRateService

        init(workoutStartAfter: Double = 60) throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            let bus = EventBus()
            bus.subscribe { [recorder] event in recorder.events.withLock { $0.append(event) } }
            var settings = Config.HeartRate()
            settings.maxHR = 200
            settings.workoutStartAfterSeconds = workoutStartAfter
            service = try HeartRateService(store: store, events: bus, settings: settings, logger: Logger(label: "test"))
        }

        deinit {
            service.stop()
            try? store.close()
        }

        var progress: [WorkoutProgress] {
            recorder.events.withLock { events in events.compactMap { if case .workoutProgress(let p) = $0 { p } else { nil } } }
        }
    }

    /// A workout in progress is announced after every batch with its figures so far: the
    /// sum of its stored readings (what the API shows), kept reading by reading, summed
    /// again when readings come late or twice; and each fresh reading is its own
    /// `heartRate` event, even when several come in one request.
    @Test func progressIsTheSumOfTheStoredReadingsAndEveryReadingIsAnnounced() throws {
        let running = try Running()
        let (store, service, recorder) = (running.store, running.service, running.recorder)
        let id = try service.startWorkout(name: "Intervals", now: Date())
        let t0 = Date().addingTimeInterval(0.5)
        func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
        func progress() -> [WorkoutProgress] { running.progress }
        func storedSum() throws -> WorkoutFigures {
            let w = try #require(try store.workout(id: id))
            return WorkoutFigures(try store.samples(from: w.startedAt, to: .distantFuture), model: .percentMax(maxHR: 200))
        }

        // Four readings in one request, a quarter of a second apart: four heart-rate events, one progress.
        // (Within 30 bpm of each other: the smoother holds a bigger jump until the next reading.)
        let first = [110, 112, 140, 141].enumerated().map { HeartRateSample(at: at(Double($0.offset) * 0.25), bpm: $0.element) }
        _ = try service.ingest(first, source: "strap")
        let announced = recorder.events.withLock { events in
            events.compactMap { if case .heartRate(_, _, let at) = $0 { at } else { nil } }
        }
        // Times as stored, to the millisecond.
        let stored = first.map { s in
            HeartRateSample(at: Date(timeIntervalSince1970: (s.at.timeIntervalSince1970 * 1000).rounded() / 1000), bpm: s.bpm)
        }
        #expect(announced == stored.map(\.at))
        var last = try #require(progress().last)
        #expect(progress().count == 1 && last.id == id && last.samples == stored)
        #expect(last.figures == (try storedSum()))
        #expect(last.figures.secondsInZone() == [0, 0.5, 0, 0.25, 0, 0])
        #expect(last.figures.maximum == 141 && last.figures.average == 125.8)

        // One at a time, as a strap sends them.
        for (i, bpm) in [190, 191, 120].enumerated() {
            _ = try service.ingest([HeartRateSample(at: at(1 + Double(i) * 0.25), bpm: bpm)], source: "strap")
            last = try #require(progress().last)
            #expect(last.samples.map(\.bpm) == [bpm])
            #expect(last.figures == (try storedSum()))
        }
        #expect(last.figures.secondsInZone() == [0, 0.5, 0, 0.5, 0, 0.5])

        // A second source's reading from before the latest: late, summed again with it.
        _ = try service.ingest([HeartRateSample(at: at(0.6), bpm: 175)], source: "watch")
        last = try #require(progress().last)
        #expect(last.samples.map(\.bpm) == [175])
        #expect(last.figures == (try storedSum()))
        // The latest reading sent again: stored once, counted once.
        _ = try service.ingest([HeartRateSample(at: at(1.5), bpm: 120)], source: "strap")
        #expect(try #require(progress().last).figures == (try storedSum()))
        #expect(try #require(progress().last).figures.count == 8)

        // Stopped: what it stores is the same sum, its latest reading counted until the stop.
        let stop = at(2)
        #expect(try service.stopWorkout(id: id, now: stop))
        let ended = try #require(try store.workout(id: id))
        let final = try storedSum()
        #expect(ended.secondsInZone == final.secondsInZone(until: stop))
        #expect(ended.heartRateAverage == final.average && ended.heartRateMax == final.maximum)
        let count = progress().count
        _ = try service.ingest([HeartRateSample(at: at(2.25), bpm: 120)], source: "strap")
        #expect(progress().count == count, "no progress once it ended")
    }

    /// A workout found by itself begins a while back (its first reading): its figures start
    /// from the readings stored since, then follow reading by reading.
    @Test func aDetectedWorkoutsProgressStartsFromItsStoredReadings() throws {
        let running = try Running(workoutStartAfter: 2)
        let (store, service) = (running.store, running.service)
        let t0 = Date().addingTimeInterval(-5)
        for i in 0..<16 {
            _ = try service.ingest([HeartRateSample(at: t0.addingTimeInterval(Double(i) * 0.25), bpm: i < 10 ? 110 : 130)], source: "strap")
        }
        let progress = running.progress
        // Started by the ninth reading, 2 s after the first: it and each one after.
        #expect(progress.count == 8, "\(progress.map(\.samples))")
        let workout = try #require(try store.workouts().first)
        #expect(workout.endedAt == nil && progress.allSatisfy { $0.id == workout.id && $0.startedAt == workout.startedAt })
        #expect(progress.first?.figures.count == 9 && progress.first?.figures.secondsInZone() == [0, 2, 0, 0, 0, 0])
        #expect(progress.last?.figures == WorkoutFigures(try store.samples(from: workout.startedAt, to: .distantFuture),
                                                         model: .percentMax(maxHR: 200)))
        #expect(progress.last?.figures.secondsInZone() == [0, 2.5, 1.25, 0, 0, 0])
        #expect(progress.map { $0.samples.count } == Array(repeating: 1, count: 8))
    }
}
