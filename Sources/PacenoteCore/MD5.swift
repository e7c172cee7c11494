import Foundation

/// MD5 (RFC 1321), for the Last.fm protocols only: their credentials are MD5 hashes
/// (Audioscrobbler 1.2's handshake token `md5(md5(password) + timestamp)`, 2.0's mobile
/// `authToken` `md5(username + md5(password))`). Never for anything Pacenote keeps secret
/// on its own account: API keys are stored by their SHA-256.
///
/// Written here, not taken from swift-crypto (`Insecure.MD5`, in the package mirror): on
/// Linux swift-crypto builds BoringSSL, a C library, into whatever imports it, and
/// PacenoteCore stays pure Swift; and a fresh build would compile it every CI run (measured
/// on the 2-core box: 119 CPU-seconds debug, 138 release, about a minute each, the debug one
/// before any test can start). Sixty lines, held to RFC 1321's suite (ScrobbleTests).
public enum MD5 {
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    /// K[i] = floor(abs(sin(i + 1)) * 2^32), as the RFC tabulates it.
    private static let k: [UInt32] = (0..<64).map { i in
        UInt32(truncatingIfNeeded: Int64((abs(sin(Double(i + 1))) * 4_294_967_296).rounded(.down)))
    }

    /// The 16-byte digest of `message`.
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        var a0: UInt32 = 0x6745_2301, b0: UInt32 = 0xefcd_ab89, c0: UInt32 = 0x98ba_dcfe, d0: UInt32 = 0x1032_5476
        var data = message
        data.append(0x80)
        while data.count % 64 != 56 { data.append(0) }
        let bits = UInt64(message.count) &* 8
        for shift in stride(from: 0, through: 56, by: 8) { data.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        var m = [UInt32](repeating: 0, count: 16)
        for block in stride(from: 0, to: data.count, by: 64) {
            for i in 0..<16 {
                let j = block + i * 4
                m[i] = UInt32(data[j]) | UInt32(data[j + 1]) << 8 | UInt32(data[j + 2]) << 16 | UInt32(data[j + 3]) << 24
            }
            var a = a0, b = b0, c = c0, d = d0
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16: f = (b & c) | (~b & d); g = i
                case 16..<32: f = (d & b) | (~d & c); g = (5 * i + 1) % 16
                case 32..<48: f = b ^ c ^ d; g = (3 * i + 5) % 16
                default: f = c ^ (b | ~d); g = (7 * i) % 16
                }
                f = f &+ a &+ k[i] &+ m[g]
                a = d
                d = c
                c = b
                b = b &+ (f << shifts[i] | f >> (32 - shifts[i]))
            }
            a0 = a0 &+ a; b0 = b0 &+ b; c0 = c0 &+ c; d0 = d0 &+ d
        }
        return [a0, b0, c0, d0].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> UInt32($0 * 8)) } }
    }

    /// The digest in lowercase hexadecimal, as the protocols write it.
    public static func hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest(Array(text.utf8)) { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }
}
