import Foundation
import PacenoteNet

/// A command talking to the running server's API with the admin key (`pacenote workout`):
/// what lives in the daemon's memory — the workout in progress, the live plan — is changed
/// there, never behind its back in the database.
public struct ServerClient: Sendable {
    public let url: URL
    let key: String
    private let client = HTTPClient(userAgent: ForwardService.userAgent)

    /// `url` (`--url`), or the configured server: on loopback when it listens on every address.
    public init(config: Config, url: String?, environment: [String: String]) throws {
        self.url = try Self.serverURL(config: config, url: url)
        self.key = try APIKey.load(database: config.databasePath, environment: environment)
    }

    /// `url`, or the configured server (`hr-feed` sends there too).
    public static func serverURL(config: Config, url: String?) throws(StartupError) -> URL {
        let host = config.http.host == "0.0.0.0" || config.http.host == "::" ? "127.0.0.1" : config.http.host
        let defaultURL = "http://\(host.contains(":") ? "[\(host)]" : host):\(config.http.port)\(config.basePath)/"
        guard let server = URL(string: url ?? defaultURL), server.scheme == "http" || server.scheme == "https" else {
            throw StartupError("--url: '\(url ?? "")' is not an http(s) URL")
        }
        return server
    }

    /// `path` (with its query) under the server's URL, which ends in a slash or not.
    static func join(_ base: URL, _ path: String) -> String {
        let text = base.absoluteString
        return (text.hasSuffix("/") ? text : text + "/") + path
    }

    /// The server's answer: its JSON object, or the error it sent in its words.
    public func send(_ method: String, _ path: String, json body: [String: Any]? = nil) throws -> [String: Any] {
        var headers = [("Authorization", "Token \(key)"), ("Accept", "application/json")]
        var bytes: [UInt8]?
        if let body {
            headers.append(("Content-Type", "application/json"))
            bytes = Array(try JSONSerialization.data(withJSONObject: body))
        }
        let response: HTTPClient.Response
        do {
            response = try client.sendBlocking(HTTPClient.Request(
                method: method, url: Self.join(url, path), headers: headers, body: bytes, timeout: 10))
        } catch {
            throw StartupError("cannot reach pacenote at \(url.absoluteString) (\(error)): is 'pacenote serve' running? (--url)")
        }
        let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard (200..<300).contains(response.status) else {
            let message = ((object?["error"] as? [String: Any])?["message"] as? String) ?? response.text
            throw StartupError("the server answered \(response.status): \(message)")
        }
        return object ?? [:]
    }
}
