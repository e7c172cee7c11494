import Foundation
import Testing
@testable import PacenoteCore

/// `WorkoutPlan`: the notation, JSON and Zwift's `.zwo` read into the same plans, impossible
/// plans refused with where and why, and the repeats laid out in time.
@Suite struct WorkoutPlanTests {
    typealias Plan = WorkoutPlan

    /// The issue's own interval session, with a ramp and an open-ended cool-down.
    static let intervals = Plan(name: "6 × 2 min", sport: "running", steps: [
        .segment(.init(seconds: 600, target: .zone(2), label: "warm-up")),
        .repeated(count: 6, steps: [.segment(.init(seconds: 120, target: .zone(5))), .segment(.init(seconds: 180, target: .zone(2)))]),
        .segment(.init(seconds: 1200, target: .ramp(from: 2, to: 4))),
        .segment(.init(seconds: nil, target: .zone(1), label: "cool-down")),
    ])

    @Test func theNotationReadsTheIntervalSession() throws {
        let plan = try Plan(name: "6 × 2 min", sport: "running",
                            text: #"10 min Z2 "warm-up", 6 × [2 min Z5, 3 min Z2], 20 min Z2 → Z4, open Z1 "cool-down""#)
        #expect(plan == Self.intervals)
        #expect(plan.fixedSeconds == 600 + 6 * 300 + 1200)
        #expect(plan.isOpenEnded)
        // What `text` writes reads back as the same plan.
        #expect(plan.text == #"10 min Z2 "warm-up", 6 × [2 min Z5, 3 min Z2], 20 min Z2 → Z4, open Z1 "cool-down""#)
        #expect(try Plan(name: "again", text: plan.text).steps == plan.steps)
    }

    @Test func theNotationTakesWhatPeopleType() throws {
        let plan = try Plan(name: "mixed", text: "6x(2m z5; 3m z2) + 1:30 140-155 bpm, 90 s 170–180 spm, 3 min tempo 128-132, 1 h free, 5 min z1->z3, 2 mins Z2 to Z1")
        #expect(plan.steps == [
            .repeated(count: 6, steps: [.segment(.init(seconds: 120, target: .zone(5))), .segment(.init(seconds: 180, target: .zone(2)))]),
            .segment(.init(seconds: 90, target: .heartRate(140...155))),
            .segment(.init(seconds: 90, target: .cadence(170...180))),
            .segment(.init(seconds: 180, target: .tempo(128...132))),
            .segment(.init(seconds: 3600, target: .free)),
            .segment(.init(seconds: 300, target: .ramp(from: 1, to: 3))),
            .segment(.init(seconds: 120, target: .ramp(from: 2, to: 1))),
        ])
        #expect(plan.text == "6 × [2 min Z5, 3 min Z2], 1:30 140-155 bpm, 1:30 170-180 spm, 3 min tempo 128-132, 1 h free, 5 min Z1 → Z3, 2 min Z2 → Z1")
    }

    @Test(arguments: [
        ("", "at the end: a duration such as 5 min, 90 s, 1:30 or open"),
        ("0 s Z2", "steps[0]: a segment lasts at least one second (or is open-ended)"),
        ("5 min Z7", "steps[0]: zone 7 does not exist: zones are 1 to 5"),
        ("30 h Z2", "steps[0]: 30:00:00 is over the 24 hours a plan may last"),
        ("13 h Z2, 12 h Z1", "the plan lasts 25:00:00, over the 24 hours a plan may last"),
        ("6 × [open Z1]", "steps[0]: an open-ended segment cannot be repeated (it would never end by itself)"),
        ("5 min 160-140 bpm", "at character 14: the range's low end first (160 is above 140)"),
        ("5 min 10-40 bpm", "steps[0]: heart rate 10–40 is outside 25–250"),
        ("5 min Z2 Z3", "at character 10: a comma before the next segment"),
        ("5 Z2", "at character 3: a unit after the number: s, min or h"),
        ("5 min", "at the end: a target such as Z3, Z2 → Z4, 140-155 bpm, 170-180 spm, tempo 128-132 or free"),
        ("5 min 140-150", "at the end: bpm (heart rate) or spm (cadence) after the range"),
        ("1 × [5 min Z2]", "steps[0]: a repeat is 2 to 99 times, not 1"),
        ("2 × [2 × [2 × [2 × [1 min Z2]]]]", "at character 21: repeats nest at most 3 deep"),
        ("2 × [1 min Z2", "at the end: ']' to close the repeat"),
        (#"5 min Z2 "warm"#, "at the end: a closing '\"' for the label"),
        ("5 min Z2 → Z2", "steps[0]: a ramp goes from one zone to another (Z2 to Z2 is a steady zone)"),
        ("99 × [99 × [1 s Z2]]", "steps[0]: more than 1000 segments once repeated"),
    ])
    func impossiblePlansAreRefusedWithWhereAndWhy(text: String, message: String) {
        #expect(throws: Plan.Problem.self) { try Plan(name: "p", text: text) }
        do {
            _ = try Plan(name: "p", text: text)
        } catch {
            #expect(error.description == message, "\(text)")
        }
    }

    @Test func aNameIsNeeded() {
        #expect(throws: Plan.Problem("name", "a plan needs a name")) { try Plan(name: "  ", text: "5 min Z2") }
        #expect(throws: Plan.Problem("steps", "a plan needs at least one segment")) { try Plan(name: "empty", steps: []).validate() }
        #expect(throws: Plan.Problem("name", "at most 100 characters")) { try Plan(name: String(repeating: "n", count: 101), text: "5 min Z2") }
    }

    @Test func theTimelineLaysOutTheRepeats() {
        let timeline = Self.intervals.timeline()
        #expect(timeline.count == 1 + 12 + 1 + 1)
        #expect(timeline.map(\.index) == Array(0..<15))
        #expect(timeline[1].offset == 600 && timeline[1].target == .zone(5) && timeline[1].rounds == [1] && timeline[1].path == [1, 0])
        #expect(timeline[2].offset == 720 && timeline[2].target == .zone(2) && timeline[2].path == [1, 1])
        #expect(timeline[12].offset == 600 + 5 * 300 + 120 && timeline[12].rounds == [6])
        #expect(timeline[13].offset == 2400 && timeline[13].target == .ramp(from: 2, to: 4))
        #expect(timeline[14].offset == 3600 && timeline[14].seconds == nil && timeline[14].segment.label == "cool-down")
        // Nested repeats count their rounds outermost first.
        let nested = Plan(name: "n", steps: [.repeated(count: 2, steps: [.repeated(count: 3, steps: [.segment(.init(seconds: 30, target: .zone(5)))]),
                                                                        .segment(.init(seconds: 60, target: .zone(1)))])])
        #expect(nested.timeline().map(\.rounds) == [[1, 1], [1, 2], [1, 3], [1], [2, 1], [2, 2], [2, 3], [2]])
        #expect(nested.timeline().map(\.offset) == [0, 30, 60, 90, 150, 180, 210, 240])
        #expect(nested.fixedSeconds == 300)
    }

    @Test func aRampMovesEvenlyThroughItsZones() {
        let ramp = Plan.Target.ramp(from: 2, to: 4)
        #expect(ramp.zone(at: 0) == 2 && ramp.zone(at: 0.5) == 3 && ramp.zone(at: 1) == 4 && ramp.zone(at: 7) == 4)
        #expect(Plan.Target.ramp(from: 4, to: 1).zone(at: 1.0 / 3) == 3)
        #expect(Plan.Target.zone(3).zone(at: 0.9) == 3)
        #expect(Plan.Target.cadence(170...180).zone(at: 0.5) == nil)
        #expect(Plan.Target.heartRate(140...155).text == "140-155 bpm" && Plan.Target.ramp(from: 2, to: 4).text == "Z2 → Z4")
        #expect(Plan.Target.tempo(128...132).text == "tempo 128-132" && Plan.Target.cadence(170...180).text == "170-180 spm")
    }

    // MARK: JSON

    @Test func jsonRoundTripsEveryKindOfStep() throws {
        let plan = Plan(name: "all", sport: "cycling", steps: Self.intervals.steps + [
            .segment(.init(seconds: 60, target: .heartRate(140...150))), .segment(.init(seconds: 60, target: .cadence(85...95))),
            .segment(.init(seconds: 60, target: .tempo(128...132))), .segment(.init(seconds: 60, target: .free, label: "easy")),
        ])
        let data = try JSONSerialization.data(withJSONObject: plan.json, options: .sortedKeys)
        let back = try Plan(json: try JSONSerialization.jsonObject(with: data))
        #expect(back == plan)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#"{"repeat":6,"steps":[{"seconds":120,"target":{"type":"zone","zone":5}}"#), "\(text)")
        #expect(text.contains(#"{"label":"cool-down","open":true,"target":{"type":"zone","zone":1}}"#))
    }

    @Test(arguments: [
        (#"[]"#, "a plan is a JSON object"),
        (#"{"steps": []}"#, "name: a plan needs a name (a string)"),
        (#"{"name": "x"}"#, "steps: a list of segments and repeats"),
        (#"{"name": "x", "steps": []}"#, "steps: a plan needs at least one segment"),
        (#"{"name": "x", "steps": [{"target": {"type": "zone", "zone": 2}}]}"#,
         #"steps[0]: a segment needs its seconds, or "open": true to last until you press next"#),
        (#"{"name": "x", "steps": [{"seconds": 0, "target": {"type": "zone", "zone": 2}}]}"#,
         "steps[0]: a segment lasts at least one second (or is open-ended)"),
        (#"{"name": "x", "steps": [{"seconds": 1.5}]}"#, "steps[0].seconds: a whole number of seconds"),
        (#"{"name": "x", "steps": [{"seconds": true}]}"#, "steps[0].seconds: a whole number of seconds"),
        (#"{"name": "x", "steps": [{"repeat": 6, "steps": [{"seconds": 60, "target": {"type": "zone", "zone": 6}}]}]}"#,
         "steps[0].steps[0]: zone 6 does not exist: zones are 1 to 5"),
        (#"{"name": "x", "steps": [{"seconds": 60, "target": {"type": "pace"}}]}"#,
         "steps[0].target.type: 'pace' is no target: zone, ramp, heart_rate, cadence, tempo or free"),
        (#"{"name": "x", "steps": [{"seconds": 60, "target": {"type": "cadence", "low": 190, "high": 170}}]}"#,
         "steps[0].target: low (190) is above high (170)"),
        (#"{"name": "x", "steps": [{"seconds": 60, "open": true, "target": {"type": "free"}}]}"#,
         "steps[0]: a segment is open-ended or lasts some seconds, not both"),
        (#"{"name": "x", "steps": [{"seconds": 90000, "target": {"type": "free"}}]}"#,
         "steps[0]: 25:00:00 is over the 24 hours a plan may last"),
    ])
    func malformedJSONIsRefusedWithItsPath(json: String, message: String) throws {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .fragmentsAllowed)
        do {
            _ = try Plan(json: object)
            Issue.record("accepted: \(json)")
        } catch {
            #expect(error.description == message, "\(json)")
        }
    }

    // MARK: Zwift

    static let zwo = """
        <?xml version="1.0" encoding="UTF-8"?>
        <workout_file>
            <author>Coach</author>
            <name>Over-unders &amp; a ramp</name>
            <sportType>run</sportType>
            <workout>
                <Warmup Duration="600" PowerLow="0.45" PowerHigh="0.70" pace="0"/>
                <IntervalsT Repeat="6" OnDuration="120" OffDuration="180" OnPower="1.10" OffPower="0.65">
                    <textevent timeoffset="0" message="Go!"/>
                </IntervalsT>
                <SteadyState Duration="300" Power="0.80" Cadence="88"/>
                <Ramp Duration="1200" PowerLow="0.70" PowerHigh="1.00"/>
                <FreeRide Duration="300" FlatRoad="1"/>
                <MaxEffort Duration="20"/>
                <Cooldown Duration="600" PowerLow="0.55" PowerHigh="0.40"/>
            </workout>
        </workout_file>
        """

    @Test func aZwiftWorkoutGivesTheSameSegmentsAsItsSource() throws {
        let plan = try Plan(zwift: Array(Self.zwo.utf8), fallbackName: "file")
        #expect(plan.name == "Over-unders & a ramp" && plan.sport == "running")
        #expect(plan.steps == [
            .segment(.init(seconds: 600, target: .ramp(from: 1, to: 2), label: "warm-up")),
            .repeated(count: 6, steps: [.segment(.init(seconds: 120, target: .zone(5), label: "on")),
                                        .segment(.init(seconds: 180, target: .zone(2), label: "off"))]),
            .segment(.init(seconds: 300, target: .zone(3))),
            .segment(.init(seconds: 1200, target: .ramp(from: 2, to: 4), label: "ramp")),
            .segment(.init(seconds: 300, target: .free, label: "free ride")),
            .segment(.init(seconds: 20, target: .zone(5), label: "max effort")),
            .segment(.init(seconds: 600, target: .zone(1), label: "cool-down")),
        ])
        #expect(plan.fixedSeconds == 600 + 1800 + 300 + 1200 + 300 + 20 + 600)
        // Zwift's bands: 59 % is Z1, 60 % Z2, 90 % Z3, 105 % Z4, 106 % Z5.
        #expect([0.59, 0.60, 0.90, 1.05, 1.06, 1.5].map { Plan.zone(thresholdFraction: $0) } == [1, 2, 3, 4, 5, 5])
        let untitled = try Plan(zwift: Array("<workout_file><workout><SteadyState Duration='60' Power='0.5'/></workout></workout_file>".utf8),
                                fallbackName: "tempo.zwo")
        #expect(untitled.name == "tempo.zwo" && untitled.sport == nil)
    }

    @Test(arguments: [
        ("not xml at all", "not a Zwift workout: "),
        ("<workout><SteadyState Duration='60' Power='1'/></workout>", "not a Zwift workout: the document is <workout>, not <workout_file>"),
        ("<workout_file><name>x</name></workout_file>", "a Zwift workout without its <workout> element"),
        ("<workout_file><workout/></workout_file>", "steps: a plan needs at least one segment"),
        ("<workout_file><workout><SteadyState Power='1'/></workout></workout_file>", "<SteadyState> (step 1): its Duration is missing or not a number"),
        ("<workout_file><workout><SteadyState Duration='x' Power='1'/></workout></workout_file>", "<SteadyState> (step 1): its Duration is missing or not a number"),
        ("<workout_file><workout><SteadyState Duration='-5' Power='1'/></workout></workout_file>", "<SteadyState> (step 1): Duration -5.0 is not a duration in seconds"),
        ("<workout_file><workout><Pyramid Duration='60'/></workout></workout_file>", "<Pyramid> (step 1): Pacenote does not know Zwift's <Pyramid> step"),
        ("<workout_file><workout><IntervalsT Repeat='500' OnDuration='1' OffDuration='1' OnPower='1' OffPower='0.5'/></workout></workout_file>",
         "steps[0]: a repeat is 2 to 99 times, not 500"),
        ("<workout_file><workout><SteadyState Duration='60' Power='1'>", "not a Zwift workout: "),
    ])
    func malformedZwiftFilesAreRefusedWithTheReason(xml: String, message: String) {
        do {
            _ = try Plan(zwift: Array(xml.utf8), fallbackName: "f")
            Issue.record("accepted: \(xml)")
        } catch {
            #expect(error.description.hasPrefix(message), "\(xml): \(error.description)")
        }
    }
}
