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
    /// A like or dislike of a track (`PUT /api/v1/tracks/{id}/feeling`): what `write` takes,
    /// and a client key (an app that scrobbles also loves tracks). The private session's
    /// switch (`/api/v1/private-session`) takes the same: the app that scrobbles may also say
    /// "keep this private".
    case like
    /// A webhook from a media server or an extension (Jellyfin, Plex, Web Scrobbler): a submit
    /// key or the admin key, in the headers or — for sources that can set nothing but a URL —
    /// as the path's last segment (`/webhooks/plex/KEY`, the route's `{key}`). Refused in
    /// Pacenote's JSON; sessions and trusted networks do not count.
    case webhookKey
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
    /// Audioscrobbler 2.0's `<lfm status="failed"><error code="4">…` (JSON with `format=json`)
    /// for the errors its handler raises in Last.fm's words (`APIError.Style.lastFM`).
    case lastFM
    /// Audioscrobbler 1.2's answer lines (`BADAUTH`, `BADSESSION`, `BADTIME`, `FAILED reason`),
    /// sent with 200 as its clients expect (`APIError.Style.audioscrobbler1`).
    case audioscrobbler1
}

/// What one route declares for one method.
public struct Policy: Equatable, Sendable {
    public var access: Access
    public var body: BodyLimit
    public var dialect: ErrorDialect
    /// Whether a page on another site listed in `server.cors_origins` may call it (CORS): the
    /// routes a key opens (ListenBrainz, Audioscrobbler 2.0, the /api/v1 reads, heart rate,
    /// likes). Never the site's pages and forms, the login, sessions or the admin's writes.
    /// `API+CrossOrigin.swift` answers preflights and adds the headers from it.
    public var crossOrigin: Bool

    public init(_ access: Access, body: BodyLimit = .none, _ dialect: ErrorDialect = .pacenote, crossOrigin: Bool = false) {
        self.access = access
        self.body = body
        self.dialect = dialect
        self.crossOrigin = crossOrigin
    }
}

extension Route {
    /// GET and HEAD with one policy and one handler.
    static func read(_ access: Access, _ dialect: ErrorDialect, _ handler: @escaping Handler) -> [RouteMethod] {
        [RouteMethod("GET", Policy(access, dialect), handler), RouteMethod("HEAD", Policy(access, dialect), handler)]
    }

    static func read(_ access: Access, _ handler: @escaping Handler) -> [RouteMethod] {
        read(access, .pacenote, handler)
    }

    /// GET and HEAD that a page on another site (`server.cors_origins`) may call too, with a key.
    static func keyRead(_ access: Access, _ dialect: ErrorDialect, _ handler: @escaping Handler) -> [RouteMethod] {
        read(access, dialect, handler).map { $0.fromOtherSites }
    }

    static func keyRead(_ access: Access, _ handler: @escaping Handler) -> [RouteMethod] {
        keyRead(access, .pacenote, handler)
    }

    /// A JSON answer with status 200.
    static func json(_ body: @escaping @Sendable (API, Call) throws -> JSONValue) -> Handler {
        { api, call in .json(try body(api, call)) }
    }

    /// A page's GET and HEAD: its errors are pages too (`API.errorPage`).
    static func page(_ access: Access, _ handler: @escaping Handler) -> [RouteMethod] {
        read(access, .page, asPage(handler))
    }

    /// A page's forms (a logged-in browser's POST), answered as pages.
    static func form(longWrite: Bool = false, _ handler: @escaping Handler) -> RouteMethod {
        RouteMethod("POST", Policy(.write, body: .normal, .page), longWrite: longWrite, asPage(handler))
    }

    static func asPage(_ handler: @escaping Handler) -> Handler {
        { api, call in
            do { return try handler(api, call) } catch {
                return api.errorPage(APIError(error), call.request, mayReadPrivate: call.grant.mayReadPrivate)
            }
        }
    }

    /// A file of Public/, served as it is.
    static func file(_ name: String? = nil) -> [RouteMethod] {
        read(.open) { api, call in try api.staticFile(name ?? call.value) }
    }

    static let write = Policy(.write, body: .normal)
    static let change = Policy(.write)

    /// Every route, method by method: who may call it, the body it takes, how its errors
    /// are written, whether it is a long write, and its handler; and the line's metric label.
    /// The access table test walks every line.
    public static let table: [Endpoint] = api + player + workouts + site + protocols

    private static let api: [Endpoint] = [
        Endpoint("/api/v1/status", "status", keyRead(.public) { api, call in try api.statusResponse(call) }),
        // GET reads the history; POST adds plays that were never logged.
        Endpoint("/api/v1/listens", "listens", keyRead(.privateRead) { api, call in try api.listensResponse(call.request) }
            + [RouteMethod("POST", write, longWrite: true) { api, call in try api.addListens(call.request, source: "api") }]),
        Endpoint("/api/v1/listens/{id}", "listen", id: .named("no play"), keyRead(.privateRead, json { api, call in try api.play(call.id) }) + [
            RouteMethod("PATCH", write, longWrite: true, json { api, call in try api.editPlay(call.id, call.request, source: "api") }),
            RouteMethod("DELETE", change, longWrite: true, json { api, call in try api.deletePlay(call.id, source: "api") }),
        ]),
        Endpoint("/api/v1/merges", "merges", [RouteMethod("POST", write, longWrite: true) { api, call in try api.merge(call.request, source: "api") }]),
        Endpoint("/api/v1/merges/suggestions", "merge_suggestions", keyRead(.privateRead, json { api, call in try api.mergeSuggestions(call.query) })),
        Endpoint("/api/v1/curation", "curation", keyRead(.privateRead, json { api, call in try api.curationLog(call.query) })),
        Endpoint("/api/v1/curation/{id}/undo", "curation_undo", id: .named("no curation entry"), [
            RouteMethod("POST", write, longWrite: true, json { api, call in try api.undoCuration(call.id) }),
        ]),
        // Rules: reading them is private; adding, changing, a dry run (it takes the writer)
        // and applying them are writes.
        Endpoint("/api/v1/rules", "rules", keyRead(.privateRead, json { api, _ in try api.rulesJSON() }) + [
            RouteMethod("POST", write) { api, call in .json(try api.addRule(call.request, source: "api"), status: 201) },
        ]),
        Endpoint("/api/v1/rules/{id}", "rule", id: .named("no rule"),
                 keyRead(.privateRead, json { api, call in try api.rule(call.id) }) + [
                     RouteMethod("PATCH", write, json { api, call in try api.updateRule(call.id, call.request) }),
                     RouteMethod("DELETE", change, json { api, call in try api.deleteRule(call.id) }),
                 ]),
        Endpoint("/api/v1/rules/{id}/preview", "rule_preview", id: .named("no rule"), [
            RouteMethod("POST", change, longWrite: true, json { api, call in try api.previewRule(call.id, call.query) }),
        ]),
        Endpoint("/api/v1/rules/{id}/apply", "rule_apply", id: .named("no rule"), [
            RouteMethod("POST", change, longWrite: true, json { api, call in try api.applyRule(call.id, call.query, source: "api") }),
        ]),
        Endpoint("/api/v1/stats", "stats", keyRead(.privateRead, json { api, call in try api.stats(call.query) })),
        Endpoint("/api/v1/stats/zones", "stats_zones", keyRead(.privateRead, json { api, call in try api.zoneStats(call.query) })),
        // The review is private like the stats; publishing a share of it and withdrawing
        // one are writes (the share's page is public, below).
        Endpoint("/api/v1/review", "review", keyRead(.privateRead, json { api, call in try api.reviewJSON(call.query) })),
        Endpoint("/api/v1/review/shares", "review_shares", keyRead(.privateRead, json { api, call in try api.reviewShares(call.request) }) + [
            RouteMethod("POST", write) { api, call in try api.publishReview(call.request) },
        ]),
        Endpoint("/api/v1/review/shares/{token}", "review_share", [
            // PUT (no body) publishes it again: what it shows is taken from the history as it is now.
            RouteMethod("PUT", change, json { api, call in api.reviewShareJSON(try api.republish(call.value), call.request) }),
            RouteMethod("DELETE", change, json { api, call in try api.withdrawReview(call.value, call.request) }),
        ]),
        Endpoint("/api/v1/sotd", "sotd_month", keyRead(.privateRead, json { api, call in try api.songsOfTheMonth(call.query) })),
        // The song of a day is public like its share page; pinning and unpinning are writes.
        Endpoint("/api/v1/sotd/{day}", "sotd", keyRead(.public) { api, call in try api.songOfTheDay(call.value, mayReadPrivate: call.grant.mayReadPrivate) } + [
            RouteMethod("PUT", write) { api, call in try api.pinSong(call.value, call.request, mayReadPrivate: call.grant.mayReadPrivate) },
            RouteMethod("DELETE", change) { api, call in try api.unpinSong(call.value, mayReadPrivate: call.grant.mayReadPrivate) },
        ]),
        // Whom this Pacenote follows is private like the history; following is a write.
        Endpoint("/api/v1/friends", "friends", keyRead(.privateRead, json { api, _ in try api.friendsJSON() }) + [
            RouteMethod("POST", write) { api, call in try api.addFriend(call.request) },
        ]),
        Endpoint("/api/v1/friends/{id}", "friend", id: .named("no friend"), keyRead(.privateRead) { api, call in try api.friend(call.id) } + [
            RouteMethod("DELETE", change, json { api, call in try api.unfollow(call.id) }),
        ]),
        Endpoint("/api/v1/import", "import", [RouteMethod("POST", Policy(.write, body: .import), json { api, call in try api.importListens(call.request) })]),
        Endpoint("/api/v1/recommendations/next", "recommendations", keyRead(.privateRead, json { api, call in try api.recommendationsJSON(call.query) })),
        Endpoint("/api/v1/queue", "queue", [RouteMethod("POST", write) { api, call in try api.enqueue(call.request) }]),
        Endpoint("/api/v1/cadence", "cadence", keyRead(.privateRead, json { api, _ in try api.cadenceJSON() })
            + [RouteMethod("POST", write) { api, call in try api.changeCadence(call.request) }]),
        Endpoint("/api/v1/tempo", "tempo", keyRead(.privateRead, json { api, _ in APIJSON.tempoStatus(try api.recommender.tempoStatus()) })),
        Endpoint("/api/v1/tracks/{id}/bpm", "track_bpm", id: .named("no track"), [
            RouteMethod("PUT", write, json { api, call in try api.setTrackBPM(call.id, call.request) }),
        ]),
        // A like or dislike: a client key may send it too, from another site's page as well.
        Endpoint("/api/v1/tracks/{id}/feeling", "track_feeling", id: .named("no track"), [
            RouteMethod("PUT", Policy(.like, body: .normal, crossOrigin: true), json { api, call in try api.setTrackFeeling(call.id, call.request) }),
        ]),
        Endpoint("/api/v1/artists/{id}", "artist", id: .named("no artist"), keyRead(.privateRead, json { api, call in try api.artistJSON(call.id) })),
        Endpoint("/api/v1/albums/{id}", "album", id: .named("no album"), keyRead(.privateRead, json { api, call in try api.albumJSON(call.id) })),
        Endpoint("/api/v1/recommendations/not-now", "not_now", [RouteMethod("POST", write, json { api, call in try api.notNow(call.request) })]),
        // The private session: its state is private like the history; turning it on or off is
        // the owner's (a session, the admin key) or an app's that scrobbles (a client key).
        Endpoint("/api/v1/private-session", "private_session", keyRead(.privateRead, json { api, _ in try api.privateSessionJSON() }) + [
            RouteMethod("POST", Policy(.like, body: .normal), json { api, call in try api.startPrivateSession(call.request) }),
            RouteMethod("DELETE", Policy(.like), json { api, _ in try api.endPrivateSession() }),
        ]),
        // A hidden play (a private session's, a hide rule's) shown again: a change to the history.
        Endpoint("/api/v1/hidden-listens/{id}/unhide", "hidden_listen_unhide", id: .named("no hidden play"), [
            RouteMethod("POST", change, longWrite: true, json { api, call in try api.unhidePlay(call.id) }),
        ]),
        // The now-playing card for the owner's website (`[share] now`, 404 when off): public by
        // the owner's choice; the JSON may be read by a page of `server.cors_origins`.
        Endpoint("/now", "now", read(.public) { api, _ in try api.nowPage() }),
        Endpoint("/now.svg", "now", read(.public) { api, _ in try api.nowSVG() }),
        Endpoint("/now.json", "now", keyRead(.public) { api, _ in try api.nowJSON() }),
        Endpoint("/now/cover", "now", read(.public) { api, _ in try api.nowCover() }),
        Endpoint("/api/v1/events", "events", [RouteMethod("GET", Policy(.privateRead)) { api, call in try api.events(call.request) }]),
        Endpoint("/api/v1/submissions", "submissions", keyRead(.privateRead, json { api, call in api.submissionsJSON(call.query) })),
        // The OpenAPI document is a file of Public/, served as it is.
        Endpoint("/api/v1/openapi.json", "static", file("openapi.json").map { $0.fromOtherSites }),
        Endpoint("/login", "login", read(.open, .page) { api, call in api.loginForm(call.request) } + [
            RouteMethod("POST", Policy(.keyCheck, body: .keyless, .page)) { api, call in try api.login(call.request, client: call.grant.client) },
        ]),
        Endpoint("/logout", "logout", [RouteMethod("POST", Policy(.open, .page)) { api, call in try api.logout(call.request) }]),
        Endpoint("/metrics", "metrics", read(.privateRead) { api, _ in try api.metricsResponse() }),
        Endpoint("/healthz", "healthz", read(.open) { api, _ in api.healthResponse() }),
        Endpoint("/favicon.svg", "static", file("favicon.svg")),
        Endpoint("/favicon.ico", "static", file("favicon.ico")),
        Endpoint("/robots.txt", "static", file("robots.txt")),
        Endpoint("/static/{path…}", "static", file()),
    ]

    /// The site's pages and their pictures (`page_…` labels).
    private static let site: [Endpoint] = [
        Endpoint("/", "page_dashboard", page(.privateRead) { api, call in try api.dashboardPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.dashboardForm(call.request) }]),
        // POST: the history page's delete, edit and add forms (a logged-in browser).
        Endpoint("/history", "page_history", page(.privateRead) { api, call in try api.historyPage(call.request, mayWrite: call.grant.isOwner) }
            + [form(longWrite: true) { api, call in try api.historyForm(call.request) }]),
        Endpoint("/curation", "page_curation", page(.privateRead) { api, call in try api.curationPage(call.request, mayWrite: call.grant.isOwner) }
            + [form(longWrite: true) { api, call in try api.curationForm(call.request) }]),
        // What the page is called ("Corrections") and a newcomer types.
        Endpoint("/corrections", "page_moved", page(.privateRead) { api, _ in api.moved("/curation") }),
        Endpoint("/stats", "page_stats", page(.privateRead) { api, call in try api.statsPage(call.request, mayWrite: call.grant.isOwner) }),
        // POST: the review page's publish and withdraw forms (a logged-in browser).
        Endpoint("/review", "page_review", page(.privateRead) { api, call in try api.reviewPage(nil, call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.reviewForm(call.request) }]),
        Endpoint("/review/{period}", "page_review", page(.privateRead) { api, call in
            try api.reviewPage(call.value, call.request, mayWrite: call.grant.isOwner)
        }),
        // A published review and its card: public, like the song of the day's share page.
        Endpoint("/review/shared/{token}", "page_review_shared", page(.public) { api, call in
            try api.reviewSharedPage(call.value, call.request, mayReadPrivate: call.grant.mayReadPrivate)
        }),
        Endpoint("/review/shared/{token}/card.png", "page_review_card", page(.public) { api, call in try api.reviewCard(call.value) }),
        Endpoint("/sotd", "page_sotd_archive", page(.privateRead) { api, call in try api.sotdArchivePage(call.request) }),
        // POST: the "Measure HRV" button (a logged-in browser).
        Endpoint("/workouts", "page_workouts", page(.privateRead) { api, call in try api.workoutsPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.workoutsForm(call.request) }]),
        // POST: the plans page's forms (save, start, duplicate, delete, import) and the
        // dashboard's buttons for a planned workout (next, pause, resume, end).
        Endpoint("/plans", "page_plans", page(.privateRead) { api, call in try api.plansPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.plansForm(call.request) }]),
        // A plan's pre-run playlist (built on GET, a read); POST swaps a song, saves it to MPD or queues it.
        Endpoint("/plans/{id}/playlist", "page_plan_playlist", id: .page,
                 page(.privateRead) { api, call in try api.planPlaylistPage(call.id, call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.planPlaylistForm(call.id, call.request) }]),
        // POST sends the plays forwarding targets refused again.
        Endpoint("/submissions", "page_submissions", page(.privateRead) { api, call in api.submissionsPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.submissionsForm(call.request) }]),
        // POST: the rules page's forms (add, delete, preview, apply to the past).
        Endpoint("/rules", "page_rules", page(.privateRead) { api, call in try api.rulesPage(call.request, mayWrite: call.grant.isOwner) }
            + [form(longWrite: true) { api, call in try api.rulesForm(call.request) }]),
        // The address artist pages had before they had ids: redirects to /artists/{id}.
        Endpoint("/artist", "page_artist_by_name", page(.privateRead) { api, call in try api.artistRedirect(call.request) }),
        Endpoint("/artists/{id}", "page_artist", id: .page, page(.privateRead) { api, call in try api.artistPage(call.id, call.request, mayWrite: call.grant.isOwner) }),
        Endpoint("/albums/{id}", "page_album", id: .page, page(.privateRead) { api, call in try api.albumPage(call.id, call.request, mayWrite: call.grant.isOwner) }),
        // The share page is public; POST pins, unpins or annotates the day from it (a logged-in browser).
        Endpoint("/sotd/{day}", "page_sotd_share", page(.public) { api, call in
            try api.sotdSharePage(call.value, call.request, mayReadPrivate: call.grant.mayReadPrivate, mayWrite: call.grant.isOwner)
        } + [form { api, call in try api.sotdForm(call.value, call.request) }]),
        Endpoint("/sotd/{day}/cover", "page_sotd_cover", page(.public) { api, call in try api.sotdCover(call.value, png: false, call.request) }),
        Endpoint("/sotd/{day}/cover.png", "page_sotd_cover", page(.public) { api, call in try api.sotdCover(call.value, png: true, call.request) }),
        // The feed of the songs of the day, public like the share pages it links to.
        Endpoint("/sotd.atom", "sotd_feed", read(.public) { api, call in try api.sotdFeed(call.request) }),
        // POST: the friends page's forms (follow, unfollow).
        Endpoint("/friends", "page_friends", page(.privateRead) { api, call in try api.friendsPage(call.request, mayWrite: call.grant.isOwner) }
            + [form { api, call in try api.friendsForm(call.request) }]),
        Endpoint("/friends/covers/{id}", "page_friend_cover", id: .page, page(.privateRead) { api, call in try api.friendCover(call.id) }),
        Endpoint("/workouts/{id}", "page_workout", id: .page, page(.privateRead) { api, call in try api.workoutPage(call.id, call.request) }),
        // POST: the track page's forms that set its BPM by hand or a feeling.
        Endpoint("/tracks/{id}", "page_track", id: .page, page(.privateRead) { api, call in
            try api.trackPage(call.id, call.request, mayWrite: call.grant.isOwner)
        } + [form { api, call in
            try API.isFeelingForm(call.request) ? api.trackFeelingForm(call.id, call.request) : api.trackBPMForm(call.id, call.request)
        }]),
        // POST: the dashboard's private-session switch (a logged-in browser).
        Endpoint("/private-session", "page_private_session", [form { api, call in try api.privateSessionForm(call.request) }]),
        Endpoint("/covers/{id}", "page_cover", id: .page, page(.privateRead) { api, call in try api.cover(trackID: call.id, public: false) }),
    ]

    /// Other services' protocols: ListenBrainz, under `/apis/listenbrainz/1/…` and at the
    /// root `/1/…`, and the Last.fm protocols.
    private static let protocols: [Endpoint] = listenBrainz("/apis/listenbrainz/1") + listenBrainz("/1") + [
        // The Last.fm protocols, at Maloja's paths. They carry their own credentials (2.0's
        // session key or login, 1.2's handshake token and session id) in the body, which
        // their handlers have `Authorization` judge once it is in; only the lockout is
        // decided from the headers. Refusals are written in the protocol's words.
        Endpoint("/apis/audioscrobbler", "audioscrobbler", scrobbler),
        Endpoint("/apis/audioscrobbler/2.0", "audioscrobbler", scrobbler),
        Endpoint("/apis/audioscrobbler_legacy", "audioscrobbler_legacy_handshake", read(.keyCheck, .audioscrobbler1, handshake)
            + [RouteMethod("POST", Policy(.keyCheck, body: .keylessBatch, .audioscrobbler1), handshake)]),
        Endpoint("/apis/audioscrobbler_legacy/nowplaying", "audioscrobbler_legacy_nowplaying", [
            RouteMethod("POST", Policy(.keyCheck, body: .keyless, .audioscrobbler1)) { api, call in
                try api.legacyNowPlaying(call.request, client: call.grant.client)
            },
        ]),
        Endpoint("/apis/audioscrobbler_legacy/submission", "audioscrobbler_legacy_submit", [
            RouteMethod("POST", Policy(.keyCheck, body: .keylessBatch, .audioscrobbler1)) { api, call in
                try api.legacySubmit(call.request, client: call.grant.client)
            },
        ]),
        // Maloja's API as scrobblers use it: the key comes in the body (or the query), judged
        // by the handler once the body is in; checking a server needs no key.
        Endpoint("/apis/mlj_1/newscrobble", "maloja_newscrobble", [
            RouteMethod("POST", Policy(.keyCheck, body: .keyless), json { api, call in try api.malojaNewScrobble(call.request, client: call.grant.client) }),
        ]),
        Endpoint("/apis/mlj_1/serverinfo", "maloja_serverinfo", read(.open, json { api, _ in api.malojaServerInfo() })),
        Endpoint("/apis/mlj_1/test", "maloja_test", read(.keyCheck, json { api, call in try api.malojaTest(call.request, client: call.grant.client) })),
    ] + webhook("jellyfin") { api, request in try api.jellyfinWebhook(request) }
        + webhook("plex") { api, request in try api.plexWebhook(request) }
        + webhook("webscrobbler") { api, request in try api.webScrobblerWebhook(request) }

    /// A webhook's two lines: the key in the headers, or as the path's last segment.
    private static func webhook(_ name: String, _ handler: @escaping @Sendable (API, HTTPRequest) throws -> JSONValue) -> [Endpoint] {
        let post = [RouteMethod("POST", Policy(.webhookKey, body: .normal), json { api, call in try handler(api, call.request) })]
        return [Endpoint("/webhooks/" + name, "webhook_" + name, post), Endpoint("/webhooks/" + name + "/{key}", "webhook_" + name, post)]
    }

    private static let audioscrobbler: Handler = { api, call in try api.audioscrobbler(call.request, client: call.grant.client) }
    private static let handshake: Handler = { api, call in try api.legacyHandshake(call.request, client: call.grant.client) }
    /// Audioscrobbler 2.0: its credentials are a key's, so a page on another site may call it.
    private static let scrobbler = keyRead(.keyCheck, .lastFM, audioscrobbler)
        + [RouteMethod("POST", Policy(.keyCheck, body: .keylessBatch, .lastFM, crossOrigin: true), audioscrobbler)]

    /// ListenBrainz's routes under one prefix. They take a key (the user token), so a page on
    /// another site may call them (Web Scrobbler's extension sends listens with a preflight),
    /// all but delete-listen.
    private static func listenBrainz(_ prefix: String) -> [Endpoint] {
        func lb(_ access: Access, _ handler: @escaping Handler) -> [RouteMethod] { keyRead(access, .listenBrainz, handler) }
        return [
            Endpoint(prefix + "/submit-listens", "listenbrainz_submit", [
                RouteMethod("POST", Policy(.listenBrainzToken, body: .listenBrainz, .listenBrainz, crossOrigin: true)) { api, call in try api.submitListens(call.request) },
            ]),
            Endpoint(prefix + "/validate-token", "listenbrainz_validate", lb(.keyCheck) { api, call in api.validateTokenResponse(call) }),
            // Feedback (loved/hated) comes with the same token as listens: a submit key may send it.
            Endpoint(prefix + "/feedback/recording-feedback", "listenbrainz_feedback", [
                RouteMethod("POST", Policy(.listenBrainzToken, body: .normal, .listenBrainz, crossOrigin: true), json { api, call in try api.listenBrainzFeedback(call.request) }),
            ]),
            Endpoint(prefix + "/feedback/user/{name}/get-feedback", "listenbrainz_get_feedback", lb(.privateRead, json { api, call in
                try api.listenBrainzGetFeedback(user: call.value, call.query)
            })),
            // Reading the history is private like Pacenote's own listens; any user name answers.
            Endpoint(prefix + "/user/{name}/listens", "listenbrainz_listens", lb(.privateRead, json { api, call in
                try api.listenBrainzListens(user: call.value, call.query)
            })),
            Endpoint(prefix + "/user/{name}/listen-count", "listenbrainz_listen_count", lb(.privateRead, json { api, _ in try api.listenBrainzListenCount() })),
            Endpoint(prefix + "/user/{name}/playing-now", "listenbrainz_playing_now", lb(.privateRead, json { api, call in
                api.listenBrainzPlayingNow(user: call.value)
            })),
            // ListenBrainz's statistics, from the charts' rollups: private like the history.
            Endpoint(prefix + "/stats/user/{name}/artists", "listenbrainz_stats", lb(.privateRead) { api, call in
                try api.listenBrainzStats(user: call.value, .artists, call.query)
            }),
            Endpoint(prefix + "/stats/user/{name}/recordings", "listenbrainz_stats", lb(.privateRead) { api, call in
                try api.listenBrainzStats(user: call.value, .recordings, call.query)
            }),
            Endpoint(prefix + "/stats/user/{name}/releases", "listenbrainz_stats", lb(.privateRead) { api, call in
                try api.listenBrainzStats(user: call.value, .releases, call.query)
            }),
            // Listening activity (per day, month or year) and daily activity (per weekday and
            // hour), from the rollups: private like the other statistics.
            Endpoint(prefix + "/stats/user/{name}/listening-activity", "listenbrainz_stats_activity", lb(.privateRead) { api, call in
                try api.listenBrainzListeningActivity(user: call.value, call.query)
            }),
            Endpoint(prefix + "/stats/user/{name}/daily-activity", "listenbrainz_stats_activity", lb(.privateRead) { api, call in
                try api.listenBrainzDailyActivity(user: call.value, call.query)
            }),
            // The stored playlists as ListenBrainz's clients read them (JSPF): private like the history.
            Endpoint(prefix + "/user/{name}/playlists", "listenbrainz_playlists", lb(.privateRead, json { api, call in
                try api.listenBrainzPlaylists(user: call.value, call.query)
            })),
            Endpoint(prefix + "/playlist/{id}", "listenbrainz_playlist", lb(.privateRead, json { api, call in try api.listenBrainzPlaylist(call.value) })),
            // Whom this Pacenote follows (its friends) is private like /api/v1/friends.
            Endpoint(prefix + "/user/{name}/following", "listenbrainz_social", lb(.privateRead, json { api, call in
                try api.listenBrainzFollowing(user: call.value)
            })),
            Endpoint(prefix + "/user/{name}/followers", "listenbrainz_social", lb(.privateRead, json { api, call in
                api.listenBrainzFollowers(user: call.value)
            })),
            // The look-up scrobblers make to fill in MusicBrainz ids: ListenBrainz wants a user
            // token for it, and the token a scrobbler holds (a submit key) may ask.
            Endpoint(prefix + "/metadata/lookup", "listenbrainz_metadata_lookup", lb(.listenBrainzToken, json { api, call in
                try api.listenBrainzMetadataLookup(call.query)
            })),
            // Deleting a listen changes the history: the admin key only, and never from another site.
            Endpoint(prefix + "/delete-listen", "listenbrainz_delete_listen", [
                RouteMethod("POST", Policy(.listenBrainzAdminToken, body: .normal, .listenBrainz), json { api, call in try api.deleteListen(call.request) }),
            ]),
        ]
    }
}
