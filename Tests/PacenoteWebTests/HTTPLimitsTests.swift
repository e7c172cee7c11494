import Foundation
import Logging
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// The memory all bodies in flight share, and the bodies one address may send at once.
@Suite struct HTTPLimitsTests {
    static func server(bodyMemory: Int, uploadsPerAddress: Int) throws -> HTTPServer {
        var settings = HTTPServer.Settings(address: ListenAddress(host: "127.0.0.1", port: 0), maxBodyBytes: 8192)
        settings.bodyMemoryBytes = bodyMemory
        settings.uploadsPerAddress = uploadsPerAddress
        let server = HTTPServer(settings: settings, logger: Logger(label: "test")) { request in
            HTTPResponse(status: 200, body: Array("got \(request.body.count)".utf8))
        }
        try server.start()
        return server
    }

    static func post(_ port: UInt16, from source: String, length: Int, sending: Int) throws -> RawClient {
        let client = try RawClient(port: port, from: source)
        client.send("POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "x", count: sending))
        return client
    }

    @Test func bodiesInFlightShareOneBudgetAndEachAddressItsShare() throws {
        let server = try Self.server(bodyMemory: 16384, uploadsPerAddress: 2)
        defer { server.stop() }
        let port = server.boundPort
        // Two bodies on their way from one address: both admitted, 12,000 bytes taken.
        let first = try Self.post(port, from: "127.0.0.1", length: 6000, sending: 100)
        let second = try Self.post(port, from: "127.0.0.1", length: 6000, sending: 100)
        #expect(!first.wait(timeout: 0.3) { $0.status != nil } && !second.wait(timeout: 0.1) { $0.status != nil })
        #expect(server.limits.bodyMemoryUsed == 12000)
        // A third from the same address: its share is taken.
        let third = try Self.post(port, from: "127.0.0.1", length: 10, sending: 0)
        #expect(third.wait(timeout: 2) { $0.status != nil })
        #expect(third.status == 429 && third.received.contains("too_many_uploads") && third.received.contains("Retry-After: "),
                "\(third.received)")
        // Another address: the budget has 4,384 bytes left, too few for 6,000.
        let other = try Self.post(port, from: "127.0.0.2", length: 6000, sending: 0)
        #expect(other.wait(timeout: 2) { $0.status != nil })
        #expect(other.status == 503 && other.received.contains("server_busy") && other.received.contains("Retry-After: "),
                "\(other.received)")
        #expect(other.wait(timeout: 2) { $0.closedByServer }, "the refused connection is closed")
        // Bodies that fit still come in; finished requests give their memory back.
        let small = try Self.post(port, from: "127.0.0.2", length: 4000, sending: 4000)
        #expect(small.wait(timeout: 2) { $0.received.contains("got 4000") }, "\(small.received)")
        first.send(String(repeating: "x", count: 5900))
        second.send(String(repeating: "x", count: 5900))
        #expect(first.wait(timeout: 2) { $0.received.contains("got 6000") }, "\(first.received)")
        #expect(second.wait(timeout: 2) { $0.received.contains("got 6000") }, "\(second.received)")
        #expect(eventually(timeout: 2) { server.limits.bodyMemoryUsed == 0 })
    }

    /// A body without Content-Length takes memory as it arrives, and is refused when there is none.
    @Test func chunkedBodiesTakeMemoryAsTheyCome() throws {
        // Memory is taken in steps of up to 64 KiB, within the body limit (8,192 here).
        let server = try Self.server(bodyMemory: 12000, uploadsPerAddress: 4)
        defer { server.stop() }
        let hold = try Self.post(server.boundPort, from: "127.0.0.1", length: 4000, sending: 10)
        #expect(!hold.wait(timeout: 0.3) { $0.status != nil })
        let chunk = "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n400\r\n" + String(repeating: "y", count: 1024)
            + "\r\n0\r\n\r\n"
        let refused = try RawClient(port: server.boundPort, from: "127.0.0.3")
        refused.send(chunk)
        #expect(refused.wait(timeout: 2) { $0.status != nil })
        #expect(refused.status == 503 && refused.received.contains("server_busy"), "\(refused.received)")
        hold.send(String(repeating: "x", count: 3990))
        #expect(hold.wait(timeout: 2) { $0.received.contains("got 4000") }, "\(hold.received)")
        #expect(eventually(timeout: 2) { server.limits.bodyMemoryUsed == 0 })
        let admitted = try RawClient(port: server.boundPort, from: "127.0.0.3")
        admitted.send(chunk)
        #expect(admitted.wait(timeout: 2) { $0.received.contains("got 1024") }, "\(admitted.received)")
    }

    /// Clients that all leave at once with a large answer unread (wrk ending a run) are closed
    /// at once, and new clients are served at once. libmicrohttpd 0.9.75 held a worker's 128
    /// dead connections until the connection timeout: with exactly 128 epoll events in hand it
    /// waits for more before handling them, and a worker at its limit has nothing left to wake
    /// it (see `HTTPServer.Settings.connectionsPerWorker`).
    @Test func clientsLeavingAllAtOnceAreClosedAndNewOnesServed() throws {
        let answer = [UInt8](repeating: UInt8(ascii: "x"), count: 25_000)
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        // One worker asked for, 128 connections: the shape that stalled (512 over 4 workers).
        // Timeouts of a minute, so that neither rescues the server within the test's bounds.
        var settings = HTTPServer.Settings(address: ListenAddress(host: "127.0.0.1", port: 0), connectionLimit: 128,
                                           connectionTimeoutSeconds: 60, threads: 1)
        settings.connectionsPerAddress = 512
        settings.headerTimeoutSeconds = 60
        let server = HTTPServer(settings: settings, logger: Logger(label: "test")) { request in
            if request.path == "/hold" {
                entered.signal()
                _ = proceed.wait(timeout: .now() + 30)
            }
            return HTTPResponse(status: 200, body: answer)
        }
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        let request = "GET /large HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

        // Every place taken: 127 clients with a large answer waiting for them, unread...
        var clients = try RawClient.connect(127, port: port) { _ in "127.0.0.1" }
        for client in clients { client.send(request) }
        #expect(eventually(timeout: 20) { clients.allSatisfy(\.hasDataWaiting) }, "every client has its answer")
        // ...and one whose request keeps a worker busy while they all leave.
        var holder: RawClient? = try RawClient(port: port)
        #expect(eventually(timeout: 5) { holder?.isEstablished == true })
        holder?.send("GET /hold HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(entered.wait(timeout: .now() + 10) == .success, "the held request reached its handler")
        #expect(server.limits.openConnections == 128)
        clients = []   // closed with their answers unread: reset
        holder = nil
        proceed.signal()

        #expect(eventually(timeout: 10) { server.limits.openConnections == 0 },
                "\(server.limits.openConnections) connections still open after their clients left")
        let next = try RawClient(port: port)
        next.send(request)
        #expect(next.wait(timeout: 10) { $0.received.hasSuffix(String(repeating: "x", count: 100)) },
                "a new client is served: \(next.status.map(String.init) ?? "no answer")")
    }
    /// Bodies admitted before any credential use a pool of their own: filling it leaves the
    /// memory of requests with a key untouched, and the other way round.
    @Test func keylessBodiesHaveTheirOwnPool() throws {
        var settings = HTTPServer.Settings(address: ListenAddress(host: "127.0.0.1", port: 0), maxBodyBytes: 8192)
        settings.bodyMemoryBytes = 8192
        settings.keylessBodyMemoryBytes = 4096
        settings.uploadsPerAddress = 8
        let server = HTTPServer(settings: settings, logger: Logger(label: "test")) { request in
            var accepted = HTTPServer.Accepted(bodyLimit: 8192) { request in
                HTTPResponse(status: 200, body: Array("got \(request.body.count)".utf8))
            }
            accepted.keyless = request.path == "/keyless"
            return .accept(accepted)
        }
        try server.start()
        defer { server.stop() }
        let port = server.boundPort
        func post(_ path: String, from source: String, length: Int) throws -> RawClient {
            let client = try RawClient(port: port, from: source)
            client.send("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(length)\r\n\r\nx")
            return client
        }
        // Keyless bodies take their whole pool...
        let held = try (0..<2).map { try post("/keyless", from: "127.0.0.\(2 + $0)", length: 2048) }
        #expect(eventually(timeout: 2) { server.limits.keylessBodyMemoryUsed == 4096 })
        let refused = try post("/keyless", from: "127.0.0.4", length: 100)
        #expect(refused.wait(timeout: 2) { $0.status != nil } && refused.status == 503, "\(refused.received)")
        // ...and a body with a key still has all of its own.
        let owner = try post("/owner", from: "127.0.0.5", length: 8192)
        #expect(eventually(timeout: 2) { server.limits.bodyMemoryUsed == 8192 })
        owner.send(String(repeating: "y", count: 8191))
        #expect(owner.wait(timeout: 2) { $0.received.contains("got 8192") }, "\(owner.received)")
        for client in held { client.send(String(repeating: "z", count: 2047)) }
        #expect(held.allSatisfy { $0.wait(timeout: 2) { $0.received.contains("got 2048") } })
        #expect(eventually(timeout: 2) { server.limits.keylessBodyMemoryUsed == 0 && server.limits.bodyMemoryUsed == 0 })
    }

    /// The deadline of a body: keyless ones within their seconds; every one, after the grace
    /// period, at the minimum average rate since its headers.
    @Test func lateBodies() {
        let settings = ClientLimits.Settings(connectionsPerAddress: 32, headerTimeout: 10, uploadsPerAddress: 4, bodyMemoryBytes: 1 << 20,
                                             keylessBodyMemoryBytes: 1 << 20, keylessBodySeconds: 10, minBodyBytesPerSecond: 1024,
                                             bodyGraceSeconds: 10, exempt: { _ in false })
        func late(_ elapsed: Double, _ received: Int, keyless: Bool = false) -> Bool {
            ClientLimits.bodyIsLate(elapsed: elapsed, received: received, keyless: keyless, settings: settings)
        }
        #expect(!late(9.9, 0) && !late(9.9, 0, keyless: true))
        #expect(late(10.5, 16 << 10, keyless: true), "a keyless body past its seconds, however much came")
        #expect(!late(10, 0) && !late(10.5, 600), "within the grace period, then 1 KiB a second")
        #expect(late(11.5, 1000) && !late(11.5, 2000), "1,536 bytes were due by 11.5 s")
        #expect(!late(3600, 4_000_000), "a slow but steady upload of an hour")
        var off = settings
        off.minBodyBytesPerSecond = 0
        #expect(!ClientLimits.bodyIsLate(elapsed: 1e6, received: 0, keyless: false, settings: off))
    }
}
