import Foundation

/// The API key that every write (heart rate, pins, queue, submissions, imports) needs.
/// `PACENOTE_API_KEY` wins; otherwise it lives in `api-key` beside the database, created
/// on first run with mode 0600 and shown by `pacenote key`.
public enum APIKey {
    public static func path(forDatabase database: String) -> String {
        (database as NSString).deletingLastPathComponent + "/api-key"
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
            if key.count >= 16 { return key }
        }
        let key = generate()
        guard FileManager.default.createFile(atPath: file, contents: Data((key + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
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
