/// What the Last.fm protocols need to check a login, kept as weak as their math allows.
///
/// Both token schemes are built on md5(password), here md5(key):
/// Audioscrobbler 2.0's `auth.getMobileSession` authToken = md5(username + md5(key)), and
/// the 1.2 handshake's token = md5(md5(key) + timestamp). To check either, the server must
/// compute md5(key) + something and hash it: a one-way form of md5(key) cannot do that, so
/// md5(key) itself must be recoverable by the server. It is stored sealed: XORed with
/// HMAC-SHA256(secret, label + SHA-256(key)), the secret being 32 random bytes in a file of
/// its own beside the database (`scrobbler-secret`, mode 0600), never in it. The database
/// alone (a copy, a backup) then holds nothing that logs in; md5(key) is in memory only while
/// a login is checked. The admin key needs nothing stored (its text is in its own file).
public enum ScrobblerCredentials {
    /// Sessions last this long after their last use (a player in use keeps its session; one
    /// unused for 90 days logs in again).
    public static let sessionLifetime: Double = 90 * 86_400
    /// How far a 1.2 handshake's timestamp may be from the server's clock (`BADTIME`
    /// beyond): the time in which a token seen on the wire can be replayed at all, and for
    /// which a used one is remembered and refused.
    public static let legacyClockSlack: Double = 15 * 60

    static let label = Array("pacenote scrobbler md5 v1\n".utf8)

    /// md5(key) (32 hex digits) sealed for the key with this SHA-256 (hex): 32 hex digits.
    public static func seal(md5Hex: String, keySHA256: String, secret: [UInt8]) -> String? {
        guard let md5 = bytes(hex: md5Hex), md5.count == 16 else { return nil }
        let pad = HMACSHA256.mac(key: secret, message: label + Array(keySHA256.utf8))
        return hex(zip(md5, pad).map { $0 ^ $1 })
    }

    /// The md5(key) that `seal` sealed (XOR is its own inverse).
    public static func unseal(_ sealed: String, keySHA256: String, secret: [UInt8]) -> String? {
        seal(md5Hex: sealed, keySHA256: keySHA256, secret: secret)
    }

    /// What a used token is remembered by: its SHA-256 with the protocol, never the token.
    public static func tokenID(protocolVersion: String, token: String) -> String {
        SHA256.hex(protocolVersion + "\n" + token.lowercased())
    }

    public static func bytes(hex text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[i]), let low = nibble(digits[i + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}

/// HMAC-SHA256 (RFC 2104 with FIPS 180-4's SHA-256; RFC 4231 has its test vectors).
public enum HMACSHA256 {
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let block = 64
        var k = key.count > block ? SHA256.digest(key) : key
        k += [UInt8](repeating: 0, count: block - k.count)
        let inner = SHA256.digest(k.map { $0 ^ 0x36 } + message)
        return SHA256.digest(k.map { $0 ^ 0x5C } + inner)
    }
}
