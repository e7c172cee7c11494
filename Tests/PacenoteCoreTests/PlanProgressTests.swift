import Foundation
import Testing
@testable import PacenoteCore

/// Where a planned workout is (`PlanProgress`): time ends timed segments, `next` ends any
/// segment (an open-ended one no other way), pauses stop the plan's clock.
@Suite struct PlanProgressTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }

    /// 60 s Z2, 2 × [30 s Z5, 30 s Z1], open Z1.
    var plan: WorkoutPlan {
        get throws { try WorkoutPlan(name: "p", text: "60 s Z2, 2 x [30 s Z5, 30 s Z1], open Z1") }
    }

    @Test func timeEndsTimedSegmentsWithoutAnyReading() throws {
        let timeline = try plan.timeline()
        #expect(timeline.count == 6)
        var s = PlanProgress.state(of: timeline, start: t0, marks: [], now: at(0))
        #expect(s.current == 0 && s.elapsed == 0 && s.remaining == 60 && !s.paused)
        s = PlanProgress.state(of: timeline, start: t0, marks: [], now: at(75))
        #expect(s.current == 1 && s.elapsed == 15 && s.remaining == 15 && s.planElapsed == 75)
        #expect(s.spans.map(\.endedBy) == [.time, nil] && s.spans[0].end == at(60) && s.spans[1].start == at(60))
        // Past every timed segment: the open-ended one runs on, with no time left to count down.
        s = PlanProgress.state(of: timeline, start: t0, marks: [], now: at(1000))
        #expect(s.current == 5 && s.remaining == nil && s.elapsed == 820 && s.spans.count == 6)
        #expect(!s.finished)
    }

    @Test func nextEndsTheSegmentAndTheOpenOneOnlyByIt() throws {
        let timeline = try plan.timeline()
        // next at 20 s: the warm-up ends early; the first interval starts then and runs 30 s.
        var s = PlanProgress.state(of: timeline, start: t0, marks: [.init(.next, at: at(20))], now: at(45))
        #expect(s.current == 1 && s.elapsed == 25 && s.remaining == 5)
        #expect(s.spans[0].end == at(20) && s.spans[0].endedBy == .button)
        // The open cool-down ends with a press, and the plan is done.
        s = PlanProgress.state(of: timeline, start: t0, marks: [.init(.next, at: at(400))], now: at(500))
        #expect(s.finished && s.current == nil && s.remaining == nil && s.spans.count == 6)
        #expect(s.spans[5].start == at(180) && s.spans[5].end == at(400) && s.spans[5].endedBy == .button)
        #expect(s.planElapsed == 400)
        // Presses after the end, or before the start, change nothing.
        let later = PlanProgress.state(of: timeline, start: t0, marks: [.init(.next, at: at(400)), .init(.next, at: at(450)), .init(.next, at: at(-5))], now: at(500))
        #expect(later == s)
    }

    @Test func aPauseStopsThePlansClock() throws {
        let timeline = try plan.timeline()
        let marks: [PlanProgress.Mark] = [.init(.pause, at: at(50)), .init(.resume, at: at(110))]
        var s = PlanProgress.state(of: timeline, start: t0, marks: Array(marks.prefix(1)), now: at(80))
        #expect(s.paused && s.current == 0 && s.elapsed == 50 && s.remaining == 10)
        s = PlanProgress.state(of: timeline, start: t0, marks: marks, now: at(115))
        // 50 s before the pause, 5 s after it: 55 of 60.
        #expect(!s.paused && s.current == 0 && s.elapsed == 55 && s.spans[0].pausedSeconds == 60)
        s = PlanProgress.state(of: timeline, start: t0, marks: marks, now: at(130))
        #expect(s.current == 1 && s.elapsed == 10 && s.spans[0].end == at(120) && s.planElapsed == 70)
    }

    @Test func marksCanComeInAnyOrderAndAnEmptyPlanIsDone() throws {
        let timeline = try plan.timeline()
        let marks: [PlanProgress.Mark] = [.init(.resume, at: at(110)), .init(.pause, at: at(50))]
        #expect(PlanProgress.state(of: timeline, start: t0, marks: marks, now: at(130)).current == 1)
        let empty = PlanProgress.state(of: [], start: t0, marks: [], now: at(10))
        #expect(empty.finished && empty.spans.isEmpty)
    }

    @Test func aPlanFileOfAnyKindIsToldApartByItsFirstBytes() throws {
        let json = try WorkoutPlan(file: Array(#"  {"name": "j", "steps": [{"seconds": 60, "target": {"type": "zone", "zone": 3}}]}"#.utf8), fallbackName: "f")
        #expect(json.name == "j" && json.fixedSeconds == 60)
        let zwo = try WorkoutPlan(file: Array("\u{FEFF}<workout_file><workout><SteadyState Duration='60' Power='0.5'/></workout></workout_file>".utf8), fallbackName: "z.zwo")
        #expect(zwo.name == "z.zwo" && zwo.steps == [.segment(.init(seconds: 60, target: .zone(1)))])
        for (bytes, message) in [("", "not a plan file"), ("hello", "not a plan file"), ("{broken", "the file is not valid JSON")] {
            #expect(throws: WorkoutPlan.Problem.self, "\(bytes)") { try WorkoutPlan(file: Array(bytes.utf8), fallbackName: "f") }
            do { _ = try WorkoutPlan(file: Array(bytes.utf8), fallbackName: "f") } catch { #expect(error.description.hasPrefix(message), "\(error)") }
        }
    }
}

/// The segment the next song will mostly play in, looking ahead by the current song's time left.
@Suite struct PlanLookAheadTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theNextSongsSegmentIsWhereItMostlyPlays() throws {
        let timeline = try WorkoutPlan(name: "p", text: "60 s Z2, 120 s Z5, 60 s Z2 -> Z4, open Z1").timeline()
        func next(at now: Double, startsIn: Double, seconds: Double, marks: [PlanProgress.Mark] = []) -> (Int, Double)? {
            let state = PlanProgress.state(of: timeline, start: t0, marks: marks, now: t0.addingTimeInterval(now))
            return PlanProgress.nextSong(in: timeline, state: state, startsIn: startsIn, seconds: seconds).map { ($0.segment, $0.fraction) }
        }
        // 10 s into the warm-up, the song playing ends in 30 s: a 60 s song plays 20 s of Z2, 40 s of Z5.
        #expect(next(at: 10, startsIn: 30, seconds: 60)?.0 == 1)
        // Ending in 10 s, a 40 s song plays 40 s of Z2: still the warm-up.
        #expect(next(at: 10, startsIn: 0, seconds: 40)?.0 == 0)
        // Into the ramp: its middle a quarter of the way through (fraction for the zone).
        let ramp = try #require(next(at: 150, startsIn: 30, seconds: 30))
        #expect(ramp.0 == 2 && abs(ramp.1 - 0.25) < 1e-9)
        // After the timed segments the open one takes every song, whatever its length.
        #expect(next(at: 230, startsIn: 10, seconds: 300)?.0 == 3)
        // A paused plan holds the next song in the segment it is paused in.
        #expect(next(at: 50, startsIn: 30, seconds: 60, marks: [.init(.pause, at: t0.addingTimeInterval(40))])?.0 == 0)
        // Done: nothing to follow.
        #expect(next(at: 400, startsIn: 0, seconds: 60, marks: [.init(.next, at: t0.addingTimeInterval(300))]) == nil)
    }
}

/// How long until a segment ends, for the suggestions' length preference.
@Suite struct PlanSecondsToEndTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func theCurrentSegmentTheOnesAheadAndWhatIsNotKnown() throws {
        let timeline = try WorkoutPlan(name: "p", text: "60 s Z2, 2 x [30 s Z5, 30 s Z1], open Z1").timeline()
        var s = PlanProgress.state(of: timeline, start: t0, marks: [], now: t0.addingTimeInterval(20))
        // The segment running: what is left of it (a range of one segment is no crash).
        #expect(PlanProgress.secondsToEnd(of: 0, in: timeline, state: s) == 40)
        #expect(PlanProgress.secondsToEnd(of: 2, in: timeline, state: s) == 100)
        // Behind, open-ended, paused: not known.
        #expect(PlanProgress.secondsToEnd(of: 5, in: timeline, state: s) == nil)
        s = PlanProgress.state(of: timeline, start: t0, marks: [], now: t0.addingTimeInterval(70))
        #expect(PlanProgress.secondsToEnd(of: 0, in: timeline, state: s) == nil)
        #expect(PlanProgress.secondsToEnd(of: 1, in: timeline, state: s) == 20)
        s = PlanProgress.state(of: timeline, start: t0, marks: [.init(.pause, at: t0.addingTimeInterval(10))], now: t0.addingTimeInterval(20))
        #expect(PlanProgress.secondsToEnd(of: 0, in: timeline, state: s) == nil)
    }
}
