import Foundation

/// Local calendar facts for a UTC instant in the display time zone. Timestamps are stored
/// as UTC; days (for SOTD and rollups) and hours (for the listening clock) follow the
/// configured IANA zone, daylight saving time included.
public struct LocalTime: Sendable {
    public let timeZone: TimeZone
    private let calendar: Calendar

    public init(timeZone: TimeZone) {
        self.timeZone = timeZone
        var cal = Calendar(identifier: .gregorian)
        cal.timeZone = timeZone
        self.calendar = cal
    }

    /// `YYYY-MM-DD` of the local day that contains `date`.
    public func day(of date: Date) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: date)
        return LocalTime.format(year: c.year!, month: c.month!, day: c.day!)
    }

    /// The local hour of day, 0–23.
    public func hour(of date: Date) -> Int {
        calendar.component(.hour, from: date)
    }

    static func format(year: Int, month: Int, day: Int) -> String {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}
