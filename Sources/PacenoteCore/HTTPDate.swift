import Foundation

/// HTTP dates (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`, for `Last-Modified`,
/// `If-Modified-Since` and `Retry-After`.
public enum HTTPDate {
    static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    public static func string(_ date: Date) -> String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let (d, s) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (days, secondOfDay) = s < 0 ? (d - 1, s + 86_400) : (d, s)
        let c = CivilDate.civil(days: Int(days))
        func pad(_ v: Int64) -> String { v < 10 ? "0\(v)" : String(v) }
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        return "\(weekday), \(pad(Int64(c.day))) \(months[c.month - 1]) \(c.year) "
            + "\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60)) GMT"
    }

    /// The IMF-fixdate form only (what every server sends since HTTP/1.1); nil otherwise.
    public static func parse(_ text: String) -> Date? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT", let day = Int(parts[1]),
              let monthIndex = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]) else { return nil }
        let time = parts[4].split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (1...31).contains(day), time[0] < 24, time[1] < 60, time[2] < 61 else { return nil }
        let days = CivilDate.days(year: year, month: monthIndex + 1, day: day)
        return Date(timeIntervalSince1970: Double(days * 86_400 + time[0] * 3600 + time[1] * 60 + time[2]))
    }
}
