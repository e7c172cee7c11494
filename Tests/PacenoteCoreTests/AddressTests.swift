import Testing
@testable import PacenoteCore

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:6680", "127.0.0.1", UInt16(6680)),
        ("0.0.0.0:80", "0.0.0.0", 80),
        ("localhost:0", "localhost", 0),
        ("[::1]:6680", "::1", 6680),
        (":7000", "127.0.0.1", 7000),
    ])
    func parses(text: String, host: String, port: UInt16) {
        #expect(ListenAddress(parsing: text) == ListenAddress(host: host, port: port))
    }

    @Test(arguments: ["", "6680", "host", "host:", "host:99999", "host:-1", "::1:80", "[::1]", "a b:1", "host:http"])
    func rejects(text: String) {
        #expect(ListenAddress(parsing: text) == nil)
    }

    @Test func describesIPv6InBrackets() {
        #expect(ListenAddress(host: "::1", port: 1).description == "[::1]:1")
    }
}

@Suite struct MPDEndpointTests {
    @Test func defaultIsLocalhost6600() {
        #expect(MPDEndpoint.default == MPDEndpoint(location: .tcp(host: "localhost", port: 6600)))
    }

    @Test(arguments: [
        ("localhost", nil, MPDEndpoint(location: .tcp(host: "localhost", port: 6600))),
        ("music.lan", "6601", MPDEndpoint(location: .tcp(host: "music.lan", port: 6601))),
        ("secret@music.lan", nil, MPDEndpoint(location: .tcp(host: "music.lan", port: 6600), password: "secret")),
        ("p@ss@host", nil, MPDEndpoint(location: .tcp(host: "host", port: 6600), password: "p@ss")),
        ("/run/mpd/socket", nil, MPDEndpoint(location: .unixSocket("/run/mpd/socket"))),
        ("pw@/run/mpd/socket", "6601", MPDEndpoint(location: .unixSocket("/run/mpd/socket"), password: "pw")),
        ("~/.mpd/socket", nil, MPDEndpoint(location: .unixSocket("~/.mpd/socket"))),
        ("@mpd", nil, MPDEndpoint(location: .unixSocket("@mpd"))),
        ("host:7000", nil, MPDEndpoint(location: .tcp(host: "host", port: 7000))),
        ("host:7000", "7001", MPDEndpoint(location: .tcp(host: "host", port: 7001))),
        ("::1", nil, MPDEndpoint(location: .tcp(host: "::1", port: 6600))),
        ("[::1]:7000", nil, MPDEndpoint(location: .tcp(host: "::1", port: 7000))),
        ("[::1]", nil, MPDEndpoint(location: .tcp(host: "::1", port: 6600))),
    ] as [(String, String?, MPDEndpoint)])
    func parsesMPDHostLikeMPDClients(host: String, port: String?, expected: MPDEndpoint) throws {
        #expect(try MPDEndpoint.parse(host: host, port: port) == expected)
    }

    @Test func rejectsBadValues() {
        #expect(throws: MPDEndpoint.ParseError.emptyHost) { try MPDEndpoint.parse(host: "") }
        #expect(throws: MPDEndpoint.ParseError.emptyHost) { try MPDEndpoint.parse(host: "secret@") }
        #expect(throws: MPDEndpoint.ParseError.invalidPort("x")) { try MPDEndpoint.parse(host: "h", port: "x") }
        #expect(throws: MPDEndpoint.ParseError.invalidPort("0")) { try MPDEndpoint.parse(host: "h:0") }
    }

    @Test func descriptionHidesThePassword() throws {
        #expect(try MPDEndpoint.parse(host: "secret@host").description == "host:6600")
    }
}

@Suite struct BackoffTests {
    @Test func doublesFromOneSecondUpToThirtyAndResets() {
        var b = Backoff()
        #expect((0..<7).map { _ in b.failed() } == [1, 2, 4, 8, 16, 30, 30])
        b.succeeded()
        #expect(b.failed() == 1)
    }
}
