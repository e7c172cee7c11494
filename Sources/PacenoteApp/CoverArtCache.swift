import Foundation
import Logging
import PacenoteCore
import PacenoteMPD
import PacenoteWeb

/// Covers from MPD kept on disk beside the database (`covers/`), one file per album folder
/// (MPD's `albumart` is a folder's cover; most albums are a folder). A song without a
/// picture is remembered for six hours before MPD is asked again.
final class CoverArtCache: Sendable {
    let directory: String
    let players: [MPDEndpoint]
    let logger: Logger
    static let retryMissingAfter: TimeInterval = 6 * 3600

    init(databasePath: String, players: [MPDEndpoint], logger: Logger) {
        directory = ((databasePath as NSString).deletingLastPathComponent as NSString).appendingPathComponent("covers")
        self.players = players
        self.logger = logger
    }

    func image(for track: Track) -> CoverImage? {
        // Streams and imported plays have no file MPD could find a picture for.
        guard let uri = track.uri, !uri.contains("://") else { return nil }
        let folder = (uri as NSString).deletingLastPathComponent
        let name = Self.hash(folder.isEmpty ? uri : folder)
        let file = (directory as NSString).appendingPathComponent(name + ".img")
        let missing = (directory as NSString).appendingPathComponent(name + ".none")
        if let data = FileManager.default.contents(atPath: file), let type = Self.mediaType(Array(data)) {
            return CoverImage(bytes: Array(data), contentType: type)
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: missing),
           let modified = attributes[.modificationDate] as? Date, Date().timeIntervalSince(modified) < Self.retryMissingAfter {
            return nil
        }
        for endpoint in players {
            do {
                guard let bytes = try MPDCoverArt.fetch(endpoint: endpoint, uri: uri), let type = Self.mediaType(bytes) else { continue }
                store(bytes, at: file)
                return CoverImage(bytes: bytes, contentType: type)
            } catch {
                // MPD down or slow: no cover now, and no note of it, so the next view asks again.
                logger.debug("cover of \(uri): \(error)")
                return nil
            }
        }
        store([], at: missing)
        return nil
    }

    private func store(_ bytes: [UInt8], at path: String) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Written whole, then renamed: a reader never sees half a picture.
        let temporary = path + ".\(UInt32.random(in: 0...UInt32.max)).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(bytes)) else { return }
        if rename(temporary, path) != 0 { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// The picture's type from its first bytes; nil for anything that is not a picture.
    static func mediaType(_ bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if bytes.starts(with: Array("GIF8".utf8)) { return "image/gif" }
        if bytes.count > 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) { return "image/webp" }
        return nil
    }

    /// FNV-1a, 64 bits, as hex: a file name from a folder name.
    static func hash(_ text: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
