/// Every URL Pacenote answers, as a value. `Route.match` is the one place that maps a
/// method and path to a route, or to the error that explains why there is none.
public enum Route: Equatable, Sendable {
    case status
    case listens

    /// Resolves a request path (already stripped of any base path) and method.
    public static func match(method: String, path: String) -> Result<Route, APIError> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let route: Route
        let allowed: [String]
        switch segments {
        case ["api", "v1", "status"]:
            route = .status
            allowed = ["GET", "HEAD"]
        case ["api", "v1", "listens"]:
            route = .listens
            allowed = ["GET", "HEAD"]
        default:
            return .failure(.notFound("no route for \(path)"))
        }
        guard allowed.contains(method) else { return .failure(.methodNotAllowed(allowed)) }
        return .success(route)
    }
}
