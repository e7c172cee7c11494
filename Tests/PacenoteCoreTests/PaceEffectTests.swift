import Foundation
import Testing
@testable import PacenoteCore

/// `PaceEffect`: plays measured against the minutes before them on runs whose speeds are
/// set by hand, and songs put together over runs.
@Suite struct PaceEffectTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// One sample a second with the device's distance, at the speed `speed(second)` gives,
    /// and a cadence of `cadence(second)`.
    static func run(seconds: Int, speed: (Int) -> Double, cadence: ((Int) -> Double)? = nil) -> [MotionSample] {
        var distance = 0.0
        return (0...seconds).map { s in
            if s > 0 { distance += speed(s - 1) }
            return MotionSample(at: t0.addingTimeInterval(Double(s)), speed: speed(s), distance: distance, cadence: cadence?(s))
        }
    }

    static func play(_ id: Int64, _ from: Int, _ to: Int) -> PaceEffect.Play {
        PaceEffect.Play(id: id, start: t0.addingTimeInterval(Double(from)), end: t0.addingTimeInterval(Double(to)))
    }

    @Test func aPlayIsItsMovingSpeedAgainstTheThreeMinutesBeforeIt() throws {
        // 3.0 m/s (5:33 /km) until 600 s, 3.3 m/s (10 % faster) during the song 600–840 s,
        // back to 3.0 after; cadence 168 → 174.
        let motion = Self.run(seconds: 1200, speed: { (600..<840).contains($0) ? 3.3 : 3.0 },
                              cadence: { (600..<840).contains($0) ? 174 : 168 })
        let effects = PaceEffect.measure([Self.play(7, 600, 840)], motion: motion)
        let e = try #require(effects.first)
        #expect(effects.count == 1 && e.playID == 7)
        #expect(abs(e.speedBefore - 3.0) < 1e-9, "\(e.speedBefore)")
        #expect(abs(e.speedDuring - 3.3) < 1e-9, "\(e.speedDuring)")
        #expect(abs(e.speedChange - 0.1) < 1e-9)
        // Cadence is weighted by the step after each sample: the song's first second counts the new cadence.
        #expect(abs(try #require(e.cadenceChange) - 6) < 0.1, "\(String(describing: e.cadenceChange))")
    }

    @Test func aStopBeforeTheSongIsLeftOutOfItsBaseline() throws {
        // Standing at a crossing for 60 s of the 180 before: the baseline is the 120 s in
        // motion at 3 m/s, not 2 m/s over the whole window.
        let motion = Self.run(seconds: 1200, speed: { s in
            if (480..<540).contains(s) { return 0 }
            return (600..<840).contains(s) ? 3.3 : 3.0
        })
        let e = try #require(PaceEffect.measure([Self.play(1, 600, 840)], motion: motion).first)
        #expect(abs(e.speedBefore - 3.0) < 0.03, "\(e.speedBefore)")
        #expect(abs(e.speedChange - 0.1) < 0.011, "\(e.speedChange)")
    }

    @Test func playsWithoutEnoughBeforeOrDuringAreNotMeasured() {
        let motion = Self.run(seconds: 1200, speed: { _ in 3 })
        let effects = PaceEffect.measure([
            Self.play(1, 30, 300),      // 30 s of baseline: the run had just begun
            Self.play(2, 600, 640),     // 40 s of song: skipped early
            Self.play(3, 1150, 1400),   // 50 s of it before the samples end
            Self.play(4, 300, 290),     // ends before it starts
            Self.play(5, 700, 900),     // measured
        ], motion: motion)
        #expect(effects.map(\.playID) == [5])
        // A long stop before the song leaves too little baseline.
        let stopped = Self.run(seconds: 1200, speed: { (400..<560).contains($0) ? 0 : 3 })
        #expect(PaceEffect.measure([Self.play(1, 600, 800)], motion: stopped).isEmpty)
        // No motion, no plays: nothing, never a NaN.
        #expect(PaceEffect.measure([Self.play(1, 600, 800)], motion: []).isEmpty)
        #expect(PaceEffect.measure([], motion: motion).isEmpty)
    }

    @Test func aSongIsShownOnceItHasThreePlaysOverTwoRuns() throws {
        func m(_ id: Int64, _ before: Double, _ during: Double, cadence: (Double, Double)? = nil) -> PaceEffect.Measured {
            PaceEffect.Measured(playID: id, speedBefore: before, speedDuring: during, cadenceBefore: cadence?.0, cadenceDuring: cadence?.1)
        }
        let songs = PaceEffect.songs([
            (trackID: 10, workoutID: 1, effect: m(1, 3, 3.3, cadence: (170, 176))),
            (trackID: 10, workoutID: 1, effect: m(2, 3, 3.15)),
            (trackID: 10, workoutID: 2, effect: m(3, 2.5, 2.625, cadence: (160, 162))),
            (trackID: 20, workoutID: 1, effect: m(4, 3, 2.85)),
            (trackID: 20, workoutID: 1, effect: m(5, 3, 2.85)),
            (trackID: 20, workoutID: 1, effect: m(6, 3, 2.85)),
            (trackID: 30, workoutID: 3, effect: m(7, 3, 3.6)),
        ])
        #expect(songs.map(\.trackID) == [30, 10, 20], "fastest first")
        let ten = try #require(songs.first { $0.trackID == 10 })
        #expect(ten.plays == 3 && ten.runs == 2 && ten.isShown)
        #expect(abs(ten.speedChange - (0.1 + 0.05 + 0.05) / 3) < 1e-12)
        #expect(ten.cadenceChange == 4, "the mean over the plays with cadence")
        let twenty = try #require(songs.first { $0.trackID == 20 })
        #expect(!twenty.isShown, "three plays in one run are one run's luck")
        #expect(abs(twenty.speedChange + 0.05) < 1e-12)
        #expect(!(try #require(songs.first { $0.trackID == 30 })).isShown, "one play")
    }

    @Test func theChangeInWordsAndWhatCountsAsARun() {
        #expect(PaceEffect.words(0.042) == "4 % faster")
        #expect(PaceEffect.words(-0.021) == "2 % slower")
        #expect(PaceEffect.words(0.004) == "as fast")
        #expect(PaceEffect.countsAsRun(sport: "running") && PaceEffect.countsAsRun(sport: "Treadmill running"))
        #expect(PaceEffect.countsAsRun(sport: nil), "live workouts have no sport")
        #expect(!PaceEffect.countsAsRun(sport: "cycling") && !PaceEffect.countsAsRun(sport: "walking"))
        #expect(!PaceEffect.countsAsRun(sport: "multisport") && !PaceEffect.countsAsRun(sport: "generic"), "may be anything")
    }
}

/// `LiveDistance`: a live source's distance along its positions, push after push.
@Suite struct LiveDistanceTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func at(_ s: Double, lat: Double?, distance: Double? = nil) -> MotionSample {
        MotionSample(at: t0.addingTimeInterval(s), distance: distance, latitude: lat, longitude: lat == nil ? nil : 13.4)
    }

    @Test func positionsBecomeADistanceCarriedFromPushToPush() throws {
        var live = LiveDistance()
        let metre = 1 / 111_195.0  // a metre of latitude, on the mean Earth
        let first = live.fill([Self.at(0, lat: 52.5), Self.at(1, lat: 52.5 + 3 * metre)])
        #expect(first.map(\.distance) == [0, first[1].distance] && abs((first[1].distance ?? 0) - 3) < 0.01)
        let second = live.fill([Self.at(2, lat: 52.5 + 6 * metre)])
        #expect(abs((second[0].distance ?? 0) - 6) < 0.01, "carried over from the push before")
        // Out of order: left without a distance. A leap no body makes: not counted, the count goes on from there.
        #expect(live.fill([Self.at(1.5, lat: 52.5)])[0].distance == nil)
        let leap = live.fill([Self.at(3, lat: 53.5), Self.at(4, lat: 53.5 + 3 * metre)])
        #expect(abs((leap[0].distance ?? 0) - 6) < 0.01 && abs((leap[1].distance ?? 0) - 9) < 0.01, "\(leap.map(\.distance))")
        // A source with its own distance, and samples without a position, are left alone.
        let own = live.fill([Self.at(5, lat: 53.5, distance: 120), Self.at(6, lat: nil)])
        #expect(own.map(\.distance) == [120, nil])
        #expect(live.fill([Self.at(7, lat: 53.5)])[0].distance == 0, "after the source's own distance, a count of its own again")
        // An hour and more later: a new outing counts from 0.
        #expect(live.fill([Self.at(4000, lat: 40)])[0].distance == 0)
    }
}
