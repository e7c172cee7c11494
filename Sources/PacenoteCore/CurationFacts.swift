import Foundation

/// What one curation entry did, as facts (counts, titles, times, names): the log stores
/// these, and the line people read (`summary(in:)`) is made from them when it is shown, never
/// inside the transaction that made the change. So a time reads in the zone of the reader's
/// day (a `[site] timezone` changed later shows it in the new one), and the wording can
/// change without touching stored rows.
public enum CurationFacts: Codable, Equatable, Sendable {
    /// Plays deleted; the title and start of the play when there was one.
    case deleted(plays: Int, title: String?, startedAt: Date?)
    /// A play edited: its start, the titles before and after when its track changed, and
    /// whether it counts when that changed.
    case edited(startedAt: Date, titleBefore: String?, titleAfter: String?, counted: Bool?)
    /// Plays added from `startedAt`; the title when there was one.
    case added(plays: Int, title: String?, startedAt: Date)
    /// Entities merged: the names of those merged, of the one kept, and how many albums of
    /// the same title were merged with an artist.
    case merged(kind: String, names: [String], into: String, albums: Int)
    /// A rule applied to the plays already logged.
    case rule(action: String, field: String, match: String, value: String, replacement: String?, plays: Int)

    /// The line for people, times in `local`'s zone.
    public func summary(in local: LocalTime) -> String {
        switch self {
        case .deleted(let plays, let title, let startedAt):
            if plays == 1, let title, let startedAt {
                return "Deleted the play of “\(title)” at \(Self.localText(startedAt, local))"
            }
            return "Deleted \(plays) play\(plays == 1 ? "" : "s")"
        case .edited(let startedAt, let before, let after, let counted):
            var changes: [String] = []
            if let before, let after { changes.append("“\(before)” → “\(after)”") }
            if let counted { changes.append(counted ? "counted" : "a skip") }
            return "Edited the play of \(Self.localText(startedAt, local))" + (changes.isEmpty ? "" : ": " + changes.joined(separator: ", "))
        case .added(let plays, let title, let startedAt):
            if plays == 1, let title { return "Added a play of “\(title)” at \(Self.localText(startedAt, local))" }
            return "Added \(plays) plays from \(Self.localText(startedAt, local))"
        case .merged(let kind, let names, let into, let albums):
            let quoted = names.map { "“\($0)”" }.joined(separator: ", ")
            let also = albums == 0 ? "" : albums == 1 ? ", and 1 album of the same title" : ", and \(albums) albums of the same title"
            return "Merged \(kind) \(quoted) into “\(into)”\(also)"
        case .rule(let action, let field, let match, let value, let replacement, let plays):
            let rule = CurationRule(action: CurationRule.Action(rawValue: action) ?? .rewrite,
                                    field: CurationRule.Field(rawValue: field) ?? .title,
                                    match: CurationRule.Match(rawValue: match) ?? .regex, value: value, replacement: replacement)
            return "\(rule.summary): \(plays) play\(plays == 1 ? "" : "s")"
        }
    }

    /// The facts of applying `rule` to `plays` plays.
    public static func rule(_ rule: CurationRule, plays: Int) -> CurationFacts {
        .rule(action: rule.action.rawValue, field: rule.field.rawValue, match: rule.match.rawValue,
              value: rule.value, replacement: rule.replacement, plays: plays)
    }

    /// A time as people read it in a summary: the local day and minute (`2026-01-05 11:30`).
    public static func localText(_ date: Date, _ local: LocalTime) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = local.timeZone
        let c = calendar.dateComponents([.hour, .minute], from: date)
        return local.day(of: date) + String(format: " %02d:%02d", c.hour ?? 0, c.minute ?? 0)
    }

    /// The stored form: JSON, times in milliseconds since 1970.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    public init?(json: String) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        guard let facts = try? decoder.decode(CurationFacts.self, from: Data(json.utf8)) else { return nil }
        self = facts
    }
}
