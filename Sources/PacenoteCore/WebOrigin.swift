import Foundation

/// A web origin as browsers send it in `Origin` (RFC 6454 §6.1: `scheme "://" host [ ":" port ]`),
/// for `server.cors_origins`: the pages on other sites that may call Pacenote's key routes.
/// Written the way browsers serialise it, so a configured origin is compared with the header
/// as text: scheme and host in lower case, no default port, no path.
public struct WebOrigin: Hashable, Sendable, CustomStringConvertible {
    public let text: String

    public var description: String { text }

    /// Why a configured origin is refused: the words for the configuration error.
    public enum Refusal: Error, Equatable, Sendable {
        /// `*`: with it any page on the web could read what a key or a trusted network may read
        /// from a browser that has one (Pacenote sends no `Access-Control-Allow-Credentials`, but
        /// trusted networks are an ambient credential of the browser's address).
        case wildcard
        /// `null`: the origin of sandboxed frames and `file:` pages, which any page can forge.
        case null
        case notAnOrigin
    }

    /// Web pages, and browser extensions' pages (Web Scrobbler's options page sends its listens
    /// from `chrome-extension://ID` or `moz-extension://UUID`).
    static let schemes = ["https", "http", "chrome-extension", "moz-extension", "safari-web-extension"]

    /// `https://Example.org:443/` → `https://example.org`; `http://localhost:8080` stays.
    public init(parsing input: String) throws(Refusal) {
        let trimmed = input.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" || trimmed.contains("*") { throw .wildcard }
        if trimmed.lowercased() == "null" { throw .null }
        var rest = Substring(trimmed)
        guard let scheme = Self.schemes.first(where: { rest.lowercased().hasPrefix($0 + "://") }) else { throw .notAnOrigin }
        rest = rest.dropFirst(scheme.count + 3)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty, !rest.contains(where: { "/?#@ \\\t".contains($0) }) else { throw .notAnOrigin }
        var host = rest.lowercased(), port: String?
        if host.hasPrefix("[") {
            guard let end = host.firstIndex(of: "]") else { throw .notAnOrigin }
            let after = host[host.index(after: end)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .notAnOrigin }
                port = String(after.dropFirst())
            }
            host = String(host[...end])
        } else if let colon = host.lastIndex(of: ":") {
            port = String(host[host.index(after: colon)...])
            host = String(host[..<colon])
        }
        guard !host.isEmpty, host != "[]" else { throw .notAnOrigin }
        if let p = port {
            guard !p.isEmpty, p.allSatisfy(\.isASCII), let number = Int(p), (1...65535).contains(number) else { throw .notAnOrigin }
            port = (scheme == "https" && number == 443) || (scheme == "http" && number == 80) ? nil : String(number)
        }
        text = scheme + "://" + host + (port.map { ":" + $0 } ?? "")
    }

    /// The origin a browser sent, when it is one of `allowed` (compared as browsers write it:
    /// exactly, but for the case of scheme and host).
    public static func allowed(_ header: String?, in allowed: [WebOrigin]) -> WebOrigin? {
        guard let header, !allowed.isEmpty, let origin = try? WebOrigin(parsing: header) else { return nil }
        return allowed.first { $0 == origin }
    }
}
