/// Every URL Pacenote answers, as a value. `Route.match` is the one place that maps a
/// method and path to a route, or to the error that explains why there is none.
public enum Route: Equatable, Sendable {
    case status
    case listens
    case heartRate
    case stats
    /// The song of the day `YYYY-MM-DD`: GET (public, as its share page), PUT to pin, DELETE to unpin.
    case sotd(String)
    /// The songs of the days of a month (`?month=YYYY-MM`).
    case sotdMonth
    case workouts
    case workout(Int64)
    case stopWorkout(Int64)
    /// Listening history exports (ListenBrainz, Last.fm, Spotify, Maloja), one file per request.
    case importListens
    /// ListenBrainz-compatible, under `/apis/listenbrainz/1/…` and at the root `/1/…`.
    case listenBrainzSubmit
    case listenBrainzValidateToken
    /// Live events (Server-Sent Events).
    case events
    /// Next-track suggestions for the current (or a given) zone.
    case recommendations
    /// Add a track, or the top suggestion, right after the current song in MPD.
    case queue
    /// Set a track's BPM by hand.
    case trackBPM(Int64)
    /// Browser login with the API key (a session cookie), and logout.
    case login
    case logout
    /// Prometheus metrics.
    case metrics
    /// Liveness for monitors and load balancers: no database, no MPD.
    case health
    /// A file from `Public/`, by its path below it.
    case staticFile(String)
    /// The site's HTML pages and their pictures.
    case page(Page)

    /// A short, fixed name for metrics labels (never the raw path: ids would explode them).
    public var metricName: String {
        switch self {
        case .status: "status"
        case .listens: "listens"
        case .heartRate: "hr"
        case .stats: "stats"
        case .sotd: "sotd"
        case .sotdMonth: "sotd_month"
        case .workouts: "workouts"
        case .workout: "workout"
        case .stopWorkout: "workout_stop"
        case .importListens: "import"
        case .listenBrainzSubmit: "listenbrainz_submit"
        case .listenBrainzValidateToken: "listenbrainz_validate"
        case .events: "events"
        case .recommendations: "recommendations"
        case .queue: "queue"
        case .trackBPM: "track_bpm"
        case .metrics: "metrics"
        case .login: "login"
        case .logout: "logout"
        case .health: "healthz"
        case .staticFile: "static"
        case .page(let page): "page_" + page.metricName
        }
    }

    /// Routes that speak ListenBrainz's dialect (its error shape, its auth messages).
    public var isListenBrainz: Bool {
        self == .listenBrainzSubmit || self == .listenBrainzValidateToken
    }

    /// Requests to this path may carry a large body (imports, ListenBrainz batches).
    public static func takesLargeBody(_ path: String) -> Bool {
        path.hasSuffix("/1/submit-listens")
    }

    /// Import uploads are whole export files: `server.max_import_bytes` applies to them.
    public static func isImport(_ path: String) -> Bool {
        path.hasSuffix("/api/v1/import")
    }

    /// Routes that read listening history or health data: open to trusted networks, and
    /// to anyone with the key.
    public var isPrivate: Bool {
        switch self {
        case .listens, .workouts, .workout, .events, .stats, .metrics, .sotdMonth, .recommendations: true
        case .page(let page): page.isPrivate
        default: false
        }
    }

    /// Routes that change something: they need the API key.
    public var isWrite: Bool {
        switch self {
        case .heartRate, .stopWorkout, .listenBrainzSubmit, .importListens, .queue, .trackBPM: true
        case .sotd: false  // PUT and DELETE need the key: checked by method in API.handle
        default: false
        }
    }

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
        case ["api", "v1", "stats"]:
            route = .stats
            allowed = ["GET", "HEAD"]
        case ["api", "v1", "sotd"]:
            route = .sotdMonth
            allowed = ["GET", "HEAD"]
        case let s where s.count == 4 && s[0] == "api" && s[1] == "v1" && s[2] == "sotd":
            route = .sotd(String(s[3]))
            allowed = ["GET", "HEAD", "PUT", "DELETE"]
        case ["api", "v1", "hr"]:
            route = .heartRate
            allowed = ["POST"]
        case ["api", "v1", "workouts"]:
            // GET lists; POST starts a workout by hand.
            route = .workouts
            allowed = ["GET", "HEAD", "POST"]
        case let s where s.count == 4 && s[0] == "api" && s[1] == "v1" && s[2] == "workouts":
            guard let id = Int64(s[3]), id > 0 else { return .failure(.notFound("no workout \(s[3])")) }
            route = .workout(id)
            allowed = ["GET", "HEAD"]
        case let s where s.count == 5 && s[0] == "api" && s[1] == "v1" && s[2] == "workouts" && s[4] == "stop":
            guard let id = Int64(s[3]), id > 0 else { return .failure(.notFound("no workout \(s[3])")) }
            route = .stopWorkout(id)
            allowed = ["POST"]
        case ["api", "v1", "import"]:
            route = .importListens
            allowed = ["POST"]
        case ["api", "v1", "recommendations", "next"]:
            route = .recommendations
            allowed = ["GET", "HEAD"]
        case ["api", "v1", "queue"]:
            route = .queue
            allowed = ["POST"]
        case let s where s.count == 5 && s[0] == "api" && s[1] == "v1" && s[2] == "tracks" && s[4] == "bpm":
            guard let id = Int64(s[3]), id > 0 else { return .failure(.notFound("no track \(s[3])")) }
            route = .trackBPM(id)
            allowed = ["PUT"]
        case ["api", "v1", "events"]:
            route = .events
            allowed = ["GET"]
        case ["api", "v1", "openapi.json"]:
            // The OpenAPI document is a file of Public/, served as it is.
            route = .staticFile("openapi.json")
            allowed = ["GET", "HEAD"]
        case ["login"]:
            route = .login
            allowed = ["GET", "HEAD", "POST"]
        case ["logout"]:
            route = .logout
            allowed = ["POST"]
        case ["metrics"]:
            route = .metrics
            allowed = ["GET", "HEAD"]
        case ["healthz"]:
            route = .health
            allowed = ["GET", "HEAD"]
        case ["favicon.svg"], ["favicon.ico"], ["robots.txt"]:
            route = .staticFile(String(segments[0]))
            allowed = ["GET", "HEAD"]
        case let s where s.first == "static" && s.count > 1:
            route = .staticFile(s.dropFirst().joined(separator: "/"))
            allowed = ["GET", "HEAD"]
        case []:
            route = .page(.dashboard)
            allowed = ["GET", "HEAD"]
        case ["history"], ["stats"], ["sotd"], ["workouts"], ["artist"]:
            let pages: [Substring: Page] = ["history": .history, "stats": .stats, "sotd": .sotdArchive,
                                            "workouts": .workouts, "artist": .artist]
            route = .page(pages[segments[0]]!)
            allowed = ["GET", "HEAD"]
        case let s where s.count == 2 && s[0] == "sotd":
            route = .page(.sotdShare(String(s[1])))
            // POST: pin, unpin or annotate the day from the page (a logged-in browser).
            allowed = ["GET", "HEAD", "POST"]
        case let s where s.count == 3 && s[0] == "sotd" && (s[2] == "cover" || s[2] == "cover.png"):
            route = .page(.sotdCover(String(s[1]), png: s[2] == "cover.png"))
            allowed = ["GET", "HEAD"]
        case let s where s.count == 2 && ["workouts", "tracks", "covers"].contains(s[0]):
            guard let id = Int64(s[1]), id > 0 else { return .failure(.notFound("no such page: \(path)")) }
            route = .page(s[0] == "workouts" ? .workout(id) : s[0] == "tracks" ? .track(id) : .cover(id))
            // POST /tracks/ID: the track page's form that sets its BPM by hand.
            allowed = s[0] == "tracks" ? ["GET", "HEAD", "POST"] : ["GET", "HEAD"]
        case ["apis", "listenbrainz", "1", "submit-listens"], ["1", "submit-listens"]:
            route = .listenBrainzSubmit
            allowed = ["POST"]
        case ["apis", "listenbrainz", "1", "validate-token"], ["1", "validate-token"]:
            route = .listenBrainzValidateToken
            allowed = ["GET", "HEAD"]
        default:
            return .failure(.notFound("no route for \(path)"))
        }
        guard allowed.contains(method) else { return .failure(.methodNotAllowed(allowed)) }
        return .success(route)
    }
}

/// The site's pages (server-rendered HTML) and pictures.
public enum Page: Equatable, Sendable {
    case dashboard, history, stats, sotdArchive, workouts, artist
    case sotdShare(String)
    /// The cover of a day's song: public like the share page it illustrates. `png`: for
    /// link previews (`cover.png`), a drawn tile as PNG when there is no picture.
    case sotdCover(String, png: Bool)
    case workout(Int64)
    case track(Int64)
    case cover(Int64)

    /// Everything but a song of the day's share page and its picture shows the history.
    public var isPrivate: Bool {
        switch self {
        case .sotdShare, .sotdCover: false
        default: true
        }
    }

    var metricName: String {
        switch self {
        case .dashboard: "dashboard"
        case .history: "history"
        case .stats: "stats"
        case .sotdArchive: "sotd_archive"
        case .workouts: "workouts"
        case .artist: "artist"
        case .sotdShare: "sotd_share"
        case .sotdCover: "sotd_cover"
        case .workout: "workout"
        case .track: "track"
        case .cover: "cover"
        }
    }
}
