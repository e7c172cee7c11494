/// A TOML value, as read from Pacenote's configuration file.
///
/// Pacenote reads TOML 1.0 (https://toml.io/en/v1.0.0) with one exception: offset
/// date-times, local dates and times are rejected with a clear error, because no
/// configuration key takes one. Every other construct — tables, arrays of tables,
/// dotted and quoted keys, inline tables, the four string kinds, integers in any base,
/// floats, booleans and arrays — is parsed as the specification says.
public enum TOMLValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The word used in error messages: "a string", "an integer", …
    public var kindDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A TOML table that remembers the order of its keys and the line each was defined on,
/// so that configuration errors can point at the exact line.
public struct TOMLTable: Equatable, Sendable {
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]
    private var lines: [String: Int] = [:]

    public init() {}

    public subscript(key: String) -> TOMLValue? { values[key] }

    /// The 1-based line on which `key` was defined, if it came from a file.
    public func line(of key: String) -> Int? { lines[key] }

    public mutating func set(_ key: String, _ value: TOMLValue, line: Int) {
        if values[key] == nil { keys.append(key) }
        values[key] = value
        lines[key] = line
    }

    public static func == (lhs: TOMLTable, rhs: TOMLTable) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }
}

public struct TOMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "line \(line): \(message)" }
}

public enum TOML {
    /// Parses a whole TOML document into its root table.
    public static func parse(_ text: String) throws(TOMLError) -> TOMLTable {
        var parser = TOMLParser(Array(text.unicodeScalars))
        return try parser.parseDocument()
    }
}

/// A recursive-descent parser over Unicode scalars. TOML's grammar is line-oriented at the
/// top level (key/value pairs and table headers end at a newline), nested inside values.
struct TOMLParser {
    private let s: [Unicode.Scalar]
    private var i = 0
    private var line = 1
    private var root = TOMLTable()
    /// The path of the table that key/value pairs currently go into.
    private var current: [PathStep] = []
    /// Tables defined by a header or by dotted keys; redefining one is an error (TOML 1.0 §Table).
    private var definedTables: Set<String> = []
    /// Inline tables and static arrays are sealed: nothing may be added to them later.
    private var sealed: Set<String> = []

    /// A step into the document: a key, or (for arrays of tables) one element of a key's
    /// array; the index keeps each `[[x]]` element's tables apart.
    enum PathStep: Hashable { case key(String), element(String, Int) }

    init(_ scalars: [Unicode.Scalar]) { s = scalars }

    mutating func parseDocument() throws(TOMLError) -> TOMLTable {
        while true {
            skipWhitespaceCommentsAndNewlines()
            guard let c = peek else { break }
            if c == "[" {
                try parseHeader()
            } else {
                let startLine = line
                let (path, value) = try parseKeyValue()
                try insert(value, at: current, keyPath: path, line: startLine)
            }
            try endOfLine()
        }
        return root
    }

    // MARK: Lexing helpers

    private var peek: Unicode.Scalar? { i < s.count ? s[i] : nil }
    private func peek(_ offset: Int) -> Unicode.Scalar? { i + offset < s.count ? s[i + offset] : nil }

    private func fail(_ message: String) -> TOMLError { TOMLError(line: line, message: message) }

    private mutating func advance() {
        if s[i] == "\n" { line += 1 }
        i += 1
    }

    private mutating func skipSpaces() {
        while let c = peek, c == " " || c == "\t" { i += 1 }
    }

    private mutating func skipComment() throws(TOMLError) {
        guard peek == "#" else { return }
        while let c = peek, c != "\n" {
            if c == "\r" && peek(1) == "\n" { break }
            if isForbiddenControl(c) { throw fail("control character U+\(hex(c)) in a comment") }
            i += 1
        }
    }

    private mutating func skipWhitespaceCommentsAndNewlines() {
        while let c = peek {
            if c == " " || c == "\t" || c == "\n" || c == "\r" { advance() }
            else if c == "#" { while let d = peek, d != "\n" { i += 1 } }
            else { break }
        }
    }

    private mutating func endOfLine() throws(TOMLError) {
        skipSpaces()
        try skipComment()
        guard let c = peek else { return }
        if c == "\n" { advance(); return }
        if c == "\r" && peek(1) == "\n" { i += 1; advance(); return }
        throw fail("expected the end of the line, found \(describe(c))")
    }

    private func isForbiddenControl(_ c: Unicode.Scalar) -> Bool {
        (c.value < 0x20 && c != "\t") || c.value == 0x7F
    }

    private func hex(_ c: Unicode.Scalar) -> String {
        let h = String(c.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    private func describe(_ c: Unicode.Scalar) -> String {
        c.value < 0x20 || c.value == 0x7F ? "U+\(hex(c))" : "'\(Character(c))'"
    }

    // MARK: Keys

    private mutating func parseKey() throws(TOMLError) -> [String] {
        var parts: [String] = []
        while true {
            skipSpaces()
            guard let c = peek else { throw fail("expected a key, found the end of the file") }
            if c == "\"" {
                i += 1
                parts.append(try parseBasicString())
            } else if c == "'" {
                i += 1
                parts.append(try parseLiteralString())
            } else if isBareKeyChar(c) {
                var k = String.UnicodeScalarView()
                while let d = peek, isBareKeyChar(d) { k.append(d); i += 1 }
                parts.append(String(k))
            } else {
                throw fail("expected a key, found \(describe(c))")
            }
            skipSpaces()
            if peek == "." { i += 1 } else { break }
        }
        return parts
    }

    private func isBareKeyChar(_ c: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
    }

    private mutating func parseKeyValue() throws(TOMLError) -> ([String], TOMLValue) {
        let key = try parseKey()
        skipSpaces()
        guard peek == "=" else {
            throw fail("expected '=' after the key \(key.joined(separator: "."))")
        }
        i += 1
        skipSpaces()
        return (key, try parseValue())
    }

    // MARK: Table headers

    private mutating func parseHeader() throws(TOMLError) {
        let headerLine = line
        i += 1
        let isArray = peek == "["
        if isArray { i += 1 }
        let key = try parseKey()
        guard peek == "]" else { throw fail("expected ']' to close the table header") }
        i += 1
        if isArray {
            guard peek == "]" else { throw fail("expected ']]' to close the array-of-tables header") }
            i += 1
        }
        var path: [PathStep] = []
        for part in key.dropLast() {
            path = try descend(from: path, into: part, line: headerLine)
        }
        let last = key.last!
        let name = pathName(path + [.key(last)])
        if isArray {
            let index = try appendTableToArray(at: path, key: last, line: headerLine)
            current = path + [.element(last, index)]
        } else {
            if definedTables.contains(name) { throw fail("the table [\(key.joined(separator: "."))] is defined twice") }
            if sealed.contains(name) { throw fail("[\(key.joined(separator: "."))] extends an inline table") }
            let existing = lookup(path + [.key(last)])
            switch existing {
            case nil: try setValue(.table(TOMLTable()), at: path, key: last, line: headerLine)
            case .table?: break
            case let other?: throw fail("[\(key.joined(separator: "."))] is already \(other.kindDescription)")
            }
            definedTables.insert(name)
            current = path + [.key(last)]
        }
    }

    /// For `[a.b.c]` and dotted keys: walks into `part`, creating an implicit table if needed.
    private mutating func descend(from path: [PathStep], into part: String, line: Int) throws(TOMLError) -> [PathStep] {
        switch lookup(path + [.key(part)]) {
        case nil:
            try setValue(.table(TOMLTable()), at: path, key: part, line: line)
            return path + [.key(part)]
        case .table?:
            if sealed.contains(pathName(path + [.key(part)])) { throw fail("'\(part)' is an inline table and cannot be extended") }
            return path + [.key(part)]
        case .array(let items)?:
            guard case .table? = items.last, !sealed.contains(pathName(path + [.key(part)])) else {
                throw fail("'\(part)' is an array, not a table")
            }
            return path + [.element(part, items.count - 1)]
        case let other?:
            throw fail("'\(part)' is already \(other.kindDescription), not a table")
        }
    }

    /// Appends an empty table to the array `key` and returns its index.
    private mutating func appendTableToArray(at path: [PathStep], key: String, line: Int) throws(TOMLError) -> Int {
        let full = path + [.key(key)]
        switch lookup(full) {
        case nil:
            try setValue(.array([.table(TOMLTable())]), at: path, key: key, line: line)
            return 0
        case .array(var items)? where !sealed.contains(pathName(full)):
            items.append(.table(TOMLTable()))
            try setValue(.array(items), at: path, key: key, line: line)
            return items.count - 1
        case let other?:
            throw fail("[[\(key)]] is already \(other.kindDescription)")
        }
    }

    private mutating func insert(_ value: TOMLValue, at base: [PathStep], keyPath: [String], line: Int) throws(TOMLError) {
        var path = base
        for part in keyPath.dropLast() {
            let wasAbsent = lookup(path + [.key(part)]) == nil
            let before = pathName(path + [.key(part)])
            if !wasAbsent, definedTables.contains(before), !definedByDottedKeys.contains(before) {
                throw fail("'\(keyPath.joined(separator: "."))' adds to the table [\(before)] defined elsewhere")
            }
            path = try descend(from: path, into: part, line: line)
            if wasAbsent { definedTables.insert(before); definedByDottedKeys.insert(before) }
        }
        let last = keyPath.last!
        if lookup(path + [.key(last)]) != nil {
            throw fail("the key '\(keyPath.joined(separator: "."))' is defined twice")
        }
        try setValue(value, at: path, key: last, line: line)
        if case .table = value { sealed.insert(pathName(path + [.key(last)])) }
        if case .array = value { sealed.insert(pathName(path + [.key(last)])) }
    }

    private var definedByDottedKeys: Set<String> = []

    private func pathName(_ path: [PathStep]) -> String {
        path.map { step -> String in
            switch step {
            case .key(let k): k
            case .element(let k, let i): "\(k)[\(i)]"
            }
        }.joined(separator: "\u{1F}")
    }

    private func lookup(_ path: [PathStep]) -> TOMLValue? {
        var value: TOMLValue = .table(root)
        for step in path {
            switch (step, value) {
            case (.key(let k), .table(let t)):
                guard let v = t[k] else { return nil }
                value = v
            case (.element(let k, let i), .table(let t)):
                guard case .array(let items)? = t[k], items.indices.contains(i) else { return nil }
                value = items[i]
            default:
                return nil
            }
        }
        return value
    }

    private mutating func setValue(_ value: TOMLValue, at path: [PathStep], key: String, line: Int) throws(TOMLError) {
        func update(_ table: inout TOMLTable, _ rest: ArraySlice<PathStep>) -> Bool {
            guard let step = rest.first else {
                table.set(key, value, line: line)
                return true
            }
            switch step {
            case .key(let k):
                guard case .table(var inner)? = table[k] else { return false }
                guard update(&inner, rest.dropFirst()) else { return false }
                table.set(k, .table(inner), line: table.line(of: k) ?? line)
            case .element(let k, let i):
                guard case .array(var items)? = table[k], items.indices.contains(i), case .table(var inner) = items[i] else { return false }
                guard update(&inner, rest.dropFirst()) else { return false }
                items[i] = .table(inner)
                table.set(k, .array(items), line: table.line(of: k) ?? line)
            }
            return true
        }
        guard update(&root, path[...]) else { throw fail("cannot place '\(key)' here") }
    }

    // MARK: Values

    private mutating func parseValue() throws(TOMLError) -> TOMLValue {
        guard let c = peek else { throw fail("expected a value, found the end of the file") }
        switch c {
        case "\"":
            if peek(1) == "\"" && peek(2) == "\"" { i += 3; return .string(try parseMultilineBasicString()) }
            i += 1
            return .string(try parseBasicString())
        case "'":
            if peek(1) == "'" && peek(2) == "'" { i += 3; return .string(try parseMultilineLiteralString()) }
            i += 1
            return .string(try parseLiteralString())
        case "[":
            i += 1
            return try parseArray()
        case "{":
            i += 1
            return try parseInlineTable()
        case "t", "f":
            if matchWord("true") { return .boolean(true) }
            if matchWord("false") { return .boolean(false) }
            throw fail("expected a value; strings need quotes")
        default:
            return try parseNumber()
        }
    }

    private mutating func matchWord(_ word: String) -> Bool {
        let w = Array(word.unicodeScalars)
        guard i + w.count <= s.count, Array(s[i..<(i + w.count)]) == w else { return false }
        if let after = peek(w.count), isBareKeyChar(after) { return false }
        i += w.count
        return true
    }

    private mutating func parseBasicString() throws(TOMLError) -> String {
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek, c != "\n" else { throw fail("unterminated string") }
            i += 1
            if c == "\"" { return String(out) }
            if c == "\\" { out.append(try parseEscape()) }
            else if isForbiddenControl(c) { throw fail("control character U+\(hex(c)) in a string; escape it") }
            else { out.append(c) }
        }
    }

    private mutating func parseEscape() throws(TOMLError) -> Unicode.Scalar {
        guard let e = peek else { throw fail("unterminated escape") }
        i += 1
        switch e {
        case "b": return "\u{08}"
        case "t": return "\t"
        case "n": return "\n"
        case "f": return "\u{0C}"
        case "r": return "\r"
        case "\"": return "\""
        case "\\": return "\\"
        case "u", "U":
            let n = e == "u" ? 4 : 8
            guard i + n <= s.count else { throw fail("incomplete \\\(e) escape") }
            let digits = String(String.UnicodeScalarView(s[i..<(i + n)]))
            guard digits.allSatisfy(\.isHexDigit), let v = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(v) else {
                throw fail("\\\(e)\(digits) is not a Unicode scalar value")
            }
            i += n
            return scalar
        default:
            throw fail("unknown escape \\\(Character(e))")
        }
    }

    private mutating func parseLiteralString() throws(TOMLError) -> String {
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek, c != "\n" else { throw fail("unterminated string") }
            i += 1
            if c == "'" { return String(out) }
            if isForbiddenControl(c) { throw fail("control character U+\(hex(c)) in a string") }
            out.append(c)
        }
    }

    /// Skips the newline that directly follows an opening `"""` or `'''` (TOML 1.0 §String).
    private mutating func trimLeadingNewline() {
        if peek == "\n" { advance() } else if peek == "\r" && peek(1) == "\n" { i += 1; advance() }
    }

    private mutating func parseMultilineBasicString() throws(TOMLError) -> String {
        trimLeadingNewline()
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek else { throw fail("unterminated multi-line string") }
            if c == "\"" && peek(1) == "\"" && peek(2) == "\"" {
                i += 3
                // Up to two quotes may stand right before the closing delimiter.
                var extra = 0
                while peek == "\"" && extra < 2 { out.append("\""); i += 1; extra += 1 }
                return String(out)
            }
            if c == "\\" {
                i += 1
                // A line-ending backslash trims the newline and following whitespace.
                var j = i
                while j < s.count, s[j] == " " || s[j] == "\t" { j += 1 }
                if j < s.count, s[j] == "\n" || (s[j] == "\r" && j + 1 < s.count && s[j + 1] == "\n") {
                    i = j
                    while let d = peek, d == " " || d == "\t" || d == "\n" || d == "\r" { advance() }
                    continue
                }
                out.append(try parseEscape())
                continue
            }
            if c == "\r" && peek(1) == "\n" { i += 1; continue }
            if isForbiddenControl(c) && c != "\n" { throw fail("control character U+\(hex(c)) in a string") }
            out.append(c)
            advance()
        }
    }

    private mutating func parseMultilineLiteralString() throws(TOMLError) -> String {
        trimLeadingNewline()
        var out = String.UnicodeScalarView()
        while true {
            guard let c = peek else { throw fail("unterminated multi-line string") }
            if c == "'" && peek(1) == "'" && peek(2) == "'" {
                i += 3
                var extra = 0
                while peek == "'" && extra < 2 { out.append("'"); i += 1; extra += 1 }
                return String(out)
            }
            if c == "\r" && peek(1) == "\n" { i += 1; continue }
            if isForbiddenControl(c) && c != "\n" { throw fail("control character U+\(hex(c)) in a string") }
            out.append(c)
            advance()
        }
    }

    private mutating func parseArray() throws(TOMLError) -> TOMLValue {
        var items: [TOMLValue] = []
        while true {
            skipWhitespaceCommentsAndNewlines()
            if peek == "]" { i += 1; return .array(items) }
            items.append(try parseValue())
            skipWhitespaceCommentsAndNewlines()
            if peek == "," { i += 1; continue }
            if peek == "]" { i += 1; return .array(items) }
            throw fail("expected ',' or ']' in an array")
        }
    }

    private mutating func parseInlineTable() throws(TOMLError) -> TOMLValue {
        // An inline table is parsed with a nested parser state so dotted keys land inside it.
        var nested = TOMLParser(s)
        nested.i = i
        nested.line = line
        skipSpacesIn(&nested)
        if nested.peek == "}" {
            i = nested.i + 1
            return .table(TOMLTable())
        }
        while true {
            let keyLine = nested.line
            let (path, value) = try nested.parseKeyValue()
            try nested.insert(value, at: [], keyPath: path, line: keyLine)
            skipSpacesIn(&nested)
            if nested.peek == "," { nested.i += 1; continue }
            if nested.peek == "}" { nested.i += 1; break }
            line = nested.line
            throw fail("expected ',' or '}' in an inline table (inline tables stay on one line)")
        }
        i = nested.i
        line = nested.line
        return .table(nested.root)
    }

    private func skipSpacesIn(_ p: inout TOMLParser) { p.skipSpaces() }

    private mutating func parseNumber() throws(TOMLError) -> TOMLValue {
        var raw = String.UnicodeScalarView()
        while let c = peek, isBareKeyChar(c) || c == "+" || c == "." || c == ":" {
            raw.append(c)
            i += 1
        }
        let text = String(raw)
        if text.isEmpty, let c = peek { throw fail("expected a value, found \(describe(c))") }
        switch text {
        case "inf", "+inf": return .float(.infinity)
        case "-inf": return .float(-.infinity)
        case "nan", "+nan", "-nan": return .float(.nan)
        default: break
        }
        if text.contains(":") || (text.count >= 10 && text.dropFirst(4).first == "-" && text.first?.isNumber == true) {
            throw fail("dates and times are not used by any Pacenote setting; write a string instead")
        }
        if let v = parseInteger(text) { return .integer(v) }
        if isIntegerShaped(text) { throw fail("'\(text)' does not fit in a 64-bit integer") }
        if let v = parseFloat(text) { return .float(v) }
        throw fail("'\(text)' is not a valid value (strings need quotes)")
    }

    private func validUnderscores(_ digits: Substring) -> Bool {
        !digits.isEmpty && digits.first != "_" && digits.last != "_" && !digits.contains("__")
    }

    private func parseInteger(_ text: String) -> Int64? {
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where text.hasPrefix(prefix) {
            let body = text.dropFirst(2)
            guard validUnderscores(body) else { return nil }
            return Int64(body.replacingOccurrences(of: "_", with: ""), radix: radix)
        }
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard validUnderscores(body), body.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "_") }) else { return nil }
        if body.count > 1 && body.first == "0" { return nil }  // leading zeros are not allowed
        return Int64(text.replacingOccurrences(of: "_", with: ""))
    }

    /// Digits only (with sign and underscores): an integer, if it fits.
    private func isIntegerShaped(_ text: String) -> Bool {
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        return validUnderscores(body) && !(body.count > 1 && body.first == "0")
            && body.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "_") }
    }

    private func parseFloat(_ text: String) -> Double? {
        var body = Substring(text)
        if body.first == "+" || body.first == "-" { body = body.dropFirst() }
        guard body.allSatisfy({ $0.isASCII && ($0.isNumber || "_.eE+-".contains($0)) }) else { return nil }
        // Each underscore must stand between two digits (TOML 1.0 §Integer, §Float).
        let chars = Array(body)
        for (k, ch) in chars.enumerated() where ch == "_" {
            guard k > 0, k + 1 < chars.count, chars[k - 1].isNumber, chars[k + 1].isNumber else { return nil }
        }
        let parts = body.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 2 {
            // A dot needs a digit on both sides (TOML 1.0 §Float).
            guard let l = parts[0].last, l.isNumber, let r = parts[1].first, r.isNumber else { return nil }
        }
        if body.first == "0", body.count > 1, body.dropFirst().first?.isNumber == true { return nil }
        return Double(text.replacingOccurrences(of: "_", with: ""))
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: String) -> String {
        var out = ""
        for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
        return out
    }
}

extension Substring {
    fileprivate func replacingOccurrences(of target: Character, with replacement: String) -> String {
        String(self).replacingOccurrences(of: target, with: replacement)
    }
}
