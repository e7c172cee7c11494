import Foundation
import PacenoteCore

extension API {
    /// `GET /login`: the form; `POST /login` (`key`, optional `next`): a session cookie and
    /// a redirect back, or the form again with the reason. The lockout was decided from the
    /// headers (`Access.keyCheck`); a wrong key counts against `client`, as everywhere.
    func loginForm(_ request: HTTPRequest) -> HTTPResponse {
        loginPage(request, next: Self.localPath(request.query["next"] ?? Self.formField("next", in: request.body) ?? "/"), message: nil, status: 200)
    }

    func login(_ request: HTTPRequest, client: String) throws -> HTTPResponse {
        let next = Self.localPath(request.query["next"] ?? Self.formField("next", in: request.body) ?? "/")
        let sent = (Self.formField("key", in: request.body)
            ?? (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["key"] as? String)?
            .trimmingCharacters(in: .whitespaces)
        guard let sent, let key = context.currentKey(), Authorization.matches(sent, key) else {
            // A named key is valid but opens no session: only the instance's own key logs in.
            if let sent, let scope = context.namedKey(sent) {
                return loginPage(request, next: next,
                                 message: "Named keys (this one's scope: \(scope.rawValue)) are for apps and cannot log in: use the key pacenote key shows.",
                                 status: 403)
            }
            context.sessions.recordFailure(from: client)
            return loginPage(request, next: next, message: "That is not the API key (pacenote key shows it).", status: 401)
        }
        let id = context.sessions.create(key: key)
        let path = context.basePath.isEmpty ? "/" : context.basePath
        return HTTPResponse(status: 303, headers: [
            ("Location", context.basePath + next),
            ("Set-Cookie", "\(Sessions.cookieName)=\(id); Path=\(path); Max-Age=\(Int(Sessions.lifetime)); HttpOnly; SameSite=Strict"
                + (isHTTPS(request) ? "; Secure" : "")),
            ("Cache-Control", "no-store"),
        ])
    }

    /// Whether the browser reached the site over https: the configured public address says
    /// so, or a trusted proxy does (`X-Forwarded-Proto`); anyone else's header is not believed.
    func isHTTPS(_ request: HTTPRequest) -> Bool {
        if let publicURL = context.publicURL { return publicURL.hasPrefix("https://") }
        guard Authorization.isFromTrustedProxy(request, proxies: context.trustedProxies) else { return false }
        return request.header("X-Forwarded-Proto")?.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// A locked-out client posting the form: the form again, with the reason.
    func loginLockedOut(_ request: HTTPRequest) -> HTTPResponse {
        loginPage(request, next: Self.localPath(request.query["next"] ?? "/"), message: "Too many attempts: wait a minute.", status: 429)
    }

    /// `POST /logout`, from the site's own pages only: another site cannot log its
    /// visitor out (a cross-site form post is refused).
    func logout(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard Sessions.isSameOrigin(request, publicURL: context.publicURL) else {
            throw APIError(kind: .forbidden, code: "cross_origin", message: "log out from Pacenote's own pages")
        }
        if let id = Sessions.cookie(in: request) { context.sessions.end(id) }
        let path = context.basePath.isEmpty ? "/" : context.basePath
        return HTTPResponse(status: 303, headers: [
            ("Location", context.basePath + "/"),
            ("Set-Cookie", "\(Sessions.cookieName)=; Path=\(path); Max-Age=0; HttpOnly; SameSite=Strict"),
        ])
    }

    /// A path on this site only: an open redirect (`//evil.example`, `https://…`) becomes `/`.
    static func localPath(_ text: String) -> String {
        // Browsers drop tabs and newlines from URLs ("/\t/evil" becomes "//evil"): any
        // white space or control character makes it no local path.
        guard text.hasPrefix("/"), !text.hasPrefix("//"), !text.contains("\\"),
              !text.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) else {
            return "/"
        }
        return text
    }

    static func formField(_ name: String, in body: [UInt8]) -> String? {
        let text = String(decoding: body, as: UTF8.self)
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            if parts.count == 2, parts[0] == name { return parts[1] }
        }
        return nil
    }

    /// The form, in the site's layout (and its escaping, like every page).
    func loginPage(_ request: HTTPRequest, next: String, message: String?, status: Int) -> HTTPResponse {
        var response = html(title: "Log in", request: request, nav: nil, status: status,
                            head: [Node.el("meta", ["name": "robots", "content": "noindex"])]) {
            Node.el("section", ["class": "card"]) {
                Node.el("h1") { "Log in to Pacenote" }
                if let message { Node.el("p", ["role": "alert"]) { message } }
                Node.el("form", ["method": "post", "action": url("/login"), "class": "search"]) {
                    Node.el("label", ["for": "key"]) { "API key" }
                    Node.el("input", ["id": "key", "name": "key", "type": "password", "autocomplete": "current-password", "required": ""])
                    Node.el("input", ["type": "hidden", "name": "next", "value": next])
                    Node.el("button", ["type": "submit"]) { "Log in" }
                }
                Node.el("p", ["class": "muted small"]) {
                    "The key is shown by "
                    Node.el("code") { "pacenote key" }
                    " on the server."
                }
            }
        }
        response.headers = response.headers.map { $0.0 == "Cache-Control" ? ($0.0, "no-store") : $0 }
        response.headers.append(("X-Frame-Options", "DENY"))
        return response
    }
}
