import Foundation
import Logging
import PacenoteCore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// The server over real loopback HTTP, with handlers written for the test.
@Suite struct HTTPServerTests {
    private func serve(maxBody: Int = 1 << 20, _ handler: @escaping HTTPServer.Handler) throws -> HTTPServer {
        let server = HTTPServer(
            settings: .init(address: ListenAddress(host: "127.0.0.1", port: 0), maxBodyBytes: maxBody),
            logger: Logger(label: "test"), handler: handler)
        try server.start()
        return server
    }

    private struct Echo: Codable {
        var method: String
        var path: String
        var query: [String: String]
        var contentType: String?
        var bodyBytes: Int
        var body: String
    }

    private func echo() throws -> HTTPServer {
        try serve { request in
            let echo = Echo(method: request.method, path: request.path, query: request.query,
                            contentType: request.header("content-type"), bodyBytes: request.body.count,
                            body: String(decoding: request.body, as: UTF8.self))
            return HTTPResponse(status: 200, body: Array((try? JSONEncoder().encode(echo)) ?? Data()))
        }
    }

    @Test func passesMethodPathQueryHeadersAndBody() throws {
        let server = try echo()
        defer { server.stop() }
        let body = String(repeating: "héllo ", count: 50_000)  // several chunks of upload
        let r = try HTTP.request("POST", "http://127.0.0.1:\(server.boundPort)/a/b%20c?x=1&y=%C3%A9&x=2",
                                 headers: ["Content-Type": "text/plain"], body: Data(body.utf8))
        #expect(r.status == 200)
        let echoed = try JSONDecoder().decode(Echo.self, from: r.body)
        #expect(echoed.method == "POST")
        #expect(echoed.path == "/a/b c")
        #expect(echoed.query == ["x": "1", "y": "é"])
        #expect(echoed.contentType == "text/plain")
        #expect(echoed.bodyBytes == body.utf8.count)
        #expect(echoed.body == body)
    }

    @Test func rejectsBodiesOverTheLimitWith413AndAJSONError() throws {
        let server = try serve(maxBody: 1024) { _ in HTTPResponse(status: 200) }
        defer { server.stop() }
        let r = try HTTP.request("POST", "http://127.0.0.1:\(server.boundPort)/", body: Data(count: 4096))
        #expect(r.status == 413)
        #expect(r.header("Content-Type") == "application/json; charset=utf-8")
        let error = try #require(r.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "payload_too_large")
        // The connection and the server stay usable.
        #expect(try HTTP.request("POST", "http://127.0.0.1:\(server.boundPort)/", body: Data(count: 1024)).status == 200)
    }

    @Test func answersConditionalGetsWith304() throws {
        let server = try serve { _ in .json(.object([("stable", .bool(true))])) }
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.boundPort)/x"
        let first = try HTTP.get(url)
        let tag = try #require(first.header("ETag"))
        #expect(tag.hasPrefix("W/\""))
        #expect(try HTTP.get(url, headers: ["If-None-Match": tag]).status == 304)
        #expect(try HTTP.get(url, headers: ["If-None-Match": "W/\"other\""]).status == 200)
    }

    @Test func headHasHeadersButNoBody() throws {
        let server = try serve { _ in .json(.object([("a", .int(1))])) }
        defer { server.stop() }
        let r = try HTTP.request("HEAD", "http://127.0.0.1:\(server.boundPort)/")
        #expect(r.status == 200)
        #expect(r.body.isEmpty)
        #expect(r.header("Content-Length") == "7")
    }

    @Test func aBusyPortIsAClearError() throws {
        let server = try serve { _ in HTTPResponse(status: 204) }
        defer { server.stop() }
        let second = HTTPServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: server.boundPort)),
                                logger: Logger(label: "test")) { _ in HTTPResponse(status: 204) }
        #expect(throws: HTTPServerError(message: "--http 127.0.0.1:\(server.boundPort): cannot listen: Address already in use")) {
            try second.start()
        }
        let unresolvable = HTTPServer(settings: .init(address: ListenAddress(host: "no.such.host.invalid", port: 1)),
                                      logger: Logger(label: "test")) { _ in HTTPResponse(status: 204) }
        #expect { try unresolvable.start() } throws: { "\($0)".hasPrefix("--http no.such.host.invalid:1: cannot resolve host") }
    }

    @Test func stopsAndFreesThePort() throws {
        let server = try serve { _ in HTTPResponse(status: 204) }
        let port = server.boundPort
        // Served, with a kept-alive connection open when it stops.
        #expect(try HTTP.get("http://127.0.0.1:\(port)/").status == 204)
        #expect(!Ports.canListen(port), "the running server holds the port")
        server.stop()
        // Nothing accepts on the port any more, and a new listener can take it.
        let refused = Ports.connect(port)
        if let refused { close(refused) }
        #expect(refused == nil, "a connection to \(port) was accepted after stop()")
        #expect(Ports.canListen(port), "port \(port) is still bound after stop()")
        let again = HTTPServer(settings: .init(address: ListenAddress(host: "127.0.0.1", port: port)),
                               logger: Logger(label: "test")) { _ in HTTPResponse(status: 204) }
        try again.start()
        #expect(try HTTP.get("http://127.0.0.1:\(port)/").status == 204)
        again.stop()
        #expect(Ports.canListen(port), "port \(port) is still bound after the second stop()")
    }
}
