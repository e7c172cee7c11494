import CMPDClient

/// An MPD failure in the user's words. libmpdclient's error state becomes this in one
/// place (`MPDConnection.check()`), which also decides whether the connection is still usable.
public struct MPDError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        /// Could not connect, or the connection broke ("Connection closed by the server").
        case connection
        /// MPD refused the password or a command needs a permission it lacks.
        case permission
        /// MPD answered a command with an error (ACK); the connection is still usable.
        case server(code: Int32)
        case timeout
        case other
    }

    public var kind: Kind
    public var message: String
    public var description: String { message }

    /// Whether the connection must be dropped and re-established.
    public var isFatal: Bool {
        switch kind {
        case .server: false
        default: true
        }
    }
}
