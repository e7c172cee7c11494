/// Who may call a route with a method. `Authorization.decide` reads it, from the headers,
/// before any handler runs or any body is read.
public enum Access: Equatable, Sendable {
    /// Anyone, and no credential is even looked at: liveness, files, the login form, logging out.
    case open
    /// Anyone; a key that is sent is checked (and counted when wrong), and the key, a session
    /// or a trusted network see more (the status, the song of the day and its share page).
    case `public`
    /// Listening history and health data: trusted networks, the key or a session.
    case privateRead
    /// Changes: the admin key, or a session from the page itself (same origin, against CSRF).
    case write
    /// What a player or sensor sends (heart-rate samples): a submit key too, besides what
    /// `write` takes.
    case submit
    /// A foreign protocol's credentials, refused in its words: ListenBrainz's user token
    /// (the admin key or a submit key in `Authorization: Token …`). Sessions and trusted
    /// networks do not count.
    case listenBrainzToken
    /// ListenBrainz's user token for a change to the history (deleting a listen): the admin
    /// key only, refused in ListenBrainz's words. A submit key adds listens, it does not
    /// take them away.
    case listenBrainzAdminToken
    /// The request brings a key for its handler to judge (the login form's body,
    /// ListenBrainz's validate-token): only the lockout is decided from the headers.
    case keyCheck
}

/// How large a body a route and method take (`WebServer.Settings` holds the sizes).
public enum BodyLimit: Equatable, Sendable {
    /// No body at all: reads, and requests that carry nothing.
    case none
    /// `server.max_body_bytes`.
    case normal
    /// `server.max_import_bytes`: whole export files.
    case `import`
    /// ListenBrainz batches of up to 1,000 listens.
    case listenBrainz
    /// A body that comes before any credential is judged (the login form, Audioscrobbler's
    /// handshakes and calls, whose credentials are inside it): 16 KiB, from a small pool of its
    /// own, so that clients without a key cannot take the memory the owner's writes need.
    case keyless
    /// The same pool, for Audioscrobbler's scrobble batches (50 scrobbles with long non-Latin
    /// tags pass 16 KiB): 64 KiB.
    case keylessBatch

    /// Received from the keyless pool, within a short deadline and never with `100 Continue`.
    public var isKeyless: Bool { self == .keyless || self == .keylessBatch }
}

/// How errors are written.
public enum ErrorDialect: Equatable, Sendable {
    /// Pacenote's JSON, `{"error": {"code", "message"}}`.
    case pacenote
    /// Pacenote's, for the site: a browser asking for HTML gets an error page, and a browser
    /// that may not see a page (401, 403) is sent to log in.
    case page
    /// ListenBrainz's `{"code": 400, "error": "message"}`, which its clients read.
    case listenBrainz
}

/// What one route declares for one method.
public struct Policy: Equatable, Sendable {
    public var access: Access
    public var body: BodyLimit
    public var dialect: ErrorDialect

    public init(_ access: Access, body: BodyLimit = .none, _ dialect: ErrorDialect = .pacenote) {
        self.access = access
        self.body = body
        self.dialect = dialect
    }
}

/// One line of the route table: a path with its parameters, and each method it answers.
public struct Endpoint: Sendable {
    /// `/api/v1/workouts/{id}`: literal segments and `{name}` for one segment;
    /// `{path…}` takes the rest (one segment or more).
    public let template: String
    /// The methods in the order `Allow` lists them, each with its policy.
    public let methods: [(method: String, policy: Policy)]
    /// The route for the parameters' values (in the template's order), or why there is none.
    let route: @Sendable (_ values: [String], _ path: String) throws(APIError) -> Route
    /// The template's segments, split once (every request walks the table: splitting each
    /// line's template again was a tenth of the server's CPU under wrk).
    private let parts: [Substring]

    init(_ template: String, _ methods: [(String, Policy)],
         _ route: @escaping @Sendable (_ values: [String], _ path: String) throws(APIError) -> Route) {
        self.template = template
        parts = template.split(separator: "/")
        self.methods = methods.map { (method: $0.0, policy: $0.1) }
        self.route = route
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
}

/// A route found for a request, with what it declares for the request's method.
public struct RouteMatch: Equatable, Sendable {
    public var route: Route
    public var policy: Policy
}

extension Route {
    /// Resolves a request path (already stripped of any base path) and method: the one
    /// place that maps them to a route and its policy, or to the error that explains why
    /// there is none.
    public static func match(method: String, path: String) -> Result<RouteMatch, APIError> {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for endpoint in table {
            guard let values = endpoint.values(segments) else { continue }
            do {
                let route = try endpoint.route(values, path)
                guard let policy = endpoint.methods.first(where: { $0.method == method })?.policy else {
                    return .failure(.methodNotAllowed(endpoint.methods.map(\.method)))
                }
                return .success(RouteMatch(route: route, policy: policy))
            } catch {
                return .failure(error)
            }
        }
        return .failure(.notFound("no route for \(path)"))
    }

    /// GET and HEAD with one policy.
    private static func read(_ access: Access, _ dialect: ErrorDialect = .pacenote) -> [(String, Policy)] {
        [("GET", Policy(access, dialect)), ("HEAD", Policy(access, dialect))]
    }

    private static func id(_ text: String, _ missing: String) throws(APIError) -> Int64 {
        guard let id = Int64(text), id > 0 else { throw .notFound(missing) }
        return id
    }

    private static let write = Policy(.write, body: .normal)
    private static let writePage = Policy(.write, body: .normal, .page)
    private static let file = read(.open)

    /// Every route, method by method: who may call it, the body it takes, how its errors
    /// are written. Its metric label is the route's own `metricName`. The access table
    /// test walks every line.
    public static let table: [Endpoint] = [
        Endpoint("/api/v1/status", read(.public)) { _, _ in .status },
        // GET reads the history; POST adds plays that were never logged.
        Endpoint("/api/v1/listens", read(.privateRead) + [("POST", write)]) { _, _ in .listens },
        Endpoint("/api/v1/listens/{id}", read(.privateRead) + [("PATCH", write), ("DELETE", Policy(.write))]) { v, _ throws(APIError) in
            .listen(try id(v[0], "no play \(v[0])"))
        },
        Endpoint("/api/v1/merges", [("POST", write)]) { _, _ in .merges },
        Endpoint("/api/v1/merges/suggestions", read(.privateRead)) { _, _ in .mergeSuggestions },
        Endpoint("/api/v1/curation", read(.privateRead)) { _, _ in .curation },
        Endpoint("/api/v1/curation/{id}/undo", [("POST", write)]) { v, _ throws(APIError) in
            .undoCuration(try id(v[0], "no curation entry \(v[0])"))
        },
        // Rules: reading them is private; adding, changing, a dry run (it takes the writer)
        // and applying them are writes.
        Endpoint("/api/v1/rules", read(.privateRead) + [("POST", write)]) { _, _ in .rules },
        Endpoint("/api/v1/rules/{id}", read(.privateRead) + [("PATCH", write), ("DELETE", Policy(.write))]) { v, _ throws(APIError) in
            .rule(try id(v[0], "no rule \(v[0])"))
        },
        Endpoint("/api/v1/rules/{id}/preview", [("POST", Policy(.write))]) { v, _ throws(APIError) in
            .rulePreview(try id(v[0], "no rule \(v[0])"))
        },
        Endpoint("/api/v1/rules/{id}/apply", [("POST", Policy(.write))]) { v, _ throws(APIError) in
            .ruleApply(try id(v[0], "no rule \(v[0])"))
        },
        Endpoint("/api/v1/stats", read(.privateRead)) { _, _ in .stats },
        // The review is private like the stats; publishing a share of it and withdrawing
        // one are writes (the share's page is public, below).
        Endpoint("/api/v1/review", read(.privateRead)) { _, _ in .review },
        Endpoint("/api/v1/review/shares", read(.privateRead) + [("POST", write)]) { _, _ in .reviewShares },
        Endpoint("/api/v1/review/shares/{token}", [("PUT", Policy(.write)), ("DELETE", Policy(.write))]) { v, _ in .reviewShare(v[0]) },
        Endpoint("/api/v1/sotd", read(.privateRead)) { _, _ in .sotdMonth },
        // The song of a day is public like its share page; pinning and unpinning are writes.
        Endpoint("/api/v1/sotd/{day}", read(.public) + [("PUT", write), ("DELETE", Policy(.write))]) { v, _ in .sotd(v[0]) },
        // Whom this Pacenote follows is private like the history; following is a write.
        Endpoint("/api/v1/friends", read(.privateRead) + [("POST", write)]) { _, _ in .friends },
        Endpoint("/api/v1/friends/{id}", read(.privateRead) + [("DELETE", Policy(.write))]) { v, _ throws(APIError) in
            .friend(try id(v[0], "no friend \(v[0])"))
        },
        // Heart rate comes from a watch or a phone: a submit key may send it.
        Endpoint("/api/v1/hr", [("POST", Policy(.submit, body: .normal))]) { _, _ in .heartRate },
        // GET lists; POST starts a workout by hand.
        Endpoint("/api/v1/workouts", read(.privateRead) + [("POST", write)]) { _, _ in .workouts },
        Endpoint("/api/v1/workouts/{id}", read(.privateRead)) { v, _ throws(APIError) in .workout(try id(v[0], "no workout \(v[0])")) },
        Endpoint("/api/v1/workouts/{id}/stop", [("POST", write)]) { v, _ throws(APIError) in
            .stopWorkout(try id(v[0], "no workout \(v[0])"))
        },
        Endpoint("/api/v1/import", [("POST", Policy(.write, body: .import))]) { _, _ in .importListens },
        Endpoint("/api/v1/recommendations/next", read(.privateRead)) { _, _ in .recommendations },
        Endpoint("/api/v1/queue", [("POST", write)]) { _, _ in .queue },
        Endpoint("/api/v1/tracks/{id}/bpm", [("PUT", write)]) { v, _ throws(APIError) in .trackBPM(try id(v[0], "no track \(v[0])")) },
        Endpoint("/api/v1/tracks/{id}/feeling", [("PUT", write)]) { v, _ throws(APIError) in
            .trackFeeling(try id(v[0], "no track \(v[0])"))
        },
        Endpoint("/api/v1/artists/{id}", read(.privateRead)) { v, _ throws(APIError) in .artist(try id(v[0], "no artist \(v[0])")) },
        Endpoint("/api/v1/albums/{id}", read(.privateRead)) { v, _ throws(APIError) in .album(try id(v[0], "no album \(v[0])")) },
        Endpoint("/api/v1/recommendations/not-now", [("POST", write)]) { _, _ in .notNow },
        Endpoint("/api/v1/events", [("GET", Policy(.privateRead))]) { _, _ in .events },
        Endpoint("/api/v1/submissions", read(.privateRead)) { _, _ in .submissions },
        // The OpenAPI document is a file of Public/, served as it is.
        Endpoint("/api/v1/openapi.json", file) { _, _ in .staticFile("openapi.json") },
        Endpoint("/login", read(.open, .page) + [("POST", Policy(.keyCheck, body: .keyless, .page))]) { _, _ in .login },
        Endpoint("/logout", [("POST", Policy(.open, .page))]) { _, _ in .logout },
        Endpoint("/metrics", read(.privateRead)) { _, _ in .metrics },
        Endpoint("/healthz", read(.open)) { _, _ in .health },
        Endpoint("/favicon.svg", file) { _, _ in .staticFile("favicon.svg") },
        Endpoint("/favicon.ico", file) { _, _ in .staticFile("favicon.ico") },
        Endpoint("/robots.txt", file) { _, _ in .staticFile("robots.txt") },
        Endpoint("/static/{path…}", file) { v, _ in .staticFile(v[0]) },
        Endpoint("/", read(.privateRead, .page)) { _, _ in .page(.dashboard) },
        // POST: the history page's delete, edit and add forms (a logged-in browser).
        Endpoint("/history", read(.privateRead, .page) + [("POST", writePage)]) { _, _ in .page(.history) },
        Endpoint("/curation", read(.privateRead, .page) + [("POST", writePage)]) { _, _ in .page(.curation) },
        // What the page is called ("Corrections") and a newcomer types.
        Endpoint("/corrections", read(.privateRead, .page)) { _, _ in .page(.moved("/curation")) },
        Endpoint("/stats", read(.privateRead, .page)) { _, _ in .page(.stats) },
        // POST: the review page's publish and withdraw forms (a logged-in browser).
        Endpoint("/review", read(.privateRead, .page) + [("POST", writePage)]) { _, _ in .page(.review(nil)) },
        Endpoint("/review/{period}", read(.privateRead, .page)) { v, _ in .page(.review(v[0])) },
        // A published review and its card: public, like the song of the day's share page.
        Endpoint("/review/shared/{token}", read(.public, .page)) { v, _ in .page(.reviewShared(v[0])) },
        Endpoint("/review/shared/{token}/card.png", read(.public, .page)) { v, _ in .page(.reviewCard(v[0])) },
        Endpoint("/sotd", read(.privateRead, .page)) { _, _ in .page(.sotdArchive) },
        Endpoint("/workouts", read(.privateRead, .page)) { _, _ in .page(.workouts) },
        // POST: the rules page's forms (add, delete, preview, apply to the past).
        // POST sends the plays forwarding targets refused again.
        Endpoint("/submissions", read(.privateRead, .page) + [("POST", writePage)]) { _, _ in .page(.submissions) },
        Endpoint("/rules", read(.privateRead, .page) + [("POST", writePage)]) { _, _ in .page(.rules) },
        // The address artist pages had before they had ids: redirects to /artists/{id}.
        Endpoint("/artist", read(.privateRead, .page)) { _, _ in .page(.artistByName) },
        Endpoint("/artists/{id}", read(.privateRead, .page)) { v, path throws(APIError) in
            .page(.artist(try id(v[0], "no such page: \(path)")))
        },
        Endpoint("/albums/{id}", read(.privateRead, .page)) { v, path throws(APIError) in
            .page(.album(try id(v[0], "no such page: \(path)")))
        },
        // The share page is public; POST pins, unpins or annotates the day from it (a logged-in browser).
        Endpoint("/sotd/{day}", read(.public, .page) + [("POST", writePage)]) { v, _ in .page(.sotdShare(v[0])) },
        Endpoint("/sotd/{day}/cover", read(.public, .page)) { v, _ in .page(.sotdCover(v[0], png: false)) },
        Endpoint("/sotd/{day}/cover.png", read(.public, .page)) { v, _ in .page(.sotdCover(v[0], png: true)) },
        // The feed of the songs of the day, public like the share pages it links to.
        Endpoint("/sotd.atom", read(.public)) { _, _ in .sotdFeed },
        // POST: the friends page's forms (follow, unfollow).
        Endpoint("/friends", read(.privateRead, .page) + [("POST", writePage)]) { _, _ in .page(.friends) },
        Endpoint("/friends/covers/{id}", read(.privateRead, .page)) { v, path throws(APIError) in
            .page(.friendCover(try id(v[0], "no such page: \(path)")))
        },
        Endpoint("/workouts/{id}", read(.privateRead, .page)) { v, path throws(APIError) in
            .page(.workout(try id(v[0], "no such page: \(path)")))
        },
        // POST: the track page's form that sets its BPM by hand.
        Endpoint("/tracks/{id}", read(.privateRead, .page) + [("POST", writePage)]) { v, path throws(APIError) in
            .page(.track(try id(v[0], "no such page: \(path)")))
        },
        Endpoint("/covers/{id}", read(.privateRead, .page)) { v, path throws(APIError) in
            .page(.cover(try id(v[0], "no such page: \(path)")))
        },
        // ListenBrainz-compatible, under `/apis/listenbrainz/1/…` and at the root `/1/…`.
        Endpoint("/apis/listenbrainz/1/submit-listens", submit) { _, _ in .listenBrainzSubmit },
        Endpoint("/1/submit-listens", submit) { _, _ in .listenBrainzSubmit },
        Endpoint("/apis/listenbrainz/1/validate-token", read(.keyCheck, .listenBrainz)) { _, _ in .listenBrainzValidateToken },
        Endpoint("/1/validate-token", read(.keyCheck, .listenBrainz)) { _, _ in .listenBrainzValidateToken },
        // Feedback (loved/hated) comes with the same token as listens: a submit key may send it.
        Endpoint("/apis/listenbrainz/1/feedback/recording-feedback", feedback) { _, _ in .listenBrainzFeedback },
        Endpoint("/1/feedback/recording-feedback", feedback) { _, _ in .listenBrainzFeedback },
        Endpoint("/apis/listenbrainz/1/feedback/user/{name}/get-feedback", read(.privateRead, .listenBrainz)) { v, _ in
            .listenBrainzGetFeedback(v[0])
        },
        Endpoint("/1/feedback/user/{name}/get-feedback", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzGetFeedback(v[0]) },
        // Reading the history is private like Pacenote's own listens; any user name answers.
        Endpoint("/apis/listenbrainz/1/user/{name}/listens", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzListens(v[0]) },
        Endpoint("/1/user/{name}/listens", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzListens(v[0]) },
        Endpoint("/apis/listenbrainz/1/user/{name}/listen-count", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzListenCount(v[0]) },
        Endpoint("/1/user/{name}/listen-count", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzListenCount(v[0]) },
        Endpoint("/apis/listenbrainz/1/user/{name}/playing-now", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzPlayingNow(v[0]) },
        Endpoint("/1/user/{name}/playing-now", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzPlayingNow(v[0]) },
        // ListenBrainz's statistics, from the charts' rollups: private like the history.
        Endpoint("/apis/listenbrainz/1/stats/user/{name}/artists", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzStats(v[0], .artists) },
        Endpoint("/1/stats/user/{name}/artists", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzStats(v[0], .artists) },
        Endpoint("/apis/listenbrainz/1/stats/user/{name}/recordings", read(.privateRead, .listenBrainz)) { v, _ in
            .listenBrainzStats(v[0], .recordings)
        },
        Endpoint("/1/stats/user/{name}/recordings", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzStats(v[0], .recordings) },
        Endpoint("/apis/listenbrainz/1/stats/user/{name}/releases", read(.privateRead, .listenBrainz)) { v, _ in
            .listenBrainzStats(v[0], .releases)
        },
        Endpoint("/1/stats/user/{name}/releases", read(.privateRead, .listenBrainz)) { v, _ in .listenBrainzStats(v[0], .releases) },
        // Deleting a listen changes the history: the admin key only.
        Endpoint("/apis/listenbrainz/1/delete-listen", deleteListen) { _, _ in .listenBrainzDeleteListen },
        Endpoint("/1/delete-listen", deleteListen) { _, _ in .listenBrainzDeleteListen },
        // The Last.fm protocols, at Maloja's paths. They carry their own credentials (2.0's
        // session key or login, 1.2's handshake token and session id), which the handler
        // judges and answers in the protocol's words: only the lockout is decided here.
        Endpoint("/apis/audioscrobbler", scrobbler) { _, _ in .audioscrobbler },
        Endpoint("/apis/audioscrobbler/2.0", scrobbler) { _, _ in .audioscrobbler },
        Endpoint("/apis/audioscrobbler_legacy", scrobbler) { _, _ in .audioscrobblerHandshake },
        Endpoint("/apis/audioscrobbler_legacy/nowplaying", [("POST", Policy(.keyCheck, body: .keyless))]) { _, _ in
            .audioscrobblerNowPlaying
        },
        Endpoint("/apis/audioscrobbler_legacy/submission", [("POST", Policy(.keyCheck, body: .keylessBatch))]) { _, _ in
            .audioscrobblerSubmit
        },
    ]

    private static let scrobbler = read(.keyCheck) + [("POST", Policy(.keyCheck, body: .keylessBatch))]
    private static let feedback = [("POST", Policy(.listenBrainzToken, body: .normal, .listenBrainz))]
    private static let submit = [("POST", Policy(.listenBrainzToken, body: .listenBrainz, .listenBrainz))]
    private static let deleteListen = [("POST", Policy(.listenBrainzAdminToken, body: .normal, .listenBrainz))]
}
