import Foundation
import PacenoteCore
import PacenoteStore

/// One backup file in the backup folder.
public struct BackupFile: Equatable, Sendable {
    public var path: String
    /// When the backup began (from its name, UTC).
    public var date: Date
    public var bytes: Int64
    public var kind: BackupName.Kind
}

/// The backup folder: what is in it, the newest, taking one, removing old ones. The names
/// and rules are `BackupName` and `BackupPolicy` (PacenoteCore); the copy is
/// `Store.backup(to:)`.
public enum Backups {
    /// Every complete backup in `directory` (written files, not `.partial` ones), oldest first.
    public static func list(in directory: String) -> [BackupFile] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.compactMap { name -> BackupFile? in
            guard let parsed = BackupName(fileName: name) else { return nil }
            let path = (directory as NSString).appendingPathComponent(name)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
            return BackupFile(path: path, date: parsed.date, bytes: bytes, kind: parsed.kind)
        }.sorted { ($0.date, $0.path) < ($1.date, $1.path) }
    }

    /// The newest backup in `directory` of any kind, nil when there is none.
    public static func latest(in directory: String) -> BackupFile? { list(in: directory).last }

    /// The newest backup where this configuration writes them (`[backup] directory`).
    public static func latest(config: Config) -> BackupFile? { latest(in: config.backupDirectory) }

    /// The newest backup in the instance's own `backups/` folder.
    public static func latest(in files: InstanceFiles) -> BackupFile? { latest(in: files.backups) }

    /// Takes a backup of `store` into `directory` (created with mode 0700) under a new name.
    public static func take(_ store: Store, into directory: String, date: Date = Date(),
                            cancelled: @escaping () -> Bool = { false }) throws -> DatabaseSummary {
        try createDirectory(directory)
        return try store.backup(to: Store.newBackupPath(in: directory, kind: .regular, date: date), cancelled: cancelled)
    }

    /// Removes the regular backups beyond the newest `keep`, and `.partial` files left by a
    /// backup that died more than a day ago. Returns the removed paths.
    @discardableResult
    public static func prune(in directory: String, keep: Int, now: Date = Date()) -> [String] {
        var removed: [String] = []
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let parsed = names.compactMap { name in BackupName(fileName: name).map { (name, $0) } }
        let doomed = Set(BackupPolicy.toPrune(parsed.map(\.1), keep: keep).map(\.fileName))
        for (name, _) in parsed where doomed.contains(name) {
            let path = (directory as NSString).appendingPathComponent(name)
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
        }
        for name in names where name.hasSuffix(BackupName.partialSuffix) {
            let path = (directory as NSString).appendingPathComponent(name)
            let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? now
            if now.timeIntervalSince(modified) > 86_400, (try? FileManager.default.removeItem(atPath: path)) != nil {
                removed.append(path)
            }
        }
        return removed
    }

    static func createDirectory(_ directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    }
}
