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
}
