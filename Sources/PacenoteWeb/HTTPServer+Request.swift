import Foundation

extension HTTPServer {
    /// Per-request state, retained in `*con_cls` and released in `completedHandler`; what it
    /// holds of the shared limits (a body slot for its address, memory) is given back then.
    final class RequestState: @unchecked Sendable {
        // @unchecked Sendable: libmicrohttpd calls for one connection one at a time; the only
        // field a worker writes, `answer`, is guarded by `lock`.
        /// The request as the gate saw it: the headers, no body yet.
        let head: HTTPRequest
        /// nil: refused and answered on the first call.
        let accepted: Accepted?
        let limits: ClientLimits
        /// libmicrohttpd's connection, as a key into `limits` (never dereferenced here).
        let connection: OpaquePointer
        var body: [UInt8] = []
        var upload: UploadFile?
        var received = 0
        /// Bytes of the shared body memory this request holds.
        var reserved = 0
        /// Counted among its address's bodies being received.
        var uploading = false
        /// The answer once the body has been read (and dropped): 413, 503.
        var failure: HTTPResponse?
        private let lock = NSLock()
        private var answer: HTTPResponse?

        init(head: HTTPRequest, accepted: Accepted?, limits: ClientLimits, connection: OpaquePointer) {
            self.head = head
            self.accepted = accepted
            self.limits = limits
            self.connection = connection
        }

        private var keyless: Bool { accepted?.keyless ?? false }

        deinit {
            limits.release(reserved, keyless: keyless)
            if uploading { limits.endUpload(from: address) }
            releaseSlot()
        }

        private var slotReleased = false

        /// Gives back what the gate reserved for the handler (the one import slot): once the
        /// handler is done, before its answer goes out, so that a client sending the next
        /// import as soon as it reads the answer finds the slot free. At most once.
        func releaseSlot() {
            let release = lock.withLock { () -> (@Sendable () -> Void)? in
                defer { slotReleased = true }
                return slotReleased ? nil : accepted?.release
            }
            release?()
        }

        var address: String { head.peerAddress ?? "-" }

        static let serverBusy = APIError(kind: .unavailable, code: "server_busy",
                                         message: "the server is receiving too many request bodies: try again shortly")

        /// A chunk of the body: to the file, or to memory within the shared budget. Past the
        /// limit, or out of room, the rest is read and dropped so that the answer reaches
        /// the client.
        func receive(_ bytes: UnsafeRawPointer, count: Int) {
            guard failure == nil, let accepted else { return }
            received += count
            limits.bodyReceived(on: connection, bytes: count)
            if received > accepted.bodyLimit {
                fail(HTTPResponse(apiError: .payloadTooLarge(limit: accepted.bodyLimit)))
            } else if let upload {
                if !upload.write(bytes, count: count) {
                    fail(HTTPServer.busy(.unavailable("cannot store the upload: the disk refused it"), retryAfter: 60))
                }
            } else {
                if received > reserved {
                    // A body without Content-Length: its memory is taken as it comes.
                    let more = min(max(received - reserved, 64 << 10), accepted.bodyLimit - reserved)
                    guard limits.reserve(more, keyless: accepted.keyless) else { return fail(HTTPServer.busy(Self.serverBusy, retryAfter: 2)) }
                    reserved += more
                }
                body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: count))
            }
        }

        private func fail(_ response: HTTPResponse) {
            failure = response
            body = []
            limits.release(reserved, keyless: keyless)
            reserved = 0
            upload = nil
        }

        func setAnswer(_ response: HTTPResponse) { lock.withLock { answer = response } }

        func takeAnswer() -> HTTPResponse? {
            lock.withLock {
                defer { answer = nil }
                return answer
            }
        }
    }
}
