import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteWeb

/// The web layer reads the time of day from the clock it was given (`APIContext.clock`)
/// and nowhere else: a test sets the time, and the answers follow it whatever day it runs.
@Suite struct WebClockTests {
    /// A clock the test moves.
    final class TestClock: Sendable {
        let now: Mutex<Date>
        init(_ start: Date) { now = Mutex(start) }
        func advance(_ seconds: TimeInterval) { now.withLock { $0.addTimeInterval(seconds) } }
        var clock: WebClock { WebClock { [self] in now.withLock { $0 } } }
    }

    static let key = "test-key-0123456789"
    /// A Sunday just after midnight UTC: the hour at which one test client once slept.
    static let sundayMidnight = Date(timeIntervalSince1970: 1_798_934_400)

    @Test func theStatusUptimeAndTheReviewPeriodFollowTheClock() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let time = TestClock(Self.sundayMidnight)
        let api = API(context: APIContext.forTests(store: store, timeZone: TimeZone(identifier: "UTC")!, apiKey: Self.key,
                                                   clock: time.clock))
        func get(_ path: String, _ query: [String: String] = [:]) throws -> [String: Any] {
            let r = api.handle(HTTPRequest(method: "GET", path: path, query: query, headers: ["Host": "127.0.0.1:6680"], peerAddress: "127.0.0.1"))
            #expect(r.status == 200, "\(String(decoding: r.body, as: UTF8.self))")
            return try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
        }
        time.advance(90)
        #expect(try get("/api/v1/status")["uptime_s"] as? Int == 90, "started when the clock said, 90 s ago by it")
        // "This year" is the clock's year, not the machine's.
        let period = try #require(try get("/api/v1/review")["range"] as? [String: Any])
        #expect(period["from"] as? String == "2027-01-01", "\(period)")
    }

    @Test func aSessionEndsWhenTheClockSaysItWasIdle() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let time = TestClock(Self.sundayMidnight)
        let context = APIContext.forTests(store: store, apiKey: Self.key, clock: time.clock,
                                          configure: { $0.publicURL = "http://pacenote.example" })
        let api = API(context: context)
        let session = context.sessions.create(key: Self.key)
        let request = HTTPRequest(method: "GET", path: "/api/v1/listens",
                                  headers: ["Host": "pacenote.example", "Cookie": "\(Sessions.cookieName)=\(session)"],
                                  peerAddress: "203.0.113.7")
        guard case .admitted = api.admit(request) else { Issue.record("a fresh session reads the history"); return }
        time.advance(Sessions.defaultIdleTimeout + 1)
        guard case .refused(let response, _) = api.admit(request) else { Issue.record("an idle session still reads"); return }
        #expect(response.status == 403, "as for a stranger with no credential")
    }
}
