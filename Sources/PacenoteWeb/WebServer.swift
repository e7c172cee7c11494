import Dispatch
import Logging
import Metrics
import PacenoteCore

/// The site and API behind one HTTP server, optionally under a base path for running
/// behind a reverse proxy (`/pacenote/api/v1/status`).
public final class WebServer: Sendable {
    private let http: HTTPServer

    public init(settings: HTTPServer.Settings, basePath: String, api: API, logger: Logger) {
        let prefix = WebServer.normalise(basePath)
        http = HTTPServer(settings: settings, logger: logger) { request in
            let started = DispatchTime.now()
            let response = WebServer.route(request, prefix: prefix, api: api)
            let nanoseconds = DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds
            let path = prefix.isEmpty ? request.path : String(request.path.dropFirst(prefix.count))
            let name = (try? Route.match(method: "GET", path: path).get())?.metricName
                ?? (try? Route.match(method: "POST", path: path).get())?.metricName ?? "unknown"
            Counter(label: "pacenote_http_requests_total", dimensions: [("route", name), ("status", String(response.status))]).increment()
            Timer(label: "pacenote_http_request_duration_seconds", dimensions: [("route", name)]).recordNanoseconds(Int64(nanoseconds))
            // The access log, at debug level: never the body or the key.
            if logger.logLevel <= .debug {
                let ms = Double(nanoseconds) / 1e6
                logger.debug("\(request.peerAddress ?? "-") \(request.method) \(request.path) \(response.status) \(response.body.count) B \(String(format: "%.2f", ms)) ms")
            }
            return response
        }
        if let hub = api.context.eventHub {
            http.beforeStop = { hub.closeAll() }
        }
    }

    static func route(_ request: HTTPRequest, prefix: String, api: API) -> HTTPResponse {
        var request = request
        if !prefix.isEmpty {
            guard request.path == prefix || request.path.hasPrefix(prefix + "/") else {
                return HTTPResponse(apiError: .notFound("Pacenote is served under \(prefix)/"))
            }
            request.path = String(request.path.dropFirst(prefix.count))
            if request.path.isEmpty { request.path = "/" }
        }
        return api.handle(request)
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
