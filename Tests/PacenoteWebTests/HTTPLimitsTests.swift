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
}
