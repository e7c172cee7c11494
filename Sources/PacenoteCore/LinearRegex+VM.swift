/// The compiled pattern: instructions for the Pike VM.
struct RegexProgram: Sendable {
    enum Op: UInt8, Sendable {
        /// Takes the scalar `x`.
        case char
        /// Takes a scalar whose folding is `x`.
        case charFold
        /// Takes any scalar (`(?s).`).
        case any
        /// Takes any scalar but a line end (`.`).
        case anyButLineEnd
        /// Takes a scalar of the class `sets[x]`.
        case set
        /// Goes on at `x` first, then at `y`.
        case split
        case jump
        /// Notes the position in capture slot `x`.
        case save
        /// Goes on when `RegexAssertion(rawValue: x)` holds here.
        case assert
        /// The end of an iteration of a loop whose body can match nothing: goes on to the
        /// loop when the iteration took something since slot `x` noted its start, else out
        /// at `y`. ICU lets such an empty iteration finish and leave the loop (so `(a*)+` on
        /// `aaa` ends with group 1 empty); a state reached twice would otherwise drop it.
        case loopCheck
        case match
    }

    struct Instruction: Sendable {
        var op: Op
        var x: Int32 = 0
        var y: Int32 = 0
    }

    var instructions: [Instruction] = []
    var sets: [RegexCharSet] = []
    var slotCount = 2
    /// The slots that are groups (the rest note where loop iterations began).
    var captureSlots = 2
    /// Only `\A` or `^` can start a match: a search tries the text's start only.
    var anchored = false
    /// Some instruction compares folded scalars.
    var folds = false
}

/// Turns a tree into instructions; a counted repetition is written out copy by copy, so
/// the size is checked as it grows.
struct RegexCompiler {
    var program = RegexProgram()

    static func compile(_ node: RegexNode, groupCount: Int) throws(LinearRegexError) -> RegexProgram {
        var compiler = RegexCompiler()
        compiler.program.slotCount = 2 * (groupCount + 1)
        compiler.program.captureSlots = 2 * (groupCount + 1)
        try compiler.emit(.init(op: .save, x: 0))
        try compiler.emit(node)
        try compiler.emit(.init(op: .save, x: 1))
        try compiler.emit(.init(op: .match))
        compiler.program.anchored = Self.startsAnchored(node)
        return compiler.program
    }

    private static func startsAnchored(_ node: RegexNode) -> Bool {
        switch node {
        case .assertion(.textStart): true
        case .concat(let items): items.first.map(startsAnchored) ?? false
        case .group(let inner, _): startsAnchored(inner)
        case .alternate(let branches): branches.allSatisfy(startsAnchored)
        default: false
        }
    }

    private var next: Int32 { Int32(program.instructions.count) }

    @discardableResult
    private mutating func emit(_ instruction: RegexProgram.Instruction) throws(LinearRegexError) -> Int {
        guard program.instructions.count < LinearRegex.maxProgramSize else {
            throw LinearRegexError("the pattern compiles to more than \(LinearRegex.maxProgramSize) instructions (large counted repetitions such as {1000} inside one another): make it smaller")
        }
        program.instructions.append(instruction)
        return program.instructions.count - 1
    }

    private mutating func emit(_ node: RegexNode) throws(LinearRegexError) {
        switch node {
        case .empty: break
        case .literal(let c, let fold):
            try emit(.init(op: fold ? .charFold : .char, x: Int32(bitPattern: c.value)))
            if fold { program.folds = true }
        case .any(let dotAll):
            try emit(.init(op: dotAll ? .any : .anyButLineEnd))
        case .set(let set):
            if set.fold { program.folds = true }
            program.sets.append(set)
            try emit(.init(op: .set, x: Int32(program.sets.count - 1)))
        case .concat(let items):
            for item in items { try emit(item) }
        case .alternate(let branches):
            // split L1, next; L1: a; jump end; next: split L2, …; the last branch plain.
            var jumps: [Int] = []
            for (index, branch) in branches.enumerated() {
                if index < branches.count - 1 {
                    let split = try emit(.init(op: .split))
                    program.instructions[split].x = next
                    try emit(branch)
                    jumps.append(try emit(.init(op: .jump)))
                    program.instructions[split].y = next
                } else {
                    try emit(branch)
                }
            }
            for jump in jumps { program.instructions[jump].x = next }
        case .group(let inner, let capture):
            guard let capture else { return try emit(inner) }
            try emit(.init(op: .save, x: Int32(2 * capture)))
            try emit(inner)
            try emit(.init(op: .save, x: Int32(2 * capture + 1)))
        case .repetition(let inner, let min, let max, let greedy):
            for _ in 0..<min - (max == nil && min > 0 ? 1 : 0) { try emit(inner) }
            if max == nil, Self.nullable(inner) {
                // Loops whose body can match nothing: each iteration notes where it began.
                let slot = Int32(program.slotCount)
                program.slotCount += 1
                if min > 0 {
                    // x+: body: mark; x; check (out if empty); split body, out.
                    let body = try emit(.init(op: .save, x: slot))
                    try emit(inner)
                    let check = try emit(.init(op: .loopCheck, x: slot))
                    let split = try emit(.init(op: .split))
                    setSplit(split, taking: Int32(body), greedy: greedy)
                    setSplit(split, skippingTo: next, greedy: greedy)
                    program.instructions[check].y = next
                } else {
                    // x*: L: split body, out; body: mark; x; check (out if empty); jump L.
                    let loop = try emit(.init(op: .split))
                    setSplit(loop, taking: next, greedy: greedy)
                    try emit(.init(op: .save, x: slot))
                    try emit(inner)
                    let check = try emit(.init(op: .loopCheck, x: slot))
                    try emit(.init(op: .jump, x: Int32(loop)))
                    setSplit(loop, skippingTo: next, greedy: greedy)
                    program.instructions[check].y = next
                }
                return
            }
            if max == nil, min > 0 {
                // x+ (and the last copy of x{m,}): body: x; split body, out.
                let body = next
                try emit(inner)
                let split = try emit(.init(op: .split))
                setSplit(split, taking: body, greedy: greedy)
                setSplit(split, skippingTo: next, greedy: greedy)
                return
            }
            if let max {
                // x{0,k}: (x(x(x)?)?)?, nested so that each copy is tried only after the one before.
                var splits: [Int] = []
                for _ in min..<max {
                    splits.append(try emit(.init(op: .split)))
                    let split = splits.last!
                    setSplit(split, taking: next, greedy: greedy)
                    try emit(inner)
                }
                for split in splits { setSplit(split, skippingTo: next, greedy: greedy) }
            } else {
                // x*: L: split body, out; body: x; jump L.
                let loop = try emit(.init(op: .split))
                setSplit(loop, taking: next, greedy: greedy)
                try emit(inner)
                try emit(.init(op: .jump, x: Int32(loop)))
                setSplit(loop, skippingTo: next, greedy: greedy)
            }
        case .assertion(let assertion):
            try emit(.init(op: .assert, x: assertion.rawValue))
        }
    }

    /// Whether the node can match empty text.
    static func nullable(_ node: RegexNode) -> Bool {
        switch node {
        case .empty, .assertion: true
        case .literal, .any, .set: false
        case .concat(let items): items.allSatisfy(nullable)
        case .alternate(let branches): branches.contains(where: nullable)
        case .group(let inner, _): nullable(inner)
        case .repetition(let inner, let min, _, _): min == 0 || nullable(inner)
        }
    }

    private mutating func setSplit(_ at: Int, taking target: Int32, greedy: Bool) {
        if greedy { program.instructions[at].x = target } else { program.instructions[at].y = target }
    }

    private mutating func setSplit(_ at: Int, skippingTo target: Int32, greedy: Bool) {
        if greedy { program.instructions[at].y = target } else { program.instructions[at].x = target }
    }
}

/// The Pike VM: every live thread advances one scalar at a time, in priority order; a state
/// reached twice at one position is kept once (the first, higher-priority thread's), which is
/// what bounds the work by program size × text length.
struct PikeVM {
    private let program: RegexProgram
    private let input: LinearRegex.Input
    private var current: ThreadList
    private var following: ThreadList
    private var scratch: [Int]
    private var stack: [Frame] = []

    private enum Frame { case explore(Int32), restore(slot: Int, value: Int) }

    init(program: RegexProgram, input: LinearRegex.Input) {
        self.program = program
        self.input = input
        current = ThreadList(size: program.instructions.count, slots: program.slotCount)
        following = ThreadList(size: program.instructions.count, slots: program.slotCount)
        scratch = Array(repeating: -1, count: program.slotCount)
    }

    mutating func search(from start: Int, budget: inout LinearRegex.Budget) throws(LinearRegexOverrun) -> LinearRegex.Match? {
        current.clear()
        var matched: [Int]?
        var steps = 0
        defer {
            budget.used += steps
            budget.remaining -= steps
        }
        var position = start
        while position <= input.limit {
            if matched == nil, !program.anchored || position == 0 {
                for slot in scratch.indices { scratch[slot] = -1 }
                Self.addThread(to: &current, pc: 0, at: position, steps: &steps, scratch: &scratch, stack: &stack,
                               program: program, input: input)
            }
            if current.runnable.isEmpty {
                if matched != nil || program.anchored || position == input.limit { break }
                current.clear()  // what the start thread visited here says nothing of the next position
                position += 1
                continue
            }
            following.clear()
            let scalar: Unicode.Scalar? = position < input.limit ? input.scalars[position] : nil
            let slots = program.slotCount
            for (index, pc) in current.runnable.enumerated() {
                steps += 1
                let instruction = program.instructions[Int(pc)]
                let takes: Bool
                switch instruction.op {
                case .match:
                    matched = Array(current.caps[index * slots..<(index + 1) * slots])
                    takes = false
                case .char: takes = scalar?.value == UInt32(bitPattern: instruction.x)
                case .charFold:
                    // Folded once per text when the input was made for it, else here.
                    let folded = scalar.map { input.folded.isEmpty ? CaseFolding.fold($0) : input.folded[position] }
                    takes = folded?.value == UInt32(bitPattern: instruction.x)
                case .any: takes = scalar != nil
                case .anyButLineEnd: takes = scalar.map { !Self.isLineEnd($0) } ?? false
                case .set: takes = scalar.map { program.sets[Int(instruction.x)].contains($0) } ?? false
                default: takes = false
                }
                if instruction.op == .match { break }  // threads after it have lower priority
                if takes {
                    for slot in 0..<slots { scratch[slot] = current.caps[index * slots + slot] }
                    Self.addThread(to: &following, pc: pc + 1, at: position + 1, steps: &steps, scratch: &scratch, stack: &stack,
                                   program: program, input: input)
                }
            }
            if steps > budget.remaining { throw LinearRegexOverrun(steps: budget.used + steps) }
            swap(&current, &following)
            if position == input.limit { break }
            position += 1
        }
        guard let matched else { return nil }
        var groups: [Range<Int>?] = []
        for group in 0..<program.captureSlots / 2 {
            let (low, high) = (matched[2 * group], matched[2 * group + 1])
            groups.append(low >= 0 && high >= low ? low..<high : nil)
        }
        return LinearRegex.Match(groups: groups)
    }

    private var slots: Int { program.slotCount }

    /// Follows jumps, splits, saves and assertions from `pc` at `position`, adding each
    /// state that takes a scalar (or matches) with the slots as they are then.
    private static func addThread(to list: inout ThreadList, pc start: Int32, at position: Int, steps: inout Int,
                                  scratch: inout [Int], stack: inout [Frame], program: RegexProgram, input: LinearRegex.Input) {
        stack.append(.explore(start))
        while let frame = stack.popLast() {
            switch frame {
            case .restore(let slot, let value):
                scratch[slot] = value
            case .explore(let pc):
                let instruction = program.instructions[Int(pc)]
                if instruction.op == .loopCheck {
                    // Not kept once per position: reached at most once per way into it.
                    steps += 1
                    stack.append(.explore(scratch[Int(instruction.x)] == position ? instruction.y : pc + 1))
                    continue
                }
                guard list.insert(pc) else { continue }
                steps += 1
                switch instruction.op {
                case .jump:
                    stack.append(.explore(instruction.x))
                case .split:
                    stack.append(.explore(instruction.y))
                    stack.append(.explore(instruction.x))
                case .save:
                    let slot = Int(instruction.x)
                    stack.append(.restore(slot: slot, value: scratch[slot]))
                    scratch[slot] = position
                    stack.append(.explore(pc + 1))
                case .assert:
                    if holds(RegexAssertion(rawValue: instruction.x)!, at: position, in: input) { stack.append(.explore(pc + 1)) }
                default:
                    list.runnable.append(pc)
                    list.caps.append(contentsOf: scratch)
                }
            }
        }
    }

    private static func holds(_ assertion: RegexAssertion, at position: Int, in input: LinearRegex.Input) -> Bool {
        let scalars = input.scalars
        let atEnd = position == scalars.count  // not at the cap: the text goes on there
        switch assertion {
        case .textStart: return position == 0
        case .textEnd: return atEnd
        case .lineStart:
            return position == 0 || (!atEnd && Self.isLineEnd(scalars[position - 1])
                                     && !(scalars[position - 1] == "\r" && scalars[position] == "\n"))
        case .lineEnd:
            if atEnd { return true }
            return Self.isLineEnd(scalars[position]) && !(position > 0 && scalars[position - 1] == "\r" && scalars[position] == "\n")
        case .textEndOrFinalLineEnd:
            if atEnd { return true }
            if input.truncated { return false }
            let rest = scalars.count - position
            if rest == 1 { return Self.isLineEnd(scalars[position]) && !(position > 0 && scalars[position - 1] == "\r" && scalars[position] == "\n") }
            return rest == 2 && scalars[position] == "\r" && scalars[position + 1] == "\n"
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && RegexCharSet.isWord(scalars[position - 1])
            let after = position < scalars.count && RegexCharSet.isWord(scalars[position])
            return (before != after) == (assertion == .wordBoundary)
        }
    }

    /// ICU's line ends: `\n`, `\v`, `\f`, `\r`, U+0085, U+2028, U+2029.
    static func isLineEnd(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}

/// The states reached at one position: a sparse set (membership in constant time, cleared
/// in constant time) and, in priority order, those that take a scalar with their slots.
struct ThreadList {
    private var sparse: [Int32]
    private var dense: [Int32]
    private var count = 0
    var runnable: [Int32] = []
    var caps: [Int] = []

    init(size: Int, slots: Int) {
        sparse = Array(repeating: 0, count: size)
        dense = Array(repeating: 0, count: size)
    }

    /// False when `pc` is there already.
    mutating func insert(_ pc: Int32) -> Bool {
        let index = Int(sparse[Int(pc)])
        if index < count && dense[index] == pc { return false }
        sparse[Int(pc)] = Int32(count)
        dense[count] = pc
        count += 1
        return true
    }

    mutating func clear() {
        count = 0
        runnable.removeAll(keepingCapacity: true)
        caps.removeAll(keepingCapacity: true)
    }
}
