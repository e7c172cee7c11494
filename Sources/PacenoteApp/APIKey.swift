import Foundation
import Glibc
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import Synchronization

/// The instance's own key, the admin key that every write (heart rate, pins, queue,
/// submissions, imports) may use; named keys with narrower scopes are `NamedKeys`.
/// `PACENOTE_API_KEY` wins; otherwise it lives in `api-key` beside the database (`InstanceFiles.apiKey`), created
/// on first run with mode 0600 and shown by `pacenote key`. `pacenote key --new` replaces
/// it and `--revoke` withdraws it; a running server notices within a second.
public enum APIKey {
    /// What the key file holds after `--revoke`: no key is valid until `--new`.
    static let revokedMarker = "revoked"
    public static func path(forDatabase database: String) -> String {
        InstanceFiles(databasePath: database).apiKey
    }

    /// The key, creating it if there is none yet.
    public static func load(database: String, environment: [String: String]) throws(StartupError) -> String {
        if let key = environment["PACENOTE_API_KEY"], !key.isEmpty {
            guard key.count >= 16 else { throw StartupError("PACENOTE_API_KEY: must be at least 16 characters") }
            return key
        }
        let file = path(forDatabase: database)
        if let text = try? String(contentsOfFile: file, encoding: .utf8) {
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if key.count >= 16 || key == revokedMarker { return key }
        }
        return try write(generate(), to: file)
    }

    /// Replaces the key with a new one and returns it.
    public static func rotate(database: String) throws(StartupError) -> String {
        try write(generate(), to: path(forDatabase: database))
    }

    /// Withdraws the key: no write is accepted until `rotate`.
    public static func revoke(database: String) throws(StartupError) {
        _ = try write(revokedMarker, to: path(forDatabase: database))
    }

    /// Writes the key file atomically: a new file created with `O_CREAT|O_EXCL` and mode
    /// 0600 (never wider, not even for a moment, and never through a planted link), then
    /// renamed over the old one.
    private static func write(_ key: String, to file: String) throws(StartupError) -> String {
        do {
            try PrivateFile.write(Data((key + "\n").utf8), atomicallyTo: file)
        } catch {
            throw StartupError("api key: \(error)")
        }
        return key
    }

    /// `pn_` and 32 random bytes in base64url (from the system's CSPRNG).
    public static func generate() -> String {
        var rng = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
        return "pn_" + Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// The key as a running server sees it: the environment's, or the file's, read again at
/// most once a second (a changed file is noticed whatever its timestamps say). A file that
/// cannot be read keeps the key last read.
public final class APIKeySource: Sendable {
    private let fixed: String?
    private let file: String
    private let state: Mutex<(key: String?, checked: Date)>

    public init(database: String, environment: [String: String]) throws(StartupError) {
        let key = try APIKey.load(database: database, environment: environment)
        fixed = environment["PACENOTE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
        file = APIKey.path(forDatabase: database)
        state = Mutex((key == APIKey.revokedMarker ? nil : key, Date()))
    }

    public func current() -> String? {
        if let fixed { return fixed }
        return state.withLock { s in
            let now = Date()
            guard now.timeIntervalSince(s.checked) >= 1 else { return s.key }
            s.checked = now
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return s.key }
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            s.key = (key == APIKey.revokedMarker || key.count < 16) ? nil : key
            return s.key
        }
    }
}

/// Named keys (`pacenote key add NAME --scope …`), stored as SHA-256 hashes in the database
/// and looked up on each use: a key revoked by `pacenote key revoke` in another process is
/// refused from the next request. Last use is written at most once a minute per key.
public final class NamedKeys: Sendable {
    private let store: Store
    /// Key id → when its last use was written.
    private let written = Mutex<[Int64: Date]>([:])
    static let useInterval: Double = 60

    public init(store: Store) {
        self.store = store
    }

    /// The scope of a live named key, nil for anything else (a revoked key, a wrong one).
    public func scope(of sent: String, now: Date = Date()) -> KeyScope? {
        guard sent.utf8.count >= 16, sent.utf8.count <= 256, let key = try? store.liveKey(hash: SHA256.hex(sent)) else { return nil }
        let due = written.withLock { w in
            guard now.timeIntervalSince(w[key.id] ?? .distantPast) >= Self.useInterval else { return false }
            w[key.id] = now
            return true
        }
        if due { try? store.recordKeyUse(id: key.id, at: now) }
        return key.scope
    }

    /// Creates a named key and returns it (shown once: only its hash is kept, and its MD5
    /// sealed with `scrobblerSecret` for the Last.fm protocols' tokens).
    public static func add(name: String, scope: KeyScope, store: Store, scrobblerSecret: [UInt8]? = nil) throws -> String {
        let key = APIKey.generate()
        try Operations(store: store, events: nil).addKey(name: name, scope: scope, key: key, scrobblerSecret: scrobblerSecret)
        return key
    }

    /// Revokes a named key.
    public static func revoke(name: String, store: Store) throws {
        try Operations(store: store, events: nil).revokeKey(name: name)
    }
}
