/// IP networks in CIDR notation (`192.168.0.0/16`, `fd00::/8`, a bare address), for
/// deciding which clients may read private data without logging in.
public struct IPNetwork: Equatable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6.
    public let address: [UInt8]
    public let prefixLength: Int

    /// Loopback and the private ranges: what a home network is made of.
    public static let homeDefaults: [IPNetwork] = [
        "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
        "fc00::/7", "fe80::/10",
    ].map { IPNetwork($0)! }

    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let first = parts.first, let bytes = IPNetwork.parseAddress(String(first)) else { return nil }
        let maxLength = bytes.count * 8
        if parts.count == 2 {
            guard let length = Int(parts[1]), (0...maxLength).contains(length) else { return nil }
            prefixLength = length
        } else {
            prefixLength = maxLength
        }
        address = bytes
    }

    public func contains(_ ip: String) -> Bool {
        guard let bytes = IPNetwork.parseAddress(ip) else { return false }
        return contains(address: bytes)
    }

    /// Whether this network holds an address already parsed (`parseAddress`).
    public func contains(address parsed: [UInt8]) -> Bool {
        var bytes = parsed
        // An IPv4 client seen through an IPv6 socket: ::ffff:a.b.c.d.
        if bytes.count == 16, address.count == 4, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12...])
        }
        guard bytes.count == address.count else { return false }
        var remaining = prefixLength
        for i in 0..<bytes.count where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if bytes[i] & mask != address[i] & mask { return false }
            remaining -= bits
        }
        return true
    }

    public var description: String {
        let text: String
        if address.count == 4 {
            text = address.map(String.init).joined(separator: ".")
        } else {
            text = stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        }
        return "\(text)/\(prefixLength)"
    }

    /// Dotted IPv4 or IPv6 (with `::` and an embedded IPv4 tail) to bytes.
    /// (Every request's client and `Host` pass through here: IPv4, the common case, is read
    /// byte by byte.)
    public static func parseAddress(_ text: String) -> [UInt8]? {
        if !text.utf8.contains(UInt8(ascii: ":")) { return parseIPv4(text.utf8) }
        var head = text
        var tail: [UInt8] = []
        if let lastColon = text.lastIndex(of: ":"), text[text.index(after: lastColon)...].contains(".") {
            guard let v4 = parseAddress(String(text[text.index(after: lastColon)...])) else { return nil }
            tail = v4
            head = String(text[...lastColon]) + "0:0"
        }
        let halves = head.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ s: String) -> [UInt16]? {
            if s.isEmpty { return [] }
            let g = s.split(separator: ":", omittingEmptySubsequences: false).map { UInt16($0, radix: 16) }
            return g.contains(nil) || g.contains(where: { _ in false }) ? nil : g.compactMap { $0 }
        }
        guard let left = groups(halves[0]) else { return nil }
        var all = left
        if halves.count == 2 {
            guard let right = groups(halves[1]), left.count + right.count <= 7 else { return nil }
            all += Array(repeating: 0, count: 8 - left.count - right.count) + right
        }
        guard all.count == 8, head.split(separator: ":").allSatisfy({ $0.count <= 4 }) else { return nil }
        var bytes = all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        if !tail.isEmpty { bytes.replaceSubrange(12..<16, with: tail) }
        return bytes
    }
}

extension IPNetwork {
    /// Four decimal numbers of at most 255, separated by dots: `a.b.c.d`.
    static func parseIPv4(_ text: String.UTF8View) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4)
        var value = 0, digits = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return nil }
            case UInt8(ascii: "."):
                guard digits > 0, bytes.count < 3 else { return nil }
                bytes.append(UInt8(value))
                value = 0
                digits = 0
            default:
                return nil
            }
        }
        guard digits > 0, bytes.count == 3 else { return nil }
        bytes.append(UInt8(value))
        return bytes
    }
}

extension Array where Element == IPNetwork {
    /// Whether any of these networks holds `ip` (parsed once).
    public func containsAddress(_ ip: String) -> Bool {
        guard !isEmpty, let bytes = IPNetwork.parseAddress(ip) else { return false }
        return contains { $0.contains(address: bytes) }
    }
}
