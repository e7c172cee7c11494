/// A stored playlist's stable identifier for other tools (JSPF, ListenBrainz's playlist
/// reads, issue 57): MPD names playlists, ListenBrainz clients expect a UUID. The UUID is
/// derived from the name (SHA-256, shaped as a version-5-style name-based UUID), so the
/// same playlist keeps it across restarts and a renamed playlist gets a new one.
public enum PlaylistIdentifier {
    public static func uuid(_ name: String) -> String {
        var bytes = Array(SHA256.digest(Array("pacenote:playlist:\(name)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x50   // version 5 (name-based)
        bytes[8] = (bytes[8] & 0x3f) | 0x80   // RFC 4122 variant
        let hex = bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        let i = hex.startIndex
        func part(_ a: Int, _ b: Int) -> Substring { hex[hex.index(i, offsetBy: a)..<hex.index(i, offsetBy: b)] }
        return "\(part(0, 8))-\(part(8, 12))-\(part(12, 16))-\(part(16, 20))-\(part(20, 32))"
    }
}
