/// The proleptic Gregorian calendar as day numbers (days since 1970-01-01), without
/// Foundation: the API's timestamps and the importers' dates are written and read millions
/// of times (Howard Hinnant's algorithms, http://howardhinnant.github.io/date_algorithms.html).
public enum CivilDate {
    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day number (Hinnant's `civil_from_days`).
    public static func civil(days z0: Int) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// Days since 1970-01-01 of a valid `YYYY-MM-DD`, read byte by byte; nil for anything else.
    public static func days(of text: String) -> Int? {
        var text = text
        return text.withUTF8 { days(ofUTF8: $0) }
    }

    /// The same of UTF-8 bytes (a database's text, read without making a string).
    public static func days(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                let b = bytes[i]
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int(b - UInt8(ascii: "0"))
            }
            return n
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10), (1...12).contains(m), d >= 1 else { return nil }
        let next = m == 12 ? days(year: y + 1, month: 1, day: 1) : days(year: y, month: m + 1, day: 1)
        let n = days(year: y, month: m, day: d)
        return n < next ? n : nil
    }
}
