import PacenoteCore
import Testing

@Suite struct KeyHashAndLogTextTests {
    /// FIPS 180-4's examples (csrc.nist.gov, SHA256.pdf) and the empty message.
    @Test func sha256MatchesTheStandardsExamples() {
        #expect(SHA256.hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        // Over one block, and exactly at the padding's edge (55 and 56 bytes).
        #expect(SHA256.hex(String(repeating: "a", count: 1000)) == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
        #expect(SHA256.hex(String(repeating: "a", count: 55)) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(SHA256.hex(String(repeating: "a", count: 56)) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
    }

    @Test func logTextEscapesWhatCouldForgeALine() {
        #expect(LogText.escaped("/api/v1/status") == "/api/v1/status")
        #expect(LogText.escaped("/x\n127.0.0.1 GET /admin 200") == "/x\\n127.0.0.1 GET /admin 200")
        #expect(LogText.escaped("a\r\tb\u{1B}[31m\u{7F}\u{85}\u{2028}") == "a\\r\\tb\\u{1b}[31m\\u{7f}\\u{85}\\u{2028}")
        #expect(LogText.escaped("back\\slash\n") == "back\\\\slash\\n", "a backslash cannot fake an escape")
        #expect(LogText.escaped("café ♫") == "café ♫")
    }

    @Test func scopesAreOrdered() {
        #expect(KeyScope.submit < .read && KeyScope.read < .client && KeyScope.client < .admin)
        #expect(KeyScope(rawValue: "client") == .client)
        // A client key is a submit key and a read key together, with likes; never admin.
        #expect(KeyScope.client.maySubmit && KeyScope.client.mayRead && KeyScope.client.mayLike)
        #expect(!KeyScope.submit.mayRead && !KeyScope.read.maySubmit && !KeyScope.submit.mayLike && !KeyScope.read.mayLike)
        #expect(KeyScope(rawValue: "submit") == .submit && KeyScope(rawValue: "write") == nil)
    }
}
