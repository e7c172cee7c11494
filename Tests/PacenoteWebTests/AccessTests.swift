import Foundation
import Logging
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteWeb

/// Who may do what, as a table: every route and method of `Route.table` against every kind
/// of caller, through the one access decision (`API.admit`, what the server runs on the
/// headers). A route added to the table without its line here fails the test.
@Suite struct AccessTests {
    enum Caller: CaseIterable {
        case trusted, key, sameOriginSession, crossOriginSession, nothing, wrongKey, lockedOut, readKey, submitKey, clientKey
    }

    enum Outcome: Equatable {
        case allowed, unauthorized, forbidden, logIn, tooMany
        case other(Int)
    }

    // What each kind of route does with each caller, in `Caller.allCases` order.
    // The key is the admin key; a read key reads what trusted networks read, a submit key
    // sends listens and heart rate and nothing else (it sees what a stranger sees); a client key
    // does what read and submit keys do, and sends likes, but deletes, imports, curates nothing.
    static let open: [Outcome] = [.allowed, .allowed, .allowed, .allowed, .allowed, .allowed, .allowed, .allowed, .allowed, .allowed]
    static let visible: [Outcome] = [.allowed, .allowed, .allowed, .allowed, .allowed, .allowed, .tooMany, .allowed, .allowed, .allowed]
    static let privateRead: [Outcome] = [.allowed, .allowed, .allowed, .allowed, .forbidden, .forbidden, .tooMany, .allowed, .forbidden, .allowed]
    static let write: [Outcome] = [.unauthorized, .allowed, .allowed, .unauthorized, .unauthorized, .unauthorized, .tooMany, .forbidden, .forbidden, .forbidden]
    static let submit: [Outcome] = [.unauthorized, .allowed, .allowed, .unauthorized, .unauthorized, .unauthorized, .tooMany, .forbidden, .allowed, .allowed]
    /// A like or dislike: the admin key, a session from the page itself, or a client key.
    static let like: [Outcome] = [.unauthorized, .allowed, .allowed, .unauthorized, .unauthorized, .unauthorized, .tooMany, .forbidden, .forbidden, .allowed]
    static let privatePage: [Outcome] = [.allowed, .allowed, .allowed, .allowed, .logIn, .logIn, .tooMany, .allowed, .logIn, .allowed]
    static let writePage: [Outcome] = [.logIn, .allowed, .allowed, .logIn, .logIn, .logIn, .tooMany, .logIn, .logIn, .logIn]
    static let token: [Outcome] = [.unauthorized, .allowed, .unauthorized, .unauthorized, .unauthorized, .unauthorized, .tooMany, .forbidden, .allowed, .allowed]
    /// A change to the history in ListenBrainz's terms: the admin key as the token, nothing else.
    static let adminToken: [Outcome] = [.unauthorized, .allowed, .unauthorized, .unauthorized, .unauthorized, .unauthorized, .tooMany, .forbidden, .forbidden, .forbidden]
    static let keyCheck: [Outcome] = [.allowed, .allowed, .allowed, .allowed, .allowed, .allowed, .tooMany, .allowed, .allowed, .allowed]

    /// "METHOD template" → (the metric label, the outcome for each caller).
    static let expected: [String: (label: String, outcomes: [Outcome])] = {
        let rows: [(String, String, String, [Outcome])] = [
            ("GET HEAD", "/api/v1/status", "status", visible),
            ("GET HEAD", "/api/v1/listens", "listens", privateRead),
            ("POST", "/api/v1/listens", "listens", write),
            ("GET HEAD", "/api/v1/listens/{id}", "listen", privateRead),
            ("PATCH DELETE", "/api/v1/listens/{id}", "listen", write),
            ("POST", "/api/v1/merges", "merges", write),
            ("GET HEAD", "/api/v1/merges/suggestions", "merge_suggestions", privateRead),
            ("GET HEAD", "/api/v1/curation", "curation", privateRead),
            ("POST", "/api/v1/curation/{id}/undo", "curation_undo", write),
            ("GET HEAD", "/api/v1/rules", "rules", privateRead),
            ("POST", "/api/v1/rules", "rules", write),
            ("GET HEAD", "/api/v1/rules/{id}", "rule", privateRead),
            ("PATCH DELETE", "/api/v1/rules/{id}", "rule", write),
            ("POST", "/api/v1/rules/{id}/preview", "rule_preview", write),
            ("POST", "/api/v1/rules/{id}/apply", "rule_apply", write),
            ("GET HEAD", "/rules", "page_rules", privatePage),
            ("POST", "/rules", "page_rules", writePage),
            ("GET HEAD", "/api/v1/stats", "stats", privateRead),
            ("GET HEAD", "/api/v1/stats/zones", "stats_zones", privateRead),
            ("GET HEAD", "/api/v1/review", "review", privateRead),
            ("GET HEAD", "/api/v1/review/shares", "review_shares", privateRead),
            ("POST", "/api/v1/review/shares", "review_shares", write),
            ("PUT DELETE", "/api/v1/review/shares/{token}", "review_share", write),
            ("GET HEAD", "/api/v1/sotd", "sotd_month", privateRead),
            ("GET HEAD", "/api/v1/sotd/{day}", "sotd", visible),
            ("PUT DELETE", "/api/v1/sotd/{day}", "sotd", write),
            ("GET HEAD", "/sotd.atom", "sotd_feed", visible),
            ("GET HEAD", "/api/v1/friends", "friends", privateRead),
            ("POST", "/api/v1/friends", "friends", write),
            ("GET HEAD", "/api/v1/friends/{id}", "friend", privateRead),
            ("DELETE", "/api/v1/friends/{id}", "friend", write),
            ("GET HEAD", "/friends", "page_friends", privatePage),
            ("POST", "/friends", "page_friends", writePage),
            ("GET HEAD", "/friends/covers/{id}", "page_friend_cover", privatePage),
            ("POST", "/api/v1/hr", "hr", submit),
            ("GET HEAD", "/api/v1/workouts", "workouts", privateRead),
            ("POST", "/api/v1/workouts", "workouts", write),
            ("GET HEAD", "/api/v1/workouts/{id}", "workout", privateRead),
            ("GET HEAD", "/api/v1/workouts/{id}/samples", "workout_samples", privateRead),
            ("POST", "/api/v1/workouts/{id}/stop", "workout_stop", write),
            ("GET HEAD", "/api/v1/plans", "plans", privateRead),
            ("POST", "/api/v1/plans", "plans", write),
            ("POST", "/api/v1/plans/import", "plan_import", write),
            ("GET HEAD", "/api/v1/plans/{id}", "plan", privateRead),
            ("PUT DELETE", "/api/v1/plans/{id}", "plan", write),
            ("POST", "/api/v1/plans/{id}/duplicate", "plan_duplicate", write),
            ("GET HEAD", "/api/v1/plans/{id}/export", "plan_export", privateRead),
            ("POST", "/api/v1/plans/{id}/start", "plan_start", write),
            ("POST", "/api/v1/plans/{id}/playlist", "plan_playlist", privateRead),
            ("POST", "/api/v1/plans/{id}/playlist/save", "plan_playlist_save", write),
            ("GET HEAD", "/api/v1/workouts/{id}/plan", "workout_plan", privateRead),
            ("POST", "/api/v1/workouts/{id}/plan", "workout_plan", write),
            ("GET HEAD", "/api/v1/training-load", "training_load", privateRead),
            ("GET HEAD", "/api/v1/faster-songs", "faster_songs", privateRead),
            ("GET HEAD", "/api/v1/hrv", "hrv", privateRead),
            ("POST", "/api/v1/hrv", "hrv", write),
            ("GET HEAD", "/api/v1/hrv/{id}", "hrv_reading", privateRead),
            ("GET HEAD", "/api/v1/workouts/{id}/export.tcx", "workout_export", privateRead),
            ("GET HEAD", "/api/v1/workouts/{id}/export.gpx", "workout_export", privateRead),
            ("POST", "/api/v1/import", "import", write),
            ("GET HEAD", "/api/v1/recommendations/next", "recommendations", privateRead),
            ("POST", "/api/v1/queue", "queue", write),
            ("GET HEAD", "/api/v1/cadence", "cadence", privateRead),
            ("POST", "/api/v1/cadence", "cadence", write),
            ("GET HEAD", "/api/v1/tempo", "tempo", privateRead),
            // A player's controls (issue 57): read as the status is, pressed as any write.
            ("GET HEAD", "/api/v1/players/{name}", "player", privateRead),
            ("POST", "/api/v1/players/{name}/{action}", "player_control", write),
            // Its queue, MPD's stored playlists, smart playlists and moods, the library (issue 57).
            ("GET HEAD", "/api/v1/players/{name}/queue", "player_queue", privateRead),
            ("POST DELETE", "/api/v1/players/{name}/queue", "player_queue", write),
            ("DELETE", "/api/v1/players/{name}/queue/{id}", "player_queue_song", write),
            ("POST", "/api/v1/players/{name}/queue/{id}/{action}", "player_queue_song", write),
            ("GET HEAD", "/api/v1/playlists", "playlists", privateRead),
            ("POST", "/api/v1/playlists", "playlists", write),
            ("GET HEAD", "/api/v1/playlists/{name}", "playlist", privateRead),
            ("DELETE", "/api/v1/playlists/{name}", "playlist", write),
            ("POST", "/api/v1/playlists/{name}/{action}", "playlist_edit", write),
            ("GET HEAD", "/api/v1/smart-playlists", "smart_playlists", privateRead),
            ("POST", "/api/v1/smart-playlists", "smart_playlists", write),
            ("GET HEAD", "/api/v1/smart-playlists/{id}", "smart_playlist", privateRead),
            ("PUT DELETE", "/api/v1/smart-playlists/{id}", "smart_playlist", write),
            ("GET HEAD", "/api/v1/library/artists", "library_artists", privateRead),
            ("GET HEAD", "/api/v1/library/search", "library_search", privateRead),
            ("GET HEAD", "/api/v1/library/artists/{id}", "library_artist", privateRead),
            ("GET HEAD", "/api/v1/library/albums/{id}", "library_album", privateRead),
            ("PUT", "/api/v1/tracks/{id}/bpm", "track_bpm", write),
            ("PUT", "/api/v1/tracks/{id}/feeling", "track_feeling", like),
            ("GET HEAD", "/api/v1/artists/{id}", "artist", privateRead),
            ("GET HEAD", "/api/v1/albums/{id}", "album", privateRead),
            ("POST", "/api/v1/recommendations/not-now", "not_now", write),
            ("GET", "/api/v1/events", "events", privateRead),
            // The private session: its state is private; the switch is the owner's or a client key's.
            ("GET HEAD", "/api/v1/private-session", "private_session", privateRead),
            ("POST DELETE", "/api/v1/private-session", "private_session", like),
            ("POST", "/private-session", "page_private_session", writePage),
            ("POST", "/api/v1/hidden-listens/{id}/unhide", "hidden_listen_unhide", write),
            // The now-playing card: public by the owner's choice ([share] now; 404 when off).
            ("GET HEAD", "/now", "now", visible),
            ("GET HEAD", "/now.svg", "now", visible),
            ("GET HEAD", "/now.json", "now", visible),
            ("GET HEAD", "/now/cover", "now", visible),
            ("GET HEAD", "/api/v1/submissions", "submissions", privateRead),
            ("GET HEAD", "/submissions", "page_submissions", privatePage),
            ("POST", "/submissions", "page_submissions", writePage),
            // The Last.fm protocols judge their own credentials (session keys, handshake tokens).
            ("GET HEAD POST", "/apis/audioscrobbler", "audioscrobbler", keyCheck),
            ("GET HEAD POST", "/apis/audioscrobbler/2.0", "audioscrobbler", keyCheck),
            ("GET HEAD POST", "/apis/audioscrobbler_legacy", "audioscrobbler_legacy_handshake", keyCheck),
            ("POST", "/apis/audioscrobbler_legacy/nowplaying", "audioscrobbler_legacy_nowplaying", keyCheck),
            ("POST", "/apis/audioscrobbler_legacy/submission", "audioscrobbler_legacy_submit", keyCheck),
            // Maloja's scrobble API: the key is in the body, judged by the handler.
            ("POST", "/apis/mlj_1/newscrobble", "maloja_newscrobble", keyCheck),
            ("GET HEAD", "/apis/mlj_1/serverinfo", "maloja_serverinfo", open),
            ("GET HEAD", "/apis/mlj_1/test", "maloja_test", keyCheck),
            // Webhooks: a submit or admin key in a header or as the path's last segment
            // (`webhookKeyInThePath`); the sample path's `{key}` is no key.
            ("POST", "/webhooks/jellyfin", "webhook_jellyfin", token),
            ("POST", "/webhooks/jellyfin/{key}", "webhook_jellyfin", token),
            ("POST", "/webhooks/plex", "webhook_plex", token),
            ("POST", "/webhooks/plex/{key}", "webhook_plex", token),
            ("POST", "/webhooks/webscrobbler", "webhook_webscrobbler", token),
            ("POST", "/webhooks/webscrobbler/{key}", "webhook_webscrobbler", token),
            ("GET HEAD", "/api/v1/openapi.json", "static", open),
            ("GET HEAD", "/login", "login", open),
            ("POST", "/login", "login", keyCheck),
            ("POST", "/logout", "logout", open),
            ("GET HEAD", "/metrics", "metrics", privateRead),
            ("GET HEAD", "/healthz", "healthz", open),
            ("GET HEAD", "/favicon.svg", "static", open),
            ("GET HEAD", "/favicon.ico", "static", open),
            ("GET HEAD", "/robots.txt", "static", open),
            ("GET HEAD", "/static/{path…}", "static", open),
            ("GET HEAD", "/", "page_dashboard", privatePage),
            ("POST", "/", "page_dashboard", writePage),
            ("GET HEAD", "/history", "page_history", privatePage),
            ("POST", "/history", "page_history", writePage),
            ("GET HEAD", "/player", "page_player", privatePage),
            ("POST", "/player", "page_player", writePage),
            ("POST", "/player/queue", "page_player_queue", writePage),
            ("GET HEAD", "/library", "page_library", privatePage),
            ("GET HEAD", "/playlists", "page_playlists", privatePage),
            ("POST", "/playlists", "page_playlists", writePage),
            ("GET HEAD", "/playlists/{name}", "page_playlist", privatePage),
            ("POST", "/playlists/{name}", "page_playlist", writePage),
            ("GET HEAD", "/curation", "page_curation", privatePage),
            ("POST", "/curation", "page_curation", writePage),
            ("GET HEAD", "/corrections", "page_moved", privatePage),
            ("GET HEAD", "/stats", "page_stats", privatePage),
            ("GET HEAD", "/review", "page_review", privatePage),
            ("POST", "/review", "page_review", writePage),
            ("GET HEAD", "/review/{period}", "page_review", privatePage),
            ("GET HEAD", "/review/shared/{token}", "page_review_shared", visible),
            ("GET HEAD", "/review/shared/{token}/card.png", "page_review_card", visible),
            ("GET HEAD", "/sotd", "page_sotd_archive", privatePage),
            ("GET HEAD", "/workouts", "page_workouts", privatePage),
            ("POST", "/workouts", "page_workouts", writePage),
            ("GET HEAD", "/plans", "page_plans", privatePage),
            ("POST", "/plans", "page_plans", writePage),
            ("GET HEAD", "/plans/{id}/playlist", "page_plan_playlist", privatePage),
            ("POST", "/plans/{id}/playlist", "page_plan_playlist", writePage),
            ("GET HEAD", "/artist", "page_artist_by_name", privatePage),
            ("GET HEAD", "/artists/{id}", "page_artist", privatePage),
            ("GET HEAD", "/albums/{id}", "page_album", privatePage),
            ("GET HEAD", "/sotd/{day}", "page_sotd_share", visible),
            ("POST", "/sotd/{day}", "page_sotd_share", writePage),
            ("GET HEAD", "/sotd/{day}/cover", "page_sotd_cover", visible),
            ("GET HEAD", "/sotd/{day}/cover.png", "page_sotd_cover", visible),
            ("GET HEAD", "/workouts/{id}", "page_workout", privatePage),
            ("GET HEAD", "/tracks/{id}", "page_track", privatePage),
            ("POST", "/tracks/{id}", "page_track", writePage),
            ("GET HEAD", "/covers/{id}", "page_cover", privatePage),
            ("POST", "/apis/listenbrainz/1/submit-listens", "listenbrainz_submit", token),
            ("POST", "/1/submit-listens", "listenbrainz_submit", token),
            ("GET HEAD", "/apis/listenbrainz/1/validate-token", "listenbrainz_validate", keyCheck),
            ("GET HEAD", "/1/validate-token", "listenbrainz_validate", keyCheck),
            ("POST", "/apis/listenbrainz/1/feedback/recording-feedback", "listenbrainz_feedback", token),
            ("POST", "/1/feedback/recording-feedback", "listenbrainz_feedback", token),
            ("GET HEAD", "/apis/listenbrainz/1/feedback/user/{name}/get-feedback", "listenbrainz_get_feedback", privateRead),
            ("GET HEAD", "/1/feedback/user/{name}/get-feedback", "listenbrainz_get_feedback", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/user/{name}/listens", "listenbrainz_listens", privateRead),
            ("GET HEAD", "/1/user/{name}/listens", "listenbrainz_listens", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/user/{name}/listen-count", "listenbrainz_listen_count", privateRead),
            ("GET HEAD", "/1/user/{name}/listen-count", "listenbrainz_listen_count", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/user/{name}/playing-now", "listenbrainz_playing_now", privateRead),
            ("GET HEAD", "/1/user/{name}/playing-now", "listenbrainz_playing_now", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/stats/user/{name}/artists", "listenbrainz_stats", privateRead),
            ("GET HEAD", "/1/stats/user/{name}/artists", "listenbrainz_stats", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/stats/user/{name}/recordings", "listenbrainz_stats", privateRead),
            ("GET HEAD", "/1/stats/user/{name}/recordings", "listenbrainz_stats", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/stats/user/{name}/releases", "listenbrainz_stats", privateRead),
            ("GET HEAD", "/1/stats/user/{name}/releases", "listenbrainz_stats", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/stats/user/{name}/listening-activity", "listenbrainz_stats_activity", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/stats/user/{name}/daily-activity", "listenbrainz_stats_activity", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/user/{name}/playlists", "listenbrainz_playlists", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/playlist/{id}", "listenbrainz_playlist", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/user/{name}/following", "listenbrainz_social", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/user/{name}/followers", "listenbrainz_social", privateRead),
            ("GET HEAD", "/apis/listenbrainz/1/metadata/lookup", "listenbrainz_metadata_lookup", token),
            ("GET HEAD", "/1/stats/user/{name}/listening-activity", "listenbrainz_stats_activity", privateRead),
            ("GET HEAD", "/1/stats/user/{name}/daily-activity", "listenbrainz_stats_activity", privateRead),
            ("GET HEAD", "/1/user/{name}/playlists", "listenbrainz_playlists", privateRead),
            ("GET HEAD", "/1/playlist/{id}", "listenbrainz_playlist", privateRead),
            ("GET HEAD", "/1/user/{name}/following", "listenbrainz_social", privateRead),
            ("GET HEAD", "/1/user/{name}/followers", "listenbrainz_social", privateRead),
            ("GET HEAD", "/1/metadata/lookup", "listenbrainz_metadata_lookup", token),
            ("POST", "/apis/listenbrainz/1/delete-listen", "listenbrainz_delete_listen", adminToken),
            ("POST", "/1/delete-listen", "listenbrainz_delete_listen", adminToken),
        ]
        var lines: [String: (String, [Outcome])] = [:]
        for (methods, template, label, outcomes) in rows {
            for method in methods.split(separator: " ") { lines["\(method) \(template)"] = (label, outcomes) }
        }
        return lines
    }()

    static let key = "test-key-0123456789"
    static let readKey = "pn_read_0123456789"
    static let submitKey = "pn_submit_0123456789"
    static let clientKey = "pn_client_0123456789"

    /// Every (method, sample path, "METHOD template") of the route table.
    static var cases: [(method: String, path: String, line: String)] {
        Route.table.flatMap { endpoint in
            let path = endpoint.template.replacingOccurrences(of: "{day}", with: "2026-01-15")
                .replacingOccurrences(of: "{id}", with: "1").replacingOccurrences(of: "{path…}", with: "site.css")
                .replacingOccurrences(of: "{name}", with: "pacenote").replacingOccurrences(of: "{period}", with: "2026")
                .replacingOccurrences(of: "{token}", with: "AAAAAAAAAAAAAAAAAAAAAA")
            return endpoint.methods.map { ($0.method, path, "\($0.method) \(endpoint.template)") }
        }
    }

    final class Fixture {
        let dir: TemporaryDirectory
        let store: Store

        init() throws {
            dir = try TemporaryDirectory()
            store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        }

        deinit { try? store.close() }

        /// A fresh API (so lockouts do not carry over) and the request the caller sends.
        func ask(_ method: String, _ path: String, as caller: Caller, proxies: [IPNetwork] = []) -> (API, HTTPRequest) {
            let context = APIContext.forTests(version: "t", store: store, apiKey: AccessTests.key,
                                              namedKey: { [AccessTests.readKey: .read, AccessTests.submitKey: .submit, AccessTests.clientKey: .client][$0] },
                                              configure: { settings in
                settings.trustedProxies = proxies
                settings.publicURL = "http://pacenote.example"
            })
            let session = context.sessions.create(key: AccessTests.key)
            var headers = ["Host": "pacenote.example"]
            var peer = "203.0.113.7"
            switch caller {
            case .trusted: peer = "192.168.1.20"
            case .key: headers["Authorization"] = "Token \(AccessTests.key)"
            case .sameOriginSession:
                headers["Cookie"] = "\(Sessions.cookieName)=\(session)"
                headers["Origin"] = "http://pacenote.example"
            case .crossOriginSession:
                headers["Cookie"] = "\(Sessions.cookieName)=\(session)"
                headers["Origin"] = "http://evil.example"
            case .nothing: break
            case .wrongKey: headers["X-API-Key"] = "pn_guess_0123456789"
            case .lockedOut:
                for _ in 0..<Sessions.maxFailures { context.sessions.recordFailure(from: peer) }
                headers["Authorization"] = "Token \(AccessTests.key)"
            case .readKey: headers["X-API-Key"] = AccessTests.readKey
            case .submitKey: headers["Authorization"] = "Token \(AccessTests.submitKey)"
            case .clientKey: headers["Authorization"] = "Bearer \(AccessTests.clientKey)"
            }
            return (API(context: context), HTTPRequest(method: method, path: path, headers: headers, peerAddress: peer))
        }
    }

    static func outcome(_ admission: Admission) -> Outcome {
        guard case .refused(let response, _) = admission else { return .allowed }
        switch response.status {
        case 303 where response.headers.contains { $0.0 == "Location" && $0.1.hasPrefix("/login?") }: return .logIn
        case 401: return .unauthorized
        case 403: return .forbidden
        case 429: return .tooMany
        default: return .other(response.status)
        }
    }

    @Test func everyRouteAndMethodHasALine() {
        let table = Set(Self.cases.map(\.line))
        #expect(table.subtracting(Self.expected.keys).sorted() == [], "routes without a line in AccessTests.expected")
        #expect(Set(Self.expected.keys).subtracting(table).sorted() == [], "lines for routes that are not in Route.table")
    }

    @Test func everyCallerGetsWhatItsLineSays() throws {
        let fixture = try Fixture()
        for (method, path, line) in Self.cases {
            guard let expected = Self.expected[line] else { continue }  // reported by everyRouteAndMethodHasALine
            for (caller, outcome) in zip(Caller.allCases, expected.outcomes) {
                let (api, request) = fixture.ask(method, path, as: caller)
                #expect(Self.outcome(api.admit(request)) == outcome, "\(method) \(path) as \(caller)")
            }
        }
    }

    /// The label is the matched route's own name, whatever the method (PUT
    /// /api/v1/tracks/{id}/bpm was once counted as "unknown").
    @Test func everyRouteIsCountedUnderItsOwnName() throws {
        let fixture = try Fixture()
        for (method, path, line) in Self.cases {
            let (api, request) = fixture.ask(method, path, as: .key)
            let (admission, _) = WebServer.admit(request, prefix: "", api: api)
            #expect(admission.metricLabel == Self.expected[line]?.label, "\(line)")
        }
        let (api, request) = fixture.ask("PUT", "/pacenote/api/v1/tracks/7/bpm", as: .nothing)
        #expect(WebServer.admit(request, prefix: "/pacenote", api: api).0.metricLabel == "track_bpm")
        #expect(WebServer.admit(request, prefix: "", api: api).0.metricLabel == "unknown")
    }

    /// A webhook's key as the URL's last segment, for sources that set nothing but a URL
    /// (Plex, Web Scrobbler): the admin or a submit key; a read key is out of scope; anything
    /// else is a wrong key, counted toward the lockout. Logs show the path without it.
    @Test func webhookKeyInThePath() throws {
        let fixture = try Fixture()
        for (key, outcome) in [(Self.key, Outcome.allowed), (Self.submitKey, .allowed), (Self.readKey, .forbidden), ("pn_guess", .unauthorized)] {
            let (api, request) = fixture.ask("POST", "/webhooks/plex/" + key, as: .nothing)
            #expect(Self.outcome(api.admit(request)) == outcome, "\(key)")
        }
        #expect(Route.loggable("/webhooks/plex/" + Self.submitKey) == "/webhooks/plex/***")
        #expect(Route.loggable("/webhooks/plex") == "/webhooks/plex")
        #expect(Route.loggable("/api/v1/listens") == "/api/v1/listens")
    }

    @Test func aWrongKeyFromATrustedNetworkIsRefusedToo() throws {
        let fixture = try Fixture()
        var (api, request) = fixture.ask("GET", "/api/v1/listens", as: .trusted)
        #expect(Self.outcome(api.admit(request)) == .allowed)
        request.headers["x-api-key"] = "pn_guess_0123456789"
        #expect(Self.outcome(api.admit(request)) == .forbidden, "a request that sends a key is judged by it")
        (api, request) = fixture.ask("GET", "/", as: .trusted)
        request.headers["x-api-key"] = "pn_guess_0123456789"
        #expect(Self.outcome(api.admit(request)) == .logIn)
    }

    @Test func theKeyIsComparedOverItsFullLength() throws {
        #expect(Authorization.matches(Self.key, Self.key))
        #expect(!Authorization.matches(Self.key + String(repeating: "\u{0}", count: 256), Self.key))
        #expect(!Authorization.matches(Self.key + "x", Self.key))
        #expect(!Authorization.matches(String(Self.key.dropLast()), Self.key))
        #expect(!Authorization.matches(Self.key, nil))
        let fixture = try Fixture()
        var (api, request) = fixture.ask("GET", "/api/v1/listens", as: .nothing)
        request.headers["x-api-key"] = Self.key + String(repeating: "\u{0}", count: 256)
        #expect(Self.outcome(api.admit(request)) == .forbidden)
        request.method = "POST"
        request.path = "/api/v1/hr"
        #expect(Self.outcome(api.admit(request)) == .unauthorized)
    }

    /// DNS rebinding: a page on another site that points its own name at this address gets
    /// the visitor's browser to send its name in `Host`. Only this server's names count.
    @Test func trustedNetworksCountOnlyForThisServersOwnNames() throws {
        let fixture = try Fixture()
        for (host, trusted) in [("rebind.attacker.example", false), ("rebind.attacker.example:6680", false), (nil, false),
                                ("127.0.0.1:6680", true), ("[::1]:6680", true), ("LOCALHOST", true), ("localhost.:80", true),
                                ("pacenote.example", true), ("Pacenote.Example:443", true), ("music.home", true),
                                ("pacenote.example.attacker.example", false), ("[::1]x", false)] {
            var (api, request) = fixture.ask("GET", "/api/v1/listens", as: .trusted)
            let context = api.context.with { $0.ownHosts = ["music.home", "[::1]:6680"] }
            request.headers["host"] = host
            #expect(Self.outcome(API(context: context).admit(request)) == (trusted ? .allowed : .forbidden), "Host: \(host ?? "none")")
        }
        var (api, page) = fixture.ask("GET", "/history", as: .trusted)
        page.headers["host"] = "rebind.attacker.example"
        #expect(Self.outcome(api.admit(page)) == .logIn)
        (api, page) = fixture.ask("GET", "/api/v1/listens", as: .key)
        page.headers["host"] = "rebind.attacker.example"
        #expect(Self.outcome(api.admit(page)) == .allowed, "the key does not depend on the Host")
    }

    /// Forwarding headers from an address that is no configured proxy: not trusted.
    @Test func forwardingHeadersFromAStrangerAreNotTrusted() throws {
        let fixture = try Fixture()
        for header in ["X-Forwarded-For", "X-Forwarded-Proto", "Forwarded", "X-Real-IP"] {
            var (api, request) = fixture.ask("GET", "/api/v1/listens", as: .trusted)
            request.headers[header.lowercased()] = "192.168.1.9"
            #expect(Self.outcome(api.admit(request)) == .forbidden, "\(header)")
        }
        var (api, request) = fixture.ask("GET", "/api/v1/listens", as: .trusted, proxies: [IPNetwork("192.168.1.20/32")!])
        request.headers["x-forwarded-for"] = "192.168.1.9"
        #expect(Self.outcome(api.admit(request)) == .allowed, "from the configured proxy")
    }

    @Test func sessionsEndWhenIdleAndAtTheirLifetime() {
        let sessions = Sessions(idleTimeout: 100, clock: WebClock { Date() })
        let start = Date()
        let id = sessions.create(key: Self.key, now: start)
        #expect(sessions.isValid(id, key: Self.key, now: start.addingTimeInterval(90)))
        #expect(sessions.isValid(id, key: Self.key, now: start.addingTimeInterval(180)), "each use restarts the idle time")
        #expect(!sessions.isValid(id, key: Self.key, now: start.addingTimeInterval(290)), "idle for 110 s")
        let busy = Sessions(idleTimeout: Sessions.lifetime, clock: WebClock { Date() })
        let other = busy.create(key: Self.key, now: start)
        #expect(busy.isValid(other, key: Self.key, now: start.addingTimeInterval(Sessions.lifetime - 1)))
        #expect(!busy.isValid(other, key: Self.key, now: start.addingTimeInterval(Sessions.lifetime + 1)))
        #expect(!busy.isValid(other, key: "another-key-0123456", now: start))
    }

    /// Secure cookies only when https is known: from `public_url`, or a trusted proxy's
    /// X-Forwarded-Proto (anyone else's is not believed); logging out needs the site's own page.
    @Test func secureCookiesAndLogout() throws {
        let fixture = try Fixture()
        func cookie(_ publicURL: String?, peer: String, proto: String?, proxies: [IPNetwork] = []) -> String {
            var (api, request) = fixture.ask("POST", "/login", as: .nothing, proxies: proxies)
            let context = api.context.with { $0.publicURL = publicURL }
            request.peerAddress = peer
            request.headers["x-forwarded-for"] = proxies.isEmpty ? nil : "203.0.113.5"
            request.headers["x-forwarded-proto"] = proto
            request.body = Array("key=\(Self.key)".utf8)
            let response = API(context: context).handle(request)
            return response.headers.first { $0.0 == "Set-Cookie" }?.1 ?? "(none: \(response.status))"
        }
        #expect(!cookie(nil, peer: "203.0.113.5", proto: "https").contains("Secure"))
        #expect(cookie(nil, peer: "127.0.0.1", proto: "https", proxies: [IPNetwork("127.0.0.1")!]).hasSuffix("; Secure"))
        #expect(cookie("https://music.example.org", peer: "203.0.113.5", proto: nil).hasSuffix("; Secure"))
        #expect(!cookie("http://music.example.org", peer: "127.0.0.1", proto: "https", proxies: [IPNetwork("127.0.0.1")!]).contains("Secure"))

        var (api, logout) = fixture.ask("POST", "/logout", as: .crossOriginSession)
        #expect(api.handle(logout).status == 403)
        logout.headers["origin"] = "http://pacenote.example"
        #expect(api.handle(logout).status == 303)
        (api, logout) = fixture.ask("POST", "/logout", as: .nothing)
        logout.headers["sec-fetch-site"] = "cross-site"
        #expect(api.handle(logout).status == 403)
    }

    /// Only the admin key opens a session; a submit or read key is refused without counting
    /// as a guess.
    @Test func onlyTheAdminKeyLogsIn() throws {
        let fixture = try Fixture()
        let (api, request) = fixture.ask("POST", "/login", as: .nothing)
        for key in [Self.submitKey, Self.readKey, Self.clientKey] {
            var form = request
            form.body = Array("key=\(key)".utf8)
            let response = api.handle(form)
            #expect(response.status == 403 && !response.headers.contains { $0.0 == "Set-Cookie" }, "\(key)")
        }
        #expect(!api.context.sessions.isLockedOut("203.0.113.7"))
        var admin = request
        admin.body = Array("key=\(Self.key)".utf8)
        #expect(api.handle(admin).status == 303)
    }

    /// Wrong keys on the login form and in headers count against the same client: behind a
    /// trusted proxy, the forwarded one, not the proxy (which would lock everyone out).
    @Test func lockoutsFollowTheClientBehindAProxy() throws {
        let fixture = try Fixture()
        let proxy = [IPNetwork("127.0.0.1/32")!]
        var (api, request) = fixture.ask("POST", "/login", as: .nothing, proxies: proxy)
        request.peerAddress = "127.0.0.1"
        request.headers["x-forwarded-for"] = "203.0.113.5"
        request.headers["content-type"] = "application/x-www-form-urlencoded"
        request.body = Array("key=guess".utf8)
        for _ in 0..<5 { #expect(api.handle(request).status == 401) }
        var header = request
        header.method = "GET"
        header.path = "/api/v1/listens"
        header.body = []
        header.headers["x-api-key"] = "pn_guess_0123456789"
        for _ in 0..<5 { #expect(api.handle(header).status == 403) }
        header.headers["x-api-key"] = Self.key
        #expect(api.handle(header).status == 429, "ten wrong keys from one client, in a form and in headers")
        #expect(api.handle(request).status == 429)
        header.headers["x-forwarded-for"] = "203.0.113.6"
        #expect(api.handle(header).status == 200, "another client behind the same proxy")
    }

    // MARK: Cross-origin requests (server.cors_origins)

    /// Which lines a page on another site may call: the key routes, never a page, a form, the
    /// login, a session's logout or an admin write.
    @Test func onlyKeyRoutesAreCalledFromOtherSites() {
        for endpoint in Route.table {
            for method in endpoint.methods where method.policy.crossOrigin {
                let line = "\(method.method) \(endpoint.template)"
                #expect(method.policy.dialect != .page, "\(line): a page or form")
                // Open routes carry nothing private; only the OpenAPI document is worth another site's reading.
                let openDocument = method.policy.access == .open && endpoint.template == "/api/v1/openapi.json"
                #expect(method.policy.access != .write && (method.policy.access != .open || openDocument)
                        && method.policy.access != .listenBrainzAdminToken, "\(line): \(method.policy.access)")
            }
        }
        let open = Set(Route.table.flatMap { e in e.methods.filter(\.policy.crossOrigin).map { "\($0.method) \(e.template)" } })
        let expected = ["POST /1/submit-listens", "GET /1/validate-token", "POST /1/feedback/recording-feedback",
                        "GET /1/user/{name}/listens", "GET /1/feedback/user/{name}/get-feedback",
                        "POST /apis/listenbrainz/1/submit-listens", "GET /apis/audioscrobbler/2.0", "POST /apis/audioscrobbler/2.0",
                        "POST /apis/audioscrobbler", "GET /api/v1/listens", "GET /api/v1/stats", "GET /api/v1/status",
                        "POST /api/v1/hr", "PUT /api/v1/tracks/{id}/feeling", "GET /api/v1/workouts", "HEAD /api/v1/listens",
                        "GET /now.json", "GET /api/v1/private-session"]
        #expect(Set(expected).subtracting(open).sorted() == [], "key routes a page on another site cannot call")
        for never in ["POST /history", "POST /login", "POST /logout", "GET /", "DELETE /api/v1/listens/{id}", "POST /api/v1/import",
                      "POST /1/delete-listen", "POST /api/v1/merges", "POST /api/v1/rules", "GET /metrics",
                      "POST /apis/audioscrobbler_legacy/submission", "POST /private-session", "GET /now",
                      "POST /api/v1/hidden-listens/{id}/unhide"] {
            #expect(!open.contains(never), "\(never)")
        }
    }

    /// The OpenAPI document marks each operation another site may call (`x-cross-origin`), as
    /// the route table declares it.
    @Test func theOpenAPIDocumentMarksTheCrossOriginOperations() throws {
        let paths = try Self.openAPIPaths()
        var checked = 0
        for (path, operations) in paths {
            guard case .success(let endpoint) = Route.endpoint(path: path.replacingOccurrences(of: "{id}", with: "1")) else { continue }
            for (method, operation) in operations {
                guard let declared = endpoint.methods.first(where: { $0.method == method.uppercased() }),
                      let operation = operation as? [String: Any] else { continue }
                #expect((operation["x-cross-origin"] as? Bool ?? false) == declared.policy.crossOrigin, "\(method) \(path)")
                checked += 1
            }
        }
        #expect(checked > 60)
    }

    /// The OpenAPI document's paths (Public/openapi.json, as the site serves it).
    static func openAPIPaths() throws -> [String: [String: Any]] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Public/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        return try #require(document["paths"] as? [String: [String: Any]])
    }

    /// Every method of every JSON API route (`/api/…`) is in the OpenAPI document, and the
    /// document describes no API operation the table does not answer: a route added to the
    /// table without its documentation fails here (the document itself aside).
    @Test func everyAPIRouteIsInTheOpenAPIDocument() throws {
        func shape(_ template: String) -> String {
            template.replacingOccurrences(of: #"\{[^}]*\}"#, with: "{}", options: .regularExpression)
        }
        let verbs: Set<String> = ["GET", "POST", "PUT", "PATCH", "DELETE"]
        let documented = Set(try Self.openAPIPaths().flatMap { path, operations in
            operations.keys.map { $0.uppercased() }.filter(verbs.contains).map { "\($0) \(shape(path))" }
        }).filter { $0.contains(" /api/") && !$0.hasSuffix(" /api/v1/openapi.json") }
        let routed = Set(Route.table.filter { $0.template.hasPrefix("/api/") && $0.template != "/api/v1/openapi.json" }.flatMap { endpoint in
            endpoint.methods.map(\.method).filter(verbs.contains).map { "\($0) \(shape(endpoint.template))" }
        })
        #expect(routed.count > 80)
        #expect(routed.subtracting(documented).sorted() == [], "API routes the OpenAPI document does not describe")
        #expect(documented.subtracting(routed).sorted() == [], "documented operations no route answers")
    }

    static let site = "http://127.0.0.1:8001"

    func crossSite(_ method: String, _ path: String, as caller: Caller, origin: String = AccessTests.site,
                   fixture: Fixture) -> (API, HTTPRequest) {
        var (api, request) = fixture.ask(method, path, as: caller)
        let context = api.context.with { $0.corsOrigins = [try! WebOrigin(parsing: AccessTests.site)] }
        request.headers["origin"] = origin
        request.headers["sec-fetch-site"] = "cross-site"
        api = API(context: context)
        return (api, request)
    }

    @Test func preflightsAreAnsweredFromTheRouteTable() throws {
        let fixture = try Fixture()
        func preflight(_ path: String, _ method: String, origin: String = Self.site) -> HTTPResponse {
            var (api, request) = crossSite("OPTIONS", path, as: .nothing, origin: origin, fixture: fixture)
            request.headers["access-control-request-method"] = method
            request.headers["access-control-request-headers"] = "authorization,content-type"
            return api.handle(request)
        }
        func header(_ response: HTTPResponse, _ name: String) -> String? { response.headers.first { $0.0 == name }?.1 }
        let allowed = preflight("/1/submit-listens", "POST")
        #expect(allowed.status == 204)
        #expect(header(allowed, "Access-Control-Allow-Origin") == Self.site)
        #expect(header(allowed, "Access-Control-Allow-Methods") == "POST")
        #expect(header(allowed, "Access-Control-Allow-Headers")?.contains("Authorization") == true)
        #expect(header(allowed, "Access-Control-Allow-Headers")?.contains("Content-Type") == true)
        #expect(header(allowed, "Access-Control-Max-Age") == "600")
        #expect(header(allowed, "Vary") == "Origin")
        #expect(header(allowed, "Access-Control-Allow-Credentials") == nil)
        #expect(header(preflight("/api/v1/listens", "GET"), "Access-Control-Allow-Methods") == "GET, HEAD")
        for (path, method, origin) in [("/1/submit-listens", "POST", "http://127.0.0.1:8002"), ("/history", "POST", Self.site),
                                       ("/api/v1/listens/1", "DELETE", Self.site), ("/login", "POST", Self.site),
                                       ("/api/v1/import", "POST", Self.site), ("/1/submit-listens", "POST", "null")] {
            let refused = preflight(path, method, origin: origin)
            #expect(refused.status == 403, "\(method) \(path) from \(origin)")
            #expect(header(refused, "Access-Control-Allow-Origin") == nil, "\(method) \(path) from \(origin)")
            #expect(String(decoding: refused.body, as: UTF8.self).contains("cross_origin_refused"))
        }
        #expect(preflight("/nowhere", "GET").status == 404)
        // Without CORS configured, no origin is allowed.
        var (api, request) = fixture.ask("OPTIONS", "/1/submit-listens", as: .nothing)
        request.headers["origin"] = Self.site
        request.headers["access-control-request-method"] = "POST"
        #expect(api.handle(request).status == 403)
        request.headers["origin"] = nil
        request.headers["access-control-request-method"] = nil
        let plain = api.handle(request)
        #expect(plain.status == 204 && header(plain, "Allow") == "POST, OPTIONS")
    }

    /// A page on an allowed site is judged by the key it sends alone: the browser's trusted
    /// network and its cookie do not count; its answers, errors too, carry the CORS headers.
    @Test func aPageOnAnotherSiteIsJudgedByItsKey() throws {
        let fixture = try Fixture()
        func header(_ response: HTTPResponse, _ name: String) -> String? { response.headers.first { $0.0 == name }?.1 }
        var (api, request) = crossSite("GET", "/api/v1/listens", as: .trusted, fixture: fixture)
        var response = api.handle(request)
        #expect(response.status == 403, "a trusted network is the browser's, not the page's")
        #expect(header(response, "Access-Control-Allow-Origin") == Self.site, "so the page can read the error")
        (api, request) = crossSite("GET", "/api/v1/listens", as: .clientKey, fixture: fixture)
        response = api.handle(request)
        #expect(response.status == 200 && header(response, "Access-Control-Allow-Origin") == Self.site)
        #expect(header(response, "Vary") == "Origin")
        (api, request) = crossSite("GET", "/api/v1/listens", as: .crossOriginSession, fixture: fixture)
        #expect(api.handle(request).status == 403, "a cookie does not count from another site")
        (api, request) = crossSite("POST", "/history", as: .sameOriginSession, fixture: fixture)
        response = api.handle(request)
        #expect(header(response, "Access-Control-Allow-Origin") == nil, "a form never answers another site")
        (api, request) = crossSite("GET", "/api/v1/listens", as: .clientKey, origin: "http://127.0.0.1:8002", fixture: fixture)
        response = api.handle(request)
        #expect(response.status == 200 && header(response, "Access-Control-Allow-Origin") == nil, "another origin cannot read it")
        (api, request) = crossSite("DELETE", "/api/v1/listens/1", as: .clientKey, fixture: fixture)
        #expect(api.handle(request).status == 403, "a client key deletes nothing")
    }
}
