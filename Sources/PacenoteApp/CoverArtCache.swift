import Foundation
import Logging
import Synchronization
import PacenoteCore
import PacenoteMPD
import PacenoteWeb

/// Covers from MPD kept on disk beside the database (`covers/`): one file per album folder
/// for a folder's cover (`albumart`), one per song for a picture inside the file
/// (`readpicture`). A song without a picture is remembered for six hours before MPD is
/// asked again; a player that failed is left alone for a minute (so a down MPD does not hold
/// a web thread for its timeout on every cover).
final class CoverArtCache: Sendable {
    let directory: String
    let players: [MPDEndpoint]
    let logger: Logger
    static let retryMissingAfter: TimeInterval = 6 * 3600
    static let retryPlayerAfter: TimeInterval = 60
    private let failedAt = Mutex<[Int: Date]>([:])

    init(databasePath: String, players: [MPDEndpoint], logger: Logger) {
        directory = InstanceFiles(databasePath: databasePath).covers
        self.players = players
        self.logger = logger
    }

    func image(for track: Track) -> CoverImage? {
        // Streams and imported plays have no file MPD could find a picture for.
        guard let uri = track.uri, !uri.contains("://") else { return nil }
        let folder = (uri as NSString).deletingLastPathComponent
        let folderFile = path(Self.hash("folder:" + folder), "img")
        let songFile = path(Self.hash("file:" + uri), "img")
        let missing = path(Self.hash("file:" + uri), "none")
        for file in [songFile, folderFile] {
            if let data = FileManager.default.contents(atPath: file), let type = Self.mediaType(Array(data.prefix(12))) {
                return CoverImage(bytes: Array(data), contentType: type)
            }
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: missing),
           let modified = attributes[.modificationDate] as? Date, Date().timeIntervalSince(modified) < Self.retryMissingAfter {
            return nil
        }
        var everyPlayerAnswered = true
        for (index, endpoint) in players.enumerated() {
            let recentlyFailed = failedAt.withLock { $0[index].map { Date().timeIntervalSince($0) < Self.retryPlayerAfter } ?? false }
            if recentlyFailed {
                everyPlayerAnswered = false
                continue
            }
            do {
                guard let found = try MPDCoverArt.fetch(endpoint: endpoint, uri: uri), let type = Self.mediaType(Array(found.bytes.prefix(12)))
                else { continue }
                store(found.bytes, at: found.source == .folder ? folderFile : songFile)
                return CoverImage(bytes: found.bytes, contentType: type)
            } catch {
                // MPD down or slow: no cover now, no note of a missing one, and this player
                // rests for a minute.
                logger.debug("cover of \(uri): \(error)")
                failedAt.withLock { $0[index] = Date() }
                everyPlayerAnswered = false
            }
        }
        if everyPlayerAnswered { store([], at: missing) }
        return nil
    }

    private func path(_ name: String, _ ext: String) -> String {
        (directory as NSString).appendingPathComponent(name + "." + ext)
    }

    private func store(_ bytes: [UInt8], at path: String) {
        // Private like the rest of the data directory (covers tell what is listened to);
        // written whole, then renamed: a reader never sees half a picture.
        do {
            try PrivateFile.makeDirectory(directory)
            try PrivateFile.write(Data(bytes), atomicallyTo: path)
        } catch {
            logger.debug("cover cache: \(error)")
        }
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
