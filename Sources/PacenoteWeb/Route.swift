/// Every URL Pacenote answers, as a value. `Route.match` is the one place that maps a
/// method and path to a route, or to the error that explains why there is none.
public enum Route: Equatable, Sendable {
    case status
    /// GET: the history; POST: add plays that were never logged.
    case listens
    /// One play: GET, PATCH (edit), DELETE.
    case listen(Int64)
    /// Merge tracks, artists or albums (POST), and the likely duplicates (GET).
    case merges
    case mergeSuggestions
    /// The curation log, and undoing one entry.
    case curation
    case undoCuration(Int64)
    /// Rules: GET lists them in their order of application, POST adds one.
    case rules
    /// One rule: GET, PATCH, DELETE.
    case rule(Int64)
    /// The dry run of applying a rule to the past, and applying it (one curation entry).
    case rulePreview(Int64)
    case ruleApply(Int64)
    case heartRate
    case stats
    /// The year (or any period) in review: `?range=` or `from`/`to`.
    case review
    /// Published reviews: GET lists them, POST publishes one.
    case reviewShares
    /// One published review: DELETE withdraws it.
    case reviewShare(String)
    /// The song of the day `YYYY-MM-DD`: GET (public, as its share page), PUT to pin, DELETE to unpin.
    case sotd(String)
    /// The songs of the days of a month (`?month=YYYY-MM`).
    case sotdMonth
    /// `/sotd.atom`: the public Atom feed of the last songs of the day, which friends follow.
    case sotdFeed
    /// Friends whose songs of the day are followed: GET lists them, POST follows one.
    case friends
    /// One friend: GET (with their songs), DELETE (stop following).
    case friend(Int64)
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
    /// An artist or an album (entities with stable ids): plays over time, top tracks, zones.
    case artist(Int64)
    case album(Int64)
    /// Like, dislike or clear a track.
    case trackFeeling(Int64)
    /// "Not now" on a suggestion.
    case notNow
    /// ListenBrainz's feedback: set one, and read a user's.
    case listenBrainzFeedback
    case listenBrainzGetFeedback(String)
    /// ListenBrainz's reads of a user's history (counted plays), its size and what plays
    /// now, by user name (Pacenote has one user: any name answers); and deleting a listen.
    case listenBrainzListens(String)
    case listenBrainzListenCount(String)
    case listenBrainzPlayingNow(String)
    case listenBrainzDeleteListen
    /// ListenBrainz's statistics of a user's top artists, recordings or releases.
    case listenBrainzStats(String, ListenBrainzStatsEntity)
    /// The Last.fm protocols: Audioscrobbler 2.0 (`/apis/audioscrobbler/2.0/`), and 1.2's
    /// handshake, now-playing and submissions (`/apis/audioscrobbler_legacy/…`).
    case audioscrobbler
    case audioscrobblerHandshake
    case audioscrobblerNowPlaying
    case audioscrobblerSubmit
    /// The last submissions of every scrobbling protocol, with their outcome.
    case submissions
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

    /// Whether the route with `method` may write for seconds (a merge of a long history, a
    /// rule applied to the past, their undo): the server runs it on a queue of its own, the
    /// connection suspended, so that the other connections of its libmicrohttpd thread are
    /// not held up (a chart read waited 3.5 s behind a merge: scripts/bench/merge).
    public func isLongWrite(_ method: String) -> Bool {
        guard method != "GET" && method != "HEAD" else { return false }
        switch self {
        case .merges, .undoCuration, .ruleApply, .rulePreview, .listen, .listens: return true
        case .page(.history), .page(.curation), .page(.rules): return true
        default: return false
        }
    }

    /// A short, fixed name for metrics labels (never the raw path: ids would explode them).
    public var metricName: String {
        switch self {
        case .status: "status"
        case .listens: "listens"
        case .listen: "listen"
        case .merges: "merges"
        case .mergeSuggestions: "merge_suggestions"
        case .curation: "curation"
        case .undoCuration: "curation_undo"
        case .rules: "rules"
        case .rule: "rule"
        case .rulePreview: "rule_preview"
        case .ruleApply: "rule_apply"
        case .heartRate: "hr"
        case .stats: "stats"
        case .review: "review"
        case .reviewShares: "review_shares"
        case .reviewShare: "review_share"
        case .sotd: "sotd"
        case .sotdMonth: "sotd_month"
        case .sotdFeed: "sotd_feed"
        case .friends: "friends"
        case .friend: "friend"
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
        case .trackFeeling: "track_feeling"
        case .artist: "artist"
        case .album: "album"
        case .notNow: "not_now"
        case .listenBrainzFeedback: "listenbrainz_feedback"
        case .listenBrainzGetFeedback: "listenbrainz_get_feedback"
        case .listenBrainzListens: "listenbrainz_listens"
        case .listenBrainzListenCount: "listenbrainz_listen_count"
        case .listenBrainzPlayingNow: "listenbrainz_playing_now"
        case .listenBrainzDeleteListen: "listenbrainz_delete_listen"
        case .listenBrainzStats: "listenbrainz_stats"
        case .audioscrobbler: "audioscrobbler"
        case .audioscrobblerHandshake: "audioscrobbler_legacy_handshake"
        case .audioscrobblerNowPlaying: "audioscrobbler_legacy_nowplaying"
        case .audioscrobblerSubmit: "audioscrobbler_legacy_submit"
        case .submissions: "submissions"
        case .metrics: "metrics"
        case .login: "login"
        case .logout: "logout"
        case .health: "healthz"
        case .staticFile: "static"
        case .page(let page): "page_" + page.metricName
        }
    }
}

/// The site's pages (server-rendered HTML) and pictures.
public enum Page: Equatable, Sendable {
    case dashboard, history, stats, sotdArchive, workouts
    /// The submission log: what players sent over the scrobbling protocols, and why it was
    /// refused or ignored.
    case submissions
    /// The corrections: the curation log with its undo, likely duplicates to merge.
    case curation
    /// Friends' songs of the day, with forms to follow and unfollow.
    case friends
    /// The copy of a friend's song's cover (`/friends/covers/{song id}`).
    case friendCover(Int64)
    /// The rules, in their order of application, with forms to add, preview and apply them.
    case rules
    /// `/artist?name=…`, the address artist pages had before they had ids: a redirect.
    case artistByName
    /// An address people guess for a page that has another (`/corrections` for
    /// `/curation`): a redirect to it.
    case moved(String)
    case sotdShare(String)
    /// `/review` (`?range=`, `from`/`to`; nothing: this year so far) and `/review/2026`,
    /// `/review/2026-11`: the private review; POST publishes or withdraws a share of it.
    case review(String?)
    /// `/review/shared/{token}`: a published review, public; and its card (`card.png`).
    case reviewShared(String)
    case reviewCard(String)
    /// The cover of a day's song: public like the share page it illustrates. `png`: for
    /// link previews (`cover.png`), a drawn tile as PNG when there is no picture.
    case sotdCover(String, png: Bool)
    case workout(Int64)
    case track(Int64)
    case artist(Int64)
    case album(Int64)
    case cover(Int64)

    var metricName: String {
        switch self {
        case .dashboard: "dashboard"
        case .history: "history"
        case .curation: "curation"
        case .friends: "friends"
        case .friendCover: "friend_cover"
        case .stats: "stats"
        case .sotdArchive: "sotd_archive"
        case .workouts: "workouts"
        case .submissions: "submissions"
        case .rules: "rules"
        case .artistByName: "artist_by_name"
        case .moved: "moved"
        case .artist: "artist"
        case .album: "album"
        case .sotdShare: "sotd_share"
        case .review: "review"
        case .reviewShared: "review_shared"
        case .reviewCard: "review_card"
        case .sotdCover: "sotd_cover"
        case .workout: "workout"
        case .track: "track"
        case .cover: "cover"
        }
    }
}
