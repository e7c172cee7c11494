import Foundation

/// A plan written down: as JSON (the API, export and import), as text (the editor's one-line
/// notation and `pacenote workout plan`), and read from Zwift's `.zwo` files. Each reader
/// says where a plan is wrong (`WorkoutPlan.Problem`) and never returns half a plan.
extension WorkoutPlan {
    // MARK: JSON

    /// `{"name": …, "sport": …, "steps": [{"seconds": 600, "target": {"type": "zone", "zone": 2},
    /// "label": "warm-up"}, {"repeat": 6, "steps": […]}, {"open": true, "target": {"type": "free"}}]}`.
    public var json: [String: Any] {
        var object: [String: Any] = ["name": name, "steps": steps.map(Self.json)]
        if let sport { object["sport"] = sport }
        return object
    }

    static func json(_ step: Step) -> [String: Any] {
        switch step {
        case .repeated(let count, let inner):
            return ["repeat": count, "steps": inner.map(json)]
        case .segment(let s):
            var object: [String: Any] = ["target": json(s.target)]
            if let seconds = s.seconds { object["seconds"] = seconds } else { object["open"] = true }
            if let label = s.label { object["label"] = label }
            return object
        }
    }

    public static func json(_ target: Target) -> [String: Any] {
        switch target {
        case .free: ["type": "free"]
        case .zone(let z): ["type": "zone", "zone": z]
        case .ramp(let a, let b): ["type": "ramp", "from": a, "to": b]
        case .heartRate(let r): ["type": "heart_rate", "low": r.lowerBound, "high": r.upperBound]
        case .cadence(let r): ["type": "cadence", "low": r.lowerBound, "high": r.upperBound]
        case .tempo(let r): ["type": "tempo", "low": r.lowerBound, "high": r.upperBound]
        }
    }

    /// The plan in a JSON object as `json` writes it, validated.
    public init(json object: Any) throws(Problem) {
        guard let object = object as? [String: Any] else { throw Problem("", "a plan is a JSON object") }
        guard let name = object["name"] as? String else { throw Problem("name", "a plan needs a name (a string)") }
        var sport: String?
        if let value = object["sport"], !(value is NSNull) {
            guard let s = value as? String else { throw Problem("sport", "a string such as \"running\"") }
            sport = s
        }
        guard let steps = object["steps"] as? [Any] else { throw Problem("steps", "a list of segments and repeats") }
        self.init(name: name, sport: sport, steps: try Self.steps(steps, path: "steps", depth: 1))
        try validate()
    }

    private static func steps(_ list: [Any], path: String, depth: Int) throws(Problem) -> [Step] {
        guard depth <= maxDepth + 1 else { throw Problem(path, "repeats nest at most \(maxDepth) deep") }
        var out: [Step] = []
        for (i, item) in list.enumerated() {
            let here = "\(path)[\(i)]"
            guard let object = item as? [String: Any] else { throw Problem(here, "a segment or a repeat is a JSON object") }
            if let count = object["repeat"] {
                guard let n = integer(count) else { throw Problem(here + ".repeat", "a whole number of times") }
                guard let inner = object["steps"] as? [Any] else { throw Problem(here + ".steps", "a repeat's list of segments") }
                out.append(.repeated(count: n, steps: try steps(inner, path: here + ".steps", depth: depth + 1)))
                continue
            }
            let open = object["open"] as? Bool ?? false
            var seconds: Int?
            if let value = object["seconds"], !(value is NSNull) {
                guard let n = integer(value) else { throw Problem(here + ".seconds", "a whole number of seconds") }
                guard !open else { throw Problem(here, "a segment is open-ended or lasts some seconds, not both") }
                seconds = n
            } else if !open {
                throw Problem(here, "a segment needs its seconds, or \"open\": true to last until you press next")
            }
            let label = object["label"] as? String
            if let label, label.count > maxNameLength { throw Problem(here + ".label", "at most \(maxNameLength) characters") }
            out.append(.segment(Segment(seconds: seconds, target: try target(object["target"], path: here + ".target"), label: label)))
        }
        return out
    }

    private static func integer(_ value: Any) -> Int? {
        guard let n = value as? NSNumber, String(cString: n.objCType) != "c" else { return nil }  // not true/false
        let d = n.doubleValue
        guard d.rounded() == d, abs(d) < 1e9 else { return nil }
        return Int(d)
    }

    private static func target(_ value: Any?, path: String) throws(Problem) -> Target {
        guard let value, !(value is NSNull) else { return .free }
        guard let object = value as? [String: Any], let type = object["type"] as? String else {
            throw Problem(path, "a target is an object with a type: zone, ramp, heart_rate, cadence, tempo or free")
        }
        func number(_ key: String) throws(Problem) -> Int {
            guard let v = object[key], let n = integer(v) else { throw Problem(path + "." + key, "a whole number") }
            return n
        }
        func range() throws(Problem) -> ClosedRange<Int> {
            let low = try number("low"), high = try number("high")
            guard low <= high else { throw Problem(path, "low (\(low)) is above high (\(high))") }
            return low...high
        }
        switch type {
        case "free": return .free
        case "zone": return .zone(try number("zone"))
        case "ramp": return .ramp(from: try number("from"), to: try number("to"))
        case "heart_rate": return .heartRate(try range())
        case "cadence": return .cadence(try range())
        case "tempo": return .tempo(try range())
        default: throw Problem(path + ".type", "'\(type)' is no target: zone, ramp, heart_rate, cadence, tempo or free")
        }
    }

    // MARK: Text

    /// The one-line notation: `10 min Z2 "warm-up", 6 × [2 min Z5, 3 min Z2], 20 min Z2 → Z4,
    /// open Z1 "cool-down"`. Durations in `s`, `min` and `h` (or `m:ss`), targets as
    /// `Target.text` writes them (`140-155 bpm`, `170-180 spm`, `tempo 128-132`, `free`).
    public var text: String { Self.text(steps) }

    static func text(_ steps: [Step]) -> String {
        steps.map { step in
            switch step {
            case .repeated(let count, let inner): "\(count) × [\(text(inner))]"
            case .segment(let s):
                [duration(s.seconds), s.target.text, s.label.map { "\"\($0.replacingOccurrences(of: "\"", with: "'"))\"" }]
                    .compactMap { $0 }.joined(separator: " ")
            }
        }.joined(separator: ", ")
    }

    static func duration(_ seconds: Int?) -> String {
        guard let seconds else { return "open" }
        if seconds % 3600 == 0 { return "\(seconds / 3600) h" }
        if seconds % 60 == 0 { return "\(seconds / 60) min" }
        if seconds < 60 { return "\(seconds) s" }
        return "\(seconds / 60):\(seconds % 60 < 10 ? "0" : "")\(seconds % 60)"
    }

    /// A plan from the notation `text` writes, validated; spaces are free, `x`, `*` and `×`
    /// all repeat, `->`, `→` and `to` all ramp, and `(…)` groups as `[…]` does.
    public init(name: String, sport: String? = nil, text: String) throws(Problem) {
        var parser = PlanTextParser(text)
        let steps = try parser.items(closing: nil, depth: 1)
        self.init(name: name, sport: sport, steps: steps)
        try validate()
    }
}

/// The notation's reader: a hand-written descent over characters, with the position in each
/// error ("at character 14: a zone such as Z3").
struct PlanTextParser {
    let chars: [Character]
    var at = 0

    init(_ text: String) { chars = Array(text) }

    private func problem(_ message: String) -> WorkoutPlan.Problem {
        WorkoutPlan.Problem("", at < chars.count ? "at character \(at + 1): \(message)" : "at the end: \(message)")
    }

    private mutating func skipSpaces() {
        while at < chars.count, chars[at].isWhitespace { at += 1 }
    }

    private mutating func take(_ word: String) -> Bool {
        skipSpaces()
        let w = Array(word)
        guard at + w.count <= chars.count,
              zip(chars[at..<at + w.count], w).allSatisfy({ $0.lowercased() == $1.lowercased() }) else { return false }
        // A word ends where letters end: "min" is not the start of "mine".
        if let last = w.last, last.isLetter, at + w.count < chars.count, chars[at + w.count].isLetter { return false }
        at += w.count
        return true
    }

    private mutating func number() -> Double? {
        skipSpaces()
        var end = at
        while end < chars.count, chars[end].isASCII, chars[end].isNumber || chars[end] == "." { end += 1 }
        guard end > at, let n = Double(String(chars[at..<end])) else { return nil }
        at = end
        return n
    }

    mutating func items(closing: Character?, depth: Int) throws(WorkoutPlan.Problem) -> [WorkoutPlan.Step] {
        var steps: [WorkoutPlan.Step] = []
        while true {
            steps.append(try item(depth: depth))
            skipSpaces()
            if at < chars.count, chars[at] == "," || chars[at] == ";" || chars[at] == "+" { at += 1; continue }
            if let closing {
                guard at < chars.count, chars[at] == closing else { throw problem("'\(closing)' to close the repeat") }
                at += 1
            } else if at < chars.count {
                throw problem("a comma before the next segment")
            }
            return steps
        }
    }

    private mutating func item(depth: Int) throws(WorkoutPlan.Problem) -> WorkoutPlan.Step {
        skipSpaces()
        let start = at
        // A repeat: a count, then x, × or *, then a group.
        if let n = number(), n.rounded() == n, take("×") || take("x") || take("*") {
            skipSpaces()
            guard at < chars.count, chars[at] == "[" || chars[at] == "(" else { throw problem("'[' after the repeat's count") }
            let closing: Character = chars[at] == "[" ? "]" : ")"
            at += 1
            guard depth <= WorkoutPlan.maxDepth else { throw problem("repeats nest at most \(WorkoutPlan.maxDepth) deep") }
            return .repeated(count: Int(n), steps: try items(closing: closing, depth: depth + 1))
        }
        at = start
        let seconds = try duration()
        let target = try target()
        var label: String?
        skipSpaces()
        if at < chars.count, chars[at] == "\"" {
            at += 1
            let begin = at
            while at < chars.count, chars[at] != "\"" { at += 1 }
            guard at < chars.count else { throw problem("a closing '\"' for the label") }
            label = String(chars[begin..<at])
            at += 1
        }
        return .segment(.init(seconds: seconds, target: target, label: label))
    }

    private mutating func duration() throws(WorkoutPlan.Problem) -> Int? {
        if take("open") { return nil }
        guard let n = number() else { throw problem("a duration such as 5 min, 90 s, 1:30 or open") }
        if at < chars.count, chars[at] == ":" {
            at += 1
            guard let s = number(), s < 60, s.rounded() == s, n.rounded() == n else { throw problem("seconds after ':' (0 to 59)") }
            return Int(n) * 60 + Int(s)
        }
        let scale: Double
        if take("hours") || take("hour") || take("h") { scale = 3600 }
        else if take("minutes") || take("minute") || take("mins") || take("min") || take("m") || take("'") { scale = 60 }
        else if take("seconds") || take("second") || take("secs") || take("sec") || take("s") || take("\"") { scale = 1 }
        else { throw problem("a unit after the number: s, min or h") }
        let seconds = (n * scale).rounded()
        guard seconds < Double(WorkoutPlan.maxSeconds * 10) else { throw problem("a duration under a day") }
        return Int(seconds)
    }

    private mutating func zone() throws(WorkoutPlan.Problem) -> Int {
        guard take("z"), let n = number(), n.rounded() == n else { throw problem("a zone such as Z3") }
        return Int(n)
    }

    private mutating func range() throws(WorkoutPlan.Problem) -> ClosedRange<Int> {
        guard let low = number(), low.rounded() == low else { throw problem("a range such as 140-155") }
        skipSpaces()
        guard at < chars.count, chars[at] == "-" || chars[at] == "–" else { throw problem("'-' between the range's ends") }
        at += 1
        guard let high = number(), high.rounded() == high else { throw problem("the range's upper end") }
        guard low <= high else { throw problem("the range's low end first (\(Int(low)) is above \(Int(high)))") }
        return Int(low)...Int(high)
    }

    private mutating func target() throws(WorkoutPlan.Problem) -> WorkoutPlan.Target {
        if take("free") { return .free }
        if take("tempo") || take("♩") { return .tempo(try range()) }
        skipSpaces()
        if at < chars.count, chars[at] == "Z" || chars[at] == "z" {
            let from = try zone()
            if take("->") || take("→") || take("to") { return .ramp(from: from, to: try zone()) }
            return .zone(from)
        }
        guard at < chars.count, chars[at].isASCII, chars[at].isNumber else {
            throw problem("a target such as Z3, Z2 → Z4, 140-155 bpm, 170-180 spm, tempo 128-132 or free")
        }
        let r = try range()
        if take("bpm") { return .heartRate(r) }
        if take("spm") || take("rpm") { return .cadence(r) }
        throw problem("bpm (heart rate) or spm (cadence) after the range")
    }
}
