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
/// holding up the rest. A long one (an import) runs on its own queue while its connection
/// is suspended. Each request is first admitted on its headers alone (`Gate`): refused, it
/// is answered at once, before any body byte is read and without `100 Continue`; admitted,
/// its body is collected up to the limit the gate gave (413 as soon as `Content-Length` or
/// the bytes received pass it) — in memory, within one budget for all bodies in flight (and
/// one apart for bodies that come before any credential), or into a private file — then
/// handled. Every body has a deadline (`ClientLimits`). `ClientLimits` keeps one address from taking the
/// service from another.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `daemon` and `logContext` are written in start() before
    // libmicrohttpd's thread exists and cleared in stop() after it has been joined;
    // `closing` is guarded by `workLock`; everything else is immutable.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// What to do with a request whose headers are in.
    public enum Admission: Sendable {
        /// Answer now; the body is never read.
        case refuse(HTTPResponse)
        /// Read the body as `Accepted` says, then answer with its handler.
        case accept(Accepted)

        /// Read a body of at most `bodyLimit` bytes into memory, then answer with `handle`
        /// on libmicrohttpd's thread.
        public static func admit(bodyLimit: Int, handle: @escaping Handler) -> Admission {
            .accept(Accepted(bodyLimit: bodyLimit, handle: handle))
        }
    }

    /// How an admitted request is received and handled.
    public struct Accepted: Sendable {
        public var bodyLimit: Int
        /// The body goes to a private file (`HTTPRequest.bodyFile`), not to memory.
        public var bodyToFile = false
        /// Where the handler runs: nil, on libmicrohttpd's thread; a queue, there, with the
        /// connection suspended meanwhile (for handlers that take seconds).
        public var worker: DispatchQueue?
        /// Called once when the request is over, answered or not (frees what the gate took).
        public var release: (@Sendable () -> Void)?
        /// The body comes before any credential was judged: it is held in the keyless pool,
        /// apart from the memory bodies of clients with a key use, and within its deadline.
        public var keyless = false
        public var handle: Handler

        public init(bodyLimit: Int, bodyToFile: Bool = false, worker: DispatchQueue? = nil,
                    release: (@Sendable () -> Void)? = nil, handle: @escaping Handler) {
            self.bodyLimit = bodyLimit
            self.bodyToFile = bodyToFile
            self.worker = worker
            self.release = release
            self.handle = handle
        }
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
        /// chart over years) does not hold up the others. The pool may be larger (`workers`).
        public var threads: Int
        /// Open connections one address may have (`server.max_connections_per_client`).
        public var connectionsPerAddress = 32
        /// Seconds a request's headers may take to arrive, the first or the next on a
        /// kept-alive connection (`server.header_timeout_s`).
        public var headerTimeoutSeconds = 10.0
        /// Requests with a body one address may be sending at once (`server.max_uploads_per_client`).
        public var uploadsPerAddress = 4
        /// The memory all bodies being received in memory may take together
        /// (`server.max_body_memory_bytes`).
        public var bodyMemoryBytes = 32 << 20
        /// The memory bodies of requests admitted without a credential (`Accepted.keyless`) may
        /// take together: a pool of its own, so they cannot take `bodyMemoryBytes` from the owner.
        public var keylessBodyMemoryBytes = 2 << 20
        /// Seconds a keyless body may take from its headers to its last byte.
        public var keylessBodySeconds = 10.0
        /// Every body, after `bodyGraceSeconds`: at least this many bytes a second on average
        /// since its headers, or its connection is closed (0: no rate asked).
        public var minBodyBytesPerSecond = 1024
        public var bodyGraceSeconds = 10.0
        /// The 0700 folder bodies sent to a file are written in; nil: a private folder in
        /// the system's temporary directory.
        public var uploadDirectory: String?
        /// A socket bound already (`ListeningSocket`), served on instead of binding `address`.
        public var listeningSocket: ListeningSocket?
        /// Addresses the per-address limits do not apply to (trusted reverse proxies).
        public var exemptAddress: @Sendable (String) -> Bool = { _ in false }
        /// Blocks until every commit up to a ticket is on disk (nil: the sync succeeded; else
        /// why not). An answer with a `durableTicket` goes out only after it.
        public var waitDurable: (@Sendable (UInt64) -> String?)?

        /// Connections one worker may hold. libmicrohttpd 0.9.75 takes at most 128 epoll
        /// events at a time (`MAX_EVENTS` in daemon.c) and, when it gets exactly 128, waits in
        /// `epoll_wait` again — with the blocking timeout, up to the connection timeout —
        /// before handling any of them. A worker whose share was 128 (512 in all over 4) and
        /// whose clients all went away at once (wrk ending) sat on 128 dead sockets for a
        /// minute: its listening socket is out of its epoll at its limit and dead sockets send
        /// no second edge, so nothing woke it, and the connections still counted against every
        /// limit. A worker's epoll holds its connections, the listening socket and its wake-up
        /// eventfd: at most 125 connections keep that under 128, so it never waits again.
        public static let connectionsPerWorker = 125

        /// The worker threads started: `threads`, or more when the connection limit needs them.
        public var workers: Int {
            max(threads, (connectionLimit + Self.connectionsPerWorker - 1) / Self.connectionsPerWorker)
        }

        public init(address: ListenAddress, maxBodyBytes: Int = 1 << 20, connectionLimit: Int = 500,
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
    let limits: ClientLimits
    private var daemon: OpaquePointer?
    private var logContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    private(set) var uploadDirectory = ""
    /// Handlers running on a worker queue, waited for before libmicrohttpd stops.
    private let work = DispatchGroup()
    private let workLock = NSLock()
    private var closing = false
    /// The port actually bound (differs from the settings' when they ask for port 0).
    public private(set) var boundPort: UInt16 = 0

    public init(settings: Settings, logger: Logger, gate: @escaping Gate) {
        self.settings = settings
        self.logger = logger
        self.gate = gate
        limits = ClientLimits(settings: .init(
            connectionsPerAddress: settings.connectionsPerAddress, headerTimeout: settings.headerTimeoutSeconds,
            uploadsPerAddress: settings.uploadsPerAddress, bodyMemoryBytes: settings.bodyMemoryBytes,
            keylessBodyMemoryBytes: settings.keylessBodyMemoryBytes, keylessBodySeconds: settings.keylessBodySeconds,
            minBodyBytesPerSecond: settings.minBodyBytesPerSecond, bodyGraceSeconds: settings.bodyGraceSeconds,
            exempt: settings.exemptAddress), logger: logger)
    }

    /// A server that admits every request, with bodies up to `settings.maxBodyBytes`.
    public convenience init(settings: Settings, logger: Logger, handler: @escaping Handler) {
        self.init(settings: settings, logger: logger) { _ in .admit(bodyLimit: settings.maxBodyBytes, handle: handler) }
    }

    deinit { stop() }

    public func start() throws(HTTPServerError) {
        precondition(daemon == nil, "HTTPServer.start() called twice")
        if let directory = settings.uploadDirectory {
            try UploadFile.prepare(directory)
            uploadDirectory = directory
        } else {
            var template = Array((NSTemporaryDirectory() + "/pacenote-uploads-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw HTTPServerError(message: "cannot create a folder for uploads") }
            uploadDirectory = String(cString: made)
        }
        let fd: Int32
        if let bound = settings.listeningSocket?.take() { fd = bound } else { fd = try Self.listen(on: settings.address) }
        boundPort = Self.localPort(of: fd) ?? settings.address.port

        let log = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 2)
        let logFunction: pn_mhd_log_fn = { context, message in
            guard let context, let message else { return }
            let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
            let line = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
            server.logger.log(level: HTTPServer.level(ofLibraryMessage: line), "http: \(line)")
        }
        log[0] = unsafeBitCast(logFunction, to: UnsafeMutableRawPointer.self)
        log[1] = Unmanaged.passUnretained(self).toOpaque()
        logContext = log

        let flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        // The server outlives its daemon (stop() runs before deinit finishes), so an
        // unretained reference is safe as the callbacks' context.
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let d = pn_mhd_start(
            UInt32(flags), fd, HTTPServer.acceptPolicy, me, HTTPServer.accessHandler, me, HTTPServer.completedHandler, me,
            HTTPServer.connectionNotifier, me,
            UInt32(settings.connectionLimit), UInt32(settings.connectionTimeoutSeconds), 64 * 1024,
            UInt32(settings.workers), log)
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
        // kept-alive connections) and let a running import finish and resume its connection;
        // libmicrohttpd's stop handles the resumes still pending.
        let fd = MHD_quiesce_daemon(d)
        beforeStop?()
        workLock.withLock { closing = true }
        work.wait()
        MHD_stop_daemon(d)
        if fd >= 0 { close(fd) }
        daemon = nil
        logContext?.deallocate()
        logContext = nil
        if settings.uploadDirectory == nil { rmdir(uploadDirectory) }
    }

    /// A handler about to run on a worker queue; false once the server is stopping.
    private func beginWork() -> Bool {
        workLock.withLock {
            guard !closing else { return false }
            work.enter()
            return true
        }
    }

    // MARK: libmicrohttpd callbacks (non-capturing: context travels through `cls`)

    private static let acceptPolicy: MHD_AcceptPolicyCallback = { cls, address, _ in
        guard let cls, let address, let text = text(of: address) else { return MHD_Result.YES }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        return server.limits.mayConnect(from: text) ? MHD_Result.YES : MHD_Result.NO
    }

    private static let connectionNotifier: MHD_NotifyConnectionCallback = { cls, connection, _, code in
        guard let cls, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        if code == MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED {
            server.limits.opened(connection, fd: pn_mhd_connection_fd(connection), address: peerAddress(of: connection) ?? "-")
        } else {
            server.limits.closed(connection)
        }
    }

    private static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, conCls in
        guard let cls, let connection, let conCls, let uploadSize else { return MHD_Result.NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
        guard let stateRef = conCls.pointee else {
            // First call: the headers are in, no body byte has been read. A response queued
            // now is sent without 100 Continue and libmicrohttpd discards the body.
            server.limits.requestStarted(on: connection)
            let head = HTTPRequest(
                method: method.map { String(cString: $0) } ?? "GET",
                path: url.map { String(cString: $0) } ?? "/",
                query: values(of: connection, kind: MHD_ValueKind.GET_ARGUMENT_KIND),
                headers: values(of: connection, kind: MHD_ValueKind.HEADER_KIND),
                peerAddress: peerAddress(of: connection))
            let state: RequestState
            let answer: HTTPResponse?
            switch server.gate(head) {
            case .refuse(let response):
                state = RequestState(head: head, accepted: nil, limits: server.limits, connection: connection)
                answer = response
            case .accept(let accepted):
                state = RequestState(head: head, accepted: accepted, limits: server.limits, connection: connection)
                answer = server.prepareBody(of: state, accepted)
            }
            conCls.pointee = Unmanaged.passRetained(state).toOpaque()
            return answer.map { queue($0, on: connection) } ?? MHD_Result.YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(stateRef).takeUnretainedValue()
        guard let accepted = state.accepted else {
            // Answered already: nothing more is read or handled.
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if uploadSize.pointee > 0 {
            if let uploadData { state.receive(UnsafeRawPointer(uploadData), count: uploadSize.pointee) }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if let answer = state.takeAnswer() { return queue(answer, on: connection) }   // back from the worker
        server.limits.bodyEnded(on: connection)
        if let failure = state.failure { return queue(failure, on: connection) }
        var request = state.head
        if let upload = state.upload {
            upload.finish()
            request.bodyFile = upload.path
        } else {
            request.body = state.body
        }
        guard let worker = accepted.worker else {
            return queue(server.durable(server.respond(to: request, with: accepted.handle)), on: connection)
        }
        guard server.beginWork() else {
            return queue(busy(.unavailable("the server is stopping"), retryAfter: 5), on: connection)
        }
        // Suspended before the work is queued, so the worker's resume always finds it so.
        MHD_suspend_connection(connection)
        let suspended = SuspendedConnection(connection: connection, state: state)
        worker.async { [request] in
            let answer = server.durable(server.respond(to: request, with: accepted.handle))
            suspended.state.releaseSlot()
            suspended.state.setAnswer(answer)
            MHD_resume_connection(suspended.connection)
            server.work.leave()
        }
        return MHD_Result.YES
    }

    private static let completedHandler: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
        if let cls, let connection {
            Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().limits.requestEnded(on: connection)
        }
        guard let conCls, let stateRef = conCls.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(stateRef).release()
        conCls.pointee = nil
    }

    /// On the first call of an admitted request: whether its body may come, and where to.
    /// Nil to read it; otherwise the answer, sent before any of it is read.
    private func prepareBody(of state: RequestState, _ accepted: Accepted) -> HTTPResponse? {
        let head = state.head
        let declared = head.header("Content-Length").flatMap { UInt64($0) }
        if let declared, declared > UInt64(max(0, accepted.bodyLimit)) {
            return HTTPResponse(apiError: .payloadTooLarge(limit: accepted.bodyLimit))
        }
        guard (declared ?? 0) > 0 || head.header("Transfer-Encoding") != nil else { return nil }
        guard limits.beginUpload(from: state.address) else {
            return Self.busy(APIError(kind: .tooManyRequests, code: "too_many_uploads",
                                      message: "too many requests with a body from your address at once"), retryAfter: 2)
        }
        state.uploading = true
        limits.bodyBegan(on: state.connection, keyless: accepted.keyless)
        if accepted.bodyToFile {
            do {
                state.upload = try UploadFile(in: uploadDirectory)
            } catch {
                logger.error("http: \(error)")
                return Self.busy(.unavailable("cannot store an upload now"), retryAfter: 30)
            }
        } else if let declared {
            guard limits.reserve(Int(declared), keyless: accepted.keyless) else { return Self.busy(RequestState.serverBusy, retryAfter: 2) }
            state.reserved = Int(declared)
        }
        return nil
    }
}

extension HTTPServer {
    /// The answer to send once its commits are on disk: as it is, after the wait, or 503 when
    /// the disk did not confirm the sync (the change is stored and survives anything short of
    /// a power loss; a client that sends it again is deduplicated). Waiting here, on the thread
    /// that made the answer, costs no hand-off between threads (`GroupCommit`).
    func durable(_ answer: HTTPResponse) -> HTTPResponse {
        guard let ticket = answer.durableTicket, let waitDurable = settings.waitDurable else { return answer }
        var answer = answer
        answer.durableTicket = nil
        guard let failure = waitDurable(ticket) else { return answer }
        return HTTPServer.busy(.unavailable("stored, but the disk did not confirm it: \(failure)"), retryAfter: 5)
    }
}

/// A connection suspended while a worker handles its request, and the request's state.
private struct SuspendedConnection: @unchecked Sendable {
    // @unchecked Sendable: the connection is only resumed (libmicrohttpd allows that from any
    // thread); the state is retained by libmicrohttpd's `con_cls` until the request completes,
    // which cannot happen before the resume.
    let connection: OpaquePointer
    let state: HTTPServer.RequestState
}
