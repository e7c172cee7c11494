import PacenoteCore

/// Cross-origin requests (CORS, https://fetch.spec.whatwg.org/#http-cors-protocol) from the
/// pages listed in `server.cors_origins`, for the route-table methods that declare
/// `Policy.crossOrigin`. A preflight (`OPTIONS` with `Access-Control-Request-Method`) is
/// answered from the headers alone, before any body; an allowed origin's actual request,
/// its errors included, gets `Access-Control-Allow-Origin` so the page can read the JSON.
/// `Access-Control-Allow-Credentials` is never sent: a page brings its key in
/// `Authorization`, and cookies never count from another site (`Authorization.decide`).
extension API {
    /// What a page may send besides the CORS-safelisted headers: its key and a JSON body.
    static let crossOriginRequestHeaders = "Authorization, Content-Type, X-API-Key"
    /// Headers of ours a page may read besides the safelisted ones.
    static let crossOriginExposedHeaders = "ETag, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset-In, X-RateLimit-Reset"
    /// How long a browser may keep a preflight's answer (Chromium keeps at most 2 hours).
    static let preflightMaxAgeSeconds = 600

    /// `OPTIONS`: a preflight from an allowed origin for a method that may be called from
    /// another site gets 204 and the CORS headers; any other preflight gets 403 and none
    /// (the browser then refuses the request); a plain `OPTIONS` gets 204 with `Allow`.
    func preflight(_ request: HTTPRequest) -> Admission {
        let endpoint: Endpoint
        switch Route.endpoint(path: request.path) {
        case .failure(let error): return .answered(errorResponse(error, request, nil), nil)
        case .success(let found): endpoint = found
        }
        let crossOrigin = endpoint.methods.filter(\.policy.crossOrigin).map(\.method)
        guard let origin = request.header("Origin"), let wanted = request.header("Access-Control-Request-Method") else {
            let allow = (endpoint.methods.map(\.method) + ["OPTIONS"]).joined(separator: ", ")
            return .answered(HTTPResponse(status: 204, headers: [("Allow", allow)]), endpoint)
        }
        var refused: HTTPResponse {
            var response = HTTPResponse(apiError: APIError(kind: .forbidden, code: "cross_origin_refused", message: """
                \(wanted) \(request.path) may not be called from \(origin): \
                \(crossOrigin.isEmpty ? "this route is never called from another site" : "the origin is not in server.cors_origins")
                """))
            response.headers.append(("Vary", "Origin"))
            return response
        }
        guard WebOrigin.allowed(origin, in: context.corsOrigins) != nil, crossOrigin.contains(wanted) else {
            return .answered(refused, endpoint)
        }
        // Echoed as the browser sent it: it compares the header with its own origin exactly.
        return .answered(HTTPResponse(status: 204, headers: [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Allow-Methods", crossOrigin.joined(separator: ", ")),
            ("Access-Control-Allow-Headers", Self.crossOriginRequestHeaders),
            ("Access-Control-Max-Age", String(Self.preflightMaxAgeSeconds)),
            ("Vary", "Origin"),
        ]), endpoint)
    }

    /// An answer (or an error, or a refusal) to a method that may be called from another site:
    /// readable by an allowed origin's page, and marked as depending on `Origin` for caches.
    func crossOrigin(_ response: HTTPResponse, _ request: HTTPRequest, _ match: RouteMatch) -> HTTPResponse {
        guard match.policy.crossOrigin, !context.corsOrigins.isEmpty else { return response }
        var response = response
        response.headers.append(("Vary", "Origin"))
        if let origin = request.header("Origin"), WebOrigin.allowed(origin, in: context.corsOrigins) != nil {
            response.headers += [("Access-Control-Allow-Origin", origin),
                                 ("Access-Control-Expose-Headers", Self.crossOriginExposedHeaders)]
        }
        return response
    }
}
