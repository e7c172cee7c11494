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
        // A browser extension's pages (Web Scrobbler's) have an origin of their own.
        #expect(try WebOrigin(parsing: "chrome-extension://HNMPCAGPPLMPFOJMGMNNGILCNANDDLHB").text
                == "chrome-extension://hnmpcagpplmpfojmgmnngilcnanddlhb")
        #expect(try WebOrigin(parsing: "moz-extension://0e5b3a4c-6d2e-4f8a-9b1c-2d3e4f5a6b7c").text
                == "moz-extension://0e5b3a4c-6d2e-4f8a-9b1c-2d3e4f5a6b7c")
    }

    @Test func wildcardsNullAndWhatIsNoOriginAreRefused() {
        #expect(throws: WebOrigin.Refusal.wildcard) { try WebOrigin(parsing: "*") }
        #expect(throws: WebOrigin.Refusal.wildcard) { try WebOrigin(parsing: "https://*.example.org") }
        #expect(throws: WebOrigin.Refusal.null) { try WebOrigin(parsing: "null") }
        for bad in ["example.org", "ftp://example.org", "https://", "https://example.org/page", "https://example.org?x",
                    "https://user@example.org", "https://example.org:0", "https://example.org:99999", "https://example.org:x",
                    "https://[::1", "file:///tmp/page.html"] {
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
