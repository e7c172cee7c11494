import CMPDClient
import PacenoteCore

/// Cover art as MPD serves it: `albumart` (a cover file in the song's folder), then
/// `readpicture` (a picture embedded in the file). A short-lived connection of its own,
/// so the watcher's idle connection is never held up.
public enum MPDCoverArt {
    /// Covers larger than this are refused (a home server is not an image host).
    public static let maxBytes = 8 << 20

    /// Where a picture came from: the song's folder (`albumart`, shared by the album) or
    /// the file itself (`readpicture`, this song's own).
    public enum Source: Sendable { case folder, file }

    /// The picture's bytes and where they came from, or nil when MPD has none for the song.
    public static func fetch(endpoint: MPDEndpoint, uri: String, timeoutMs: UInt32 = 3000) throws(MPDError) -> (bytes: [UInt8], source: Source)? {
        let connection = try MPDConnection(endpoint: endpoint, timeoutMs: timeoutMs)
        // Fewer round trips than MPD's default 8 KiB chunks (MPD 0.22.4+; older ones refuse).
        var chunk = 8192
        if mpd_run_binarylimit(connection.handle, 1 << 20) {
            chunk = 1 << 20
        } else {
            try? connection.check()
        }
        for command in [Command.albumart, .readpicture] {
            if let bytes = try read(command, uri: uri, connection: connection, chunk: chunk), !bytes.isEmpty {
                return (bytes, command == .albumart ? .folder : .file)
            }
        }
        return nil
    }

    enum Command { case albumart, readpicture }

    private static func read(_ command: Command, uri: String, connection: MPDConnection, chunk: Int) throws(MPDError) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: chunk)
        while out.count <= maxBytes {
            let offset = UInt32(out.count)
            let n = buffer.withUnsafeMutableBytes { raw in
                switch command {
                case .albumart: mpd_run_albumart(connection.handle, uri, offset, raw.baseAddress, raw.count)
                case .readpicture: mpd_run_readpicture(connection.handle, uri, offset, raw.baseAddress, raw.count)
                }
            }
            if n < 0 {
                do {
                    try connection.check()
                } catch where !error.isFatal {
                    return nil  // "No file exists" and the like: no picture of this kind
                }
                return nil
            }
            if n == 0 { return out }
            out.append(contentsOf: buffer[0..<Int(n)])
        }
        throw MPDError(kind: .other, message: "the cover of \(uri) is larger than \(maxBytes >> 20) MiB")
    }
}
