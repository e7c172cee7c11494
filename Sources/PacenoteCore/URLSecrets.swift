/// A URL as it may be shown: in `pacenote config`, the status, the pages, `pacenote forward
/// status`, log lines and error messages. A target's address can carry its credential (a
/// token in the query, `user:password@`), and whoever reads a screen or a log is not
/// necessarily the owner of that credential.
///
/// Masked: the password of the user information (`user:***@host`; a user name alone is
/// masked whole, `***@host`, as services put tokens there), and the value of every query
/// or fragment parameter whose name looks like a credential (`token`, `key`, `api_key`,
/// `secret`, `password`, `auth`, `sig`, `session`, …). Everything else is kept, so the
/// owner still recognises the address. Text that is no URL is returned as it is.
public enum URLSecrets {
    public static let mask = "***"

    /// Fragments of parameter names that mark a credential, compared in lower case with
    /// `-` and `_` removed (`api_key`, `apiKey`, `X-Auth-Token` all match).
    static let secretNameParts = ["token", "key", "secret", "pass", "pwd", "auth", "sig", "session", "sid", "credential",
                                  "jwt", "bearer", "cookie", "private", "signature", "code", "otp", "salt"]

    /// Whether a query parameter of this name is shown masked.
    public static func isSecretName(_ name: String) -> Bool {
        let decoded = name.removingPercentEncodingLossy.lowercased().filter { $0 != "-" && $0 != "_" && $0 != "." }
        return secretNameParts.contains { decoded.contains($0) }
    }

    /// `url` with its secrets replaced by `***`.
    public static func masked(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let scheme = url[..<schemeEnd.upperBound]
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        if let at = authority.lastIndex(of: "@") {
            let userinfo = authority[..<at]
            let host = authority[at...]
            if let colon = userinfo.firstIndex(of: ":") {
                authority = String(userinfo[..<colon]) + ":" + mask + host
            } else {
                authority = mask + host
            }
        }
        var tail = rest[authorityEnd...]
        var out = String(scheme) + authority
        if let question = tail.firstIndex(of: "?") {
            out += tail[..<question]
            tail = tail[question...]
            let fragmentStart = tail.firstIndex(of: "#") ?? tail.endIndex
            out += "?" + maskedParameters(tail[tail.index(after: tail.startIndex)..<fragmentStart])
            tail = tail[fragmentStart...]
        }
        if let hash = tail.firstIndex(of: "#") {
            out += tail[..<hash]
            // A fragment of `name=value` pairs (OAuth's implicit flow puts access_token there).
            out += "#" + maskedParameters(tail[tail.index(after: hash)...])
        } else {
            out += tail
        }
        return out
    }

    /// Every URL in `text` (a log line, an error message) masked: the words that begin with
    /// `http://` or `https://`, up to white space, a quote or an angle bracket.
    public static func maskedInText(_ text: String) -> String {
        guard text.contains("://") else { return text }
        var out = ""
        var rest = text[...]
        while let begin = [rest.range(of: "http://", options: .caseInsensitive), rest.range(of: "https://", options: .caseInsensitive)]
            .compactMap({ $0?.lowerBound }).min() {
            out += rest[..<begin]
            let end = rest[begin...].firstIndex { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\"" || $0 == "'" || $0 == "<"
                || $0 == ">" || $0 == "`" } ?? rest.endIndex
            out += masked(String(rest[begin..<end]))
            rest = rest[end...]
        }
        return out + rest
    }

    private static func maskedParameters(_ text: Substring) -> String {
        guard text.contains("=") else { return String(text) }
        return text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            let value = pair[pair.index(after: equals)...]
            return isSecretName(name) && !value.isEmpty ? name + "=" + mask : String(pair)
        }.joined(separator: "&")
    }
}

extension String {
    /// Percent-decoded where it decodes (`api%5Fkey` is `api_key`), as it is elsewhere.
    fileprivate var removingPercentEncodingLossy: String {
        guard contains("%") else { return self }
        var bytes: [UInt8] = []
        var utf8 = Array(self.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
               let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
