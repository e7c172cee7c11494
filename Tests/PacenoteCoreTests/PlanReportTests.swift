import Foundation
import Testing
@testable import PacenoteCore

/// Plan against actual (`PlanReport`): every figure here is worked out by hand from the
/// samples with the report's rules — a reading counts until the next (at most 5 s), clipped
/// to its segment, paused time out.
@Suite struct PlanReportTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }
    /// 200 bpm maximum: Z1 from 100, Z2 120, Z3 140, Z4 160, Z5 180.
    let zones = ZoneModel.percentMax(maxHR: 200)

    func timeline(_ text: String) throws -> [WorkoutPlan.Planned] {
        try WorkoutPlan(name: "p", text: text).timeline()
    }

    func pulse(_ readings: [(Double, Int)]) -> [HeartRateSample] {
        readings.map { HeartRateSample(at: at($0.0), bpm: $0.1) }
    }

    /// Readings every 5 s from `from` to `to` (inclusive), `bpm(t)` each.
    func every5(_ from: Int, _ to: Int, _ bpm: (Int) -> Int) -> [HeartRateSample] {
        stride(from: from, through: to, by: 5).map { HeartRateSample(at: at(Double($0)), bpm: bpm($0)) }
    }

    func report(_ text: String, marks: [PlanProgress.Mark] = [], end: Double, heartRate: [HeartRateSample] = [],
                motion: [MotionSample] = [], songs: [PlanReport.PlayedSong] = []) throws -> PlanReport.Report {
        PlanReport.make(timeline: try timeline(text), start: t0, marks: marks, end: at(end), heartRate: heartRate,
                        motion: motion, songs: songs, zones: zones)
    }

    @Test func aZoneSegmentCountsEachReadingUntilTheNext() throws {
        // 150 bpm (Z3) every 5 s, but 170 (Z4) at 10 and 15 s; nothing in the second segment.
        let samples = every5(0, 55) { $0 == 10 || $0 == 15 ? 170 : 150 }
        let r = try report("60 s Z3, 60 s Z1", end: 120, heartRate: samples.reversed())
        let s = r.segments[0]
        #expect(r.segments.count == 2)
        #expect(s.index == 0 && s.target == .zone(3) && s.start == at(0) && s.end == at(60) && s.endedBy == .time)
        // 12 readings × 5 s (the last until 60 s: at most 5 s), 2 of them off target.
        #expect(s.seconds == 60 && s.measuredSeconds == 60 && s.inTargetSeconds == 50)
        #expect(s.compliance == 50.0 / 60)
        #expect(abs(s.averageHeartRate! - (10 * 150 + 2 * 170) / 12.0) < 1e-9 && s.maxHeartRate == 170)
        // Nothing measured: no compliance, no averages; the segment still ran its 60 s.
        let empty = r.segments[1]
        #expect(empty.seconds == 60 && empty.measuredSeconds == 0 && empty.compliance == nil)
        #expect(empty.averageHeartRate == nil && empty.maxHeartRate == nil && empty.endedBy == .time)
        #expect(r.compliance == 50.0 / 60 && r.inTargetSeconds == 50 && r.measuredSeconds == 60)
    }

    @Test func gapsLongerThanFiveSecondsAreNotCounted() throws {
        // 0→3: 3 s in; 3→20: 17 s gap, only 5 s count; 20→22: 2 s in Z4; 22→: 5 s, not 8 to the end.
        let r = try report("30 s Z3", end: 30, heartRate: pulse([(0, 150), (3, 150), (20, 170), (22, 150)]))
        let s = r.segments[0]
        #expect(s.seconds == 30 && s.measuredSeconds == 15 && s.inTargetSeconds == 13)
        #expect(s.compliance == 13.0 / 15)
        #expect(abs(s.averageHeartRate! - (3 * 150 + 5 * 150 + 2 * 170 + 5 * 150) / 15.0) < 1e-9)
    }

    @Test func aRampIsJudgedAgainstTheZoneOfItsLineAtTheReading() throws {
        // Z1 → Z5 over 60 s: the target is 1 + 4 × t/60. Readings 5 s each (the gaps are longer).
        let samples = pulse([(0, 110), (15, 130), (30, 150), (45, 150), (52.5, 170)])
        let s = try report("60 s Z1 -> Z5", end: 60, heartRate: samples).segments[0]
        // 0 s: Z1 for 1.0 in; 15 s: Z2 for 2.0 in; 30 s: Z3 for 3.0 in; 45 s: Z3 for 4.0 out;
        // 52.5 s: Z4 for 4.5, within half a zone: in.
        #expect(s.measuredSeconds == 25 && s.inTargetSeconds == 20 && s.compliance == 0.8)
        // Pressed next half-way: the ramp stays the plan's, Z2 at 15 s (not Z3 as over 30 s).
        let early = try report("60 s Z1 -> Z5", marks: [.init(.next, at: at(30))], end: 60,
                               heartRate: pulse([(0, 110), (15, 130)])).segments[0]
        #expect(early.endedBy == .button && early.seconds == 30 && early.compliance == 1)
    }

    @Test func aHeartRateRangeIsInclusive() throws {
        let s = try report("60 s 140-155 bpm", end: 20, heartRate: pulse([(0, 139), (5, 140), (10, 155), (15, 156)])).segments[0]
        #expect(s.measuredSeconds == 20 && s.inTargetSeconds == 10 && s.compliance == 0.5)
        #expect(s.averageHeartRate == 147.5 && s.maxHeartRate == 156)
        // Still running at the end: it ends there.
        #expect(s.endedBy == nil && s.end == at(20) && s.seconds == 20)
    }

    @Test func cadenceIsJudgedOnTheMotionReadingsThatHaveOne() throws {
        let motion = [MotionSample(at: at(0), cadence: 172), MotionSample(at: at(5), speed: 3),
                      MotionSample(at: at(10), cadence: 185), MotionSample(at: at(20), cadence: 0),
                      MotionSample(at: at(25), cadence: 175)]
        let s = try report("60 s 170-180 spm", end: 30, heartRate: pulse([(0, 150)]), motion: motion).segments[0]
        // 0 s: 5 s in (the reading without cadence is no reading of it); 10 s: 5 out; the
        // stop at 20 s: 5 out; 25 s: 5 in.
        #expect(s.measuredSeconds == 20 && s.inTargetSeconds == 10 && s.compliance == 0.5)
        // The average leaves the stop out; heart rate has its own figures.
        #expect(abs(s.averageCadence! - (172 + 185 + 175) / 3.0) < 1e-9)
        #expect(s.averageHeartRate == 150 && s.maxHeartRate == 150)
    }

    @Test func aTempoSegmentIsJudgedOnItsSongsWithHalfTimeCounting() throws {
        let songs: [PlanReport.PlayedSong] = [
            .init(start: at(-20), end: at(50), bpm: 65),   // 130 in double time: 50 s in
            .init(start: at(50), end: at(90), bpm: 100),   // 100, 200, 50: 40 s out
            .init(start: at(90), end: at(100), bpm: nil),  // unknown: not measured
            .init(start: at(100), end: at(150), bpm: 131), // 20 s in the segment, in
        ]
        let r = try report("120 s tempo 128-132, open free", end: 150, songs: songs)
        let s = r.segments[0]
        #expect(s.measuredSeconds == 110 && s.inTargetSeconds == 70 && s.compliance == 70.0 / 110)
        #expect(s.averageHeartRate == nil && s.averageCadence == nil)
        #expect(r.compliance == 70.0 / 110)
    }

    @Test func aFreeSegmentHasFiguresButNoCompliance() throws {
        let motion = [MotionSample(at: at(0), cadence: 160), MotionSample(at: at(5), cadence: 170)]
        let r = try report("30 s free", end: 30, heartRate: pulse([(0, 150), (5, 170)]), motion: motion)
        let s = r.segments[0]
        #expect(s.compliance == nil && s.measuredSeconds == 0 && s.inTargetSeconds == 0 && s.seconds == 30)
        #expect(s.averageHeartRate == 160 && s.maxHeartRate == 170 && s.averageCadence == 165)
        #expect(r.compliance == nil && r.measuredSeconds == 0)
    }

    @Test func pausedTimeIsLeftOutOfEveryCount() throws {
        // Paused 20→50 s: the 60 s segment runs to 90 s. Readings every 5 s; 170 at 15 s (off
        // target, counts 5 s); 190 while paused and at 47 s (counted 47→50: all paused).
        var samples = every5(0, 85) { $0 == 15 ? 170 : (25...45).contains($0) ? 190 : 150 }
        samples.append(HeartRateSample(at: at(47), bpm: 190))
        let marks: [PlanProgress.Mark] = [.init(.pause, at: at(20)), .init(.pause, at: at(30)), .init(.resume, at: at(50))]
        let tl = try timeline("60 s Z3")
        let r = PlanReport.make(timeline: tl, start: t0, marks: marks, end: at(100), heartRate: samples,
                                motion: [], songs: [], zones: zones)
        let s = r.segments[0]
        #expect(s.end == at(90) && s.endedBy == .time && s.seconds == 60)
        let span = PlanProgress.state(of: tl, start: t0, marks: marks, now: at(100)).spans[0]
        #expect(s.seconds == span.end!.timeIntervalSince(span.start) - span.pausedSeconds)
        // 0–20: 4 readings (one off), 50–90: 8 readings.
        #expect(s.measuredSeconds == 60 && s.inTargetSeconds == 55)
        #expect(s.maxHeartRate == 170 && abs(s.averageHeartRate! - (11 * 150 + 170) / 12.0) < 1e-9)
    }

    @Test func anOpenSegmentEndsByNextAndReadingsCountAcrossTheBoundary() throws {
        // 98 s at 150 (Z3) counts 98→103: 2 s in the open Z3, 3 s in the Z1 after it.
        let marks: [PlanProgress.Mark] = [.init(.next, at: at(100))]
        let r = try report("60 s Z2, open Z3, 30 s Z1", marks: marks, end: 200,
                           heartRate: pulse([(90, 150), (95, 150), (98, 150)]))
        #expect(r.segments.map(\.endedBy) == [.time, .button, .time])
        let open = r.segments[1], after = r.segments[2]
        #expect(open.start == at(60) && open.end == at(100) && open.seconds == 40)
        // 90→95, 95→98 and 98→100: 10 s.
        #expect(open.measuredSeconds == 10 && open.inTargetSeconds == 10)
        #expect(after.start == at(100) && after.end == at(130))
        #expect(after.measuredSeconds == 3 && after.inTargetSeconds == 0 && after.compliance == 0)
        #expect(after.maxHeartRate == 150)
        #expect(r.compliance == 10.0 / 13)
    }

    @Test func aSegmentRunningAtTheEndEndsThere() throws {
        let r = try report("60 s Z2, open Z3", end: 90, heartRate: every5(60, 85) { _ in 150 })
        #expect(r.segments.count == 2)
        let open = r.segments[1]
        #expect(open.endedBy == nil && open.start == at(60) && open.end == at(90) && open.seconds == 30)
        #expect(open.measuredSeconds == 30 && open.compliance == 1)
        // Looked at mid-way through the first: only it, cut at the end.
        let early = try report("60 s Z2, open Z3", end: 40)
        #expect(early.segments.count == 1 && early.segments[0].seconds == 40 && early.segments[0].endedBy == nil)
    }

    @Test func theOverallComplianceSumsSecondsOverTheJudgedSegments() throws {
        // 150 bpm every 5 s, 170 at 5 s and 160 at 65 s.
        let samples = every5(0, 85) { $0 == 5 ? 170 : $0 == 65 ? 160 : 150 }
        let r = try report("30 s Z3, 30 s free, 30 s 140-155 bpm", end: 90, heartRate: samples)
        #expect(r.segments.map(\.measuredSeconds) == [30, 0, 30])
        #expect(r.segments.map(\.inTargetSeconds) == [25, 0, 25])
        #expect(r.inTargetSeconds == 50 && r.measuredSeconds == 60 && r.compliance == 50.0 / 60)
    }

    @Test func theTrendIsWeeklyMeansAcrossWeeks() throws {
        var calendar = Calendar(identifier: .iso8601)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        func day(_ d: Int, _ hour: Int = 7) -> Date {
            calendar.date(from: DateComponents(year: 2026, month: 9, day: d, hour: hour))!
        }
        // Week of Monday 7 September: 0.6 and 0.8; of the 14th: 0.75; of the 21st: Monday 0.9, Sunday 0.86.
        let runs: [(at: Date, compliance: Double)] = [(day(21), 0.9), (day(8), 0.6), (day(10), 0.8),
                                                      (day(16), 0.75), (day(27, 18), 0.86)]
        let trend = try #require(PlanReport.trend(runs, calendar: calendar))
        #expect(trend.weeks.map(\.weekStart) == [day(7, 0), day(14, 0), day(21, 0)])
        #expect(trend.weeks.map(\.runs) == [2, 1, 2])
        #expect(abs(trend.first - 0.7) < 1e-9 && abs(trend.latest - 0.88) < 1e-9)
        #expect(abs(trend.weeks[1].compliance - 0.75) < 1e-9)
        #expect(trend.since == day(8))
        // One run is no trend, nor are two in one week.
        #expect(PlanReport.trend([(day(8), 0.6)], calendar: calendar) == nil)
        #expect(PlanReport.trend([(day(8), 0.6), (day(10), 0.8)], calendar: calendar) == nil)
    }
}
