import Foundation

/// ISO 8601 timestamps as the API writes them: UTC with an explicit offset and
/// milliseconds, `2026-11-22T07:15:03.250Z`.
///
/// Written by hand from the civil calendar (`CivilDate`): the
/// listens endpoint writes two per row, and Foundation's format style costs ~10 µs each.
public enum ISO8601 {
    public static func string(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded())
        return string(epochMilliseconds: ms)
    }

    public static func string(epochMilliseconds ms: Int64) -> String {
        let (days, msOfDay) = ms.quotientAndRemainder(dividingBy: 86_400_000)
        let (d, m) = msOfDay < 0 ? (days - 1, msOfDay + 86_400_000) : (days, msOfDay)
        let civil = CivilDate.civil(days: Int(d))
        let (year, month, day) = (Int64(civil.year), Int64(civil.month), Int64(civil.day))
        let seconds = m / 1000
        var out: [UInt8] = []
        out.reserveCapacity(26)
        if year < 0 || year > 9999 {
            // Years beyond four digits are written with a sign (ISO 8601 expanded form).
            out.append(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            append(abs(year), width: 6, to: &out)
        } else {
            append(year, width: 4, to: &out)
        }
        out.append(UInt8(ascii: "-")); append(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-")); append(day, width: 2, to: &out)
        out.append(UInt8(ascii: "T")); append(seconds / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":")); append(seconds / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":")); append(seconds % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ".")); append(m % 1000, width: 3, to: &out)
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func append(_ value: Int64, width: Int, to out: inout [UInt8]) {
        var digits: [UInt8] = []
        var v = value
        repeat { digits.append(UInt8(ascii: "0") + UInt8(v % 10)); v /= 10 } while v > 0
        if digits.count < width { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - digits.count)) }
        out.append(contentsOf: digits.reversed())
    }
}
