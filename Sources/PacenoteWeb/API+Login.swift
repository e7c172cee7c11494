import Foundation
import PacenoteCore

extension API {
    /// `GET /login`: the form; `POST /login` (`key`, optional `next`): a session cookie and
    /// a redirect back, or the form again with the reason.
    func login(_ request: HTTPRequest) throws -> HTTPResponse {
        let client = request.peerAddress ?? "-"
        let next = Self.localPath(request.query["next"] ?? Self.formField("next", in: request.body) ?? "/")
        guard request.method == "POST" else { return Self.loginPage(next: next, message: nil, status: 200) }
        if context.sessions.isLockedOut(client) {
            return Self.loginPage(next: next, message: "Too many attempts: wait a minute.", status: 429)
        }
        let sent = Self.formField("key", in: request.body)
            ?? (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])?["key"] as? String
        guard let sent, let key = context.currentKey(),
              Authorization.constantTimeEquals(Array(sent.trimmingCharacters(in: .whitespaces).utf8), Array(key.utf8)) else {
            context.sessions.recordFailure(from: client)
            return Self.loginPage(next: next, message: "That is not the API key (pacenote key shows it).", status: 401)
        }
        let id = context.sessions.create(key: key)
        let path = context.basePath.isEmpty ? "/" : context.basePath
        return HTTPResponse(status: 303, headers: [
            ("Location", context.basePath + next),
            ("Set-Cookie", "\(Sessions.cookieName)=\(id); Path=\(path); Max-Age=\(Int(Sessions.lifetime)); HttpOnly; SameSite=Strict"
                + (request.header("X-Forwarded-Proto") == "https" ? "; Secure" : "")),
            ("Cache-Control", "no-store"),
        ])
    }

    func logout(_ request: HTTPRequest) -> HTTPResponse {
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

    static func escapeHTML(_ text: String) -> String {
        var out = ""
        for ch in text {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// A plain form; the site's pages (issue 6) will dress it.
    static func loginPage(next: String, message: String?, status: Int) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Log in · Pacenote</title><meta name="robots" content="noindex"></head>
            <body>
            <main>
            <h1>Log in to Pacenote</h1>
            \(message.map { "<p role=\"alert\">\(escapeHTML($0))</p>" } ?? "")
            <form method="post" action="login">
            <label for="key">API key</label>
            <input id="key" name="key" type="password" autocomplete="current-password" required>
            <input type="hidden" name="next" value="\(escapeHTML(next))">
            <button type="submit">Log in</button>
            </form>
            <p>The key is shown by <code>pacenote key</code> on the server.</p>
            </main>
            </body></html>
            """
        return HTTPResponse(status: status, headers: [
            ("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store"),
            ("Content-Security-Policy", "default-src 'self'; form-action 'self'; frame-ancestors 'none'"),
            ("X-Frame-Options", "DENY"),
        ], body: Array(html.utf8))
    }
}
