import PacenoteCore

/// Every URL Pacenote answers, as data: `Route.table` (Route+Table.swift) holds one line per
/// path, and each line says, method by method, who may call it, the body it takes, how its
/// errors are written, whether it may write for seconds, and the handler that answers it;
/// the line names its metric label. `Route.match` is the one place that maps a method and
/// path to a line, or to the error that explains why there is none. A new route is one
/// line and its handler.
public enum Route {}

/// What a handler gets: the request, the path's parameters and what the access decision
/// granted.
struct Call: Sendable {
    let request: HTTPRequest
    /// The template's `{…}` values, in order.
    let values: [String]
    /// The `{id}` value, checked when the route was matched (a positive integer); 0 for
    /// a route without one.
    let id: Int64
    let grant: Grant

    /// The first parameter (a day, a token, a user name, a file's path).
    var value: String { values[0] }
    var query: [String: String] { request.query }
}

/// What answers one method of one route.
typealias Handler = @Sendable (API, Call) throws -> HTTPResponse

/// One method of a route: its policy and its handler.
public struct RouteMethod: Sendable {
    public let method: String
    public let policy: Policy
    /// Whether it may write for seconds (a merge of a long history, a rule applied to the
    /// past, their undo): the server runs it on a queue of its own, the connection
    /// suspended, so that the other connections of its libmicrohttpd thread are not held
    /// up (a chart read waited 3.5 s behind a merge: scripts/bench/merge).
    public let isLongWrite: Bool
    let handler: Handler

    init(_ method: String, _ policy: Policy, longWrite: Bool = false, _ handler: @escaping Handler) {
        self.method = method
        self.policy = policy
        self.isLongWrite = longWrite
        self.handler = handler
    }

    /// The same method, which a page on another site may call (`Policy.crossOrigin`).
    var fromOtherSites: RouteMethod {
        var policy = policy
        policy.crossOrigin = true
        return RouteMethod(method, policy, longWrite: isLongWrite, handler)
    }
}

/// How a line's `{id}` is checked when the route is matched: a value that is no positive
/// integer is a 404 before the method or the access is looked at.
enum IDCheck: Sendable {
    case none
    /// "no play 12x" (the API's words, with what it names).
    case named(String)
    /// "no such page: /artists/x" (a page's address).
    case page
}

/// One line of the route table: a path with its parameters, and each method it answers.
public struct Endpoint: Sendable {
    /// `/api/v1/workouts/{id}`: literal segments and `{name}` for one segment;
    /// `{path…}` takes the rest (one segment or more).
    public let template: String
    /// A short, fixed name for metrics labels (never the raw path: ids would explode them).
    public let metricName: String
    /// The methods in the order `Allow` lists them.
    public let methods: [RouteMethod]
    let idCheck: IDCheck
    /// The template's segments, split once (every request walks the table: splitting each
    /// line's template again was a tenth of the server's CPU under wrk).
    private let parts: [Substring]

    init(_ template: String, _ metricName: String, id idCheck: IDCheck = .none, _ methods: [RouteMethod]) {
        self.template = template
        self.metricName = metricName
        parts = template.split(separator: "/")
        self.methods = methods
        self.idCheck = idCheck
    }

    /// The parameters' values when `segments` fit the template.
    func values(_ segments: [Substring]) -> [String]? {
        var values: [String] = []
        for (i, part) in parts.enumerated() {
            if part.hasSuffix("…}") {
                guard segments.count > i else { return nil }
                return values + [segments[i...].joined(separator: "/")]
            }
            guard i < segments.count else { return nil }
            if part.hasPrefix("{") { values.append(String(segments[i])) } else if part != segments[i] { return nil }
        }
        return segments.count == parts.count ? values : nil
    }

    /// The `{id}` value (the first parameter), or the 404 that explains why it is none.
    func id(_ values: [String], path: String) throws(APIError) -> Int64 {
        let message: String
        switch idCheck {
        case .none: return 0
        case .named(let noun): message = "\(noun) \(values[0])"
        case .page: message = "no such page: \(path)"
        }
        guard let id = Int64(values[0]), id > 0 else { throw .notFound(message) }
        return id
    }
}

/// A line found for a request, with what it declares for the request's method.
public struct RouteMatch: Sendable {
    public let endpoint: Endpoint
    public let method: RouteMethod
    let values: [String]
    let id: Int64

    public var policy: Policy { method.policy }
    /// The key a webhook's URL carries as its last segment (`{key}`), if the route has one.
    var pathKey: String? { endpoint.template.hasSuffix("/{key}") ? values.last : nil }
    public var metricName: String { endpoint.metricName }
    public var isLongWrite: Bool { method.isLongWrite }
}

extension Route {
    /// Resolves a request path (already stripped of any base path) and method: the one
    /// place that maps them to a line and its method, or to the error that explains why
    /// there is none.
    public static func match(method: String, path: String) -> Result<RouteMatch, APIError> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for endpoint in table {
            guard let values = endpoint.values(segments) else { continue }
            do {
                let id = try endpoint.id(values, path: path)
                guard let found = endpoint.methods.first(where: { $0.method == method }) else {
                    return .failure(.methodNotAllowed(endpoint.methods.map(\.method)))
                }
                return .success(RouteMatch(endpoint: endpoint, method: found, values: values, id: id))
            } catch {
                return .failure(error)
            }
        }
        return .failure(.notFound("no route for \(path)"))
    }

    /// The line of a path, whatever the method (a CORS preflight names the method in a header),
    /// or the 404 that explains why there is none.
    public static func endpoint(path: String) -> Result<Endpoint, APIError> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for endpoint in table {
            guard let values = endpoint.values(segments) else { continue }
            do {
                _ = try endpoint.id(values, path: path)
                return .success(endpoint)
            } catch {
                return .failure(error)
            }
        }
        return .failure(.notFound("no route for \(path)"))
    }
}

extension Route {
    /// A path as logs show it: a webhook's key in the path (`/webhooks/plex/KEY`) is masked,
    /// as a key in a header never reaches a log.
    static func loggable(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let i = segments.firstIndex(of: "webhooks"), segments.count == i + 3, !segments[i + 2].isEmpty else { return path }
        return segments[...(i + 1)].joined(separator: "/") + "/" + URLSecrets.mask
    }
}
