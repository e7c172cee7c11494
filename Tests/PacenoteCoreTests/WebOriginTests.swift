import PacenoteCore
import Testing

/// `server.cors_origins`: origins written as browsers send them (RFC 6454 §6.1), `*` and
/// `null` refused.
@Suite struct WebOriginTests {
    @Test func originsAreWrittenAsBrowsersSendThem() throws {
        #expect(try WebOrigin(parsing: "https://Example.org").text == "https://example.org")
        #expect(try WebOrigin(parsing: "https://example.org:443/").text == "https://example.org")
        #expect(try WebOrigin(parsing: "http://example.org:80").text == "http://example.org")
        #expect(try WebOrigin(parsing: "http://127.0.0.1:8001").text == "http://127.0.0.1:8001")
        #expect(try WebOrigin(parsing: "https://example.org:8443").text == "https://example.org:8443")
        #expect(try WebOrigin(parsing: "http://[::1]:8080").text == "http://[::1]:8080")
        #expect(try WebOrigin(parsing: " http://localhost:3000 ").text == "http://localhost:3000")
    }

    @Test func wildcardsNullAndWhatIsNoOriginAreRefused() {
        #expect(throws: WebOrigin.Refusal.wildcard) { try WebOrigin(parsing: "*") }
        #expect(throws: WebOrigin.Refusal.wildcard) { try WebOrigin(parsing: "https://*.example.org") }
        #expect(throws: WebOrigin.Refusal.null) { try WebOrigin(parsing: "null") }
        for bad in ["example.org", "ftp://example.org", "https://", "https://example.org/page", "https://example.org?x",
                    "https://user@example.org", "https://example.org:0", "https://example.org:99999", "https://example.org:x",
                    "https://[::1", "chrome-extension://abc"] {
            #expect(throws: WebOrigin.Refusal.notAnOrigin, "\(bad)") { try WebOrigin(parsing: bad) }
        }
    }

    @Test func onlyAListedOriginIsAllowed() throws {
        let list = [try WebOrigin(parsing: "https://example.org"), try WebOrigin(parsing: "http://127.0.0.1:8001")]
        #expect(WebOrigin.allowed("https://example.org", in: list)?.text == "https://example.org")
        #expect(WebOrigin.allowed("http://127.0.0.1:8001", in: list)?.text == "http://127.0.0.1:8001")
        #expect(WebOrigin.allowed("http://127.0.0.1:8002", in: list) == nil)
        #expect(WebOrigin.allowed("https://example.org.evil.test", in: list) == nil)
        #expect(WebOrigin.allowed("http://example.org", in: list) == nil, "another scheme is another origin")
        #expect(WebOrigin.allowed("null", in: list) == nil)
        #expect(WebOrigin.allowed(nil, in: list) == nil)
        #expect(WebOrigin.allowed("https://example.org", in: []) == nil)
    }
}
