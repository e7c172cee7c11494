import Logging
import Testing
@testable import PacenoteWeb

/// libmicrohttpd's error lines: a client that went away is debug, anything else a warning
/// (issue 52, row 15). The lines are libmicrohttpd 0.9.75's, as Debian 12 logs them.
@Suite struct HTTPServerLogTests {
    @Test(arguments: [
        "Failed to send the chunked response body for the request for `/api/v1/events'. Error: The socket is no longer available for sending",
        "Failed to send the chunked response body for the request for `/api/v1/events'. Error: The connection was forcibly closed by remote peer",
        "Failed to send the response body for the request for `/'. Error: The socket is not connected",
    ])
    func aClientGoneIsDebug(line: String) {
        #expect(HTTPServer.level(ofLibraryMessage: line) == .debug)
    }

    @Test(arguments: [
        "Failed to send the chunked response body for the request for `/api/v1/events'. Error: Not enough system resources to serve the request",
        "Failed to send the response body for the request for `/'. Error: Bad FD value",
        "Server reached connection limit. Closing inbound connection.",
        "Error processing request: out of memory",
    ])
    func anythingElseStaysAWarning(line: String) {
        #expect(HTTPServer.level(ofLibraryMessage: line) == .warning)
    }
}
