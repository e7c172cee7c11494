import Foundation
import Synchronization

/// The API key that every write (heart rate, pins, queue, submissions, imports) needs.
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

    /// Writes the key file atomically (a new file, mode 0600, renamed over the old one).
    private static func write(_ key: String, to file: String) throws(StartupError) -> String {
        let temporary = file + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((key + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]),
              rename(temporary, file) == 0 else {
            throw StartupError("api key: cannot write \(file)")
        }
        return key
    }

    /// `pn_` and 32 random bytes in base64url (from the system's CSPRNG).
    static func generate() -> String {
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
