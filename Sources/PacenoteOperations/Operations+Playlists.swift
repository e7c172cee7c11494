import Foundation
import PacenoteCore
import PacenoteStore

/// Smart playlists and moods (issue 57): defined, changed and deleted here, validated once
/// whichever door they came through; `SmartPlaylistSync` keeps MPD's copies.
extension Operations {
    /// Saves a new smart playlist or mood; returns it.
    public func createSmartPlaylist(name: String, kind: SmartPlaylist.Kind, rules: SmartPlaylist.Rules,
                                    now: Date = Date()) throws -> SmartPlaylist {
        let name = try Self.playlistName(name)
        try Self.check(rules, name: name)
        if try store.smartPlaylist(named: name) != nil {
            throw OperationError(.conflict, code: "name_taken", "a smart playlist named '\(name)' exists already")
        }
        try checkMoods(rules)
        let id = try store.insertSmartPlaylist(name: name, kind: kind, rules: rules, now: now)
        announce(.playlists)
        guard let saved = try store.smartPlaylist(id: id) else { throw OperationError.notFound("no smart playlist \(id)") }
        return saved
    }

    /// Renames a smart playlist and/or replaces its rules.
    public func updateSmartPlaylist(id: Int64, name: String?, rules: SmartPlaylist.Rules?, now: Date = Date()) throws -> SmartPlaylist {
        guard let old = try store.smartPlaylist(id: id) else { throw OperationError.notFound("no smart playlist \(id)") }
        let name = try name.map(Self.playlistName) ?? old.name
        let rules = rules ?? old.rules
        try Self.check(rules, name: name)
        if let other = try store.smartPlaylist(named: name), other.id != id {
            throw OperationError(.conflict, code: "name_taken", "a smart playlist named '\(name)' exists already")
        }
        try checkMoods(rules)
        _ = try store.updateSmartPlaylist(id: id, name: name, rules: rules, now: now)
        announce(.playlists)
        return try store.smartPlaylist(id: id) ?? old
    }

    public func deleteSmartPlaylist(id: Int64) throws {
        guard try store.deleteSmartPlaylist(id: id) else { throw OperationError.notFound("no smart playlist \(id)") }
        announce(.playlists)
    }

    /// A playlist's name as MPD can store it: 1 to 100 characters, no slash, newline or
    /// leading dot (MPD refuses those), trimmed.
    public static func playlistName(_ raw: String) throws -> String {
        let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(name.count) else {
            throw OperationError.invalid("invalid_name", "name: 1 to 100 characters")
        }
        guard !name.contains("/"), !name.contains(where: \.isNewline), !name.hasPrefix("."),
              !name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f }) else {
            throw OperationError.invalid("invalid_name", "name: no slash, line break, control character or leading dot")
        }
        return name
    }

    static func check(_ rules: SmartPlaylist.Rules, name: String) throws {
        if let problem = rules.problem() { throw OperationError.invalid("invalid_rules", problem) }
        if let moods = rules.moods, moods.contains(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) {
            throw OperationError.invalid("invalid_rules", "moods: a mood cannot contain itself")
        }
    }

    /// The moods a combination names must exist.
    private func checkMoods(_ rules: SmartPlaylist.Rules) throws {
        for mood in rules.moods ?? [] where try store.smartPlaylist(named: mood) == nil {
            throw OperationError.invalid("invalid_rules", "moods: no mood or smart playlist named '\(mood)'")
        }
    }
}
