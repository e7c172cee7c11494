/// Where the HTTP server listens: `HOST:PORT`, with IPv6 hosts in brackets (`[::1]:6680`).
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public static let `default` = ListenAddress(host: "127.0.0.1", port: 6680)

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`, `[IPv6]:PORT` or `:PORT` (all interfaces is spelled `0.0.0.0`).
    /// Port 0 asks the system for a free port.
    public init?(parsing text: String) {
        let t = text.trimmingSpaces()
        let hostPart: Substring
        let portPart: Substring
        if t.hasPrefix("[") {
            guard let close = t.firstIndex(of: "]") else { return nil }
            hostPart = t[t.index(after: t.startIndex)..<close]
            let rest = t[t.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            portPart = rest.dropFirst()
        } else {
            guard let colon = t.lastIndex(of: ":"), !t[..<colon].contains(":") else { return nil }
            hostPart = t[..<colon]
            portPart = t[t.index(after: colon)...]
        }
        guard let port = UInt16(portPart), !hostPart.contains(where: { $0 == " " || $0 == "/" }) else { return nil }
        self.host = hostPart.isEmpty ? "127.0.0.1" : String(hostPart)
        self.port = port
    }

    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension String {
    func trimmingSpaces() -> Substring {
        var sub = Substring(self)
        while let f = sub.first, f.isWhitespace { sub = sub.dropFirst() }
        while let l = sub.last, l.isWhitespace { sub = sub.dropLast() }
        return sub
    }
}
