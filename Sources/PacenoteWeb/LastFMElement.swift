/// An element of a Last.fm 2.0 answer, made once and written in either of Last.fm's shapes:
/// XML (`<lfm status="ok">…`, what pylast parses) or, with `format=json`, the JSON Last.fm
/// derives from it (https://www.last.fm/api/rest): an element with only text is a string, or
/// with attributes an object of them plus `#text`; an element with children is an object of
/// them, its attributes under `@attr`; a repeated child is an array. Every value is a string,
/// as Last.fm's are.
struct LastFMElement: Sendable {
    enum Content: Sendable {
        case text(String)
        case children([LastFMElement])
    }

    var name: String
    var attributes: [(String, String)]
    var content: Content
    /// The name of the children that make a list: an array in JSON even when there is one or
    /// none (Last.fm's lists of tracks, artists, images).
    var listOf: Set<String>

    init(_ name: String, _ attributes: [(String, String)] = [], text: String) {
        self.name = name
        self.attributes = attributes
        content = .text(text)
        listOf = []
    }

    init(_ name: String, _ attributes: [(String, String)] = [], listOf: Set<String> = [], _ children: [LastFMElement]) {
        self.name = name
        self.attributes = attributes
        content = .children(children)
        self.listOf = listOf
    }

    /// An element of children only (`artist` with its `name`, `mbid`, `url`).
    init(_ name: String, _ children: [LastFMElement]) {
        self.init(name, [], listOf: [], children)
    }

    /// As XML, for `<lfm status="ok">`.
    var node: Node {
        let attrs = attributes.map { Attribute(name: $0.0, value: $0.1) }
        switch content {
        case .text(let text): return Node.el(name, attributes: attrs, children: text.isEmpty ? [] : [.text(text)])
        case .children(let children): return Node.el(name, attributes: attrs, children: children.map(\.node))
        }
    }

    /// As Last.fm's JSON: the value under the element's name.
    var json: JSONValue {
        switch content {
        case .text(let text):
            guard !attributes.isEmpty else { return .string(text) }
            return .object(attributes.map { ($0.0, JSONValue.string($0.1)) } + [("#text", .string(text))])
        case .children(let children):
            var order: [String] = []
            var groups: [String: [JSONValue]] = [:]
            for name in listOf where !children.contains(where: { $0.name == name }) {
                order.append(name)
                groups[name] = []
            }
            for child in children {
                if groups[child.name] == nil { order.append(child.name) }
                groups[child.name, default: []].append(child.json)
            }
            var fields: [(String, JSONValue)] = order.map { name in
                let values = groups[name]!
                return (name, values.count == 1 && !listOf.contains(name) ? values[0] : .array(values))
            }
            if !attributes.isEmpty { fields.append(("@attr", .object(attributes.map { ($0.0, JSONValue.string($0.1)) }))) }
            return .object(fields)
        }
    }
}
