import Foundation

/// Atom's date constructs (RFC 4287 §3.3: RFC 3339 `date-time`), read and written with the
/// offset they carry, so that the day can be read from the text as its author wrote it,
/// whatever the reader's zone: a song of the day's `published` is its day at midnight UTC
/// (`2026-11-26T00:00:00Z`, `SongOfTheDay.publicStamp`), and older Pacenotes wrote the start
/// of the day in the owner's zone (`2026-11-26T00:00:00+01:00`).
public struct RFC3339: Equatable, Sendable {
    public var date: Date
    /// The offset from UTC the text was written in, in seconds (0 for `Z`).
    public var offsetSeconds: Int

    public init(date: Date, offsetSeconds: Int = 0) {
        self.date = date
        self.offsetSeconds = offsetSeconds
    }

    /// `YYYY-MM-DD` of the day in the written offset.
    public var localDay: String {
        let seconds = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(offsetSeconds)
        let days = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let c = CivilDate.civil(days: days)
        return LocalTime.format(year: c.year, month: c.month, day: c.day)
    }

    /// `2026-11-26T00:00:00+01:00`, or with `Z` at offset 0; whole seconds.
    public var text: String {
        let local = Int64((date.timeIntervalSince1970).rounded(.down)) + Int64(offsetSeconds)
        let (d, s) = local.quotientAndRemainder(dividingBy: 86_400)
        let (days, secondOfDay) = s < 0 ? (d - 1, s + 86_400) : (d, s)
        let c = CivilDate.civil(days: Int(days))
        func pad(_ v: Int64) -> String { v < 10 ? "0\(v)" : String(v) }
        var out = LocalTime.format(year: c.year, month: c.month, day: c.day)
        out += "T\(pad(secondOfDay / 3600)):\(pad(secondOfDay / 60 % 60)):\(pad(secondOfDay % 60))"
        if offsetSeconds == 0 { return out + "Z" }
        let a = Int64(abs(offsetSeconds))
        return out + (offsetSeconds < 0 ? "-" : "+") + "\(pad(a / 3600)):\(pad(a / 60 % 60))"
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, lower case `t` and `z` and a space
    /// for the `T` too (RFC 3339 §5.6 allows them); nil for anything else.
    public static func parse(_ text: String) -> RFC3339? {
        let b = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard b.count >= 20, b.count <= 40 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for k in range {
                guard (48...57).contains(b[k]) else { return nil }
                n = n * 10 + Int(b[k] - 48)
            }
            return n
        }
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t") || b[10] == UInt8(ascii: " "),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // The day must exist (no 31 February).
        let days = CivilDate.days(year: year, month: month, day: day)
        guard CivilDate.civil(days: days) == (year, month, day) else { return nil }
        var k = 19
        var fraction = 0.0
        if k < b.count, b[k] == UInt8(ascii: ".") {
            k += 1
            var scale = 0.1
            let start = k
            while k < b.count, (48...57).contains(b[k]) {
                fraction += Double(b[k] - 48) * scale
                scale /= 10
                k += 1
            }
            guard k > start else { return nil }
        }
        guard k < b.count else { return nil }
        var offset = 0
        if b[k] == UInt8(ascii: "Z") || b[k] == UInt8(ascii: "z") {
            guard k + 1 == b.count else { return nil }
        } else {
            guard b[k] == UInt8(ascii: "+") || b[k] == UInt8(ascii: "-"), k + 6 == b.count, b[k + 3] == UInt8(ascii: ":"),
                  let oh = number((k + 1)..<(k + 3)), let om = number((k + 4)..<(k + 6)), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (b[k] == UInt8(ascii: "-") ? -1 : 1)
        }
        let local = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + min(second, 59)) + fraction
        return RFC3339(date: Date(timeIntervalSince1970: local - Double(offset)), offsetSeconds: offset)
    }
}
