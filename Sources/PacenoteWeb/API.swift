import Dispatch
import Foundation
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import Synchronization

/// The JSON API: routes in, responses out, every error through `HTTPResponse(apiError:)`.
public struct API: Sendable {
    let context: APIContext
    let localTime: LocalTime
    // Every cache below keeps one rule (`CacheSignal`): a value is kept until a change it
    // follows is announced, or a commit nobody announced, or its max age passes.
    /// Table sizes for the status, counted at most once a second: the status is what
    /// monitors poll, and counting a million plays on every poll would make it slow.
    private let counts: CommitCache<StoreCounts>
    /// The rendered status, public and private variants, kept for 100 ms or until the next
    /// live event (a heart-rate reading, a song, a player's connection): a strap's reading
    /// shows in the status as soon as it is stored, however often monitors poll.
    private let statusCache: CommitCache<HTTPResponse>
    /// The API's charts: they follow the changes to plays.
    let charts: ChartCache
    /// The tracks with the highest heart-rate lift, for the workouts page.
    let powerSongCache: CommitCache<[(track: Track, lift: Double)]>
    /// The songs that made you faster over every run (`Store.fasterSongs`), for the workouts
    /// page, the API and the recommender's reason.
    let fasterSongCache: CommitCache<[FasterSong]>
    /// The stats page's and the song-of-the-day archive's content: they show pins and
    /// tempos as well as plays.
    let pages: CommitCache<Node>
    /// Whole answers that depend only on the query and the database (the listens).
    let responses: ResponseCache
    /// The dashboard's figures from the database (`DashboardData`), by local day.
    let dashboardData: CommitCache<DashboardData>
    let dashboardPages: PageCache<DashboardKey>
    /// Reviews by period: they show pins and tempos as well as plays.
    let reviews: CommitCache<ReviewReport>
    /// The workouts list's distance and pace per finished workout: they follow the workouts'
    /// changes (a file's import announces its workout), not each live reading.
    let workoutMeasures: CommitCache<WorkoutMeasures?>
    /// A finished planned workout's compliance, for its plan's history: it follows the
    /// workouts' changes and tempos (a tempo segment is judged on the songs).
    let planCompliance: CommitCache<Double?>

    public init(context: APIContext) {
        self.context = context
        self.localTime = LocalTime(timeZone: context.timeZone, weekStart: context.weekStart)
        let changes = CacheSignal(store: context.store, bus: context.events)
        counts = CommitCache(signal: changes, maxAge: 1, capacity: 1)
        statusCache = CommitCache(signal: CacheSignal(store: context.store, bus: context.events, follows: { _ in true }),
                                  maxAge: 0.1, capacity: 2)
        charts = ChartCache(signal: CacheSignal(store: context.store, bus: context.events, follows: CacheSignal.playChanges),
                            maxAge: 60, capacity: 256)
        powerSongCache = CommitCache(signal: changes, maxAge: 60, capacity: 1)
        fasterSongCache = CommitCache(signal: changes, maxAge: 60, capacity: 4)
        pages = CommitCache(signal: changes, maxAge: 60, capacity: 256)
        responses = ResponseCache(signal: changes)
        dashboardData = CommitCache(signal: changes, capacity: 4)
        dashboardPages = PageCache(signal: changes)
        reviews = CommitCache(signal: changes, maxAge: 60, capacity: 256)
        workoutMeasures = CommitCache(signal: CacheSignal(store: context.store, bus: context.events, follows: { event in
            if case .changed(.workout, _) = event { true } else { false }
        }), maxAge: 300, capacity: 256)
        planCompliance = CommitCache(signal: CacheSignal(store: context.store, bus: context.events, follows: { event in
            switch event {
            // Not `.heartRateSamples`: announced for every live batch, it would empty this during
            // any workout; a finished run's late samples come with its `.workout` (or the max age).
            case .changed(.workout, _), .changed(.trackBPM, _), .changed(.library, _): true
            default: false
            }
        }), maxAge: 300, capacity: 512)
    }

    /// Answers a whole request: the access decision, then the handler. The server makes
    /// the decision on the headers alone (`admit`) and calls `respond` once the body is in.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch admit(request) {
        case .refused(let response, _), .answered(let response, _): response
        case .admitted(let match, let grant): respond(to: request, match, grant)
        }
    }

    /// The handler of a route the access decision let through: the table line's, for the
    /// request's method.
    func respond(to request: HTTPRequest, _ match: RouteMatch, _ grant: Grant) -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try match.method.handler(self, Call(request: request, values: match.values, id: match.id, grant: grant))
        } catch {
            response = errorResponse(concealed(APIError(error), request, mayReadPrivate: grant.mayReadPrivate), request, match.policy.dialect)
        }
        return crossOrigin(response, request, match)
    }

    func healthResponse() -> HTTPResponse {
        .json(.object([("status", .string("ok")), ("version", .string(context.version))]))
    }

    func staticFile(_ path: String) throws -> HTTPResponse {
        guard let response = context.staticFiles.response(for: path) else { throw APIError.notFound("no file \(path)") }
        return response
    }

    func statusResponse(_ call: Call) throws -> HTTPResponse {
        // Monitors poll the status: the same body serves everyone for 100 ms.
        let showPrivate = call.grant.mayReadPrivate
        return try statusCache.kept(showPrivate ? "private" : "public") {
            try HTTPResponse.json(showPrivate ? status() : publicStatus())
        }
    }

    func listensResponse(_ request: HTTPRequest) throws -> HTTPResponse {
        try responses.response(ResponseCache.key("listens", request.query)) {
            .json(try listens(request.query))
        }
    }

    func metricsResponse() throws -> HTTPResponse {
        guard let metrics = context.services.metrics else { throw APIError.notFound("metrics are not collected") }
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: metrics.prometheusText())
    }

    func validateTokenResponse(_ call: Call) -> HTTPResponse {
        // validate-token must not be a guessing oracle: a wrong token counts like a wrong key.
        let answer = validateToken(call.request)
        if case .object(let fields) = answer, fields.contains(where: { $0.0 == "valid" && $0.1 == .bool(false) }) {
            context.sessions.recordFailure(from: call.grant.client)
        }
        return .json(answer)
    }

    // MARK: GET /api/v1/events

    func events(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let hub = context.eventHub else { throw APIError.unavailable("live events are not enabled") }
        let last = (request.header("Last-Event-ID") ?? request.query["last_event_id"]).flatMap { Int($0) }
        // Capped per client: the one notion of the client, the real one behind a trusted proxy.
        return hub.response(lastEventID: last, client: Authorization.client(request, proxies: context.trustedProxies))
    }

    // MARK: GET /api/v1/status

    /// The status for trusted clients, the key and sessions: players, what plays now, the
    /// heart rate, the database's size, plays waiting for a full disk and the last backup.
    func status() throws -> JSONValue {
        let at = context.clock.now()
        let now = context.nowPlaying()
        let players = context.players().map { p in
            APIJSON.player(p, nowPlaying: now.first { $0.player == p.name }, at: at)
        }
        let counts = try storeCounts()
        let defaultName = context.players().first?.name
        let sources: [JSONValue] = context.services.heartRateSources?.states().map(APIJSON.heartRateSource) ?? []
        return .object([
            ("version", .string(context.version)),
            ("healthy", .bool(context.players().allSatisfy(\.connected))),
            ("uptime_s", .int(Int64(at.timeIntervalSince(context.startedAt)))),
            ("mpd", players.first ?? .null),
            ("now_playing", now.first { $0.player == defaultName }.map { APIJSON.nowPlaying($0, at: at) } ?? .null),
            ("heart_rate", context.heartRate?.current(now: at).map(APIJSON.heartRate) ?? .null),
            ("heart_rate_sources", .array(sources)),
            ("players", .array(players)),
            ("now_playing_elsewhere", .array(context.scrobbles.playingElsewhere(now: at).map { APIJSON.nowPlaying($0, at: at) })),
            ("database", .object([("plays", .int(Int64(counts.plays))), ("tracks", .int(Int64(counts.tracks)))])),
            ("plays_waiting", APIJSON.playsWaiting(context.services.waitingPlays?.waiting())),
            ("backup", APIJSON.backup(context.services.backups?.lastBackup())),
            ("forward", .array(try context.services.forwarding?.targets().map(APIJSON.forwardTarget) ?? [])),
            ("private_session", APIJSON.privateSession(try context.store.privateSession(), at: at)),
        ])
    }

    /// The status for strangers: the version, and whether the database answers and every
    /// player is connected. No addresses, errors or counts.
    func storeCounts() throws -> StoreCounts {
        try counts.kept("counts") { try context.store.counts() }
    }

    func publicStatus() -> JSONValue {
        let healthy = (try? storeCounts()) != nil && context.players().allSatisfy(\.connected)
        return .object([("version", .string(context.version)), ("healthy", .bool(healthy))])
    }

    // MARK: GET /api/v1/listens

    static let defaultLimit = 50
    static let maxLimit = 500

    func listens(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: Self.defaultLimit, in: 1...Self.maxLimit)
        let from = try Query.instant(query, "from", localTime)
        let to = try Query.instant(query, "to", localTime, endOfDay: true)
        if let from, let to, from >= to { throw APIError.badRequest("'from' must be before 'to'", code: "invalid_range") }
        let cursor = try query["cursor"].map { text throws(APIError) in
            guard let cursor = ListenCursor.decode(text) else {
                throw APIError.badRequest("'cursor' is not a cursor this server gave out", code: "invalid_cursor")
            }
            return cursor
        }
        if let hidden = query["hidden"] {
            guard hidden == "true" || hidden == "false" else {
                throw APIError.badRequest("'hidden' must be true or false", code: "invalid_hidden")
            }
            if hidden == "true" {
                guard from == nil, to == nil, query["q"] == nil else {
                    throw APIError.badRequest("the hidden plays take 'limit' and 'cursor' only", code: "invalid_hidden")
                }
                let rows = try context.store.hiddenPlays(limit: limit + 1, after: cursor)
                let page = rows.prefix(limit)
                let next = rows.count > limit ? page.last.map { ListenCursor.encode(startedAt: $0.play.startedAt, id: $0.play.id ?? 0) } : nil
                return .object([("listens", .array(page.map(APIJSON.listen))), ("next_cursor", .optional(next))])
            }
        }
        // One more than asked tells whether another page follows.
        let search = query["q"].flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        if let search, search.count > 200 { throw APIError.badRequest("'q' is at most 200 characters", code: "invalid_q") }
        let rows = try context.store.plays(limit: limit + 1, after: cursor, from: from, to: to, search: search)
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map { ListenCursor.encode(startedAt: $0.play.startedAt, id: $0.play.id ?? 0) } : nil
        return .object([
            ("listens", .array(page.map(APIJSON.listen))),
            ("next_cursor", .optional(next)),
        ])
    }
}

/// The API's JSON shapes, documented in docs/API.md.
enum APIJSON {
    static func timestamp(_ date: Date?) -> JSONValue { .optional(date.map(ISO8601.string)) }

    static func backup(_ last: (at: Date, bytes: Int64)?) -> JSONValue {
        .object([("last_at", timestamp(last?.at)), ("size_bytes", last.map { .int($0.bytes) } ?? .null)])
    }

    static func track(_ t: Track) -> JSONValue {
        .object([
            ("id", .optional(t.id)),
            ("title", .string(t.title)),
            ("artist", .optional(t.artist)),
            ("album", .optional(t.album)),
            ("album_id", .optional(t.albumID)),
            ("album_artist", .optional(t.albumArtist)),
            ("uri", .optional(t.uri)),
            ("duration_s", .optional(t.durationSeconds)),
            ("bpm", .optional(t.bpm?.value)),
            ("bpm_source", .optional(t.bpm?.source.rawValue)),
            ("beat_confidence", .optional(t.beatConfidence)),
            ("loudness_lufs", .optional(t.loudnessLUFS)),
            ("loudness_range_lu", .optional(t.loudnessRangeLU)),
            ("musicbrainz_recording_id", .optional(t.musicBrainz.recording)),
            ("musicbrainz_release_id", .optional(t.musicBrainz.release)),
            ("musicbrainz_artist_id", .optional(t.musicBrainz.artist)),
        ])
    }

    static func listen(_ p: PlayWithTrack) -> JSONValue {
        .object([
            ("id", .optional(p.play.id)),
            ("started_at", timestamp(p.play.startedAt)),
            ("ended_at", timestamp(p.play.endedAt)),
            ("played_s", .double(p.play.playedSeconds)),
            ("counted", .bool(p.play.counted)),
            ("source", .string(p.play.source)),
            ("player", .optional(p.play.player)),
            ("zone", .optional(p.play.zone?.rawValue)),
            ("hr_avg", .optional(p.play.heartRateAverage)),
            ("hr_max", .optional(p.play.heartRateMax)),
            ("workout_id", .optional(p.play.workoutID)),
            // Played from a copy rendered at another tempo (issue 56): the tempo and the factor.
            ("played_bpm", .optional(p.play.playedBPM.map { ($0 * 10).rounded() / 10 })),
            ("tempo_ratio", .optional(p.play.tempoRatio.map { ($0 * 10_000).rounded() / 10_000 })),
            ("track", track(p.track)),
        ])
    }

    static func nowPlaying(_ n: NowPlaying, at now: Date) -> JSONValue {
        // Positions move on while playing: report them as of now, not of the last event.
        let since = n.state == .play ? max(0, now.timeIntervalSince(n.at)) : 0
        return .object([
            ("player", .string(n.player)),
            ("state", .string(n.state.rawValue)),
            ("started_at", timestamp(n.startedAt)),
            ("played_s", .double(n.playedSeconds + since)),
            ("elapsed_s", .optional(n.elapsed.map { $0 + since })),
            ("duration_s", .optional(n.duration)),
            ("track", track(n.track)),
        ])
    }

    static func heartRate(_ h: LiveHeartRate) -> JSONValue {
        .object([
            ("bpm", .int(Int64(h.bpm.rounded()))),
            ("zone", .int(Int64(h.zone.rawValue))),
            ("at", timestamp(h.at)),
            ("workout_id", .optional(h.workoutID)),
        ])
    }

    static func player(_ s: PlayerStatus, nowPlaying: NowPlaying?, at now: Date) -> JSONValue {
        .object([
            ("name", .string(s.name)),
            ("endpoint", .string(s.endpoint)),
            ("connected", .bool(s.connected)),
            ("server_version", .optional(s.serverVersion)),
            ("error", .optional(s.lastError)),
            ("since", timestamp(s.since)),
            ("now_playing", nowPlaying.map { APIJSON.nowPlaying($0, at: now) } ?? .null),
        ])
    }
}

/// Opaque paging cursors: `<started_at_ms>.<id>` in base64url, so clients do not build them.
enum ListenCursor {
    static func encode(startedAt: Date, id: Int64) -> String {
        let raw = "\(Int64((startedAt.timeIntervalSince1970 * 1000).rounded())).\(id)"
        return Data(raw.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> Store.PlayCursor? {
        var b64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while b64.count % 4 != 0 { b64 += "=" }
        guard text.count <= 64, let data = Data(base64Encoded: b64) else { return nil }
        let parts = String(decoding: data, as: UTF8.self).split(separator: ".")
        guard parts.count == 2, let ms = Int64(parts[0]), let id = Int64(parts[1]) else { return nil }
        return Store.PlayCursor(startedAtMs: ms, id: id)
    }
}

/// Query-string parameters, each error naming its parameter.
enum Query {
    static func int(_ q: [String: String], _ name: String, default value: Int, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let text = q[name] else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw .badRequest("'\(name)' must be an integer from \(range.lowerBound) to \(range.upperBound)", code: "invalid_\(name)")
        }
        return n
    }

    /// An optional integer parameter: nil when it is absent.
    static func int(_ q: [String: String], _ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard q[name] != nil else { return nil }
        return try int(q, name, default: range.lowerBound, in: range)
    }

    static func instant(_ q: [String: String], _ name: String, _ local: LocalTime, endOfDay: Bool = false) throws(APIError) -> Date? {
        guard let text = q[name] else { return nil }
        guard let date = Instant.parse(text, in: local, endOfDay: endOfDay) else {
            throw .badRequest("'\(name)' must be a date (YYYY-MM-DD), an ISO 8601 time with offset, or Unix seconds",
                              code: "invalid_\(name)")
        }
        return date
    }
}
