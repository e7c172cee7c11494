/// A regular-expression engine whose matching time grows linearly with the text (issue 51,
/// point 2): curation rules run on text that strangers choose (scrobblers, submit keys,
/// imports, stream titles), and a backtracking engine (ICU's, behind `NSRegularExpression`)
/// spent 66.8 s on `(a+)+$` against 100 × `a` + `!`.
///
/// The pattern compiles to a program for a Pike VM (a Thompson NFA simulated with capture
/// slots per thread, Russ Cox, "Regular Expression Matching: the Virtual Machine Approach"):
/// every state is visited at most once per position of the text, so a search costs at most
/// program size × text length steps, whatever the pattern. Threads keep the priority order
/// a backtracking engine would try them in, so the match found is the leftmost-first one of
/// Perl and ICU, and its groups are the ones ICU reports.
///
/// What needs backtracking (backreferences, lookaround, atomic groups, possessive
/// quantifiers) is refused when the pattern compiles, naming the construct; so is a program
/// larger than `maxProgramSize` (`(a{1000}){1000}`).
public struct LinearRegex: Sendable {
    /// The most instructions a compiled pattern may have: a search costs at most this many
    /// steps per character of the text.
    public static let maxProgramSize = 5_000
    /// The most capture groups a pattern may have: each live thread carries two slots per group.
    public static let maxGroups = 50

    public let pattern: String
    /// Capture groups, not counting the whole match (group 0).
    public let groupCount: Int
    /// Group numbers by name (`(?<name>…)`).
    public let groupNames: [String: Int]
    let program: RegexProgram

    public init(_ pattern: String) throws(LinearRegexError) {
        var parser = RegexParser(pattern)
        let node = try parser.parse()
        self.pattern = pattern
        groupCount = parser.groupCount
        groupNames = parser.groupNames
        program = try RegexCompiler.compile(node, groupCount: parser.groupCount)
    }

    /// Instructions in the compiled program.
    public var programSize: Int { program.instructions.count }

    /// Some part ignores case (`(?i)`): an `Input` made with `folding` saves folding each scalar again.
    public var ignoresCase: Bool { program.folds }

    /// A match: each group's range in the text's Unicode scalars (offsets from its start),
    /// nil for a group that took no part; `groups[0]` is the whole match.
    public struct Match: Equatable, Sendable {
        public var groups: [Range<Int>?]
        public var range: Range<Int> { groups[0]! }
    }

    /// The text as the engine reads it: its first `limit` scalars, and the one after them
    /// (so that `$`, `\z` and `\b` at the cut see that the text goes on).
    public struct Input: Sendable {
        let scalars: [Unicode.Scalar]
        let folded: [Unicode.Scalar]
        /// How many scalars may be matched: the text's length, or the cap.
        let limit: Int
        /// The text is longer than `limit`.
        public var truncated: Bool { limit < scalars.count }

        public init(_ text: String, limit: Int = .max, folding: Bool = true) {
            var scalars: [Unicode.Scalar] = []
            let keep = limit == .max ? Int.max : limit + 1
            for scalar in text.unicodeScalars {
                if scalars.count >= keep { break }
                scalars.append(scalar)
            }
            self.scalars = scalars
            self.limit = min(limit, scalars.count)
            folded = folding ? scalars.map(CaseFolding.fold) : []
        }

        /// The text from `start` to `end` (scalar offsets).
        func text(_ range: Range<Int>) -> String {
            var out = String.UnicodeScalarView()
            out.append(contentsOf: scalars[range])
            return String(out)
        }
    }

    /// Steps a search may take before it is given up (`LinearRegexOverrun`).
    public struct Budget: Sendable {
        public var remaining: Int
        public var used = 0
        public init(steps: Int) { remaining = steps }
        public static var unlimited: Budget { Budget(steps: .max) }
    }

    /// The first match at or after `start`, or nil.
    public func firstMatch(in input: Input, from start: Int = 0,
                           budget: inout Budget) throws(LinearRegexOverrun) -> Match? {
        var vm = PikeVM(program: program, input: input)
        return try vm.search(from: start, budget: &budget)
    }

    public func firstMatch(in text: String) -> Match? {
        var budget = Budget.unlimited
        return try? firstMatch(in: Input(text, folding: program.folds), budget: &budget)
    }

    /// Every match, as ICU finds them one after another: the next search starts where the
    /// last match ended, one scalar further after an empty match.
    public func matches(in input: Input, budget: inout Budget) throws(LinearRegexOverrun) -> [Match] {
        var vm = PikeVM(program: program, input: input)
        var found: [Match] = []
        var start = 0
        while start <= input.limit, let match = try vm.search(from: start, budget: &budget) {
            found.append(match)
            start = match.range.isEmpty ? match.range.upperBound + 1 : match.range.upperBound
        }
        return found
    }

    /// The text with every match replaced by `template`, as `NSRegularExpression`'s
    /// `stringByReplacingMatches(in:range:withTemplate:)` does: `$0`…`$9` (as many digits
    /// as there are groups need) are groups, `\` takes the next character as it is. Beyond
    /// the input's cap the text is kept as it was.
    public func replacingMatches(in text: String, input: Input? = nil, with template: String,
                                 budget: inout Budget) throws(LinearRegexOverrun) -> String {
        let input = input ?? Input(text, folding: program.folds)
        let found = try matches(in: input, budget: &budget)
        guard !found.isEmpty else { return text }
        let replacement = ReplacementTemplate(template, groupCount: groupCount)
        var out = String.UnicodeScalarView()
        var last = 0
        for match in found {
            out.append(contentsOf: input.scalars[last..<match.range.lowerBound])
            replacement.append(match, from: input, to: &out)
            last = match.range.upperBound
        }
        out.append(contentsOf: input.scalars[last..<input.limit])
        var result = String(out)
        if input.truncated {
            result += String(text.unicodeScalars.dropFirst(input.limit))
        }
        return result
    }

    public func replacingMatches(in text: String, with template: String) -> String {
        var budget = Budget.unlimited
        return (try? replacingMatches(in: text, with: template, budget: &budget)) ?? text
    }
}

/// Why a pattern cannot be used: its words name the construct and where it is.
public struct LinearRegexError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
    init(_ message: String) { self.message = message }
}

/// A search that took more steps than its budget allowed.
public struct LinearRegexOverrun: Error, Equatable, Sendable {
    public var steps: Int
}

/// `$n` and `\x` in a replacement, read the way Foundation's `NSRegularExpression` reads them.
struct ReplacementTemplate {
    enum Piece { case text(String.UnicodeScalarView), group(Int) }
    var pieces: [Piece] = []

    init(_ template: String, groupCount: Int) {
        // Foundation takes as many digits after `$` as the number of ranges (groups + 1)
        // has; a group beyond the last is empty; `$` before anything else is itself.
        var digits = 1, magnitude = 10
        while magnitude < groupCount + 1 { digits += 1; magnitude *= 10 }
        let scalars = Array(template.unicodeScalars)
        var text = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "\\" {
                if i + 1 < scalars.count { text.append(scalars[i + 1]) }
                i += 2
                continue
            }
            if c == "$" {
                var j = i + 1, number: Int?
                while j < scalars.count, j < i + 1 + digits, let digit = Self.digit(scalars[j]) {
                    number = (number ?? 0) * 10 + digit
                    j += 1
                }
                if let number {
                    if !text.isEmpty { pieces.append(.text(text)); text = String.UnicodeScalarView() }
                    pieces.append(.group(number))
                    i = j
                    continue
                }
            }
            text.append(c)
            i += 1
        }
        if !text.isEmpty { pieces.append(.text(text)) }
    }

    static func digit(_ c: Unicode.Scalar) -> Int? {
        c.value >= 48 && c.value <= 57 ? Int(c.value - 48) : nil
    }

    func append(_ match: LinearRegex.Match, from input: LinearRegex.Input, to out: inout String.UnicodeScalarView) {
        for piece in pieces {
            switch piece {
            case .text(let text): out.append(contentsOf: text)
            case .group(let n):
                if n < match.groups.count, let range = match.groups[n] { out.append(contentsOf: input.scalars[range]) }
            }
        }
    }
}

/// Simple case folding, one scalar to one, as `(?i)` compares: from the lowercase mapping,
/// or the lowercase of the uppercase (`ς` → `σ`, `ſ` → `s`); scalars whose mapping is
/// longer than one scalar stay themselves.
enum CaseFolding {
    static func fold(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.isASCII {
            return c.value >= 65 && c.value <= 90 ? Unicode.Scalar(c.value + 32)! : c
        }
        let properties = c.properties
        guard properties.changesWhenCaseMapped else { return c }
        if let lower = single(properties.lowercaseMapping), lower != c { return lower }
        if let upper = single(properties.uppercaseMapping), upper != c,
           let lower = single(upper.properties.lowercaseMapping) { return lower }
        return c
    }

    static func upper(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.isASCII { return c.value >= 97 && c.value <= 122 ? Unicode.Scalar(c.value - 32)! : c }
        return single(c.properties.uppercaseMapping) ?? c
    }

    private static func single(_ text: String) -> Unicode.Scalar? {
        let scalars = text.unicodeScalars
        return scalars.count == 1 ? scalars.first : nil
    }
}
