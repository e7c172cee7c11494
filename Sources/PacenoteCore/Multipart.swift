/// A `multipart/form-data` body (RFC 7578, on RFC 2046 section 5.1.1's delimiters), read
/// into its parts: what Plex's webhooks send (a `payload` part of JSON, perhaps a `thumb`).
public enum Multipart {
    public struct Part: Equatable, Sendable {
        /// The `name` of its `Content-Disposition: form-data; name="…"`.
        public var name: String?
        public var contentType: String?
        public var body: [UInt8]
    }

    /// The boundary of a `Content-Type` header's value, unquoted.
    public static func boundary(_ contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].multipartTrimmed().lowercased() == "boundary" else { continue }
            var value = pair[1].multipartTrimmed()
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            // RFC 2046: 1 to 70 characters.
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    /// The parts, or nil when the body is not multipart with this content type's boundary
    /// (no boundary, no closing delimiter, a part without its blank line). At most 16 parts.
    public static func parts(_ body: [UInt8], contentType: String) -> [Part]? {
        guard let boundary = boundary(contentType) else { return nil }
        let delimiter = Array(("--" + boundary).utf8)
        var starts: [Int] = []
        var i = 0
        // A delimiter begins the body or a line.
        while let found = find(delimiter, in: body, from: i) {
            if found == 0 || (found >= 2 && body[found - 2] == 13 && body[found - 1] == 10) || (found >= 1 && body[found - 1] == 10) {
                starts.append(found)
            }
            i = found + delimiter.count
        }
        guard starts.count >= 2 else { return nil }
        let last = starts[starts.count - 1] + delimiter.count
        guard body.count >= last + 2, body[last] == 45, body[last + 1] == 45 else { return nil }  // the closing "--"
        var parts: [Part] = []
        for (start, next) in zip(starts, starts.dropFirst()) {
            var from = start + delimiter.count
            // The rest of the delimiter line (transport padding) up to its line break.
            while from < next, body[from] != 10 { from += 1 }
            from += 1
            var end = next
            if end >= 1, body[end - 1] == 10 { end -= 1 }
            if end >= 1, body[end - 1] == 13 { end -= 1 }
            guard from <= end else { return nil }
            let section = Array(body[from..<end])
            // The headers end at a blank line (a part without headers begins with it).
            let blank: (at: Int, length: Int)
            if section.starts(with: [13, 10]) {
                blank = (0, 2)
            } else if let at = find([13, 10, 13, 10], in: section, from: 0) {
                blank = (at, 4)
            } else if let at = find([10, 10], in: section, from: 0) {
                blank = (at, 2)
            } else {
                return nil
            }
            let headerText = String(decoding: section[..<blank.at], as: UTF8.self)
            var part = Part(name: nil, contentType: nil, body: Array(section[(blank.at + blank.length)...]))
            for line in headerText.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
                let pair = line.split(separator: ":", maxSplits: 1)
                guard pair.count == 2 else { continue }
                let value = pair[1].multipartTrimmed()
                switch pair[0].multipartTrimmed().lowercased() {
                case "content-disposition": part.name = parameter("name", in: value)
                case "content-type": part.contentType = value
                default: break
                }
            }
            parts.append(part)
            if parts.count > 16 { return nil }
        }
        return parts
    }

    static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].multipartTrimmed().lowercased() == name else { continue }
            var v = pair[1].multipartTrimmed()
            if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
            return v
        }
        return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        let first = needle[0]
        var i = start
        while i <= haystack.count - needle.count {
            if haystack[i] == first, haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}

extension Substring {
    fileprivate func multipartTrimmed() -> String {
        var s = self
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}

extension String {
    fileprivate func multipartTrimmed() -> String { Substring(self).multipartTrimmed() }
}
