/// Values from requests (paths, headers) as they may appear in a log line: control
/// characters escaped, so a `%0a` in a path cannot start a forged line of its own.
public enum LogText {
    /// `\n`, `\r`, `\t` and `\\` as two characters; other control characters (C0, DEL, C1,
    /// and the Unicode line and paragraph separators) as `\u{…}`.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            case _ where needsEscape(scalar): out += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value) || s.value == 0x2028 || s.value == 0x2029 || s == "\\"
    }
}
