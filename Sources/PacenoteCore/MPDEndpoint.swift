/// How to reach one MPD, found the way MPD clients find it (mpc(1), libmpdclient):
/// `MPD_HOST` is `host`, `password@host`, a Unix socket path (`/run/mpd/socket`,
/// `~/.mpd/socket`) or an abstract socket (`@mpd`); `MPD_PORT` is the TCP port;
/// the default is `localhost:6600`.
public struct MPDEndpoint: Equatable, Sendable, CustomStringConvertible {
    public enum Location: Equatable, Sendable {
        case tcp(host: String, port: UInt16)
        /// A filesystem path or, when it starts with `@`, a Linux abstract socket name.
        case unixSocket(String)
    }

    public var location: Location
    public var password: String?

    public static let defaultPort: UInt16 = 6600
    public static let `default` = MPDEndpoint(location: .tcp(host: "localhost", port: defaultPort), password: nil)

    public init(location: Location, password: String? = nil) {
        self.location = location
        self.password = password
    }

    public enum ParseError: Error, Equatable, Sendable {
        case emptyHost
        case invalidPort(String)
    }

    /// Parses an `MPD_HOST`-style value with an optional separate port (`MPD_PORT`).
    /// A `host:port` form is also accepted (as `--mpd HOST[:PORT]` takes it); an explicit
    /// `port` argument wins over one embedded in the host.
    public static func parse(host rawHost: String, port rawPort: String? = nil) throws(ParseError) -> MPDEndpoint {
        var host = String(rawHost.trimmingSpaces())
        var password: String?
        // The password is everything before the last '@' that is not the first character
        // ("@name" alone is an abstract socket).
        if let at = host.lastIndex(of: "@"), at != host.startIndex {
            let before = host[..<at]
            let after = host[host.index(after: at)...]
            password = String(before)
            host = String(after)
            // "password@@abstract" keeps the second '@' as part of the socket name.
            if host.isEmpty { throw .emptyHost }
        }
        if host.isEmpty { throw .emptyHost }
        if host.hasPrefix("/") || host.hasPrefix("~") || host.hasPrefix("@") {
            return MPDEndpoint(location: .unixSocket(host), password: password)
        }
        var port = defaultPort
        if let hp = splitHostPort(host) {
            host = hp.host
            guard let p = UInt16(hp.port), p > 0 else { throw .invalidPort(hp.port) }
            port = p
        }
        if let rawPort, !rawPort.trimmingSpaces().isEmpty {
            let text = String(rawPort.trimmingSpaces())
            guard let p = UInt16(text), p > 0 else { throw .invalidPort(text) }
            port = p
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.isEmpty { throw .emptyHost }
        return MPDEndpoint(location: .tcp(host: host, port: port), password: password)
    }

    /// Splits `host:port` or `[v6]:port` (as `--mpd HOST[:PORT]` is written); `nil` when
    /// there is no port. A bare IPv6 address (two or more colons) has no port.
    public static func splitHostPort(_ s: String) -> (host: String, port: String)? {
        if s.hasPrefix("["), let close = s.firstIndex(of: "]") {
            let host = String(s[s.index(after: s.startIndex)..<close])
            let rest = s[s.index(after: close)...]
            return rest.hasPrefix(":") ? (host, String(rest.dropFirst())) : nil
        }
        guard s.filter({ $0 == ":" }).count == 1, let colon = s.firstIndex(of: ":") else { return nil }
        return (String(s[..<colon]), String(s[s.index(after: colon)...]))
    }

    /// The address without the password, for logs and the status API.
    public var description: String {
        switch location {
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unixSocket(let path): path
        }
    }
}
