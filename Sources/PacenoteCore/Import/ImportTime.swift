/// Timestamps as exports write them, read as UTC milliseconds without Foundation's
/// formatters (they cost microseconds a row, and an import reads millions of rows).
public enum ImportTime {
    /// Times before this are broken rows (Last.fm exports carry `01 Jan 1970 00:00` for
    /// scrobbles it lost the time of): 1990-01-01.
    public static let earliestMs: Int64 = 631_152_000_000
    /// Times from this on are broken rows too (micro- or milliseconds where seconds were
    /// due): 2100-01-01.
    public static let latestMs: Int64 = 4_102_444_800_000

    /// Why a start time cannot be a listen's (`what`: the field and its text), or nil.
    public static func problem(_ ms: Int64, _ what: String) -> String? {
        if ms < earliestMs { return "\(what) is before 1990" }
        if ms >= latestMs { return "\(what) is after 2099" }
        return nil
    }

    /// Unix seconds as JSON gives them, in milliseconds: nil for what is not a finite
    /// number of seconds from 1990 up to 2100 (the conversion of a larger one would trap).
    public static func milliseconds(seconds: Double) -> Int64? {
        guard seconds.isFinite else { return nil }
        let ms = (seconds * 1000).rounded()
        guard ms >= Double(earliestMs), ms < Double(latestMs) else { return nil }
        return Int64(ms)
    }

    /// A duration or time played in seconds, or nil when it is none: negative, not finite,
    /// or two days and more (a row would otherwise fail its batch at `played_s >= 0`).
    public static func seconds(_ value: Double?) -> Double? {
        guard let value, value.isFinite, value >= 0, value < 172_800 else { return nil }
        return value
    }

    static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Reads `1612101780` (Unix seconds), `2021-01-31T14:03:00Z` (ISO 8601, any offset,
    /// optional fraction), `2021-01-31 14:03[:00]` (UTC) or `31 Jan 2021[,] 14:03` (UTC, as
    /// Last.fm exporters write it).
    public static func parse(_ text: String) -> Int64? {
        let s = Array(text.utf8).filter { $0 != UInt8(ascii: ",") }
        guard !s.isEmpty else { return nil }
        if s.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            guard s.count <= 13, let n = Int64(String(decoding: s, as: UTF8.self)) else { return nil }
            return s.count >= 12 ? n : n * 1000  // 13 digits: already milliseconds
        }
        var i = 0
        func number(maxDigits: Int = 9) -> Int? {
            var v = 0, n = 0
            while i < s.count, n < maxDigits, s[i] >= 48, s[i] <= 57 { v = v * 10 + Int(s[i] - 48); i += 1; n += 1 }
            return n == 0 ? nil : v
        }
        func skip(_ c: UInt8) -> Bool {
            if i < s.count, s[i] == c { i += 1; return true }
            return false
        }
        func skipSpaces() { while i < s.count, s[i] == 0x20 { i += 1 } }
        var year = 0, month = 0, day = 0
        guard let first = number() else { return nil }
        if skip(UInt8(ascii: "-")) {
            year = first
            guard year <= 9999, let m = number(maxDigits: 2), skip(UInt8(ascii: "-")), let d = number(maxDigits: 2) else { return nil }
            month = m
            day = d
            guard skip(UInt8(ascii: "T")) || skip(0x20) || i == s.count else { return nil }
        } else {
            day = first
            skipSpaces()
            let start = i
            while i < s.count, (s[i] | 0x20) >= 97, (s[i] | 0x20) <= 122 { i += 1 }
            let name = String(decoding: s[start..<i], as: UTF8.self).lowercased()
            guard name.count >= 3, let m = months.firstIndex(of: String(name.prefix(3))) else { return nil }
            month = m + 1
            skipSpaces()
            guard let y = number(maxDigits: 4) else { return nil }
            year = y
            skipSpaces()
        }
        guard (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = 0, millis = 0, offset = 0
        if i < s.count {
            guard let h = number(maxDigits: 2), skip(UInt8(ascii: ":")), let mi = number(maxDigits: 2), h < 24, mi < 60 else { return nil }
            seconds = h * 3600 + mi * 60
            if skip(UInt8(ascii: ":")) {
                guard let se = number(maxDigits: 2), se < 61 else { return nil }
                seconds += se
                if skip(UInt8(ascii: ".")) {
                    var scale = 100
                    while i < s.count, s[i] >= 48, s[i] <= 57 { millis += Int(s[i] - 48) * scale; scale /= 10; i += 1 }
                }
            }
            skipSpaces()
            if skip(UInt8(ascii: "Z")) {
            } else if i < s.count, s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
                let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = number(maxDigits: 2) else { return nil }
                _ = skip(UInt8(ascii: ":"))
                let om = number(maxDigits: 2) ?? 0
                offset = sign * (oh * 3600 + om * 60)
            } else if i < s.count {
                if String(decoding: s[i...], as: UTF8.self) == "UTC" { i = s.count } else { return nil }
            }
            guard i == s.count else { return nil }
        }
        let total = Int64(CivilDate.days(year: year, month: month, day: day)) * 86_400 + Int64(seconds - offset)
        return total * 1000 + Int64(millis)
    }

    /// `2021-01-31T14:03:00Z`, or with milliseconds when there are some.
    public static func iso(_ ms: Int64) -> String {
        let seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        let millis = Int(ms - seconds * 1000)
        let dayNumber = Int(seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400)
        let secondOfDay = Int(seconds - Int64(dayNumber) * 86_400)
        let (y, m, d) = CivilDate.civil(days: dayNumber)
        func pad(_ v: Int, _ n: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        var out = "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
        if millis != 0 { out += "." + pad(millis, 3) }
        return out + "Z"
    }
}
