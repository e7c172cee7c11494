/// A small XML reader and writer for feeds (`AtomFeed`), written for input from other
/// servers: bytes in, elements with their namespaces resolved out, no I/O and nothing
/// fetched or expanded. FoundationXML (libxml2) is not used in Core; and a feed needs none
/// of what makes XML dangerous: a DOCTYPE is skipped whole, its entities never expanded
/// (no "billion laughs"), external entities never read.
///
/// Tolerant where feeds in the wild are sloppy (an unknown `&name;` stays as written, a
/// stray `&` is a character, any encoding is read as UTF-8 with invalid bytes replaced),
/// strict where a mistake would lose entries silently: every start tag needs its end tag,
/// in order, and the document must not end inside an element (a truncated feed is an error,
/// not a shorter feed). XML 1.0 (https://www.w3.org/TR/xml/), Namespaces in XML 1.0.
public enum XMLText {
    /// An element as the reader hands it over, its children already read.
    public struct Element: Equatable, Sendable {
        /// The namespace URI (`http://www.w3.org/2005/Atom`), or "" for none.
        public var namespace: String
        /// The local name, without any prefix.
        public var name: String
        /// Attributes by local name (a feed's attributes are unprefixed; `xml:base` and other
        /// prefixed ones are kept under their prefixed name).
        public var attributes: [String: String]
        public var children: [Element]
        /// The element's own text (character data and CDATA sections), entities decoded.
        public var text: String

        public init(namespace: String, name: String, attributes: [String: String] = [:], children: [Element] = [], text: String = "") {
            self.namespace = namespace
            self.name = name
            self.attributes = attributes
            self.children = children
            self.text = text
        }

        /// The first child with this namespace and name.
        public func child(_ namespace: String, _ name: String) -> Element? {
            children.first { $0.namespace == namespace && $0.name == name }
        }

        public func children(_ namespace: String, _ name: String) -> [Element] {
            children.filter { $0.namespace == namespace && $0.name == name }
        }
    }

    /// Why a document could not be read, with the byte offset where it went wrong.
    public struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        public var message: String
        public var offset: Int
        public var description: String { "\(message) (at byte \(offset))" }
    }

    /// What the reader accepts before it gives up: a feed is small.
    public struct Limits: Sendable {
        public var depth = 32
        public var elements = 20_000
        /// Characters kept of one element's text; the rest is dropped.
        public var text = 16_384
        public init() {}
    }

    /// Reads a whole document and returns its root element.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(Problem) -> Element {
        var reader = Reader(bytes: bytes, limits: limits)
        return try reader.document(keepsChildren: true) { _ in }
    }

    /// An element as `read` hands it over: when it starts (with its attributes), and when it
    /// ends (with its text, without its children), with its parent's local name.
    public enum Event: Sendable {
        case start(Element)
        case end(Element, parent: String?)
    }

    /// Reads a whole document as `parse` does, checking the same things, but keeps no tree:
    /// each element is handed to `visit` and let go. What is held is the elements open at
    /// once (`limits.depth`), not the document: a workout file of a million empty elements
    /// took 164 MB as a tree (issue 51).
    public static func read(_ bytes: [UInt8], limits: Limits = Limits(), visit: (Event) -> Void) throws(Problem) {
        var reader = Reader(bytes: bytes, limits: limits)
        _ = try reader.document(keepsChildren: false, visit: visit)
    }

    // MARK: Writing

    /// Text for XML: `&`, `<`, `>` (and in attribute values `"`) escaped, and every
    /// character XML 1.0 does not allow dropped (C0 controls but tab, newline and carriage
    /// return; U+FFFE, U+FFFF). A stray control character would make the whole document
    /// unreadable to a strict reader.
    public static func escaped(_ text: String, attribute: Bool = false) -> String {
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            case "\t", "\n", "\r": if attribute { out += "&#\(scalar.value);" } else { out.unicodeScalars.append(scalar) }
            case _ where !isAllowed(scalar): continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// XML 1.0's `Char` production.
    static func isAllowed(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: true
        default: false
        }
    }
}

/// The reader's state: a position in the bytes and the elements open above it. Iterative
/// (a stack, not recursion), so a deeply nested document cannot exhaust the thread's stack.
private struct Reader {
    let bytes: [UInt8]
    let limits: XMLText.Limits
    var i = 0
    var elementCount = 0

    init(bytes: [UInt8], limits: XMLText.Limits) {
        self.bytes = bytes
        self.limits = limits
        // A UTF-8 byte order mark.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
    }

    /// An element being read: its raw name and the namespace declarations it made.
    struct Open {
        var rawName: String
        var element: XMLText.Element
        var scope: [String: String]
        var textBytes: [UInt8] = []
    }

    func problem(_ message: String, at offset: Int? = nil) -> XMLText.Problem {
        XMLText.Problem(message: message, offset: offset ?? i)
    }

    /// The root element; with `keepsChildren` false, without its children (`XMLText.read`).
    mutating func document(keepsChildren: Bool, visit: (XMLText.Event) -> Void) throws(XMLText.Problem) -> XMLText.Element {
        var stack: [Open] = []
        // `xml` is bound by definition; nothing else is.
        let rootScope = ["xml": "http://www.w3.org/XML/1998/namespace", "": ""]
        while i < bytes.count {
            if bytes[i] != UInt8(ascii: "<") {
                // Character data up to the next markup.
                let start = i
                while i < bytes.count && bytes[i] != UInt8(ascii: "<") { i += 1 }
                if !stack.isEmpty {
                    appendText(bytes[start..<i], to: &stack[stack.count - 1], decode: true)
                } else if bytes[start..<i].contains(where: { !isSpace($0) }) {
                    throw problem("text outside the root element", at: start)
                }
                continue
            }
            if starts("<!--") {
                guard let end = find("-->", from: i + 4) else { throw problem("a comment that does not end") }
                i = end + 3
            } else if starts("<![CDATA[") {
                guard let end = find("]]>", from: i + 9) else { throw problem("a CDATA section that does not end") }
                guard !stack.isEmpty else { throw problem("CDATA outside the root element") }
                appendText(bytes[(i + 9)..<end], to: &stack[stack.count - 1], decode: false)
                i = end + 3
            } else if starts("<?") {
                guard let end = find("?>", from: i + 2) else { throw problem("a processing instruction that does not end") }
                i = end + 2
            } else if starts("<!DOCTYPE") || starts("<!doctype") {
                try skipDoctype()
            } else if starts("</") {
                let at = i
                i += 2
                let name = readName()
                skipSpaces()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw problem("an end tag that does not close", at: at) }
                i += 1
                guard var open = stack.popLast() else { throw problem("</\(name)> with nothing open", at: at) }
                guard open.rawName == name else { throw problem("</\(name)> closes <\(open.rawName)>", at: at) }
                open.element.text = Self.text(open.textBytes, limit: limits.text)
                visit(.end(open.element, parent: stack.last?.element.name))
                if stack.isEmpty {
                    try trailingMisc()
                    return open.element
                }
                if keepsChildren { stack[stack.count - 1].element.children.append(open.element) }
            } else if starts("<!") {
                throw problem("unexpected markup declaration")
            } else {
                let at = i
                i += 1
                let rawName = readName()
                guard !rawName.isEmpty else { throw problem("a '<' that starts no tag", at: at) }
                var rawAttributes: [(String, String)] = []
                var selfClosing = false
                while true {
                    skipSpaces()
                    guard i < bytes.count else { throw problem("a start tag that does not close", at: at) }
                    if bytes[i] == UInt8(ascii: ">") { i += 1; break }
                    if bytes[i] == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: ">") {
                        i += 2
                        selfClosing = true
                        break
                    }
                    let name = readName()
                    guard !name.isEmpty else { throw problem("a bad attribute in <\(rawName)>") }
                    skipSpaces()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { throw problem("attribute \(name) has no value") }
                    i += 1
                    skipSpaces()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                        throw problem("attribute \(name)'s value is not quoted")
                    }
                    let quote = bytes[i]
                    let start = i + 1
                    guard let end = bytes[start...].firstIndex(of: quote) else { throw problem("attribute \(name)'s value does not end") }
                    i = end + 1
                    rawAttributes.append((name, Self.decode(bytes[start..<end], limit: limits.text, normaliseSpace: true)))
                }
                elementCount += 1
                guard elementCount <= limits.elements else { throw problem("more than \(limits.elements) elements") }
                guard stack.count < limits.depth else { throw problem("nested deeper than \(limits.depth) elements") }
                var scope = stack.last?.scope ?? rootScope
                for (name, value) in rawAttributes {
                    if name == "xmlns" { scope[""] = value } else if name.hasPrefix("xmlns:") { scope[String(name.dropFirst(6))] = value }
                }
                let (prefix, local) = Self.split(rawName)
                // An unbound prefix is kept as its own namespace name rather than refused.
                let namespace = scope[prefix] ?? prefix
                var attributes: [String: String] = [:]
                for (name, value) in rawAttributes where name != "xmlns" && !name.hasPrefix("xmlns:") {
                    attributes[name] = value
                }
                let open = Open(rawName: rawName, element: XMLText.Element(namespace: namespace, name: local, attributes: attributes),
                                scope: scope)
                visit(.start(open.element))
                if selfClosing {
                    visit(.end(open.element, parent: stack.last?.element.name))
                    if stack.isEmpty {
                        try trailingMisc()
                        return open.element
                    }
                    if keepsChildren { stack[stack.count - 1].element.children.append(open.element) }
                } else {
                    stack.append(open)
                }
            }
        }
        if let open = stack.last { throw problem("the document ends inside <\(open.rawName)>") }
        throw problem("no root element")
    }

    /// After the root: only comments, processing instructions and white space.
    mutating func trailingMisc() throws(XMLText.Problem) {
        while i < bytes.count {
            if isSpace(bytes[i]) {
                i += 1
            } else if starts("<!--") {
                guard let end = find("-->", from: i + 4) else { throw problem("a comment that does not end") }
                i = end + 3
            } else if starts("<?") {
                guard let end = find("?>", from: i + 2) else { throw problem("a processing instruction that does not end") }
                i = end + 2
            } else {
                throw problem("content after the root element")
            }
        }
    }

    /// `<!DOCTYPE …>` with any internal subset in brackets: passed over, never interpreted.
    mutating func skipDoctype() throws(XMLText.Problem) {
        let at = i
        var inSubset = false
        var quote: UInt8?
        i += 9
        while i < bytes.count {
            let b = bytes[i]
            i += 1
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: "[") {
                inSubset = true
            } else if b == UInt8(ascii: "]") {
                inSubset = false
            } else if b == UInt8(ascii: ">") && !inSubset {
                return
            }
        }
        throw problem("a DOCTYPE that does not end", at: at)
    }

    mutating func appendText(_ part: ArraySlice<UInt8>, to open: inout Open, decode: Bool) {
        // Past the limit the rest is dropped; the markup is still read (and checked).
        guard open.textBytes.count < limits.text * 4 else { return }
        if decode {
            open.textBytes += Array(Self.decode(part, limit: limits.text, normaliseSpace: false).utf8)
        } else {
            open.textBytes += part.prefix(limits.text * 4 - open.textBytes.count)
        }
    }

    static func text(_ bytes: [UInt8], limit: Int) -> String {
        let s = String(decoding: bytes, as: UTF8.self)
        return s.count > limit ? String(s.prefix(limit)) : s
    }

    /// Character and predefined entity references decoded; an unknown entity stays as
    /// written. Attribute values have their white space characters made spaces (XML 1.0
    /// §3.3.3), except those written as character references.
    static func decode(_ part: ArraySlice<UInt8>, limit: Int, normaliseSpace: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        var j = part.startIndex
        while j < part.endIndex && out.count < limit * 4 {
            let b = part[j]
            if b == UInt8(ascii: "&"), let semicolon = part[j...].prefix(12).firstIndex(of: UInt8(ascii: ";")) {
                let name = String(decoding: part[(j + 1)..<semicolon], as: UTF8.self)
                if let scalar = entity(name) {
                    if XMLText.isAllowed(scalar) { out += Array(String(Character(scalar)).utf8) }
                    j = semicolon + 1
                    continue
                }
            }
            if normaliseSpace && (b == 0x9 || b == 0xA || b == 0xD) {
                out.append(0x20)
            } else {
                out.append(b)
            }
            j += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func entity(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init)
        }
    }

    static func split(_ raw: String) -> (prefix: String, local: String) {
        guard let colon = raw.firstIndex(of: ":") else { return ("", raw) }
        return (String(raw[..<colon]), String(raw[raw.index(after: colon)...]))
    }

    func starts(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard i + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { lit in
            for k in 0..<count where bytes[i + k] != lit[k] { return false }
            return true
        }
    }

    func find(_ literal: StaticString, from start: Int) -> Int? {
        let count = literal.utf8CodeUnitCount
        return literal.withUTF8Buffer { lit -> Int? in
            guard start + count <= bytes.count else { return nil }
            var k = start
            while k + count <= bytes.count {
                if bytes[k] == lit[0] {
                    var all = true
                    for m in 1..<count where bytes[k + m] != lit[m] {
                        all = false
                        break
                    }
                    if all { return k }
                }
                k += 1
            }
            return nil
        }
    }

    mutating func readName() -> String {
        let start = i
        while i < bytes.count {
            let b = bytes[i]
            if isSpace(b) || b == UInt8(ascii: ">") || b == UInt8(ascii: "/") || b == UInt8(ascii: "=") || b == UInt8(ascii: "<")
                || b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") { break }
            i += 1
        }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    mutating func skipSpaces() {
        while i < bytes.count && isSpace(bytes[i]) { i += 1 }
    }

    func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x9 || b == 0xA || b == 0xD }
}
