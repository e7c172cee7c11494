import Foundation
import Glibc
import PacenoteCore
import PacenoteStore

/// The secret that seals md5(key) for the Last.fm protocols (`ScrobblerCredentials`): 32
/// random bytes in `scrobbler-secret` beside the database, mode 0600, made on first use by
/// whichever process needs it first (`pacenote key add` or the server). Losing it costs the
/// named keys their token logins (mpdscribble, pylast's authToken) until they are made again;
/// their plain-key logins and everything else go on.
public enum ScrobblerSecret {
    public static func load(database: String) throws(StartupError) -> [UInt8] {
        let path = InstanceFiles(databasePath: database).scrobblerSecret
        if let secret = read(path) { return secret }
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        // Written beside it, then linked into place: link() fails when another process made
        // the file first, and then both use that one (rename would replace it).
        let temporary = path + ".\(UInt64.random(in: 0...UInt64.max)).tmp"
        do {
            try PrivateFile.write(Data((ScrobblerCredentials.hex(bytes) + "\n").utf8), atomicallyTo: temporary)
        } catch {
            throw StartupError("scrobbler secret: \(error)")
        }
        defer { unlink(temporary) }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw StartupError("scrobbler secret: \(path): cannot create the file (\(String(cString: strerror(errno))))")
        }
        guard let secret = read(path) else { throw StartupError("scrobbler secret: \(path) is not 64 hex digits") }
        return secret
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard hex.count == 64, let bytes = ScrobblerCredentials.bytes(hex: hex) else { return nil }
        return bytes
    }
}
