import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// Bodies are limited by the matched route and refused from the headers.
@Suite struct BodyLimitTests {
    final class Site {
        let fixture: AccessTests.Fixture
        let web: WebServer

        init(basePath: String = "") throws {
            fixture = try AccessTests.Fixture()
            let api = API(context: APIContext.forTests(version: "t", store: fixture.store, apiKey: AccessTests.key, players: { [] }))
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0), maxBodyBytes: 4096),
                            basePath: basePath, api: api, logger: Logger(label: "test"))
            try web.start()
        }

        deinit { web.stop() }

        /// Sends the head and a few bytes of a body `length` long, no more.
        func send(_ method: String, _ path: String, length: Int, headers: [String: String] = [:]) throws -> RawHTTPConnection {
            var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\nExpect: 100-continue\r\n"
            for (name, value) in headers { text += "\(name): \(value)\r\n" }
            return try RawHTTPConnection(port: web.port, request: text + "\r\n" + String(repeating: "x", count: 16))
        }
    }

    @Test func anOversizedBodyIsRefusedFromItsContentLength() throws {
        let site = try Site()
        let hr = try site.send("POST", "/api/v1/hr", length: 10 << 30, headers: ["X-API-Key": AccessTests.key])
        #expect(hr.waitFor("payload_too_large", timeout: 3), "\(hr.received)")
        #expect(hr.received.hasPrefix("HTTP/1.1 413"), "\(hr.received)")
        #expect(!hr.received.contains("100 Continue"))
        // No body at all for reads.
        let read = try site.send("GET", "/api/v1/listens", length: 100)
        #expect(read.waitFor("payload_too_large", timeout: 3) && read.received.hasPrefix("HTTP/1.1 413"), "\(read.received)")
        // Refused by the access decision before its size matters.
        let anonymous = try site.send("POST", "/api/v1/import", length: 10 << 30)
        #expect(anonymous.waitFor("unauthorized", timeout: 3) && anonymous.received.hasPrefix("HTTP/1.1 401"), "\(anonymous.received)")
        #expect(!anonymous.received.contains("100 Continue"))
    }

    /// The limit is the matched route's, under a base path too: a ListenBrainz batch may be
    /// larger than other bodies.
    @Test func largeBodiesGoToTheRoutesThatTakeThem() throws {
        let site = try Site(basePath: "/pacenote")
        let base = "http://127.0.0.1:\(site.web.port)/pacenote"
        let batch = #"{"listen_type": "single", "payload": [{"listened_at": 1763794800, "track_metadata": {"artist_name": "A", "track_name": "B"}}]}"#
            + String(repeating: " ", count: 8192)
        let submitted = try HTTP.request("POST", base + "/1/submit-listens", headers: ["Authorization": "Token \(AccessTests.key)"],
                                         body: Data(batch.utf8))
        #expect(submitted.status == 200, "\(submitted.text)")
        let hr = try HTTP.request("POST", base + "/api/v1/hr", headers: ["X-API-Key": AccessTests.key],
                                  body: Data((#"{"bpm": 90}"# + String(repeating: " ", count: 8192)).utf8))
        #expect(hr.status == 413)
    }
}

/// Wrong keys are counted in a sliding minute: ten from one client lock it out for a
/// minute from the first of them, wherever the clock's minute turns.
@Suite struct LockoutWindowTests {
    @Test func tenFailuresAcrossTheTurnOfAMinuteLockOut() {
        let sessions = Sessions(clock: WebClock { Date() })
        let start = Date(timeIntervalSince1970: 1_800_000_055)  // five seconds before a minute turns
        for i in 0..<10 { sessions.recordFailure(from: "203.0.113.5", now: start.addingTimeInterval(Double(i))) }
        #expect(sessions.isLockedOut("203.0.113.5", now: start.addingTimeInterval(10)))
        #expect(!sessions.isLockedOut("203.0.113.6", now: start.addingTimeInterval(10)), "another client")
        #expect(sessions.isLockedOut("203.0.113.5", now: start.addingTimeInterval(59)))
        #expect(!sessions.isLockedOut("203.0.113.5", now: start.addingTimeInterval(61)), "the first failure aged out")
    }
}
