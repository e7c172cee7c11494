import PacenoteCore

/// What the API makes of a request's headers, before its body is read.
enum Admission: Sendable {
    /// Answered now (no route, a method it does not take, or refused by the access decision);
    /// the match when there was one, for the metric label.
    case refused(HTTPResponse, RouteMatch?)
    /// The handler may run once the body is in, within the route's body limit.
    case admitted(RouteMatch, Grant)
    /// `OPTIONS` (a CORS preflight), answered from the headers; the route's line when there is one.
    case answered(HTTPResponse, Endpoint?)

    var match: RouteMatch? {
        switch self {
        case .refused(_, let match): match
        case .admitted(let match, _): match
        case .answered: nil
        }
    }

    /// The metric label: the matched route's own name, whatever the method.
    var metricLabel: String {
        if case .answered(_, let endpoint) = self { return endpoint?.metricName ?? "unknown" }
        return match?.metricName ?? "unknown"
    }
}

extension API {
    /// The route, then the one access decision, from the request line and headers alone
    /// (a body, if there is one, is not looked at).
    func admit(_ request: HTTPRequest) -> Admission {
        if request.method == "OPTIONS" { return preflight(request) }
        let match: RouteMatch
        switch Route.match(method: request.method, path: request.path) {
        case .failure(let error): return .refused(errorResponse(error, request, nil), nil)
        case .success(let found): match = found
        }
        switch Authorization.decide(match.policy.access, for: request, pathKey: match.pathKey, in: context) {
        case .success(let grant): return .admitted(match, grant)
        case .failure(let error): return .refused(crossOrigin(refusal(error, request, match), request, match), match)
        }
    }

    /// A refusal in the route's dialect: a browser that may not see a page (or post its
    /// form) logs in first; a locked-out login form shows the form again.
    func refusal(_ error: APIError, _ request: HTTPRequest, _ match: RouteMatch) -> HTTPResponse {
        if match.metricName == "login" { return loginLockedOut(request) }
        if match.policy.dialect == .page, error.status == 401 || error.status == 403 { return loginRedirect(request) }
        return errorResponse(error, request, match.policy.dialect)
    }

    /// Every error through `HTTPResponse(apiError:)`, in the route's dialect; nil when no
    /// route matched: a browser asking for a page gets a page.
    func errorResponse(_ error: APIError, _ request: HTTPRequest, _ dialect: ErrorDialect?) -> HTTPResponse {
        switch dialect {
        case .listenBrainz:
            return HTTPResponse(apiError: error.inListenBrainzStyle)
        case .lastFM where error.style != .pacenote:
            return Self.lastFMError(error, json: Self.scrobblerFields(request)["format"] == "json")
        case .audioscrobbler1:
            if case .audioscrobbler1(let line) = error.style { return Self.legacy(line + "\n") }
            return HTTPResponse(apiError: error)
        case .page where request.header("Accept")?.contains("text/html") == true,
             nil where Self.isBrowserPageRequest(request):
            // A mistyped page address in a browser: a page, not a JSON body.
            return errorPage(error, request, mayReadPrivate: false)
        default:
            return HTTPResponse(apiError: error)
        }
    }

    /// A server error's details (a database path, SQLite's words) go to the log; outside
    /// the trusted networks (and without the key or a session) the body says only that
    /// something went wrong.
    func concealed(_ error: APIError, _ request: HTTPRequest, mayReadPrivate: Bool) -> APIError {
        guard error.status >= 500, !error.style.isProtocolAnswer else { return error }
        logServerError(error, request)
        guard !mayReadPrivate else { return error }
        return APIError(kind: error.kind, code: error.code, message: "the server could not answer this time: try again in a moment")
    }

    func logServerError(_ error: APIError, _ request: HTTPRequest) {
        context.logger.error("\(LogText.escaped(request.method)) \(LogText.escaped(Route.loggable(request.path))): \(error.status) \(LogText.escaped(error.message))")
    }

    /// A browser asking for a page (not the API, a file or a ListenBrainz route), for
    /// paths no route matched.
    static func isBrowserPageRequest(_ request: HTTPRequest) -> Bool {
        let path = request.path
        guard !path.hasPrefix("/api/"), !path.hasPrefix("/apis/"), !path.hasPrefix("/1/"), !path.hasPrefix("/static/"),
              path != "/metrics", path != "/healthz" else { return false }
        return request.header("Accept")?.contains("text/html") == true
    }
}
