import PacenoteCore
import Testing
@testable import PacenoteApp

/// The demo's library (issue 52, row 1): songs that are never played nor queued keep "Up
/// next" filled in every zone, however long the demo runs.
@Suite struct DemoLibraryTests {
    @Test func everyZoneHasSongsBeyondTheLoop() {
        for zone in Zone.allCases {
            let target = TempoTarget.window(TempoTable.defaults.window(for: zone))
            let fitting = Demo.beyondTheLoop.filter { target.fit(bpm: Double($0.bpm)) != nil }
            #expect(fitting.count >= 2, "zone \(zone.rawValue): \(fitting.map(\.title))")
        }
    }

    @Test func mpdQueuesOnlyTheLoop() {
        let queued = Set(Demo.loopFolders)
        #expect(Demo.loop.allSatisfy { queued.contains($0.artist) })
        #expect(Demo.beyondTheLoop.allSatisfy { !queued.contains($0.artist) })
        #expect(Set(Demo.library.map(\.uri)).count == Demo.library.count, "one file per song")
    }

    @Test func aPlayedSongComesBackWithinTheLoop() {
        let loopHours = Double(Demo.loop.count) * 20 / 3600
        #expect(Demo.recentHours > 0 && Demo.recentHours < loopHours)
    }
}
