/// A URL query component or form field, percent-encoded: every byte but the unreserved
/// characters of RFC 3986 (links built from names, forms sent to other services).
public enum URLText {
    public static func component(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                out.append("%"); out.append(hex[Int(byte >> 4)]); out.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
