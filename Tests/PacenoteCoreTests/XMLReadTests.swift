@testable import PacenoteCore
import Testing

/// `XMLText.read`: the same document as `parse`, handed over an element at a time.
@Suite struct XMLReadTests {
    static func events(_ text: String, limits: XMLText.Limits = XMLText.Limits()) throws -> [String] {
        var seen: [String] = []
        try XMLText.read(Array(text.utf8), limits: limits) { event in
            switch event {
            case .start(let e): seen.append("<\(e.name)\(e.attributes.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined())>")
            case .end(let e, let parent):
                #expect(e.children.isEmpty, "no tree is kept")
                seen.append("</\(e.name) \(e.text.isEmpty ? "" : "'\(e.text)' ")in \(parent ?? "-")>")
            }
        }
        return seen
    }

    @Test func elementsInDocumentOrderWithTheirTextAndParent() throws {
        let doc = #"<?xml version="1.0"?><a x="1"><b>hi &amp; bye</b><c/><d><e>deep</e></d></a>"#
        #expect(try Self.events(doc) == ["<a x=1>", "<b>", "</b 'hi & bye' in a>", "<c>", "</c in a>", "<d>", "<e>", "</e 'deep' in d>",
                                         "</d in a>", "</a in ->"])
        // The tree reader gives the same document.
        let root = try XMLText.parse(Array(doc.utf8))
        #expect(root.children.map(\.name) == ["b", "c", "d"])
    }

    @Test func theSameChecksAsTheTreeReader() {
        var limits = XMLText.Limits()
        limits.elements = 3
        #expect(throws: XMLText.Problem.self) { try Self.events("<a><b/><c/><d/></a>", limits: limits) }
        limits = XMLText.Limits()
        limits.depth = 2
        #expect(throws: XMLText.Problem.self) { try Self.events("<a><b><c/></b></a>", limits: limits) }
        #expect(throws: XMLText.Problem.self) { try Self.events("<a><b></a>") }
        #expect(throws: XMLText.Problem.self) { try Self.events("<a>") }
    }
}
