import CCurl
import Dispatch

/// Why an outgoing request failed before an answer came back.
public enum HTTPClientError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidURL(String)
    case timedOut
    /// The answer was longer than the request allowed; nothing of it is kept.
    case tooLarge(limit: Int)
    /// No connection, a refused or reset connection, a TLS failure, … in libcurl's words.
    case transport(String)
    /// The request's `addressCheck` refused the address a connection was to be made to
    /// (nothing was sent to it): its reason.
    case refused(String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "not an http(s) URL: \(url)"
        case .timedOut: "timed out"
        case .tooLarge(let limit): "answer larger than \(limit) bytes"
        case .transport(let why): why
        case .refused(let why): why
        }
    }
}

/// Outgoing HTTP(S) for forwarding plays and reading friends' feeds: the only importer of
/// libcurl. Each request runs on its own thread of a private queue (a transfer blocks), never on
/// Swift's cooperative pool, so a slow service cannot stall the server.
public final class HTTPClient: Sendable {
    public struct Request: Sendable {
        public var method: String
        public var url: String
        public var headers: [(String, String)]
        public var body: [UInt8]?
        /// Seconds for the whole exchange.
        public var timeout: Double
        public var maxResponseBytes: Int
        /// Asked with each address (4 or 16 bytes) before a connection is made to it, after
        /// DNS: a reason refuses it. Set, the request uses no proxy (see `pn_curl_guard`).
        public var addressCheck: (@Sendable ([UInt8]) -> String?)?

        public init(method: String = "GET", url: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
                    timeout: Double = 30, maxResponseBytes: Int = 1 << 20, addressCheck: (@Sendable ([UInt8]) -> String?)? = nil) {
            self.addressCheck = addressCheck
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.maxResponseBytes = maxResponseBytes
        }
    }

    public struct Response: Sendable {
        public var status: Int
        /// Header names in lower case; a repeated header keeps its last value.
        public var headers: [String: String]
        public var body: [UInt8]

        public init(status: Int, headers: [String: String], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        public func header(_ name: String) -> String? { headers[name.lowercased()] }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public let userAgent: String
    private let queue = DispatchQueue(label: "pacenote.http-client", attributes: .concurrent)

    public init(userAgent: String) {
        self.userAgent = userAgent
    }

    /// libcurl, loaded and initialised (curl_global_init) once, before the first transfer
    /// (Swift runs a static's initializer once, whichever thread asks first). Not at start:
    /// loading it maps OpenSSL and the rest of its libraries, and its initialisation reads
    /// OpenSSL's configuration, ~4 MiB resident that a daemon which never sends a request
    /// (no `[[forward]]`, no friends) should not carry.
    private static let curl: Result<Curl, HTTPClientError> = {
        let api = UnsafeMutablePointer<pn_curl>.allocate(capacity: 1)  // for the life of the process
        api.initialize(to: pn_curl())
        if let failure = pn_curl_load(api) {
            return .failure(.transport("libcurl could not be loaded: \(String(cString: failure))"))
        }
        _ = api.pointee.global_init(Int(CURL_GLOBAL_DEFAULT))
        return .success(Curl(api: api))
    }()

    /// Loads and initialises libcurl now rather than at the first transfer, for a sender whose
    /// first request is as urgent as the rest (hr-feed: a strap's first reading reached the
    /// server 120 ms late on a loaded box, the loading's cost); a library that cannot be loaded
    /// is then said at start.
    public static func load() throws(HTTPClientError) {
        if case .failure(let error) = curl { throw error }
    }

    /// libcurl's functions, as loaded.
    private final class Curl: @unchecked Sendable {
        // @unchecked Sendable: the table is filled once, before the static above is published,
        // then only read; the functions themselves are thread-safe for distinct handles.
        let api: UnsafeMutablePointer<pn_curl>
        init(api: UnsafeMutablePointer<pn_curl>) { self.api = api }
        var functions: pn_curl { api.pointee }
    }

    public func send(_ request: Request) async throws(HTTPClientError) -> Response {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw .invalidURL(request.url)
        }
        let userAgent = self.userAgent
        let result: Result<Response, HTTPClientError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: HTTPClient.perform(request, userAgent: userAgent)) }
        }
        return try result.get()
    }

    /// The same on the calling thread, for a thread of its own (the forwarder): blocks until
    /// the answer or the timeout.
    public func sendBlocking(_ request: Request) throws(HTTPClientError) -> Response {
        guard request.url.hasPrefix("http://") || request.url.hasPrefix("https://") else {
            throw .invalidURL(request.url)
        }
        return try HTTPClient.perform(request, userAgent: userAgent).get()
    }

    /// Collects one transfer's answer; libcurl's callbacks reach it through an opaque pointer.
    private final class Sink {
        let limit: Int
        var body: [UInt8] = []
        var headers: [String: String] = [:]
        var overflowed = false
        let addressCheck: (@Sendable ([UInt8]) -> String?)?
        /// The first refusal of `addressCheck`.
        var refusal: String?
        init(limit: Int, addressCheck: (@Sendable ([UInt8]) -> String?)?) {
            self.limit = limit
            self.addressCheck = addressCheck
        }
    }

    private static func perform(_ request: Request, userAgent: String) -> Result<Response, HTTPClientError> {
        let curl: Curl
        switch HTTPClient.curl {
        case .success(let loaded): curl = loaded
        case .failure(let error): return .failure(error)
        }
        guard let handle = curl.functions.easy_init() else { return .failure(.transport("libcurl could not start a transfer")) }
        defer { curl.functions.easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl.functions.slist_free_all(list) }
        // libcurl adds "Expect: 100-continue" to large POSTs and waits for it; services answer at once.
        for (name, value) in request.headers + [("Expect", "")] {
            list = curl.functions.slist_append(list, value.isEmpty ? "\(name):" : "\(name): \(value)")
        }
        let sink = Sink(limit: request.maxResponseBytes, addressCheck: request.addressCheck)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let onBody: pn_curl_sink = { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard sink.body.count + length <= sink.limit else {
                sink.overflowed = true
                return 0
            }
            if let data { sink.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length)) }
            return length
        }
        let onHeader: pn_curl_sink = { data, size, count, context in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            let length = size * count
            guard let data else { return length }
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
            if line.hasPrefix("HTTP/") {
                sink.headers = [:]  // a new response (after 100 Continue, or a proxy's 200 to CONNECT)
            } else if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].trimmingSpaces.lowercased()
                sink.headers[name] = line[line.index(after: colon)...].trimmingSpaces
            }
            return length
        }
        let onConnect: curl_opensocket_callback = { context, _, address in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            guard let address else { return CURL_SOCKET_BAD }
            var bytes = [UInt8](repeating: 0, count: 16)
            let count = Int(pn_curl_address(address, &bytes))
            let reason = count == 0 ? "refused to connect: not an IP address" : sink.addressCheck?(Array(bytes.prefix(count)))
            if let reason {
                if sink.refusal == nil { sink.refusal = reason }
                return CURL_SOCKET_BAD
            }
            return pn_curl_open_socket(address)
        }
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errors in
            let body = request.body ?? []
            return body.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars -> CURLcode in
                    let bodyPointer: UnsafePointer<CChar>? = request.body == nil ? nil
                        : (chars.baseAddress ?? UnsafePointer(errors.baseAddress!))
                    let prepared = pn_curl_prepare(curl.api, handle, request.url, request.method, list, bodyPointer, body.count,
                                                   Int(request.timeout * 1000), Int(min(request.timeout, 10) * 1000),
                                                   userAgent, onBody, onHeader, context, errors.baseAddress)
                    guard prepared == CURLE_OK else { return prepared }
                    if request.addressCheck != nil {
                        let guarded = pn_curl_guard(curl.api, handle, onConnect, context)
                        guard guarded == CURLE_OK else { return guarded }
                    }
                    return curl.functions.easy_perform(handle)
                }
            }
        }
        if sink.overflowed { return .failure(.tooLarge(limit: request.maxResponseBytes)) }
        // Refused and nothing else tried succeeded (another address of the name may have).
        if let refusal = sink.refusal, code != CURLE_OK { return .failure(.refused(refusal)) }
        switch code {
        case CURLE_OK:
            return .success(Response(status: pn_curl_status(curl.api, handle), headers: sink.headers, body: sink.body))
        case CURLE_OPERATION_TIMEDOUT:
            return .failure(.timedOut)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .failure(.invalidURL(request.url))
        default:
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(.transport(detail.isEmpty ? (curl.functions.easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)") : detail))
        }
    }
}

extension Substring {
    /// Without the spaces, tabs and line ends around it (by scalar: "\r\n" is one Character).
    fileprivate var trimmingSpaces: String {
        var s = unicodeScalars[...]
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" || c == "\n" { s.removeLast() }
        return String(String.UnicodeScalarView(s))
    }
}
