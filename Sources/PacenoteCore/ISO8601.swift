import Foundation

/// ISO 8601 timestamps as the API writes them: UTC with an explicit offset and
/// milliseconds, `2026-11-22T07:15:03.250Z`.
public enum ISO8601 {
    public static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
