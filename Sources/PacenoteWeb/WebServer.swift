import Dispatch
import Logging
import Metrics
import PacenoteCore

/// The site and API behind one HTTP server, optionally under a base path for running
/// behind a reverse proxy (`/pacenote/api/v1/status`). Each request is matched and its
/// access decided once, on its headers (`API.admit`): the match gives the body limit and
/// the metric label.
public final class WebServer: Sendable {
    private let http: HTTPServer

    public struct Settings: Sendable {
        public var address: ListenAddress
        /// `server.max_body_bytes`: the routes that take `BodyLimit.normal`.
        public var maxBodyBytes: Int
        /// `server.max_import_bytes`: whole export files (`BodyLimit.import`).
        public var maxImportBytes: Int
        /// ListenBrainz batches (`BodyLimit.listenBrainz`).
        public var listenBrainzBodyBytes: Int
        public var connectionLimit: Int
        public var connectionTimeoutSeconds: Int
        public var threads: Int

        public init(address: ListenAddress, maxBodyBytes: Int = 1 << 20, maxImportBytes: Int = 64 << 20,
                    listenBrainzBodyBytes: Int = 16 << 20, connectionLimit: Int = 512,
                    connectionTimeoutSeconds: Int = 60, threads: Int = 4) {
            self.address = address
            self.maxBodyBytes = maxBodyBytes
            self.maxImportBytes = maxImportBytes
            self.listenBrainzBodyBytes = max(listenBrainzBodyBytes, maxBodyBytes)
            self.connectionLimit = connectionLimit
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.threads = threads
        }

        public func bytes(_ limit: BodyLimit) -> Int {
            switch limit {
            case .none: 0
            case .normal: maxBodyBytes
            case .import: maxImportBytes
            case .listenBrainz: listenBrainzBodyBytes
            }
        }

        var http: HTTPServer.Settings {
            .init(address: address, maxBodyBytes: maxBodyBytes, connectionLimit: connectionLimit,
                  connectionTimeoutSeconds: connectionTimeoutSeconds, threads: threads)
        }
    }

    public init(settings: Settings, basePath: String, api: API, logger: Logger) {
        let prefix = WebServer.normalise(basePath)
        http = HTTPServer(settings: settings.http, logger: logger) { head in
            let started = DispatchTime.now()
            let (admission, request) = WebServer.admit(head, prefix: prefix, api: api)
            let name = admission.metricLabel
            switch admission {
            case .refused(let response, _):
                WebServer.record(head, response, route: name, since: started, logger: logger)
                return .refuse(response)
            case .admitted(let match, let grant):
                return .admit(bodyLimit: settings.bytes(match.policy.body)) { full in
                    let started = DispatchTime.now()
                    var request = request
                    request.body = full.body
                    let response = api.respond(to: request, match, grant)
                    WebServer.record(head, response, route: name, since: started, logger: logger)
                    return response
                }
            }
        }
        if let hub = api.context.eventHub {
            http.beforeStop = { hub.closeAll() }
        }
    }

    /// The base path taken off, then the API's one match and access decision.
    static func admit(_ head: HTTPRequest, prefix: String, api: API) -> (Admission, HTTPRequest) {
        var request = head
        if !prefix.isEmpty {
            guard request.path == prefix || request.path.hasPrefix(prefix + "/") else {
                return (.refused(HTTPResponse(apiError: .notFound("Pacenote is served under \(prefix)/")), nil), head)
            }
            request.path = String(request.path.dropFirst(prefix.count))
            if request.path.isEmpty { request.path = "/" }
        }
        return (api.admit(request), request)
    }

    /// Metrics by the matched route's own name, and the access log.
    static func record(_ request: HTTPRequest, _ response: HTTPResponse, route name: String, since started: DispatchTime, logger: Logger) {
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds
        Counter(label: "pacenote_http_requests_total", dimensions: [("route", name), ("status", String(response.status))]).increment()
        Timer(label: "pacenote_http_request_duration_seconds", dimensions: [("route", name)]).recordNanoseconds(Int64(nanoseconds))
        // The access log, at debug level: never the body or the key; what the client chose
        // (method, path) with control characters escaped, so no request forges a line.
        if logger.logLevel <= .debug {
            let ms = Double(nanoseconds) / 1e6
            logger.debug("\(request.peerAddress ?? "-") \(LogText.escaped(request.method)) \(LogText.escaped(request.path)) \(response.status) \(response.body.count) B \(String(format: "%.2f", ms)) ms")
        }
    }

    public func start() throws(HTTPServerError) { try http.start() }
    public func stop() { http.stop() }
    public var port: UInt16 { http.boundPort }

    /// `pacenote/` → `/pacenote`; `/` and `` → ``.
    public static func normalise(_ path: String) -> String {
        let trimmed = path.split(separator: "/").joined(separator: "/")
        return trimmed.isEmpty ? "" : "/" + trimmed
    }
}
