import Glibc
import PacenoteCore
import Synchronization

/// The HTTP port, bound before anything else of the daemon is made: a `serve` whose port is
/// in use stops before it creates the database, the key, the spool or the lock (issue 52).
/// Handed to the server once (`HTTPServer.Settings.listeningSocket`); closed here when the
/// server never took it.
public final class ListeningSocket: Sendable {
    private let descriptor: Mutex<Int32?>
    public let address: ListenAddress

    public init(address: ListenAddress) throws(HTTPServerError) {
        self.address = address
        descriptor = Mutex(try HTTPServer.listen(on: address))
    }

    /// The socket, to the one server that serves on it (nil once taken or closed).
    func take() -> Int32? { descriptor.withLock { fd in defer { fd = nil }; return fd } }

    /// Closes the socket unless a server took it.
    public func close() {
        if let fd = take() { _ = Glibc.close(fd) }
    }

    deinit { close() }
}
