import PacenoteCore

extension Config {
    /// `[backup]`: the backups the daemon takes itself.
    public struct Backup: Sendable, Equatable {
        public var interval: BackupInterval = .every(seconds: 86_400)
        /// How many scheduled backups are kept (those taken before a migration are never removed).
        public var keep = 7
        /// Where they are written; nil: `backups/` beside the database (`InstanceFiles.backups`).
        public var directory: String?

        public init() {}
    }

    /// The folder backups go to: `[backup] directory`, or `backups/` beside the database.
    public var backupDirectory: String { backup.directory ?? InstanceFiles(config: self).backups }
}

extension ConfigSchema {
    static let backup = ConfigSection<Config.Backup>(name: "backup", doc: "", keys: [
        ConfigKey("interval", \.interval, Codec.parsed { (text) throws(ConfigProblem) in
            guard let interval = BackupInterval(parsing: text) else {
                throw ConfigProblem("'\(text)' is not an interval (daily, hourly, weekly, 24h, 90m, 30s, 2d or off)")
            }
            return interval
        }, env: ["PACENOTE_BACKUP_INTERVAL"], doc: """
            How often the daemon backs the database up while it runs: daily, hourly, weekly, a
            number with a unit (12h, 90m, 2d, 30s) or off. A backup is a consistent snapshot taken
            through SQLite's online backup API while plays keep being stored; the first is taken
            soon after start when the last is older than this. `pacenote backup` takes one by hand,
            `pacenote restore FILE` puts one back. Whatever this says, a backup is always taken
            before a new version changes the database's schema.
            """),
        ConfigKey("keep", \.keep, Codec.integer(1...10_000), env: ["PACENOTE_BACKUP_KEEP"], doc: """
            How many backups the daemon keeps: after each one, the oldest beyond this many are
            removed. Backups taken before a schema change (…-before-migration.sqlite) are kept
            until you remove them.
            """),
        ConfigKey("directory", \.directory, Codec.optionalString(), env: ["PACENOTE_BACKUP_DIRECTORY"],
                  example: #""/srv/backup/pacenote""#, doc: """
            The folder backups are written to (created with mode 0700), one file each,
            pacenote-YYYYMMDD-HHMMSS.sqlite (UTC), mode 0600. Another disk is safer than the
            database's own. Default: backups/ beside the database. "~/" is expanded.
            """),
    ])
}
