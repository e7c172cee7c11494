import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteWeb

@Suite struct APITests {
    final class Site {
        let dir: TemporaryDirectory
        let store: Store
        let web: WebServer
        let api: API
        var base: String { "http://127.0.0.1:\(web.port)" }

        init(basePath: String = "", connected: Bool = false) throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
            let since = Date(timeIntervalSince1970: 1_800_000_000)
            api = API(context: APIContext.forTests(version: "9.9.9", store: store, apiKey: "test-key-0123456789", players: {
                [PlayerStatus(name: "living-room", endpoint: "localhost:6600", connected: connected,
                              serverVersion: connected ? "0.23.5" : nil, lastError: connected ? nil : "Connection refused", since: since)]
            }))
            web = WebServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0)),
                            basePath: basePath, api: api, logger: Logger(label: "test"))
            try web.start()
        }

        deinit {
            web.stop()
            try? store.close()
        }
    }

    @Test func statusReportsVersionMPDAndDatabase() throws {
        let site = try Site()
        let r = try HTTP.get(site.base + "/api/v1/status")
        #expect(r.status == 200)
        #expect(r.header("Content-Type") == "application/json; charset=utf-8")
        let json = try #require(r.json)
        #expect(json["version"] as? String == "9.9.9")
        let mpd = try #require(json["mpd"] as? [String: Any])
        #expect(mpd["connected"] as? Bool == false)
        #expect(mpd["name"] as? String == "living-room")
        #expect(mpd["error"] as? String == "Connection refused")
        #expect(mpd["server_version"] is NSNull)
        #expect(mpd["since"] as? String == "2027-01-15T08:00:00.000Z")
        #expect((json["players"] as? [Any])?.count == 1)
        #expect((json["database"] as? [String: Any])?["plays"] as? Int == 0)
    }

    @Test func unknownRoutesAndMethodsGetJSONErrors() throws {
        let site = try Site()
        let missing = try HTTP.get(site.base + "/api/v1/nothing")
        #expect(missing.status == 404)
        #expect((missing.json?["error"] as? [String: Any])?["code"] as? String == "not_found")
        let wrongMethod = try HTTP.request("DELETE", site.base + "/api/v1/status")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "GET, HEAD")
        #expect((wrongMethod.json?["error"] as? [String: Any])?["code"] as? String == "method_not_allowed")
        // Hostile paths are answered, not crashed on.
        let hostile = try HTTP.get(site.base + "/%3Cscript%3E/%FF%FE/..%2F..%2Fetc%2Fpasswd")
        #expect(hostile.status == 404)
        #expect(hostile.json?["error"] != nil)
    }

    @Test func servesUnderABasePath() throws {
        let site = try Site(basePath: "/pacenote/")
        #expect(try HTTP.get(site.base + "/pacenote/api/v1/status").status == 200)
        #expect(try HTTP.get(site.base + "/api/v1/status").status == 404)
        #expect(try HTTP.get(site.base + "/pacenotes/api/v1/status").status == 404)
    }
}

@Suite struct ConcurrencyTests {
    /// libmicrohttpd's workers call the API at once: the status cache must hold up (a
    /// race here once trapped on an unsigned underflow under load).
    @Test func manyThreadsReadTheStatusAtOnce() throws {
        let site = try APITests.Site()
        let api = site.api
        let failures = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<3000 {
                let r = api.handle(HTTPRequest(method: "GET", path: "/api/v1/status", peerAddress: "127.0.0.1"))
                if r.status != 200 { failures.add(1, ordering: .relaxed) }
            }
        }
        #expect(failures.load(ordering: .relaxed) == 0)
    }
}
