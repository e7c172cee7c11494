import Foundation

/// Every file and folder a Pacenote instance owns, all in the database's directory: what
/// backup, restore and doctor walk, and the one place their names are written.
public struct InstanceFiles: Sendable, Equatable {
    /// The SQLite database (`database.path`).
    public let database: String
    /// The folder the database is in, where everything else lives too.
    public let directory: String

    public init(databasePath: String) {
        database = databasePath
        let parent = (databasePath as NSString).deletingLastPathComponent
        directory = parent.isEmpty ? "." : parent
    }

    public init(config: Config) { self.init(databasePath: config.databasePath) }

    /// SQLite's write-ahead log and its shared-memory index (WAL mode), part of the database
    /// while it is open.
    public var databaseWAL: String { database + "-wal" }
    public var databaseSHM: String { database + "-shm" }
    /// The API key (`APIKey`), mode 0600; `revoked` after `pacenote key --revoke`.
    public var apiKey: String { file("api-key") }
    /// What seals md5(key) for the Last.fm protocols' tokens (`ScrobblerSecret`), mode 0600:
    /// kept out of the database so that the database alone logs nobody in.
    public var scrobblerSecret: String { file("scrobbler-secret") }
    /// Covers fetched from MPD (`CoverArtCache`), one file per album folder or song.
    public var covers: String { file("covers") }
    /// Readings `pacenote hr-feed` could not post yet, one JSON object a line.
    public var hrFeedBuffer: String { file("hr-feed-buffer.jsonl") }
    /// Plays from MPD the database could not take yet (a full disk), replayed at the next
    /// start (`PlaySpool`); its space is reserved.
    public var spool: String { file("spool.jsonl") }
    /// Backups of the database (`Backups`; `[backup] directory` may put them elsewhere).
    public var backups: String { file("backups") }
    /// Held (`flock`) by the running daemon, with its pid inside (`InstanceLock`): how
    /// `restore` knows the database is in use, and a second `serve` that it must not start.
    public var lock: String { file("pacenote.lock") }
    /// Uploads being received and other temporary files, on the same file system as the
    /// database so that a finished file is renamed into place.
    public var temporary: String { file("tmp") }

    /// What a file is for, and so what backup and restore do with it.
    public enum Role: String, Sendable, CaseIterable {
        /// The database and its WAL files: copied consistently through SQLite, never as files.
        case database
        /// Small state worth keeping (the API key).
        case state
        /// Fetched again when missing (covers).
        case cache
        /// Backups themselves and temporary files: never inside a backup.
        case excluded
    }

    public struct Entry: Sendable, Equatable {
        public let path: String
        public let isDirectory: Bool
        public let role: Role
    }

    /// Everything above, in a fixed order.
    public var all: [Entry] {
        [
            Entry(path: database, isDirectory: false, role: .database),
            Entry(path: databaseWAL, isDirectory: false, role: .database),
            Entry(path: databaseSHM, isDirectory: false, role: .database),
            Entry(path: apiKey, isDirectory: false, role: .state),
            Entry(path: scrobblerSecret, isDirectory: false, role: .state),
            Entry(path: covers, isDirectory: true, role: .cache),
            Entry(path: hrFeedBuffer, isDirectory: false, role: .state),
            Entry(path: spool, isDirectory: false, role: .state),
            Entry(path: backups, isDirectory: true, role: .excluded),
            Entry(path: temporary, isDirectory: true, role: .excluded),
            Entry(path: lock, isDirectory: false, role: .excluded),
        ]
    }

    // MARK: What a failed start made

    /// Which of `all`, and the folder itself, exist now: what a start that fails compares
    /// against (`removeCreated`).
    public func existing() -> Set<String> {
        Set(([directory] + all.map(\.path)).filter { FileManager.default.fileExists(atPath: $0) })
    }

    /// Removes what a start that failed made (each of `all` not in `before`), so that nothing
    /// it left stands in the next start's way (a `-shm` as read-only as the database was,
    /// issue 52). Called with the instance lock held and the database closed. The database's
    /// own files go when the database itself is new; for one that was there, a new `-wal` goes
    /// only when empty, and a new `-shm` only when no log with content needs it: a log with
    /// content is part of the database.
    public func removeCreated(since before: Set<String>) {
        let fm = FileManager.default
        let newDatabase = !before.contains(database)
        func bytes(_ path: String) -> Int { (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        for entry in all where !before.contains(entry.path) && fm.fileExists(atPath: entry.path) {
            switch entry.path {
            case databaseWAL where !newDatabase, databaseSHM where !newDatabase:
                if bytes(databaseWAL) == 0 { try? fm.removeItem(atPath: entry.path) }
            case temporary:
                try? fm.removeItem(atPath: entry.path)
            default:
                if entry.isDirectory { rmdir(entry.path) } else { try? fm.removeItem(atPath: entry.path) }
            }
        }
    }

    /// Removes the folder when the failed start made it and left nothing in it (after the
    /// instance lock, which is in it, was let go).
    public func removeCreatedFolder(since before: Set<String>) {
        if !before.contains(directory) { rmdir(directory) }
    }

    // MARK: Temporary files

    /// Removes everything in `temporary`: what a process that crashed left behind (the
    /// folder itself is made, mode 0700, by the HTTP server's uploads, `UploadFile`, and by
    /// the recommender's transition files, `TransitionFileStorage`). Only
    /// the daemon calls it, when it starts, before anything else could have made a file there.
    public func removeStaleTemporaryFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary) else { return }
        for name in names {
            try? FileManager.default.removeItem(atPath: (temporary as NSString).appendingPathComponent(name))
        }
    }

    private func file(_ name: String) -> String { (directory as NSString).appendingPathComponent(name) }
}
