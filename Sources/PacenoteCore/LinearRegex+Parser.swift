/// A pattern read into a tree (`LinearRegex`). Flags (`(?i)`, `(?s)`, `(?m)`) are settled
/// while reading: a literal or a class knows whether it ignores case, `.` whether it takes
/// line ends, `^` and `$` whether they are about lines.
indirect enum RegexNode {
    case empty
    case literal(Unicode.Scalar, fold: Bool)
    case any(dotAll: Bool)
    case set(RegexCharSet)
    case concat([RegexNode])
    case alternate([RegexNode])
    case group(RegexNode, capture: Int?)
    case repetition(RegexNode, min: Int, max: Int?, greedy: Bool)
    case assertion(RegexAssertion)
}

enum RegexAssertion: Int32 {
    /// `^` (and `\A`): the start of the text.
    case textStart
    /// `^` under `(?m)`: the start, or after a line end that is not the last scalar.
    case lineStart
    /// `$` (and `\Z`): the end, or before a line end that ends the text.
    case textEndOrFinalLineEnd
    /// `$` under `(?m)`: before any line end, or the end.
    case lineEnd
    /// `\z`: the end of the text.
    case textEnd
    case wordBoundary, notWordBoundary
}

/// A class (`[a-z\d]`, `\w`, `[^…]`).
struct RegexCharSet: Sendable {
    enum Kind: Sendable { case digit, word, space }
    var ranges: [ClosedRange<UInt32>] = []
    var kinds: [(kind: Kind, negated: Bool)] = []
    var negated = false
    var fold = false

    func contains(_ c: Unicode.Scalar) -> Bool {
        var found = containsExactly(c)
        if !found, fold {
            let folded = CaseFolding.fold(c)
            found = containsExactly(folded) || containsExactly(CaseFolding.upper(c)) || containsExactly(CaseFolding.upper(folded))
        }
        return found != negated
    }

    private func containsExactly(_ c: Unicode.Scalar) -> Bool {
        for range in ranges where range.contains(c.value) { return true }
        for (kind, negated) in kinds where RegexCharSet.isKind(kind, c) != negated { return true }
        return false
    }

    /// ICU's classes: `\d` is `\p{Nd}`; `\w` letters, marks, decimal digits, connector
    /// punctuation and the joiners; `\s` the White_Space property.
    static func isKind(_ kind: Kind, _ c: Unicode.Scalar) -> Bool {
        switch kind {
        case .digit:
            if c.isASCII { return c.value >= 48 && c.value <= 57 }
            return c.properties.generalCategory == .decimalNumber
        case .word: return isWord(c)
        case .space:
            switch c.value {
            case 9...13, 32: return true
            case 0..<128: return false
            default: return c.properties.isWhitespace
            }
        }
    }

    static func isWord(_ c: Unicode.Scalar) -> Bool {
        if c.isASCII {
            let v = c.value
            return (v >= 48 && v <= 57) || (v >= 65 && v <= 90) || (v >= 97 && v <= 122) || v == 95
        }
        if c.value == 0x200C || c.value == 0x200D { return true }
        let properties = c.properties
        if properties.isAlphabetic { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
        default: return false
        }
    }
}

struct RegexParser {
    struct Flags { var fold = false, dotAll = false, multiline = false }

    private let scalars: [Unicode.Scalar]
    private var i = 0
    private(set) var groupCount = 0
    private(set) var groupNames: [String: Int] = [:]
    /// The literals of a `\Q…\E` before its last, which the atom returns.
    private var quoted: [RegexNode] = []

    init(_ pattern: String) { scalars = Array(pattern.unicodeScalars) }

    mutating func parse() throws(LinearRegexError) -> RegexNode {
        var flags = Flags()
        let node = try alternation(&flags)
        if i < scalars.count { throw error("an unmatched ')'") }  // only `)` stops an alternation early
        return node
    }

    private func error(_ what: String, at position: Int? = nil) -> LinearRegexError {
        LinearRegexError("\(what) at offset \((position ?? i)) of the pattern")
    }

    private func refused(_ what: String, at position: Int) -> LinearRegexError {
        LinearRegexError("\(what) (at offset \(position)) needs a backtracking engine, which rules do not use")
    }

    private var peek: Unicode.Scalar? { i < scalars.count ? scalars[i] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? { i + offset < scalars.count ? scalars[i + offset] : nil }

    private mutating func alternation(_ flags: inout Flags) throws(LinearRegexError) -> RegexNode {
        var branches = [try concatenation(&flags)]
        while peek == "|" {
            i += 1
            branches.append(try concatenation(&flags))
        }
        return branches.count == 1 ? branches[0] : .alternate(branches)
    }

    private mutating func concatenation(_ flags: inout Flags) throws(LinearRegexError) -> RegexNode {
        var items: [RegexNode] = []
        while let c = peek, c != "|", c != ")" {
            let start = i
            guard let atom = try atom(&flags) else { continue }
            items.append(contentsOf: quoted)
            quoted = []
            items.append(try quantified(atom, start: start))
        }
        return items.isEmpty ? .empty : items.count == 1 ? items[0] : .concat(items)
    }

    private mutating func quantified(_ atom: RegexNode, start: Int) throws(LinearRegexError) -> RegexNode {
        guard let c = peek else { return atom }
        var min = 0, max: Int? = nil
        switch c {
        case "*": i += 1
        case "+": i += 1; min = 1
        case "?": i += 1; max = 1
        case "{":
            guard let interval = try interval() else { return atom }
            (min, max) = interval
        default: return atom
        }
        var greedy = true
        if peek == "?" {
            i += 1
            greedy = false
        } else if peek == "+" {
            throw refused("a possessive quantifier '\(String(String.UnicodeScalarView(scalars[start..<i + 1])))'", at: i)
        }
        if let next = peek, next == "*" || next == "+" || next == "?" || next == "{" {
            throw error("a quantifier after a quantifier ('\(next)')")
        }
        return .repetition(atom, min: min, max: max, greedy: greedy)
    }

    /// `{m}`, `{m,}`, `{m,n}`; ICU refuses any other `{`.
    private mutating func interval() throws(LinearRegexError) -> (Int, Int?)? {
        let start = i
        i += 1
        func number() -> Int? {
            var value: Int?
            while let c = peek, let digit = ReplacementTemplate.digit(c) {
                value = min((value ?? 0) * 10 + digit, 1_000_000)
                i += 1
            }
            return value
        }
        guard let low = number() else { throw error("a '{' that is not a repetition {m}, {m,} or {m,n}", at: start) }
        var high: Int? = low
        if peek == "," {
            i += 1
            high = number()
        }
        guard peek == "}" else { throw error("a '{' that is not a repetition {m}, {m,} or {m,n}", at: start) }
        i += 1
        if let high, high < low { throw error("a repetition {\(low),\(high)} whose maximum is below its minimum", at: start) }
        return (low, high)
    }

    /// One item; nil for what matches nothing (`(?i)`, `(?#…)`, an empty `\Q\E`).
    private mutating func atom(_ flags: inout Flags) throws(LinearRegexError) -> RegexNode? {
        let start = i
        let c = scalars[i]
        i += 1
        switch c {
        case "(": return try group(&flags, start: start)
        case "[": return .set(try charClass(flags, start: start))
        case ".": return .any(dotAll: flags.dotAll)
        case "^": return .assertion(flags.multiline ? .lineStart : .textStart)
        case "$": return .assertion(flags.multiline ? .lineEnd : .textEndOrFinalLineEnd)
        case "*", "+", "?": throw error("a quantifier '\(c)' with nothing to repeat", at: start)
        case "{": throw error("a '{' with nothing to repeat", at: start)
        case "\\": return try escape(flags, start: start)
        default: return .literal(flags.fold ? CaseFolding.fold(c) : c, fold: flags.fold)
        }
    }

    private mutating func group(_ flags: inout Flags, start: Int) throws(LinearRegexError) -> RegexNode? {
        var capture: Int?
        var inner = flags
        if peek == "?" {
            i += 1
            switch peek {
            case ":": i += 1
            case "=", "!": throw refused(peek == "=" ? "a lookahead '(?='" : "a negative lookahead '(?!'", at: start)
            case ">": throw refused("an atomic group '(?>'", at: start)
            case "#":
                while let c = peek, c != ")" { i += 1 }
                guard peek == ")" else { throw error("an unclosed comment '(?#'", at: start) }
                i += 1
                return nil
            case "<":
                i += 1
                if peek == "=" || peek == "!" { throw refused(peek == "=" ? "a lookbehind '(?<='" : "a negative lookbehind '(?<!'", at: start) }
                var name = ""
                while let c = peek, c.isASCII, c.properties.isAlphabetic || ReplacementTemplate.digit(c) != nil {
                    name.unicodeScalars.append(c)
                    i += 1
                }
                guard peek == ">", let first = name.unicodeScalars.first, ReplacementTemplate.digit(first) == nil else {
                    throw error("a group name that is not letters and digits '(?<…>'", at: start)
                }
                guard groupNames[name] == nil else { throw error("a second group named '\(name)'", at: start) }
                i += 1
                capture = try newGroup(start: start)
                groupNames[name] = capture
            default:
                // Flags: `(?i)` for the rest of the enclosing group, `(?i:…)` for its own.
                var on = true, changed = false
                while let c = peek, c != ")", c != ":" {
                    switch c {
                    case "-": on = false
                    case "i": inner.fold = on
                    case "s": inner.dotAll = on
                    case "m": inner.multiline = on
                    default: throw error("the flag '\(c)' (rules support i, m and s)")
                    }
                    changed = true
                    i += 1
                }
                guard let end = peek, changed || end == ":" else { throw error("a '(?' that is not a group rules support", at: start) }
                i += 1
                if end == ")" {
                    flags = inner
                    return nil
                }
            }
        } else {
            capture = try newGroup(start: start)
        }
        let body = try alternation(&inner)
        guard peek == ")" else { throw error("an unclosed '('", at: start) }
        i += 1
        return .group(body, capture: capture)
    }

    private mutating func newGroup(start: Int) throws(LinearRegexError) -> Int {
        groupCount += 1
        if groupCount > LinearRegex.maxGroups { throw error("more than \(LinearRegex.maxGroups) groups", at: start) }
        return groupCount
    }

    private mutating func escape(_ flags: Flags, start: Int) throws(LinearRegexError) -> RegexNode? {
        guard let c = peek else { throw error("a '\\' at the end") }
        i += 1
        switch c {
        case "A": return .assertion(.textStart)
        case "z": return .assertion(.textEnd)
        case "Z": return .assertion(.textEndOrFinalLineEnd)
        case "b": return .assertion(.wordBoundary)
        case "B": return .assertion(.notWordBoundary)
        case "Q":
            // Literals up to `\E`; a quantifier after it repeats the last one only, as in ICU.
            var items: [RegexNode] = []
            while i < scalars.count {
                if scalars[i] == "\\", peek(1) == "E" { i += 2; break }
                let s = scalars[i]
                items.append(.literal(flags.fold ? CaseFolding.fold(s) : s, fold: flags.fold))
                i += 1
            }
            guard let last = items.popLast() else { return nil }
            quoted = items
            return last
        case "E": return nil
        default:
            i -= 1
            switch try escapedItem(start: start) {
            case .scalar(let s): return .literal(flags.fold ? CaseFolding.fold(s) : s, fold: flags.fold)
            case .kind(let kind, let negated):
                return .set(RegexCharSet(kinds: [(kind, negated)]))
            }
        }
    }

    enum EscapedItem { case scalar(Unicode.Scalar), kind(RegexCharSet.Kind, negated: Bool) }

    /// What follows a `\` (at `i`), inside or outside a class.
    private mutating func escapedItem(start: Int) throws(LinearRegexError) -> EscapedItem {
        guard let c = peek else { throw error("a '\\' at the end") }
        i += 1
        switch c {
        case "d": return .kind(.digit, negated: false)
        case "D": return .kind(.digit, negated: true)
        case "w": return .kind(.word, negated: false)
        case "W": return .kind(.word, negated: true)
        case "s": return .kind(.space, negated: false)
        case "S": return .kind(.space, negated: true)
        case "n": return .scalar("\n")
        case "t": return .scalar("\t")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        case "a": return .scalar("\u{07}")
        case "e": return .scalar("\u{1B}")
        case "x":
            if peek == "{" {
                i += 1
                let value = try hex(maxDigits: 8, start: start)
                guard peek == "}" else { throw error("an unclosed '\\x{'", at: start) }
                i += 1
                return .scalar(value)
            }
            return .scalar(try hex(maxDigits: 2, exactly: true, start: start))
        case "u": return .scalar(try hex(maxDigits: 4, exactly: true, start: start))
        case "U": return .scalar(try hex(maxDigits: 8, exactly: true, start: start))
        case "0":
            var value: UInt32 = 0, count = 0
            while count < 3, let c = peek, c.value >= 48, c.value <= 55 {
                value = value * 8 + c.value - 48
                i += 1
                count += 1
            }
            return .scalar(Unicode.Scalar(value)!)
        case "1"..."9", "k": throw refused("a backreference '\\\(c)'", at: start)
        case "G": throw error("'\\G' (the end of the previous match) is not supported", at: start)
        case "p", "P": throw error("a Unicode property '\\\(c){…}' is not supported (use a class such as [a-z] or \\w)", at: start)
        default:
            if c.properties.isAlphabetic || ReplacementTemplate.digit(c) != nil {
                throw error("the escape '\\\(c)' is not supported", at: start)
            }
            return .scalar(c)
        }
    }

    private mutating func hex(maxDigits: Int, exactly: Bool = false, start: Int) throws(LinearRegexError) -> Unicode.Scalar {
        var value: UInt32 = 0, count = 0
        while count < maxDigits, let c = peek, let digit = Self.hexDigit(c) {
            value = value * 16 + digit
            i += 1
            count += 1
        }
        guard count > 0, !exactly || count == maxDigits, let scalar = Unicode.Scalar(value) else {
            throw error("a hexadecimal escape that is not a character", at: start)
        }
        return scalar
    }

    private static func hexDigit(_ c: Unicode.Scalar) -> UInt32? {
        switch c.value {
        case 48...57: c.value - 48
        case 65...70: c.value - 55
        case 97...102: c.value - 87
        default: nil
        }
    }

    private mutating func charClass(_ flags: Flags, start: Int) throws(LinearRegexError) -> RegexCharSet {
        var set = RegexCharSet(fold: flags.fold)
        if peek == "^" {
            set.negated = true
            i += 1
        }
        var first = true
        while true {
            guard let c = peek else { throw error("an unclosed '['", at: start) }
            if c == "]", !first {
                i += 1
                return set
            }
            first = false
            if c == "[" { throw error("a '[' inside a class (nested classes and [:name:] are not supported)") }
            if (c == "&" && peek(1) == "&") || (c == "-" && peek(1) == "-") {
                throw error("the set operation '\(c)\(c)' is not supported")
            }
            let low = try classItem(start: start)
            guard case .scalar(let lowScalar) = low else {
                if case .kind(let kind, let negated) = low { set.kinds.append((kind, negated)) }
                continue
            }
            if peek == "-", let next = peek(1), next != "]" {
                i += 1
                guard case .scalar(let highScalar) = try classItem(start: start) else {
                    throw error("a range in a class that ends at a class escape")
                }
                guard lowScalar.value <= highScalar.value else { throw error("a range in a class whose end is before its start") }
                set.ranges.append(lowScalar.value...highScalar.value)
            } else {
                set.ranges.append(lowScalar.value...lowScalar.value)
            }
        }
    }

    private mutating func classItem(start: Int) throws(LinearRegexError) -> EscapedItem {
        let c = scalars[i]
        guard c == "\\" else {
            i += 1
            return .scalar(c)
        }
        i += 1
        if peek == "b" { throw error("'\\b' inside a class") }
        return try escapedItem(start: start)
    }
}
