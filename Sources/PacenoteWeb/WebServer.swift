import Dispatch
import Logging
import Metrics
import PacenoteCore
import PacenoteStore
import Synchronization

/// The site and API behind one HTTP server, optionally under a base path for running
/// behind a reverse proxy (`/pacenote/api/v1/status`). Each request is matched and its
/// access decided once, on its headers (`API.admit`): the match gives the body limit and
/// the metric label.
public final class WebServer: Sendable {
    private let http: HTTPServer

    public struct Settings: Sendable {
        /// The connection and body limits the HTTP server keeps (`server.max_body_bytes`,
        /// `max_connections_per_client`, `header_timeout_s`, `max_uploads_per_client`,
        /// `max_body_memory_bytes`, `keyless_body_timeout_s`, `min_body_bytes_per_s`):
        /// `HTTPServer.Settings`, whose `maxBodyBytes` is the routes' `BodyLimit.normal`.
        public var http: HTTPServer.Settings
        /// `server.max_import_bytes`: whole export files (`BodyLimit.import`).
        public var maxImportBytes: Int
        /// ListenBrainz batches (`BodyLimit.listenBrainz`).
        public var listenBrainzBodyBytes: Int
        /// Bodies received before any credential is judged (`BodyLimit.keyless`,
        /// `.keylessBatch`); the memory they share is `http.keylessBodyMemoryBytes`.
        public var keylessBodyBytes = 16 << 10
        public var keylessBatchBodyBytes = 64 << 10
        /// Reverse proxies, to which the per-client limits do not apply (they carry many clients).
        public var trustedProxies: [IPNetwork] = []
        /// Answer a change only once it is on disk (`GroupCommit`); off only to measure what
        /// that costs (`scripts/bench/durable`).
        public var acknowledgeDurably = true

        public init(address: ListenAddress, maxBodyBytes: Int = 1 << 20, maxImportBytes: Int = 64 << 20,
                    listenBrainzBodyBytes: Int = 16 << 20, connectionLimit: Int = 500,
                    connectionTimeoutSeconds: Int = 60, threads: Int = 4) {
            http = HTTPServer.Settings(address: address, maxBodyBytes: maxBodyBytes, connectionLimit: connectionLimit,
                                       connectionTimeoutSeconds: connectionTimeoutSeconds, threads: threads)
            self.maxImportBytes = maxImportBytes
            self.listenBrainzBodyBytes = max(listenBrainzBodyBytes, maxBodyBytes)
        }

        public func bytes(_ limit: BodyLimit) -> Int {
            switch limit {
            case .none: 0
            case .normal: http.maxBodyBytes
            case .import: maxImportBytes
            case .listenBrainz: listenBrainzBodyBytes
            case .keyless: keylessBodyBytes
            case .keylessBatch: keylessBatchBodyBytes
            }
        }

        /// What the HTTP server is started with.
        var serving: HTTPServer.Settings {
            var serving = http
            // One body of the largest size held in memory always fits.
            serving.bodyMemoryBytes = max(http.bodyMemoryBytes, http.maxBodyBytes, listenBrainzBodyBytes)
            serving.keylessBodyMemoryBytes = max(http.keylessBodyMemoryBytes, keylessBatchBodyBytes)
            serving.exemptAddress = { [trustedProxies] address in trustedProxies.containsAddress(address) }
            return serving
        }
    }

    public init(settings: Settings, basePath: String, api: API, logger: Logger) {
        let prefix = WebServer.normalise(basePath)
        let imports = ImportSlot()
        // Corrections that may take seconds run here, one at a time (they write anyway).
        let corrections = DispatchQueue(label: "pacenote.corrections")
        let store = api.context.store
        var httpSettings = settings.serving
        if settings.acknowledgeDurably {
            httpSettings.waitDurable = { [groupCommit = store.groupCommit] ticket in
                do throws(GroupCommit.SyncFailure) {
                    try groupCommit.waitDurable(ticket)
                    return nil
                } catch {
                    return error.description
                }
            }
        }
        self.http = HTTPServer(settings: httpSettings, logger: logger) { head in
            let started = DispatchTime.now()
            let (admission, request) = WebServer.admit(head, prefix: prefix, api: api)
            let name = admission.metricLabel
            // The client as lockouts know it (the forwarded one behind a trusted proxy).
            let client = Authorization.client(head, proxies: api.context.trustedProxies)
            switch admission {
            case .refused(let response, _), .answered(let response, _):
                WebServer.record(head, response, client: client, route: name, since: started, logger: logger)
                return .refuse(response)
            case .admitted(let match, let grant):
                // A change is acknowledged only once it is on disk (`GroupCommit`); reads
                // never wait, and neither does an import (it is run again if cut short).
                let acknowledgesWrites = head.method != "GET" && head.method != "HEAD" && match.policy.body != .import
                var accepted = HTTPServer.Accepted(bodyLimit: settings.bytes(match.policy.body)) { full in
                    let started = DispatchTime.now()
                    var request = request
                    request.body = full.body
                    request.bodyFile = full.bodyFile
                    let before = acknowledgesWrites ? store.commitCount : 0
                    var response = api.respond(to: request, match, grant)
                    if acknowledgesWrites, store.commitCount != before { response.durableTicket = store.commitCount }
                    WebServer.record(head, response, client: client, route: name, since: started, logger: logger)
                    return response
                }
                if match.policy.body.isKeyless {
                    // Before any credential: never `100 Continue` (it would invite the body of
                    // anyone at all); a client that asks for it is told to send without it.
                    if let expect = head.header("Expect"), !expect.isEmpty {
                        let response = HTTPResponse(apiError: APIError(
                            kind: .expectationFailed, code: "expectation_failed",
                            message: "this route reads its body before any credential: send it without 'Expect: \(expect)'"))
                        WebServer.record(head, response, client: client, route: name, since: started, logger: logger)
                        return .refuse(response)
                    }
                    accepted.keyless = true
                }
                if match.isLongWrite { accepted.worker = corrections }
                if match.policy.body == .import {
                    // Whole export files: to a private file as they arrive, imported one at a
                    // time on their own queue; another waits its turn (429) before its body is read.
                    guard imports.begin() else {
                        let response = HTTPServer.busy(APIError(kind: .tooManyRequests, code: "import_in_progress",
                                                                message: "another import is running: try again when it is done"),
                                                       retryAfter: 10)
                        WebServer.record(head, response, client: client, route: name, since: started, logger: logger)
                        return .refuse(response)
                    }
                    accepted.bodyToFile = true
                    accepted.worker = imports.queue
                    accepted.release = { imports.end() }
                }
                return .accept(accepted)
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
    static func record(_ request: HTTPRequest, _ response: HTTPResponse, client: String, route name: String,
                       since started: DispatchTime, logger: Logger) {
        let nanoseconds = DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds
        Counter(label: "pacenote_http_requests_total", dimensions: [("route", name), ("status", String(response.status))]).increment()
        Timer(label: "pacenote_http_request_duration_seconds", dimensions: [("route", name)]).recordNanoseconds(Int64(nanoseconds))
        // The access log, at debug level: never the body or the key; what the client chose
        // (method, path) with control characters escaped, so no request forges a line.
        if logger.logLevel <= .debug {
            let ms = Double(nanoseconds) / 1e6
            logger.debug("\(LogText.escaped(client)) \(LogText.escaped(request.method)) \(LogText.escaped(Route.loggable(request.path))) \(response.status) \(response.body.count) B \(String(format: "%.2f", ms)) ms")
        }
    }

    /// One import at a time, on a queue of its own: from its admission to its answer.
    final class ImportSlot: Sendable {
        let queue = DispatchQueue(label: "pacenote.import")
        private let busy = Atomic<Bool>(false)

        func begin() -> Bool { busy.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged }
        func end() { busy.store(false, ordering: .releasing) }
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
