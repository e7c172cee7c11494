import Foundation

/// Local calendar facts for a UTC instant in the display time zone. Timestamps are stored
/// as UTC; days (for SOTD and rollups) and hours (for the listening clock) follow the
/// configured IANA zone, daylight saving time included.
public struct LocalTime: Sendable {
    public let timeZone: TimeZone
    /// The day weeks begin on (`[site] week_starts`).
    public let weekStart: WeekStart
    private let calendar: Calendar

    public init(timeZone: TimeZone, weekStart: WeekStart = .monday) {
        self.timeZone = timeZone
        self.weekStart = weekStart
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

    /// `YYYY-MM-DD`, zero-padded.
    public static func format(year: Int, month: Int, day: Int) -> String {
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}

extension LocalTime {
    /// The local day and hour of many instants, mostly in increasing order (an export's
    /// listens), without a calendar computation each: the zone's offset from UTC is looked up
    /// once per period between two of its transitions, and the rest is arithmetic.
    public struct Walker {
        let timeZone: TimeZone
        private var validFromMs = Int64.max
        private var validUntilMs = Int64.min
        private var offsetMs: Int64 = 0

        public init(timeZone: TimeZone) { self.timeZone = timeZone }

        /// Days since 1970-01-01 of the local day that contains `ms` (UTC milliseconds since
        /// the epoch), and the local hour, 0–23.
        public mutating func slot(ms: Int64) -> (dayNumber: Int, hour: Int) {
            if ms < validFromMs || ms >= validUntilMs {
                let date = Date(timeIntervalSince1970: Double(ms) / 1000)
                offsetMs = Int64(timeZone.secondsFromGMT(for: date)) * 1000
                validFromMs = ms
                validUntilMs = timeZone.nextDaylightSavingTimeTransition(after: date)
                    .map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) } ?? .max
            }
            let local = ms + offsetMs
            let day = local >= 0 ? local / 86_400_000 : (local - 86_399_999) / 86_400_000
            return (Int(day), Int((local - day * 86_400_000) / 3_600_000))
        }
    }
}
