import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteStore

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent copy of the database, also while pacenote serve runs.",
        discussion: """
            The copy is taken through SQLite's online backup API (never a file copy): it is the database as it \
            was when the backup began, checked with integrity_check, in one file of mode 0600. Default: \
            pacenote-YYYYMMDD-HHMMSS.sqlite (UTC) in the backup folder ([backup] directory, or backups/ beside \
            the database), where the daemon's own backups go and are pruned to [backup] keep. \
            'pacenote restore FILE' puts one back.
            """)

    @OptionGroup var storage: StorageOptions

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the backup to this file (it must not exist).", valueName: "file"))
    var output: String?

    func run() throws {
        let config = try storage.loadConfig()
        let destination: String
        if let output {
            guard !FileManager.default.fileExists(atPath: output) else { throw Failure("--output: \(output) already exists") }
            destination = output
        } else {
            do {
                try FileManager.default.createDirectory(atPath: config.backupDirectory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw Failure("backup.directory: cannot create \(config.backupDirectory): \(error.localizedDescription)")
            }
            destination = Store.newBackupPath(in: config.backupDirectory, kind: .regular)
        }
        let summary: DatabaseSummary
        do {
            summary = try Store.backup(databaseAt: config.databasePath, to: destination)
        } catch {
            throw Failure("backup of \(config.databasePath) failed: \(error.description)")
        }
        print("backup: \(summary.path)")
        print(Self.describe(summary, timeZone: config.timeZone))
    }

    /// `size: 1.2 MB (1234567 bytes)` and `plays: 1234, from 2025-11-22 to 2026-01-03`.
    static func describe(_ summary: DatabaseSummary, timeZone: TimeZone) -> String {
        let size = ByteCountFormatter.string(fromByteCount: summary.bytes, countStyle: .file)
        return "  size: \(size) (\(summary.bytes) bytes)\n  plays: \(playRange(summary, timeZone: timeZone))"
    }

    static func playRange(_ summary: DatabaseSummary, timeZone: TimeZone) -> String {
        guard let first = summary.firstPlay, let last = summary.lastPlay else { return "\(summary.plays)" }
        let local = LocalTime(timeZone: timeZone)
        return "\(summary.plays), from \(local.day(of: first)) to \(local.day(of: last))"
    }
}
