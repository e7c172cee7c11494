import Foundation

/// Reads the points in time users and clients write in query strings (`from`, `to`):
/// ISO 8601 with an offset (`2026-11-22T07:15:00Z`, `…+01:00`, fractional seconds
/// allowed), a local day (`2026-11-22`, its start, or with `endOfDay` its end, in the
/// display time zone), or Unix seconds (`1763795700`).
public enum Instant {
    public static func parse(_ text: String, in local: LocalTime, endOfDay: Bool = false) -> Date? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if !t.isEmpty, t.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Double(t), seconds < 1e11 {
            return Date(timeIntervalSince1970: seconds)
        }
        if t.count == 10, let start = local.startOfDay(t) {
            return endOfDay ? local.startOfDay(after: start) : start
        }
        if let date = try? Date(t, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return date }
        if let date = try? Date(t, strategy: Date.ISO8601FormatStyle()) { return date }
        return nil
    }
}

extension LocalTime {
    /// The first instant of the local day `YYYY-MM-DD`, or nil if it is not a real date.
    public func startOfDay(_ day: String) -> Date? {
        let parts = day.split(separator: "-")
        // Digits only: Int("+1") would let "2026-+1-01" through as a second spelling of a day.
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        let components = DateComponents(year: y, month: m, day: d)
        guard components.isValidDate(in: cal), let date = cal.date(from: components) else { return nil }
        return cal.startOfDay(for: date)
    }

    /// The first instant of the local day after the one containing `date`.
    public func startOfDay(after date: Date) -> Date? {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        return cal.date(byAdding: .day, value: 1, to: cal.startOfDay(for: date))
    }
}
