import CMicroHTTPD
import Foundation
import Glibc
import Logging
import PacenoteCore

public struct HTTPServerError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// The HTTP server: libmicrohttpd in epoll mode with a small pool of worker threads, on a
/// socket we bind ourselves (so "address in use" is reported with the address, and port 0
/// works).
///
/// Requests are handled synchronously on libmicrohttpd's threads: handlers read from
/// SQLite's WAL pool and mostly return in microseconds; the pool keeps a slow one from
/// holding up the rest. Each request is first admitted on its headers alone (`Gate`):
/// refused, it is answered at once, before any body byte is read and without
/// `100 Continue`; admitted, its body is collected up to the limit the gate gave (413 as
/// soon as `Content-Length` or the bytes received pass it), then handled.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `daemon` and `logContext` are written in start() before
    // libmicrohttpd's thread exists and cleared in stop() after it has been joined;
    // everything else is immutable.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// What to do with a request whose headers are in.
    public enum Admission: Sendable {
        /// Answer now; the body is never read.
        case refuse(HTTPResponse)
        /// Read a body of at most `bodyLimit` bytes, then answer with `handle`.
        case admit(bodyLimit: Int, handle: Handler)
    }

    /// Decides on a request without its body (`body` is empty).
    public typealias Gate = @Sendable (HTTPRequest) -> Admission

    public struct Settings: Sendable {
        public var address: ListenAddress
        /// The body limit of a server made with a plain handler.
        public var maxBodyBytes: Int
        public var connectionLimit: Int
        public var connectionTimeoutSeconds: Int
        /// libmicrohttpd worker threads, each with its own epoll: one slow request (a
        /// chart over years) does not hold up the others.
        public var threads: Int

        public init(address: ListenAddress, maxBodyBytes: Int = 1 << 20, connectionLimit: Int = 512,
                    connectionTimeoutSeconds: Int = 60, threads: Int = 4) {
            self.threads = max(1, threads)
            self.address = address
            self.maxBodyBytes = maxBodyBytes
            self.connectionLimit = connectionLimit
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
        }
    }

    public let settings: Settings
    let gate: Gate
    let logger: Logger
    private var daemon: OpaquePointer?
    private var logContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    /// The port actually bound (differs from the settings' when they ask for port 0).
    public private(set) var boundPort: UInt16 = 0

    public init(settings: Settings, logger: Logger, gate: @escaping Gate) {
        self.settings = settings
        self.logger = logger
        self.gate = gate
    }

    /// A server that admits every request, with bodies up to `settings.maxBodyBytes`.
    public convenience init(settings: Settings, logger: Logger, handler: @escaping Handler) {
        self.init(settings: settings, logger: logger) { _ in .admit(bodyLimit: settings.maxBodyBytes, handle: handler) }
    }

    deinit { stop() }

    public func start() throws(HTTPServerError) {
        precondition(daemon == nil, "HTTPServer.start() called twice")
        let fd = try Self.listen(on: settings.address)
        boundPort = Self.localPort(of: fd) ?? settings.address.port

        let log = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 2)
        let logFunction: pn_mhd_log_fn = { context, message in
            guard let context, let message else { return }
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            server.logger.warning("http: \(String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        log[0] = unsafeBitCast(logFunction, to: UnsafeMutableRawPointer.self)
        log[1] = Unmanaged.passUnretained(self).toOpaque()
        logContext = log

        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        // The server outlives its daemon (stop() runs before deinit finishes), so an
        // unretained reference is safe as the callbacks' context.
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let d = pn_mhd_start(
            UInt32(flags), fd, HTTPServer.accessHandler, me, HTTPServer.completedHandler, me,
            UInt32(settings.connectionLimit), UInt32(settings.connectionTimeoutSeconds), 64 * 1024,
            UInt32(settings.threads), log)
        else {
            close(fd)
            log.deallocate()
            logContext = nil
            throw HTTPServerError(message: "--http \(settings.address): libmicrohttpd could not start")
        }
        daemon = d
    }

    /// Stops accepting, closes every connection and joins libmicrohttpd's thread.
    /// Called before the daemon stops: libmicrohttpd must not be stopped with suspended
    /// connections (event streams), so their owner ends them here.
    public var beforeStop: (@Sendable () -> Void)?

    public func stop() {
        guard let d = daemon else { return }
        // No new connections first; then end every event stream (and refuse new ones on
        // kept-alive connections); libmicrohttpd's stop handles the resumes still pending.
        let fd = MHD_quiesce_daemon(d)
        beforeStop?()
        MHD_stop_daemon(d)
        if fd >= 0 { close(fd) }
        daemon = nil
        logContext?.deallocate()
        logContext = nil
    }

    // MARK: Socket

    private static func listen(on address: ListenAddress) throws(HTTPServerError) -> Int32 {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(address.host, String(address.port), &hints, &result)
        guard rc == 0, let first = result else {
            throw HTTPServerError(message: "--http \(address): cannot resolve host: \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(result) }
        var lastError = "no usable address"
        var info: UnsafeMutablePointer<addrinfo>? = first
        while let ai = info {
            info = ai.pointee.ai_next
            let fd = socket(ai.pointee.ai_family, ai.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), ai.pointee.ai_protocol)
            if fd < 0 { lastError = String(cString: strerror(errno)); continue }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            if bind(fd, ai.pointee.ai_addr, ai.pointee.ai_addrlen) == 0, Glibc.listen(fd, 128) == 0 {
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw HTTPServerError(message: "--http \(address): cannot listen: \(lastError)")
    }

    private static func localPort(of fd: Int32) -> UInt16? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
        default:
            return nil
        }
    }

    // MARK: libmicrohttpd callbacks (non-capturing: context travels through `cls`)

    /// Per-request state, retained in `*con_cls` and released in `completedHandler`.
    final class RequestState {
        /// The request as the gate saw it: the headers, no body yet.
        let head: HTTPRequest
        /// nil: refused and answered on the first call.
        let handle: Handler?
        let limit: Int
        var body: [UInt8] = []
        var tooLarge = false
        init(head: HTTPRequest, handle: Handler?, limit: Int) {
            self.head = head
            self.handle = handle
            self.limit = limit
        }
    }

    private static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
        guard let cls, let connection, let conCls, let uploadSize else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        guard let stateRef = conCls.pointee else {
            // First call: the headers are in, no body byte has been read. A response queued
            // now is sent without 100 Continue and libmicrohttpd discards the body.
            let head = HTTPRequest(
                method: method.map { String(cString: $0) } ?? "GET",
                path: url.map { String(cString: $0) } ?? "/",
                query: values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND),
                headers: values(of: connection, kind: MHD_ValueKind.HEADER_KIND),
                peerAddress: peerAddress(of: connection))
            switch server.gate(head) {
            case .refuse(let response):
                conCls.pointee = Unmanaged.passRetained(RequestState(head: head, handle: nil, limit: 0)).toOpaque()
                return queue(response, on: connection)
            case .admit(let limit, let handle):
                conCls.pointee = Unmanaged.passRetained(RequestState(head: head, handle: handle, limit: limit)).toOpaque()
                if let length = head.header("Content-Length").flatMap({ UInt64($0) }), length > UInt64(max(0, limit)) {
                    return queue(HTTPResponse(apiError: .payloadTooLarge(limit: limit)), on: connection)
                }
                return MHD_Result.YES
            }
        }
        let state = Unmanaged<RequestState>.fromOpaque(stateRef).takeUnretainedValue()
        guard let handle = state.handle else {
            // Answered already: nothing more is read or handled.
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if uploadSize.pointee > 0 {
            let n = uploadSize.pointee
            if !state.tooLarge, state.body.count + n <= state.limit, let uploadData {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: n) {
                    state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                }
            } else {
                // Keep reading (and dropping) the body so the 413 reaches the client.
                state.tooLarge = true
                state.body = []
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        guard !state.tooLarge else { return queue(HTTPResponse(apiError: .payloadTooLarge(limit: state.limit)), on: connection) }
        var request = state.head
        request.body = state.body
        return queue(server.respond(to: request, with: handle), on: connection)
    }

    private static let completedHandler: MHD_RequestCompletedCallback = { _, _, conCls, _ in
        guard let conCls, let stateRef = conCls.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(stateRef).release()
        conCls.pointee = nil
    }

    private final class ValueBox { var values: [String: String] = [:] }

    private static func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [String: String] {
        let box = ValueBox()
        let context = Unmanaged.passUnretained(box).toOpaque()
        // With their lengths: a value holding a NUL byte (`KEY\0\0…`) is kept whole, never
        // cut at the NUL into something it is not (the key).
        _ = MHD_get_connection_values_n(connection, kind, { cls, kind, key, keySize, value, valueSize in
            guard let cls, let key else { return MHD_Result.YES }
            let box = Unmanaged<ValueBox>.fromOpaque(cls).takeUnretainedValue()
            let k = key.withMemoryRebound(to: UInt8.self, capacity: keySize) { String(decoding: UnsafeBufferPointer(start: $0, count: keySize), as: UTF8.self) }
            let v = value.map { p in
                p.withMemoryRebound(to: UInt8.self, capacity: valueSize) { String(decoding: UnsafeBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
            } ?? ""
            if kind == MHD_ValueKind.HEADER_KIND {
                // A repeated header is one list, in order (RFC 9110 §5.3): proxies may add
                // their own X-Forwarded-For line after the client's.
                let name = k.lowercased()
                box.values[name] = box.values[name].map { $0 + ", " + v } ?? v
            } else if box.values[k] == nil {
                box.values[k] = v  // the first value of a repeated query argument wins
            }
            return MHD_Result.YES
        }, context)
        return withExtendedLifetime(box) { box.values }
    }

    private static func peerAddress(of connection: OpaquePointer) -> String? {
        var storage = sockaddr_storage()
        guard pn_mhd_client_address(connection, &storage) != 0 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = Int32(storage.ss_family)
        let ok: Bool = withUnsafePointer(to: &storage) { pointer in
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                    var addr = v4.pointee.sin_addr
                    return inet_ntop(AF_INET, &addr, &text, socklen_t(text.count)) != nil
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                    var addr = v6.pointee.sin6_addr
                    return inet_ntop(AF_INET6, &addr, &text, socklen_t(text.count)) != nil
                }
            default:
                return false
            }
        }
        return ok ? String(cString: text) : nil
    }

    private static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let mhdResponse: OpaquePointer?
        if let stream = response.stream {
            stream.connection = connection
            // The response owns one reference to the stream, released when it is freed.
            mhdResponse = MHD_create_response_from_callback(
                UInt64.max, 4096,
                { cls, _, buffer, max in
                    guard let cls, let buffer else { return -1 }
                    return Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
                },
                Unmanaged.passRetained(stream).toOpaque(),
                { cls in
                    guard let cls else { return }
                    let stream = Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue()
                    stream.close()
                    stream.onFinished?(stream)
                })
            if mhdResponse == nil {
                // The response owns no reference after all: give it back and end the stream.
                let unused = Unmanaged<EventStream>.passUnretained(stream)
                unused.release()
                stream.close()
                stream.onFinished?(stream)
            }
        } else {
            mhdResponse = response.body.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
            }
        }
        guard let mhdResponse else { return MHD_Result.NO }
        for (name, value) in response.headers {
            MHD_add_response_header(mhdResponse, name, value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return result
    }

    // MARK: Conditional requests

    /// Runs the handler and applies what every response gets: an ETag on successful GETs,
    /// and 304 when the client already has that version.
    func respond(to request: HTTPRequest, with handler: Handler) -> HTTPResponse {
        var response = handler(request)
        guard request.method == "GET" || request.method == "HEAD", response.status == 200, response.stream == nil,
              !response.headers.contains(where: { $0.0.lowercased() == "etag" }) else { return response }
        let tag = "W/\"\(Self.fnv1a(response.body))\""
        response.headers.append(("ETag", tag))
        if let match = request.header("If-None-Match"),
           match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return HTTPResponse(status: 304, headers: response.headers.filter { $0.0.lowercased() != "content-type" })
        }
        return response
    }

    /// FNV-1a, 64-bit: a fast content hash for ETags (not for anything security-related).
    static func fnv1a(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return String(hash, radix: 16)
    }
}
