import Foundation

/// How often the daemon backs the database up (`[backup] interval`): "daily", "hourly",
/// "weekly", a number with a unit ("24h", "90m", "30s", "2d", "1w"), or "off".
public enum BackupInterval: Equatable, Sendable, CustomStringConvertible {
    case off
    case every(seconds: Double)

    private static let words: [String: Double] = ["hourly": 3600, "daily": 86_400, "weekly": 604_800]
    private static let units: [(suffix: String, seconds: Double)] = [("w", 604_800), ("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)]

    /// Nil when the text is none of the accepted forms, or shorter than a second.
    public init?(parsing text: String) {
        let text = text.trimmingCharacters(in: .whitespaces).lowercased()
        if text == "off" || text == "never" {
            self = .off
            return
        }
        if let seconds = Self.words[text] {
            self = .every(seconds: seconds)
            return
        }
        guard let unit = Self.units.first(where: { text.hasSuffix($0.suffix) }),
              let count = Double(text.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)),
              count.isFinite, count * unit.seconds >= 1 else { return nil }
        self = .every(seconds: count * unit.seconds)
    }

    public var seconds: Double? {
        if case .every(let seconds) = self { return seconds }
        return nil
    }

    /// The shortest form that reads back to the same interval: "daily", "6h", "90m", "off".
    public var description: String {
        guard let seconds else { return "off" }
        if let word = Self.words.first(where: { $0.value == seconds })?.key { return word }
        for unit in Self.units where seconds >= unit.seconds {
            let count = seconds / unit.seconds
            if count == count.rounded() { return "\(Int(count))\(unit.suffix)" }
        }
        return "\(seconds)s"
    }
}

/// A backup file's name says when it began (UTC) and why: `pacenote-20260102-030405.sqlite`
/// (scheduled or `pacenote backup`), `…-before-migration.sqlite` (taken before a migration
/// changed the schema). Names sort by time; a second backup in the same second gets `-2`.
public struct BackupName: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case regular = ""
        /// Never pruned: the way back from a migration is kept until the user removes it.
        case beforeMigration = "-before-migration"
    }

    public var date: Date
    public var kind: Kind
    /// 1 for the first backup of a second, 2 for the next, …
    public var sequence: Int

    public init(date: Date, kind: Kind = .regular, sequence: Int = 1) {
        // Whole seconds: that is what the name holds.
        self.date = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        self.kind = kind
        self.sequence = sequence
    }

    public static let prefix = "pacenote-"
    public static let suffix = ".sqlite"
    /// A backup being written; renamed to its name when complete.
    public static let partialSuffix = ".partial"

    public var fileName: String {
        Self.prefix + Self.stamp(date) + (sequence > 1 ? "-\(sequence)" : "") + kind.rawValue + Self.suffix
    }

    /// `YYYYMMDD-HHMMSS` in UTC, as backup names (and `restore`'s `.replaced-…`) write it.
    public static func stamp(_ date: Date) -> String {
        let c = Calendar.utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d%02d%02d-%02d%02d%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    /// Reads a name this type wrote; nil for any other file.
    public init?(fileName: String) {
        guard fileName.hasPrefix(Self.prefix), fileName.hasSuffix(Self.suffix) else { return nil }
        var rest = Substring(fileName.dropFirst(Self.prefix.count).dropLast(Self.suffix.count))
        kind = .regular
        if rest.hasSuffix(Kind.beforeMigration.rawValue) {
            kind = .beforeMigration
            rest = rest.dropLast(Kind.beforeMigration.rawValue.count)
        }
        let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, parts[0].count == 8, parts[1].count == 6,
              parts[0].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isASCII),
              let day = Int(parts[0]), let time = Int(parts[1]) else { return nil }
        sequence = 1
        if parts.count == 3 {
            guard let n = Int(parts[2]), n > 1 else { return nil }
            sequence = n
        }
        let components = DateComponents(year: day / 10_000, month: day / 100 % 100, day: day % 100,
                                        hour: time / 10_000, minute: time / 100 % 100, second: time % 100)
        guard let date = Calendar.utc.date(from: components),
              Self.stamp(date) == String(parts[0]) + "-" + String(parts[1]) else { return nil }
        self.date = date
    }
}

/// When the daemon takes a backup and which old ones it removes: pure, so tests feed it dates.
public enum BackupPolicy {
    /// True when a backup should be taken now: there is none, or the last began at least
    /// `interval` ago (or is dated in the future: the clock was set back).
    public static func isDue(last: Date?, now: Date, interval: BackupInterval) -> Bool {
        guard let seconds = interval.seconds else { return false }
        guard let last else { return true }
        return now.timeIntervalSince(last) >= seconds || last.timeIntervalSince(now) > 60
    }

    /// How long to wait before looking again: until the next backup is due, but at least a
    /// second and at most `longest` (the clock may jump; a backup may be restored meanwhile).
    public static func nextCheck(last: Date?, now: Date, interval: BackupInterval, longest: Double = 60) -> Double {
        guard let seconds = interval.seconds, let last else { return longest }
        return min(max(last.addingTimeInterval(seconds).timeIntervalSince(now), 1), longest)
    }

    /// The regular backups beyond the newest `keep`, oldest first: the ones to delete.
    /// Backups taken before a migration are never among them.
    public static func toPrune(_ names: [BackupName], keep: Int) -> [BackupName] {
        let regular = names.filter { $0.kind == .regular }.sorted { ($0.date, $0.sequence) > ($1.date, $1.sequence) }
        return Array(regular.dropFirst(max(keep, 0)).reversed())
    }
}

extension Calendar {
    fileprivate static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}
