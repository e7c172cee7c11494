import Foundation

/// A request as handlers see it: the body complete, headers looked up case-insensitively.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded by libmicrohttpd.
    public var path: String
    public var query: [String: String]
    public var headers: [String: String]
    public var body: [UInt8]
    /// Where the body is instead, for routes that take whole files (`BodyLimit.import`): a
    /// private file, removed when the request is over.
    public var bodyFile: String?
    /// The peer's IP address (`127.0.0.1`, `::1`), as the socket reports it.
    public var peerAddress: String?

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], peerAddress: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
        self.peerAddress = peerAddress
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// For a Server-Sent Events response: the stream that feeds it (the body is unused).
    var stream: EventStream?
    /// The handler committed to the database: the answer waits until every commit up to
    /// this one is on disk (`HTTPServer.Settings.waitDurable`). Never sent.
    var durableTicket: UInt64?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The one way an error becomes a response: `{"error": {"code", "message"}}` with its
    /// status — or, on the ListenBrainz-compatible routes, ListenBrainz's own shape
    /// `{"code": 400, "error": "message"}`, which its clients read.
    public init(apiError: APIError) {
        let body: JSONValue = apiError.style == .listenBrainz
            ? .object([("code", .int(Int64(apiError.status))), ("error", .string(apiError.message))])
            : .object([("error", .object([("code", .string(apiError.code)), ("message", .string(apiError.message))]))])
        self.init(status: apiError.status, headers: [("Content-Type", "application/json; charset=utf-8")], body: body.serialized())
        if case .methodNotAllowed(let allowed) = apiError.kind {
            headers.append(("Allow", allowed.joined(separator: ", ")))
        }
    }
}

/// An error that knows its HTTP status and its stable machine-readable code.
public struct APIError: Error, Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case badRequest
        case unauthorized
        case forbidden
        case notFound
        case methodNotAllowed([String])
        case conflict
        case payloadTooLarge
        case tooManyRequests
        case unsupportedMediaType
        case expectationFailed
        case unavailable
        case `internal`
    }

    public var kind: Kind
    public var code: String
    public var message: String
    /// How the error body is written.
    public var style: Style = .pacenote

    public enum Style: Equatable, Sendable {
        case pacenote, listenBrainz
        /// Last.fm's error code (https://www.last.fm/api/errorcodes), for Audioscrobbler 2.0.
        case lastFM(Int)
        /// Audioscrobbler 1.2's answer line (`BADAUTH`, `FAILED reason`).
        case audioscrobbler1(String)

        /// The protocol's own answer, already in its words: nothing in it to conceal.
        var isProtocolAnswer: Bool {
            switch self {
            case .lastFM, .audioscrobbler1: true
            case .pacenote, .listenBrainz: false
            }
        }
    }

    public init(kind: Kind, code: String, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The same error, written as ListenBrainz writes errors.
    public var inListenBrainzStyle: APIError {
        var copy = self
        copy.style = .listenBrainz
        return copy
    }

    public var status: Int {
        // Audioscrobbler 1.2 answers every refusal with 200 and its line.
        if case .audioscrobbler1 = style { return 200 }
        return switch kind {
        case .badRequest: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .methodNotAllowed: 405
        case .conflict: 409
        case .payloadTooLarge: 413
        case .tooManyRequests: 429
        case .unsupportedMediaType: 415
        case .expectationFailed: 417
        case .unavailable: 503
        case .internal: 500
        }
    }

    public static func badRequest(_ message: String, code: String = "bad_request") -> APIError {
        APIError(kind: .badRequest, code: code, message: message)
    }
    public static func notFound(_ message: String = "no such resource") -> APIError {
        APIError(kind: .notFound, code: "not_found", message: message)
    }
    public static func methodNotAllowed(_ allowed: [String]) -> APIError {
        APIError(kind: .methodNotAllowed(allowed), code: "method_not_allowed",
                 message: "allowed methods: \(allowed.joined(separator: ", "))")
    }
    public static func payloadTooLarge(limit: Int) -> APIError {
        APIError(kind: .payloadTooLarge, code: "payload_too_large", message: "the request body exceeds \(limit) bytes")
    }
    public static func unavailable(_ message: String) -> APIError {
        APIError(kind: .unavailable, code: "unavailable", message: message)
    }
    public static func `internal`(_ message: String) -> APIError {
        APIError(kind: .internal, code: "internal", message: message)
    }
}
