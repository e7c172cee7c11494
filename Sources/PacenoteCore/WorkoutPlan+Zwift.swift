import Foundation

/// Zwift's structured workouts (`.zwo`, the files people trade and export from training
/// sites): `<workout_file>` with `name`, `sportType` (`bike` or `run`) and a `<workout>` of
/// `Warmup`, `Cooldown` and `Ramp` (from `PowerLow` to `PowerHigh`), `SteadyState` (`Power`),
/// `IntervalsT` (`Repeat` × `OnDuration`/`OnPower`, `OffDuration`/`OffPower`), `FreeRide` and
/// `MaxEffort`, every duration in seconds and every power a fraction of the rider's threshold
/// (FTP, or threshold pace on a run). Read with Core's own XML reader; text events and
/// anything else inside are ignored.
extension WorkoutPlan {
    /// A threshold fraction's heart-rate zone, by Zwift's own bands (Z1 under 60 %, Z2 to
    /// 75 %, Z3 to 90 %, Z4 to 105 %, Z5 above; Zwift's Z6 is Pacenote's Z5).
    public static func zone(thresholdFraction f: Double) -> Int {
        switch f {
        case ..<0.60: 1
        case ..<0.76: 2
        case ..<0.91: 3
        case ..<1.06: 4
        default: 5
        }
    }

    public init(zwift bytes: [UInt8], fallbackName: String) throws(Problem) {
        let root: XMLText.Element
        do {
            root = try XMLText.parse(bytes, limits: XMLText.Limits())
        } catch {
            throw Problem("", "not a Zwift workout: \(error.description)")
        }
        guard root.name == "workout_file" else { throw Problem("", "not a Zwift workout: the document is <\(root.name)>, not <workout_file>") }
        guard let workout = root.child("", "workout") else { throw Problem("", "a Zwift workout without its <workout> element") }
        let title = root.child("", "name")?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        let sport: String? = switch root.child("", "sportType")?.text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
        case "run": "running"
        case "bike": "cycling"
        default: nil
        }
        var steps: [Step] = []
        for (i, element) in workout.children.enumerated() {
            let path = "<\(element.name)> (step \(i + 1))"
            func number(_ name: String) throws(Problem) -> Double {
                guard let text = element.attributes[name], let n = Double(text.trimmingCharacters(in: .whitespaces)), n.isFinite else {
                    throw Problem(path, "its \(name) is missing or not a number")
                }
                return n
            }
            func seconds(_ name: String) throws(Problem) -> Int {
                let n = try number(name)
                guard n >= 0, n <= Double(Self.maxSeconds) else { throw Problem(path, "\(name) \(n) is not a duration in seconds") }
                return Int(n.rounded())
            }
            func ramp(_ label: String) throws(Problem) -> Step {
                let from = Self.zone(thresholdFraction: try number("PowerLow")), to = Self.zone(thresholdFraction: try number("PowerHigh"))
                return .segment(Segment(seconds: try seconds("Duration"), target: from == to ? .zone(from) : .ramp(from: from, to: to), label: label))
            }
            switch element.name {
            case "Warmup": steps.append(try ramp("warm-up"))
            case "Cooldown": steps.append(try ramp("cool-down"))
            case "Ramp": steps.append(try ramp("ramp"))
            case "SteadyState":
                steps.append(.segment(Segment(seconds: try seconds("Duration"), target: .zone(Self.zone(thresholdFraction: try number("Power"))))))
            case "IntervalsT":
                let count = Int(try number("Repeat").rounded())
                let on = Segment(seconds: try seconds("OnDuration"), target: .zone(Self.zone(thresholdFraction: try number("OnPower"))), label: "on")
                let off = Segment(seconds: try seconds("OffDuration"), target: .zone(Self.zone(thresholdFraction: try number("OffPower"))), label: "off")
                // Zwift's single interval is a pair, not a repeat.
                steps += count == 1 ? [.segment(on), .segment(off)] : [.repeated(count: count, steps: [.segment(on), .segment(off)])]
            case "FreeRide": steps.append(.segment(Segment(seconds: try seconds("Duration"), target: .free, label: "free ride")))
            case "MaxEffort": steps.append(.segment(Segment(seconds: try seconds("Duration"), target: .zone(5), label: "max effort")))
            case "textevent", "TextEvent": continue
            default: throw Problem(path, "Pacenote does not know Zwift's <\(element.name)> step")
            }
        }
        self.init(name: title.isEmpty ? fallbackName : String(title.prefix(Self.maxNameLength)), sport: sport, steps: steps)
        try validate()
    }
}

extension WorkoutPlan {
    /// A plan file of any kind Pacenote reads, told apart by its first bytes: Pacenote's own
    /// JSON (an export), Zwift's `.zwo`, or a FIT workout file. `fallbackName` names a plan
    /// whose file has none.
    public init(file bytes: [UInt8], fallbackName: String) throws(Problem) {
        if bytes.count >= 12, Array(bytes[8..<12]) == Array(".FIT".utf8) {
            try self.init(fit: bytes, fallbackName: fallbackName)
            return
        }
        let blank: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF]  // and a UTF-8 byte-order mark
        switch bytes.first(where: { !blank.contains($0) }) {
        case UInt8(ascii: "{")?:
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) else { throw Problem("", "the file is not valid JSON") }
            try self.init(json: object)
        case UInt8(ascii: "<")?:
            try self.init(zwift: bytes, fallbackName: fallbackName)
        default:
            throw Problem("", "not a plan file: Pacenote's plan JSON, a Zwift .zwo or a FIT workout file")
        }
    }
}
