/// A string as a double-quoted literal that is valid both as JSON (RFC 8259 §7) and as a
/// TOML basic string (toml.io v1.0.0 "String"): quotes and backslashes escaped, newline,
/// carriage return and tab by name, every other control character (DEL included, which
/// TOML forbids raw) as `\uXXXX`. Exports and the printed configuration both use it.
public enum QuotedString {
    public static func literal(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20 || c.value == 0x7F:
                let hex = String(c.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
