import CMicroHTTPD
import Foundation

// Responses handed to libmicrohttpd, and what every response gets on the way.
extension HTTPServer {
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
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

    /// Runs the handler and applies what every response gets: an ETag on successful GETs
    /// (unless the handler gave one, as kept responses carry theirs), and 304 when the client
    /// already has that version.
    func respond(to request: HTTPRequest, with handler: Handler) -> HTTPResponse {
        var response = handler(request)
        guard request.method == "GET" || request.method == "HEAD", response.status == 200, response.stream == nil else { return response }
        let tag: String
        if let given = response.headers.first(where: { $0.0.lowercased() == "etag" })?.1 {
            tag = given
        } else {
            tag = Self.entityTag(response.body)
            response.headers.append(("ETag", tag))
        }
        if let match = request.header("If-None-Match"),
           match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return HTTPResponse(status: 304, headers: response.headers.filter { $0.0.lowercased() != "content-type" })
        }
        return response
    }

    /// The weak ETag of a body.
    static func entityTag(_ body: [UInt8]) -> String { "W/\"\(fnv1a(body))\"" }

    /// FNV-1a, 64-bit, over 8-byte words (then the last few bytes), with the length: a fast
    /// content hash for ETags, not for anything security-related. Byte by byte it was a
    /// seventh of a 50-listen response's time.
    static func fnv1a(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        bytes.withUnsafeBytes { raw in
            let words = raw.count / 8
            for i in 0..<words {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* 0x0000_0100_0000_01B3
            }
            for i in (words * 8)..<raw.count { hash = (hash ^ UInt64(raw[i])) &* 0x0000_0100_0000_01B3 }
        }
        return String(hash, radix: 16)
    }

    /// A refusal for want of room (429: this client's share is taken; 503: everyone's): the
    /// client may retry after `retryAfter` seconds, and the connection closes so that it does
    /// not keep a slot meanwhile.
    static func busy(_ error: APIError, retryAfter seconds: Int) -> HTTPResponse {
        var response = HTTPResponse(apiError: error)
        response.headers += [("Retry-After", String(seconds)), ("Connection", "close")]
        return response
    }
}
