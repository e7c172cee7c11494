import Foundation
import PacenoteCore

/// The kinds of value configuration keys take, each read from TOML or text and shown as TOML.
enum Codec {
    static let string = string { $0 }

    /// A string, checked (or normalised) by `check`.
    static func string(_ check: @escaping @Sendable (String) throws(ConfigProblem) -> String) -> ConfigCodec<String> {
        ConfigCodec(read: { (input) throws(ConfigProblem) in try check(try text(input)) }, show: { quote($0) })
    }

    /// A string where empty means unset.
    static func optionalString(_ check: @escaping @Sendable (String) throws(ConfigProblem) -> String = { $0 }) -> ConfigCodec<String?> {
        ConfigCodec(read: { (input) throws(ConfigProblem) in
            let value = try text(input)
            return value.isEmpty ? nil : try check(value)
        }, show: { $0.map(quote) })
    }

    /// A value parsed from a string, shown as its description.
    static func parsed<T: CustomStringConvertible & Sendable>(_ parse: @escaping @Sendable (String) throws(ConfigProblem) -> T) -> ConfigCodec<T> {
        ConfigCodec(read: { (input) throws(ConfigProblem) in try parse(try text(input)) }, show: { quote($0.description) })
    }

    /// One of a few words.
    static func oneOf(_ words: [String]) -> ConfigCodec<String> {
        string { (value) throws(ConfigProblem) in
            guard words.contains(value) else { throw ConfigProblem("'\(value)' is not one of \(words.joined(separator: ", "))") }
            return value
        }
    }

    static func integer(_ range: ClosedRange<Int64>) -> ConfigCodec<Int> {
        ConfigCodec(read: { (input) throws(ConfigProblem) in Int(try integer(input, in: range)) }, show: { String($0) })
    }

    static func number(_ range: ClosedRange<Double>) -> ConfigCodec<Double> {
        ConfigCodec(read: { (input) throws(ConfigProblem) in
            let value: Double?
            switch input {
            case .text(let s): value = Double(s.trimmingCharacters(in: .whitespaces))
            case .toml(.integer(let i)): value = Double(i)
            case .toml(.float(let f)): value = f
            case .toml(let other): throw ConfigProblem("expected a number, got \(other.kindDescription)")
            }
            guard let value, range.contains(value) else {
                throw ConfigProblem("expected a number from \(range.lowerBound) to \(range.upperBound), got \(input.quoted)")
            }
            return value
        }, show: { decimal($0) })
    }

    static let boolean = ConfigCodec<Bool>(read: { (input) throws(ConfigProblem) in
        switch input {
        case .toml(.boolean(let b)): return b
        case .text(let t) where ["true", "1", "yes", "on"].contains(t.lowercased()): return true
        case .text(let t) where ["false", "0", "no", "off"].contains(t.lowercased()): return false
        default: throw ConfigProblem("expected true or false")
        }
    }, show: { "\($0)" })

    /// A list's items: a TOML array of strings, one string, or comma-separated text (an
    /// environment variable, a flag); blanks dropped, `none` alone for none.
    static func listItems(_ input: ConfigInput, of what: String, example: String) throws(ConfigProblem) -> [String] {
        var items: [String]
        switch input {
        case .text(let text): items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        case .toml(.string(let text)): items = [text]
        case .toml(.array(let values)):
            items = try values.map { (v: TOMLValue) throws(ConfigProblem) -> String in
                guard case .string(let s) = v else { throw ConfigProblem("expected strings such as \"\(example)\"") }
                return s
            }
        case .toml(let other): throw ConfigProblem("expected an array of \(what), got \(other.kindDescription)")
        }
        items = items.filter { !$0.isEmpty }
        return items == ["none"] ? [] : items
    }

    /// CIDR networks: a TOML array of strings, or comma-separated text; `none` for none.
    static let networks = ConfigCodec<[IPNetwork]>(read: { (input) throws(ConfigProblem) in
        try listItems(input, of: "networks", example: "192.168.0.0/16").map { (item: String) throws(ConfigProblem) -> IPNetwork in
            guard let network = IPNetwork(item) else {
                throw ConfigProblem("'\(item)' is not a network (e.g. 192.168.0.0/16, fd00::/8, 127.0.0.1) or none")
            }
            return network
        }
    }, show: { $0.isEmpty ? "\"none\"" : "[" + $0.map { quote(cidr($0)) }.joined(separator: ", ") + "]" })

    /// Web origins (`https://example.org`): a TOML array of strings, or comma-separated text;
    /// `none` for none. `*` and `null` are refused with the reason (`WebOrigin.Refusal`).
    static let origins = ConfigCodec<[WebOrigin]>(read: { (input) throws(ConfigProblem) in
        try listItems(input, of: "origins", example: "https://example.org").map { (item: String) throws(ConfigProblem) -> WebOrigin in
            do throws(WebOrigin.Refusal) {
                return try WebOrigin(parsing: item)
            } catch .wildcard {
                throw ConfigProblem("""
                    '\(item)': a wildcard is refused: every page on the web could then call Pacenote from its \
                    visitors' browsers (on a trusted network, a visitor's browser reads the history); list each \
                    site's origin instead (e.g. "https://example.org")
                    """)
            } catch .null {
                throw ConfigProblem("'null' is refused: it is the origin of sandboxed frames and local files, which any page can take")
            } catch {
                throw ConfigProblem("'\(item)' is not an origin: scheme, host and port only, e.g. \"https://example.org\" or \"http://localhost:8080\"")
            }
        }
    }, show: { $0.isEmpty ? "\"none\"" : "[" + $0.map { quote($0.text) }.joined(separator: ", ") + "]" })

    /// A tempo window: `[low, high]` in bpm, or "low-high" as text.
    static let tempoWindow = ConfigCodec<ClosedRange<Double>>(read: { (input) throws(ConfigProblem) in
        var values: [Double] = []
        switch input {
        case .toml(.array(let items)):
            for item in items {
                switch item {
                case .integer(let i): values.append(Double(i))
                case .float(let f): values.append(f)
                default: throw ConfigProblem("expected [low, high] in bpm")
                }
            }
        case .text(let text), .toml(.string(let text)):
            values = text.split(whereSeparator: { $0 == "-" || $0 == "," }).compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        case .toml(let other): throw ConfigProblem("expected [low, high], got \(other.kindDescription)")
        }
        guard values.count == 2, values[0] >= 30, values[1] <= 300, values[0] < values[1] else {
            throw ConfigProblem("expected [low, high] with 30 ≤ low < high ≤ 300 bpm")
        }
        return values[0]...values[1]
    }, show: { "[\(decimal($0.lowerBound)), \(decimal($0.upperBound))]" })

    /// Integers in `range`: a TOML array, or comma-separated text.
    static func integers(_ range: ClosedRange<Int64>, unit: String, expected: String) -> ConfigCodec<[Int]> {
        ConfigCodec(read: { (input) throws(ConfigProblem) in
            let items: [Int64]
            switch input {
            case .toml(.array(let values)):
                items = try values.map { (v: TOMLValue) throws(ConfigProblem) -> Int64 in
                    guard case .integer(let i) = v else { throw ConfigProblem("expected integers") }
                    return i
                }
            case .text(let text):
                items = try text.split(separator: ",").map { (part: Substring) throws(ConfigProblem) -> Int64 in
                    guard let i = Int64(part.trimmingCharacters(in: .whitespaces)) else { throw ConfigProblem("expected integers") }
                    return i
                }
            case .toml(let other):
                throw ConfigProblem("expected \(expected), got \(other.kindDescription)")
            }
            guard items.allSatisfy({ range.contains($0) }) else {
                throw ConfigProblem("values must be \(range.lowerBound)–\(range.upperBound) \(unit)")
            }
            return items.map { Int($0) }
        }, show: { "[" + $0.map(String.init).joined(separator: ", ") + "]" })
    }

    // MARK: Helpers

    /// A number as people write it: `30`, `0.5`.
    static func decimal(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// A network in the shortest form its readers accept: `::1/128`, not `0:0:0:0:0:0:0:1/128`.
    static func cidr(_ network: IPNetwork) -> String {
        guard network.address.count == 16 else { return network.description }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = network.address.withUnsafeBytes { bytes in
            inet_ntop(AF_INET6, bytes.baseAddress, &buffer, socklen_t(buffer.count)) != nil
        }
        return written ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/\(network.prefixLength)"
            : network.description
    }

    static func text(_ input: ConfigInput) throws(ConfigProblem) -> String {
        switch input {
        case .text(let s), .toml(.string(let s)): return s
        case .toml(let other): throw ConfigProblem("expected a string, got \(other.kindDescription)")
        }
    }

    static func integer(_ input: ConfigInput, in range: ClosedRange<Int64>) throws(ConfigProblem) -> Int64 {
        let value: Int64?
        switch input {
        case .text(let s): value = Int64(s.trimmingCharacters(in: .whitespaces))
        case .toml(.integer(let i)): value = i
        case .toml(let other): throw ConfigProblem("expected an integer, got \(other.kindDescription)")
        }
        guard let value, range.contains(value) else {
            throw ConfigProblem("expected an integer from \(range.lowerBound) to \(range.upperBound), got \(input.quoted)")
        }
        return value
    }

    static func quote(_ s: String) -> String { QuotedString.literal(s) }
}
