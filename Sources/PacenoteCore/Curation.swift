import Foundation

/// One change to the history made by hand or by a rule (`curation_log`): a deleted,
/// edited or added play, a merge. Each is undoable as a whole while no later entry depends
/// on it (`touches`).
public struct CurationEntry: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case delete, edit, add, merge, rule
    }

    public var id: Int64
    public var at: Date
    public var kind: Kind
    /// What it did; the line for people is made from it when shown (`summary(in:)`).
    /// Nil for entries logged before v28, which stored their line (`storedSummary`).
    public var facts: CurationFacts?
    /// The line an entry logged before v28 stored; empty for later ones.
    public var storedSummary: String
    /// What was asked, as JSON text in the API's words (an export carries it, to replay).
    public var request: String
    /// Where the change came from: `api`, `site`, `listenbrainz`, `cli`.
    public var source: String
    /// When it was undone; nil while it holds.
    public var undoneAt: Date?
    /// What it changed, as `kind:id` items (`play:12`, `track:3`, `artist:4`, `album:5`):
    /// a later entry that touches one of them depends on this one.
    public var touches: Set<String>

    public init(id: Int64, at: Date, kind: Kind, facts: CurationFacts?, storedSummary: String = "", request: String,
                source: String, undoneAt: Date?, touches: Set<String>) {
        self.id = id
        self.at = at
        self.kind = kind
        self.facts = facts
        self.storedSummary = storedSummary
        self.request = request
        self.source = source
        self.undoneAt = undoneAt
        self.touches = touches
    }

    /// One line for people ("Merged artist “Florence + the Machine” into “Florence and the
    /// Machine”"), times in `local`'s zone.
    public func summary(in local: LocalTime) -> String { facts?.summary(in: local) ?? storedSummary }

    /// The `touches` text stored in a row: items between spaces, so that `LIKE '% play:1 %'`
    /// finds exactly one item.
    public static func touchesText(_ items: Set<String>) -> String {
        " " + items.sorted().joined(separator: " ") + " "
    }

    public static func touches(fromText text: String) -> Set<String> {
        Set(text.split(separator: " ").map(String.init))
    }

    /// The later entries that keep `entry` from being undone: those still in force that
    /// touch something it touched.
    public static func blockers(of entry: CurationEntry, among later: [CurationEntry]) -> [CurationEntry] {
        later.filter { $0.id > entry.id && $0.undoneAt == nil && !$0.touches.isDisjoint(with: entry.touches) }
    }
}

/// What a merge joins: tracks, artists or albums.
public enum MergeKind: String, Sendable, CaseIterable {
    case track, artist, album, genre
}

/// The curation log as `pacenote export --curation` writes it: one JSON object a line,
/// `{"id", "at", "kind", "summary", "source", "request", "undone_at"}`, `request` as an
/// object. `pacenote import --curation` reads it back.
public enum CurationExport {
    public static func line(_ e: CurationEntry, in local: LocalTime) -> String {
        let request = (try? JSONSerialization.jsonObject(with: Data(e.request.utf8))) ?? e.request
        let object: [String: Any] = [
            "id": e.id, "at": ISO8601.string(e.at), "kind": e.kind.rawValue, "summary": e.summary(in: local), "source": e.source,
            "request": request, "undone_at": e.undoneAt.map(ISO8601.string) ?? NSNull(),
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// An exported entry: its kind, its request as JSON text, whether it was undone; nil for
    /// a line that is not one.
    public static func parse(_ line: String) -> (kind: CurationEntry.Kind, request: String, undone: Bool)? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let kind = (object["kind"] as? String).flatMap(CurationEntry.Kind.init(rawValue:)),
              let request = object["request"], JSONSerialization.isValidJSONObject(request),
              let data = try? JSONSerialization.data(withJSONObject: request, options: [.sortedKeys]) else { return nil }
        return (kind, String(decoding: data, as: UTF8.self), !(object["undone_at"] is NSNull || object["undone_at"] == nil))
    }
}

extension CurationExport {
    /// A rule of the site's (not the configuration file's, which travels with the file) as
    /// a line of the export: `{"rule": {"action", "field", "match", "value", "replacement",
    /// "enabled"}}`.
    public static func line(_ rule: CurationRule) -> String {
        let object: [String: Any] = ["rule": [
            "action": rule.action.rawValue, "field": rule.field.rawValue, "match": rule.match.rawValue, "value": rule.value,
            "replacement": rule.replacement.map { $0 as Any } ?? NSNull(), "enabled": rule.enabled,
        ] as [String: Any]]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The rule of such a line; nil for any other line.
    public static func rule(_ line: String) -> CurationRule? {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
              let rule = object["rule"] as? [String: Any],
              let action = (rule["action"] as? String).flatMap(CurationRule.Action.init(rawValue:)),
              let field = (rule["field"] as? String).flatMap(CurationRule.Field.init(rawValue:)),
              let match = (rule["match"] as? String).flatMap(CurationRule.Match.init(rawValue:)),
              let value = rule["value"] as? String else { return nil }
        return CurationRule(action: action, field: field, match: match, value: value, replacement: rule["replacement"] as? String,
                            enabled: (rule["enabled"] as? Bool) ?? true)
    }

    /// Whether two rules do the same (ids and origin aside).
    public static func same(_ a: CurationRule, _ b: CurationRule) -> Bool {
        a.action == b.action && a.field == b.field && a.match == b.match && a.value == b.value && a.replacement == b.replacement
    }
}
