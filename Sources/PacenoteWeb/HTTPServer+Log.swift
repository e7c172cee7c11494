import Logging

extension HTTPServer {
    /// The reasons libmicrohttpd gives (0.9.75, `str_conn_error_` in connection.c) when the
    /// client went away mid-response: a closed tab ends its event stream this way, and a
    /// client closing its connection is normal, not a fault of the server.
    static let clientGoneReasons = [
        "The connection was forcibly closed by remote peer",  // ECONNRESET
        "The socket is no longer available for sending",       // EPIPE
        "The socket is not connected",                         // ENOTCONN
    ]

    /// How loud one of libmicrohttpd's error lines is: debug when it only says that the
    /// client closed its end (issue 52, row 15: two warnings per closed dashboard tab),
    /// warning for everything else (a failure of ours or of the system).
    static func level(ofLibraryMessage line: String) -> Logger.Level {
        clientGoneReasons.contains { line.contains($0) } ? .debug : .warning
    }
}
