/// HTML and SVG as values. Every page and every chart is built from `Node`s; text and
/// attribute values are escaped when the tree is written, so no markup is ever made by
/// joining strings, and a track called `<img src=x onerror=alert(1)>` stays text.
public struct Node: Sendable {
    enum Kind: Sendable {
        case element(name: String, attributes: [Attribute], children: [Node])
        case text(String)
        case fragment([Node])
        case prerendered([UInt8])
    }
    let kind: Kind

    public static func text(_ s: String) -> Node { Node(kind: .text(s)) }
    public static func fragment(_ nodes: [Node]) -> Node { Node(kind: .fragment(nodes)) }
    public static let empty = Node(kind: .fragment([]))
    /// Markup this program rendered from `Node`s earlier, written as it is: a published
    /// review's content, kept as it was when published (`ReviewSnapshot`). It was escaped
    /// when it was rendered; nothing else may come this way.
    static func prerendered(_ bytes: [UInt8]) -> Node { Node(kind: .prerendered(bytes)) }
    /// Several nodes as one: `Node.group { … }`.
    public static func group(@Markup _ children: () -> [Node]) -> Node { Node(kind: .fragment(children())) }

    /// An element: `el("a", ["href": url]) { "text" }`. Names are the code's own, never input.
    public static func el(_ name: String, _ attributes: KeyValuePairs<String, String?> = [:],
                          @Markup _ children: () -> [Node] = { [] }) -> Node {
        Node(kind: .element(name: name, attributes: attributes.compactMap { k, v in v.map { Attribute(name: k, value: $0) } },
                            children: children()))
    }

    /// An element with attributes computed at run time (charts).
    public static func el(_ name: String, attributes: [Attribute], children: [Node] = []) -> Node {
        Node(kind: .element(name: name, attributes: attributes, children: children))
    }
}

public struct Attribute: Sendable {
    public var name: String
    public var value: String
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

@resultBuilder
public enum Markup {
    public static func buildExpression(_ node: Node) -> [Node] { [node] }
    public static func buildExpression(_ nodes: [Node]) -> [Node] { nodes }
    public static func buildExpression(_ text: String) -> [Node] { [.text(text)] }
    public static func buildBlock(_ parts: [Node]...) -> [Node] { parts.flatMap { $0 } }
    public static func buildOptional(_ part: [Node]?) -> [Node] { part ?? [] }
    public static func buildEither(first: [Node]) -> [Node] { first }
    public static func buildEither(second: [Node]) -> [Node] { second }
    public static func buildArray(_ parts: [[Node]]) -> [Node] { parts.flatMap { $0 } }
}

extension Node {
    /// Elements that have no end tag in HTML: compared rather than hashed (once per element written).
    static func isVoid(_ name: String) -> Bool {
        switch name {
        case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr": true
        default: false
        }
    }

    public func render(into out: inout [UInt8]) {
        switch kind {
        case .text(let s): Node.escape(s, into: &out, attribute: false)
        case .fragment(let nodes): for n in nodes { n.render(into: &out) }
        case .prerendered(let bytes): out.append(contentsOf: bytes)
        case .element(let name, let attributes, let children):
            out.append(UInt8(ascii: "<"))
            out.append(contentsOf: name.utf8)
            for a in attributes {
                out.append(UInt8(ascii: " "))
                out.append(contentsOf: a.name.utf8)
                out.append(contentsOf: "=\"".utf8)
                Node.escape(a.value, into: &out, attribute: true)
                out.append(UInt8(ascii: "\""))
            }
            out.append(UInt8(ascii: ">"))
            if Node.isVoid(name) { return }
            for c in children { c.render(into: &out) }
            out.append(contentsOf: "</".utf8)
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: ">"))
        }
    }

    public func rendered() -> String {
        var out: [UInt8] = []
        render(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `&<>` in text; `"` and `'` too in attribute values. Control characters other than
    /// tab and newline are dropped: they are not allowed in HTML.
    static func escape(_ s: String, into out: inout [UInt8], attribute: Bool) {
        // Runs of bytes that need nothing are copied whole (most text is such a run).
        var text = s
        text.withUTF8 { bytes in
            var start = 0
            for (i, byte) in bytes.enumerated() {
                let plain = byte >= 0x20 && byte != 0x7F && byte != UInt8(ascii: "&") && byte != UInt8(ascii: "<")
                    && byte != UInt8(ascii: ">") && !(attribute && (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")))
                if plain { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
                start = i + 1
                escapeByte(byte, into: &out, attribute: attribute)
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    private static func escapeByte(_ byte: UInt8, into out: inout [UInt8], attribute: Bool) {
        switch byte {
        case UInt8(ascii: "&"): out.append(contentsOf: "&amp;".utf8)
        case UInt8(ascii: "<"): out.append(contentsOf: "&lt;".utf8)
        case UInt8(ascii: ">"): out.append(contentsOf: "&gt;".utf8)
        case UInt8(ascii: "\"") where attribute: out.append(contentsOf: "&quot;".utf8)
        case UInt8(ascii: "'") where attribute: out.append(contentsOf: "&#39;".utf8)
        case 0x09, 0x0A: out.append(byte)
        case 0..<0x20, 0x7F: break
        default: out.append(byte)
        }
    }
}
