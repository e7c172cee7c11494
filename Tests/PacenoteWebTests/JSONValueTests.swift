import Foundation
import Testing
@testable import PacenoteWeb

@Suite struct JSONValueTests {
    /// Every string, written in runs, reads back as itself with a standard JSON parser, and
    /// never carries a raw `<`, `>`, `&` or control character.
    @Test func stringsRoundTripAndStaySafeInAPage() throws {
        var state: UInt64 = 5
        let pieces = ["a", "Björk", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "<", ">", "&", "</script>", "日本", "🎵", " ", "é"]
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<(Int(state % 9)) {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                text += pieces[Int(state >> 33) % pieces.count]
            }
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let bytes = JSONValue.object([("k", .string(text)), (text, .array([.string(text), .int(1)]))]).serialized()
            let unsafe: Set<UInt8> = Set(0..<0x20).union([0x7F, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&")])
            let raw = bytes.filter { unsafe.contains($0) }
            #expect(raw.isEmpty)
            let parsed = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            #expect(parsed["k"] as? String == text)
            #expect((parsed[text] as? [Any])?.first as? String == text)
        }
        #expect(String(decoding: JSONValue.string("<a href=\"x\">&</a>").serialized(), as: UTF8.self)
                == #""\u003ca href=\"x\"\u003e\u0026\u003c/a\u003e""#)
    }

    @Test func etagsFollowTheContent() {
        let a = Array("hello, world: a body longer than eight bytes".utf8)
        var b = a
        b[b.count - 1] ^= 1
        #expect(HTTPServer.fnv1a(a) == HTTPServer.fnv1a(a))
        #expect(HTTPServer.fnv1a(a) != HTTPServer.fnv1a(b))
        #expect(HTTPServer.fnv1a(a) != HTTPServer.fnv1a(a + [0]))  // a zero byte more is another body
        #expect(HTTPServer.fnv1a([]) != HTTPServer.fnv1a([0]))
    }
}
