/// Where a request that someone else chose may go. A friend's feed names further addresses
/// (a redirect's `Location`, a page's `<link rel="alternate">`, the covers of its songs);
/// followed blindly, they make this machine ask its own loopback services (`/metrics`, an
/// admin page) or the owner's LAN (a router, a printer) on a stranger's behalf.
///
/// The rule: an address of a non-public class (`AddressClass`) is refused unless the friend
/// itself was given with an address of that class. It is checked on the address a
/// connection is about to be made to, after DNS (the HTTP client asks before each
/// connection, redirects included), so a name that resolves somewhere else the second time
/// (DNS rebinding) gains nothing.
public struct OutboundPolicy: Equatable, Sendable {
    /// The classes a connection may reach; `.global` always.
    public var allowed: Set<AddressClass>
    /// What the friend was given as, for the refusal's words ("a public address").
    public var origin: String

    public init(allowed: Set<AddressClass>, origin: String) {
        self.allowed = allowed.union([.global])
        self.origin = origin
    }

    /// Public addresses only.
    public static let publicOnly = OutboundPolicy(allowed: [.global], origin: "a public address")

    /// The policy for a friend given as `url`: the class of its host when the host is an
    /// address (`http://192.168.1.20/…` may be polled on the LAN, `http://127.0.0.2:8080/…`
    /// on this machine); `localhost` and its subdomains are loopback; a name of the local
    /// network (one label, or under `.local`, `.lan`, `.home.arpa`, `.internal`) may reach
    /// private and link-local addresses. Any other name is public: what it resolves to is
    /// not trusted, since its owner controls that.
    public static func forFriend(url: String) -> OutboundPolicy {
        guard let host = Self.host(of: url) else { return publicOnly }
        if let bytes = IPNetwork.parseAddress(host) {
            let cls = AddressClass.of(bytes)
            return OutboundPolicy(allowed: [cls], origin: cls.withArticle)
        }
        let name = host.lowercased().hasSuffix(".") ? String(host.lowercased().dropLast()) : host.lowercased()
        if name == "localhost" || name.hasSuffix(".localhost") {
            return OutboundPolicy(allowed: [.loopback], origin: "localhost")
        }
        if !name.contains(".") || [".local", ".lan", ".home.arpa", ".internal"].contains(where: { name.hasSuffix($0) }) {
            return OutboundPolicy(allowed: [.private, .linkLocal], origin: "a name of the local network")
        }
        return publicOnly
    }

    /// Why a connection to `address` (4 or 16 bytes) is refused, or nil when it may be made.
    public func refusal(_ address: [UInt8]) -> String? {
        let cls = AddressClass.of(address)
        guard !allowed.contains(cls) else { return nil }
        return "refused to connect to \(AddressClass.text(address)), \(cls.withArticle): the friend was added with \(origin)"
    }

    /// The host of an http(s) URL, without brackets or port; nil for anything else.
    public static func host(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        var authority = rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            let inside = authority[authority.index(after: authority.startIndex)..<close]
            // A zone (`fe80::1%25eth0`) does not change the class.
            return String(inside.split(separator: "%", maxSplits: 1).first ?? inside)
        }
        let host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? authority
        return host.isEmpty ? nil : String(host)
    }
}

/// What an IP address is, as far as reaching it goes.
public enum AddressClass: String, CaseIterable, Sendable {
    /// Anything on the internet.
    case global
    /// This machine: 127.0.0.0/8, ::1.
    case loopback
    /// A private network: 10/8, 172.16/12, 192.168/16, the carrier-grade NAT's 100.64/10,
    /// benchmarking's 198.18/15, IPv6 unique-local fc00::/7 and the old site-local fec0::/10.
    case `private`
    /// The link: 169.254/16 (cloud metadata services live at 169.254.169.254), fe80::/10.
    case linkLocal
    /// 0.0.0.0/8 and :: (Linux connects "0.0.0.0" to this machine).
    case unspecified
    /// 224/4, ff00::/8.
    case multicast
    /// Reserved and documentation ranges (240/4 with the broadcast address, 192.0.0/24,
    /// 192.0.2/24, 198.51.100/24, 203.0.113/24, 100::/64, 2001:db8::/32).
    case reserved

    /// Its class. An IPv4 address carried in IPv6 — mapped (::ffff:a.b.c.d), compatible
    /// (::a.b.c.d), NAT64's 64:ff9b::/96, 6to4's 2002:AABB:CCDD:: — is the class of the
    /// IPv4 address it carries: a connection to it reaches that address.
    public static func of(_ address: [UInt8]) -> AddressClass {
        if address.count == 4 { return ofIPv4(address[0], address[1], address[2], address[3]) }
        guard address.count == 16 else { return .reserved }
        let a = address
        let zeroHead = a[0..<10].allSatisfy { $0 == 0 }
        if zeroHead && a[10] == 0xFF && a[11] == 0xFF { return ofIPv4(a[12], a[13], a[14], a[15]) }
        if zeroHead && a[10] == 0 && a[11] == 0 {
            if a[12..<15].allSatisfy({ $0 == 0 }) && a[15] <= 1 { return a[15] == 0 ? .unspecified : .loopback }
            return ofIPv4(a[12], a[13], a[14], a[15])
        }
        if a[0] == 0x00 && a[1] == 0x64 && a[2] == 0xFF && a[3] == 0x9B {
            // 64:ff9b::/96 carries an IPv4 address; 64:ff9b:1::/48 is for a network's own translators.
            if a[4..<12].allSatisfy({ $0 == 0 }) { return ofIPv4(a[12], a[13], a[14], a[15]) }
            if a[4] == 0 && a[5] == 1 { return .private }
        }
        if a[0] == 0x20 && a[1] == 0x02 { return ofIPv4(a[2], a[3], a[4], a[5]) }
        if a[0] == 0xFF { return .multicast }
        if a[0] == 0xFE && a[1] & 0xC0 == 0x80 { return .linkLocal }
        if a[0] == 0xFE && a[1] & 0xC0 == 0xC0 { return .private }
        if a[0] & 0xFE == 0xFC { return .private }
        if a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0D && a[3] == 0xB8 { return .reserved }
        if a[0] == 0x01 && a[1..<8].allSatisfy({ $0 == 0 }) { return .reserved }
        return .global
    }

    static func ofIPv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> AddressClass {
        switch (a, b, c) {
        case (0, _, _): return .unspecified
        case (127, _, _): return .loopback
        case (10, _, _), (172, 16...31, _), (192, 168, _), (100, 64...127, _), (198, 18...19, _): return .private
        case (169, 254, _): return .linkLocal
        case (224...239, _, _): return .multicast
        case (240...255, _, _), (192, 0, 0), (192, 0, 2), (198, 51, 100), (203, 0, 113): return .reserved
        default: return .global
        }
    }

    var withArticle: String {
        switch self {
        case .global: "a public address"
        case .loopback: "a loopback address"
        case .private: "a private address"
        case .linkLocal: "a link-local address"
        case .unspecified: "an unspecified address (0.0.0.0, ::)"
        case .multicast: "a multicast address"
        case .reserved: "a reserved address"
        }
    }

    /// An address as text: dotted IPv4, IPv6 with its longest run of zero groups as `::`.
    public static func text(_ address: [UInt8]) -> String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") }
        guard address.count == 16 else { return "?" }
        if address[0..<10].allSatisfy({ $0 == 0 }) && address[10] == 0xFF && address[11] == 0xFF {
            return "::ffff:" + text(Array(address[12...]))
        }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]) }
        var best = (start: -1, length: 0), run = (start: -1, length: 0)
        for (i, g) in groups.enumerated() {
            if g == 0 {
                run = run.start < 0 ? (i, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        return hex[..<best.start].joined(separator: ":") + "::" + hex[(best.start + best.length)...].joined(separator: ":")
    }
}
