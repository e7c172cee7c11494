import Foundation
import PacenoteTestSupport
import Testing

/// Closing a dashboard tab ends its event stream from the client's side: normal, so the
/// server notes it at debug level and never as a warning (issue 52, row 15: two "Failed to
/// send the chunked response body" warnings per closed tab).
@Suite struct EventStreamCloseTests {
    @Test func aClientClosingItsEventStreamLogsNoWarning() throws {
        let daemon = try PacenoteDaemon(mpd: nil, arguments: ["--log-level", "debug"])
        // Two streams, as a tab and a second one; each read, then closed (the fd, at the end of the scope).
        for _ in 0..<2 {
            let stream = try RawHTTPConnection(port: daemon.port, request: RawHTTPConnection.get("/api/v1/events"))
            #expect(stream.waitFor(": connected"), "\(stream.received)")
        }
        // Events for the closed streams: the server writes to sockets whose client is gone
        // (the first write may still be taken; a later one finds the socket closed).
        let noted = try eventually(timeout: 20) {
            _ = try daemon.post("/api/v1/hr", body: #"{"bpm": 120}"#)
            usleep(200_000)
            return daemon.process.stderr.contains("http: Failed to send")
        }
        let log = daemon.process.stderr
        #expect(noted, "the server noticed the closed streams (at debug level):\n\(log)")
        let loud = LogLines.warnings(log).filter { $0.contains("http: ") }
        #expect(loud.isEmpty, "a client closing its stream is not a warning:\n\(loud.joined(separator: "\n"))")
        #expect(LogLines.of(log, level: "debug").contains { $0.contains("http: Failed to send") && $0.contains("/api/v1/events") })
    }
}

/// The log's lines by level: `2026-12-02T01:09:39+0000 warning pacenote: [PacenoteApp] …`.
enum LogLines {
    static func of(_ log: String, level: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.split(separator: " ", maxSplits: 2).dropFirst().first == Substring(level) }
    }

    /// Lines at warning level or above.
    static func warnings(_ log: String) -> [String] {
        ["warning", "error", "critical"].flatMap { of(log, level: $0) }
    }
}
