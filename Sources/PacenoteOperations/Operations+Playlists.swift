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
        if try store.smartPlaylist(namedAnyCase: name) != nil {
            throw OperationError(.conflict, code: "name_taken", "a smart playlist named '\(name)' exists already")
        }
        try checkMoods(rules, of: name)
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
        if let other = try store.smartPlaylist(namedAnyCase: name), other.id != id {
            throw OperationError(.conflict, code: "name_taken", "a smart playlist named '\(name)' exists already")
        }
        if name != old.name { try refuseIfUsed(old) }
        try checkMoods(rules, of: name)
        _ = try store.updateSmartPlaylist(id: id, name: name, rules: rules, now: now)
        announce(.playlists)
        return try store.smartPlaylist(id: id) ?? old
    }

    public func deleteSmartPlaylist(id: Int64) throws {
        guard let old = try store.smartPlaylist(id: id) else { throw OperationError.notFound("no smart playlist \(id)") }
        try refuseIfUsed(old)
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
        guard !name.lowercased().hasSuffix(".jspf") else {
            throw OperationError.invalid("invalid_name", "name: not ending in .jspf (the API reads a playlist as JSPF at NAME.jspf)")
        }
        guard !name.contains("/"), !name.contains(where: \.isNewline), !name.hasPrefix("."), !name.contains("://"),
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

    /// The moods a combination names must exist, not lead back to it, and nest at most 3 deep.
    private func checkMoods(_ rules: SmartPlaylist.Rules, of name: String) throws {
        func walk(_ moods: [String], depth: Int) throws {
            for mood in moods {
                if mood.caseInsensitiveCompare(name) == .orderedSame {
                    throw OperationError.invalid("invalid_rules", "moods: '\(name)' would contain itself")
                }
                guard let found = try store.smartPlaylist(namedAnyCase: mood) else {
                    throw OperationError.invalid("invalid_rules", "moods: no mood or smart playlist named '\(mood)'")
                }
                if let inner = found.rules.moods {
                    guard depth < 2 else { throw OperationError.invalid("invalid_rules", "moods: combined at most 3 levels deep") }
                    try walk(inner, depth: depth + 1)
                }
            }
        }
        try walk(rules.moods ?? [], depth: 0)
    }

    /// A mood that another combines cannot be renamed or deleted from under it.
    private func refuseIfUsed(_ playlist: SmartPlaylist) throws {
        if let user = try store.smartPlaylists().first(where: { other in
            other.id != playlist.id && (other.rules.moods ?? []).contains { $0.caseInsensitiveCompare(playlist.name) == .orderedSame }
        }) {
            throw OperationError(.conflict, code: "in_use", "'\(playlist.name)' is combined in '\(user.name)': change that one first")
        }
    }
}
