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
        // A local time without an offset (a browser's datetime-local): in the display zone.
        if t.count == 16 || t.count == 19, let local = local.date(localDateTime: t) { return local }
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

    /// `YYYY-MM-DDTHH:MM` or `YYYY-MM-DDTHH:MM:SS` in this time zone, or nil.
    public func date(localDateTime text: String) -> Date? {
        let chars = Array(text)
        guard chars.count >= 16, chars[10] == "T" || chars[10] == " ", chars[13] == ":",
              let day = startOfDay(String(chars[0..<10])) else { return nil }
        let digits = { (range: Range<Int>) -> Int? in
            let part = chars[range]
            return part.allSatisfy { $0.isASCII && $0.isNumber } ? Int(String(part)) : nil
        }
        guard let hour = digits(11..<13), let minute = digits(14..<16), hour < 24, minute < 60 else { return nil }
        var second = 0
        if chars.count == 19 {
            guard chars[16] == ":", let s = digits(17..<19), s < 60 else { return nil }
            second = s
        }
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        var components = cal.dateComponents([.year, .month, .day], from: day)
        components.hour = hour
        components.minute = minute
        components.second = second
        return cal.date(from: components)
    }

    /// The first instant of the local day after the one containing `date`.
    public func startOfDay(after date: Date) -> Date? {
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        return cal.date(byAdding: .day, value: 1, to: cal.startOfDay(for: date))
    }
}
