import Foundation

/// A FIT workout file (type 5: what Garmin Connect, TrainingPeaks and a watch's own editor
/// write) as a plan. Its steps are one flat list; a repeat step (`repeat_until_steps_cmplt`)
/// names the step it goes back to and how many times the steps from there to it run, so
/// repeats inside repeats are read by folding the steps already read into the repeat.
extension WorkoutPlan {
    /// `duration_type` and `target_type` values of the FIT profile.
    enum FITStep {
        static let time: UInt8 = 0, distance: UInt8 = 1, hrLessThan: UInt8 = 2, hrGreaterThan: UInt8 = 3, open: UInt8 = 5
        static let repeatSteps: UInt8 = 6
        static let speed: UInt8 = 0, heartRate: UInt8 = 1, openTarget: UInt8 = 2, cadence: UInt8 = 3, power: UInt8 = 4
    }

    public init(fit bytes: [UInt8], fallbackName: String) throws(Problem) {
        let file: FITActivity
        do {
            file = try FITFile.decodeWorkout(bytes)
        } catch {
            throw Problem("", error.description)
        }
        var built: [(index: Int, step: Step)] = []
        for step in file.workoutSteps {
            let path = "step \(step.index + 1)\(step.name.map { " (\($0))" } ?? "")"
            if step.durationType == FITStep.repeatSteps {
                // Back to step `durationValue`, `targetValue` times in all.
                guard let from = step.durationValue.map(Int.init), let count = step.targetValue.map(Int.init),
                      let first = built.firstIndex(where: { $0.index >= from }) else {
                    throw Problem(path, "a repeat that goes back to no step before it")
                }
                let inner = built[first...].map(\.step)
                built.removeSubrange(first...)
                built.append((from, .repeated(count: count, steps: inner)))
                continue
            }
            let seconds: Int?
            switch step.durationType {
            case FITStep.time:
                guard let ms = step.durationValue else { throw Problem(path, "a timed step without its time") }
                seconds = Int((Double(ms) / 1000).rounded())
            case FITStep.open, FITStep.hrLessThan, FITStep.hrGreaterThan, nil:
                // Until the lap button, or until the heart rate crosses a line: the runner ends it.
                seconds = nil
            case FITStep.distance:
                throw Problem(path, "a step of a distance: Pacenote's plans are timed (make it a time, or open)")
            default:
                throw Problem(path, "Pacenote does not read FIT steps of duration type \(step.durationType!)")
            }
            built.append((step.index, .segment(Segment(seconds: seconds, target: try Self.fitTarget(step, path: path),
                                                       label: step.name ?? Self.fitIntensity(step.intensity)))))
        }
        let sport = file.workoutSport.map(FITSport.name)
        let title = file.workoutName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.init(name: title.isEmpty ? fallbackName : String(title.prefix(Self.maxNameLength)),
                  sport: sport == "generic" ? nil : sport, steps: built.map(\.step))
        try validate()
    }

    /// A step's target. Heart rate: a zone (1–5), or a custom range in bpm (the profile
    /// stores bpm + 100; 100 and under is a percentage of the maximum, read by Cue's bands).
    /// Power: a zone (Zwift's seven as five) or a share of the threshold (watts + 1000 need a
    /// threshold Pacenote does not know). Cadence: the range as the device counts it.
    static func fitTarget(_ step: FITActivity.WorkoutStep, path: String) throws(Problem) -> Target {
        let zone = step.targetValue.flatMap { $0 == 0 ? nil : Int($0) }
        let low = step.customLow.map(Int.init), high = step.customHigh.map(Int.init)
        switch step.targetType {
        case FITStep.openTarget, nil:
            return .free
        case FITStep.heartRate:
            if let zone { return .zone(min(zone, 5)) }
            guard let low, let high, low > 0, high >= low else { throw Problem(path, "a heart-rate target without its zone or range") }
            if low > 100 { return .heartRate((low - 100)...(high - 100)) }
            // A percentage of the maximum heart rate: Z1 from 50 %, Z2 60, Z3 70, Z4 80, Z5 90.
            let middle = Double(low + high) / 2
            return .zone(min(max(Int(middle / 10) - 4, 1), 5))
        case FITStep.power:
            if let zone { return .zone(min(zone, 5)) }  // Coggan's Z6 and Z7 are above threshold: Z5
            guard let low, let high, low > 0, high >= low else { throw Problem(path, "a power target without its zone or range") }
            guard high <= 1000 else { throw Problem(path, "a power target in watts: Pacenote plans by zone or by a share of the threshold") }
            return .zone(Self.zone(thresholdFraction: Double(low + high) / 200))
        case FITStep.cadence:
            guard let low, let high, low > 0, high >= low else { throw Problem(path, "a cadence target without its range") }
            return .cadence(low...high)
        case FITStep.speed:
            throw Problem(path, "a speed target: Pacenote's plans target zones, heart rate, cadence or tempo")
        default:
            throw Problem(path, "Pacenote does not read FIT targets of type \(step.targetType!)")
        }
    }

    static func fitIntensity(_ intensity: UInt8?) -> String? {
        switch intensity {
        case 1: "rest"
        case 2: "warm-up"
        case 3: "cool-down"
        case 4: "recovery"
        case 5: "interval"
        default: nil
        }
    }
}
