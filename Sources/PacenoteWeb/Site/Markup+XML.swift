import PacenoteCore

/// `Node`s written as XML rather than HTML, for the protocols that answer in XML (Last.fm's
/// Audioscrobbler 2.0): no element is void (`<track>` has content there), and text and
/// attribute values are escaped by XML 1.0's rules (`XMLText.escaped`), dropping the
/// characters XML does not allow.
extension Node {
    /// The whole document: the declaration, this node as its root, a newline.
    public func xmlDocument() -> [UInt8] {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        writeXML(into: &out)
        out += "\n"
        return Array(out.utf8)
    }

    func writeXML(into out: inout String) {
        switch kind {
        case .text(let s): out += XMLText.escaped(s)
        case .fragment(let nodes): for n in nodes { n.writeXML(into: &out) }
        case .prerendered(let bytes): out += String(decoding: bytes, as: UTF8.self)
        case .element(let name, let attributes, let children):
            out += "<" + name
            for a in attributes { out += " " + a.name + "=\"" + XMLText.escaped(a.value, attribute: true) + "\"" }
            out += ">"
            for c in children { c.writeXML(into: &out) }
            out += "</" + name + ">"
        }
    }
}
