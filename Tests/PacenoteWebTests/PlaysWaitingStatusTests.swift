import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// `plays_waiting` in `/api/v1/status`: how many plays a full disk holds back and why, for
/// trusted callers only.
@Suite struct PlaysWaitingStatusTests {
    static func status(_ api: API, from peer: String) throws -> [String: Any] {
        let r = api.handle(HTTPRequest(method: "GET", path: "/api/v1/status", headers: ["Host": "127.0.0.1:6680"], peerAddress: peer))
        #expect(r.status == 200)
        return try #require(try JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
    }

    @Test func trustedCallersSeeWhatWaitsStrangersDoNot() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let context = APIContext.forTests(version: "1", store: store, apiKey: "test-key-0123456789", provide: {
            $0.waitingPlays = TestWaitingPlays(count: 3, lastError: "database error: database or disk is full",
                                               since: Date(timeIntervalSince1970: 1_800_000_000))
        })
        let api = API(context: context)

        let waiting = try #require(try Self.status(api, from: "127.0.0.1")["plays_waiting"] as? [String: Any])
        #expect(waiting["count"] as? Int == 3)
        #expect(waiting["last_error"] as? String == "database error: database or disk is full")
        #expect(waiting["since"] as? String == "2027-01-15T08:00:00.000Z")

        let stranger = try Self.status(api, from: "203.0.113.9")
        #expect(stranger["plays_waiting"] == nil || stranger["plays_waiting"] is NSNull, "an error message is not for strangers")

        // Nothing waiting (or no players at all): a zero count and nulls.
        let idle = APIContext.forTests(version: "1", store: store, apiKey: "test-key-0123456789")
        let none = try #require(try Self.status(API(context: idle), from: "127.0.0.1")["plays_waiting"] as? [String: Any])
        #expect(none["count"] as? Int == 0)
        #expect(none["last_error"] is NSNull)
        #expect(none["since"] is NSNull)
    }
}
