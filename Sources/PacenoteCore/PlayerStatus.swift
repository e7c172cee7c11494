import Foundation

/// What the rest of the app may know about one player's (one MPD's) connection.
public struct PlayerStatus: Equatable, Sendable {
    public var name: String
    /// Where it is, without the password: `localhost:6600`, `/run/mpd/socket`.
    public var endpoint: String
    public var connected: Bool
    /// MPD's protocol version while connected.
    public var serverVersion: String?
    /// The last connection error, while disconnected.
    public var lastError: String?
    /// When `connected` last changed.
    public var since: Date

    public init(name: String, endpoint: String, connected: Bool, serverVersion: String? = nil,
                lastError: String? = nil, since: Date) {
        self.name = name
        self.endpoint = endpoint
        self.connected = connected
        self.serverVersion = serverVersion
        self.lastError = lastError
        self.since = since
    }
}
