import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

extension API {
    var recommender: any RecommenderBackend {
        get throws(APIError) {
            guard let backend = context.recommender else { throw APIError.unavailable("the recommender is not enabled") }
            return backend
        }
    }

    /// Next-track suggestions as a Swift value, for the site's dashboard: the live zone
    /// unless `zone` is given, `limit` tracks, `mode` zone or cadence.
    public func recommendations(zone: Zone? = nil, limit: Int = 10, mode: RecommendationQuery.Mode = .zone,
                                cadence: Double? = nil) throws -> RecommendationList {
        try recommender.recommendations(RecommendationQuery(zone: zone, limit: limit, mode: mode, cadence: cadence))
    }

    /// The dashboard's suggestions: nil while the model is (to be) built, which is then asked
    /// for in the background.
    func recommendationsIfReady(limit: Int) throws -> RecommendationList? {
        try recommender.recommendationsIfReady(RecommendationQuery(limit: limit))
    }

    // MARK: GET /api/v1/recommendations/next

    func recommendationsJSON(_ q: [String: String]) throws -> JSONValue {
        let query = try Self.recommendationQuery(q)
        return APIJSON.recommendations(try recommender.recommendations(query))
    }

    static func recommendationQuery(_ q: [String: String]) throws(APIError) -> RecommendationQuery {
        var zone: Zone?
        if let text = q["zone"] {
            let digits = text.uppercased().hasPrefix("Z") ? String(text.dropFirst()) : text
            guard let n = Int(digits), let z = Zone(rawValue: n) else {
                throw .badRequest("'zone' must be a zone from 0 to 5 (or Z0–Z5)", code: "invalid_zone")
            }
            zone = z
        }
        let limit = try Query.int(q, "limit", default: 10, in: 1...100)
        let mode: RecommendationQuery.Mode
        if let text = q["mode"] {
            guard let m = RecommendationQuery.Mode(rawValue: text) else {
                throw .badRequest("'mode' must be zone or cadence", code: "invalid_mode")
            }
            mode = m
        } else {
            mode = .zone
        }
        var cadence: Double?
        if let text = q["cadence"] {
            guard let c = Double(text), (60...240).contains(c) else {
                throw .badRequest("'cadence' must be steps per minute from 60 to 240", code: "invalid_cadence")
            }
            cadence = c
        }
        return RecommendationQuery(zone: zone, limit: limit, mode: mode, cadence: cadence)
    }

    // MARK: POST /api/v1/queue

    func enqueue(_ request: HTTPRequest) throws -> HTTPResponse {
        var trackID: Int64?
        var q = request.query
        if !request.body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                throw APIError.badRequest("body: expected {\"track_id\": 12} or {} for the top suggestion", code: "invalid_body")
            }
            if let raw = object["track_id"], !(raw is NSNull) {
                guard let id = HeartRateInput.number(raw), id == id.rounded(), id > 0, id < 9e15 else {
                    throw APIError.badRequest("track_id: a track's id", code: "invalid_track_id")
                }
                trackID = Int64(id)
            }
            for key in ["zone", "mode", "cadence"] {
                if let value = object[key], !(value is NSNull) { q[key] = "\(value)" }
            }
        }
        let query = try Self.recommendationQuery(q)
        let queued = try recommender.enqueue(trackID: trackID, query: query)
        return .json(APIJSON.queued(queued), status: 201)
    }

    // MARK: PUT /api/v1/tracks/{id}/bpm

    func setTrackBPM(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
              let value = HeartRateInput.number(object["bpm"]), (20...400).contains(value) else {
            throw APIError.badRequest("body: expected {\"bpm\": 128} with a tempo from 20 to 400", code: "invalid_bpm")
        }
        return APIJSON.track(try context.operations.setBPM(trackID: id, value: value))
    }
}

extension APIJSON {
    static func recommendations(_ list: RecommendationList) -> JSONValue {
        .object([
            ("zone", .optional(list.zone?.rawValue)),
            ("zone_source", .string(list.zoneSource)),
            ("mode", .string(list.mode.rawValue)),
            ("target", target(list.target)),
            ("current", list.current.map { c in
                JSONValue.object([("track_id", .optional(c.trackID)), ("title", .string(c.title)), ("artist", .optional(c.artist))])
            } ?? .null),
            ("suggestions", .array(list.suggestions.enumerated().map { suggestion($0.element, rank: $0.offset + 1) })),
            ("empty_reason", list.emptyReason.map { r in
                JSONValue.object([("code", .string(r.code)), ("message", .string(r.message)), ("fix", .string(r.fix))])
            } ?? .null),
            ("excluded", census(list.census)),
            ("note", .optional(list.note)),
            ("queue_error", .optional(list.queueError)),
        ])
    }

    /// The census of the library: counts of tracks, each rule's own (a track may count under several).
    static func census(_ c: Recommender.Census) -> JSONValue {
        .object([
            ("library", .int(Int64(c.library))),
            ("left_out", .int(Int64(c.leftOut))),
            ("playing", .int(Int64(c.playing))),
            ("queued", .int(Int64(c.queued))),
            ("recently_played", .int(Int64(c.recentlyPlayed))),
            ("disliked", .int(Int64(c.disliked))),
            ("off_tempo", .int(Int64(c.offTempo))),
            ("without_bpm", .int(Int64(c.withoutBPM))),
        ])
    }

    static func target(_ t: TempoTarget) -> JSONValue {
        switch t {
        case .any: .object([("kind", .string("any"))])
        case .window(let w): .object([("kind", .string("window")), ("min_bpm", .double(w.lowerBound)), ("max_bpm", .double(w.upperBound))])
        case .cadence(let steps, let change):
            .object([("kind", .string("cadence")), ("steps_per_min", .double(steps)), ("max_change", .double(change))])
        }
    }

    static func candidate(_ t: ListeningModel.Candidate) -> JSONValue {
        .object([
            ("id", .int(t.id)),
            ("title", .string(t.title)),
            ("artist", .optional(t.artist)),
            ("uri", .optional(t.uri)),
            ("bpm", .optional(t.bpm)),
        ])
    }

    static func suggestion(_ s: Recommender.Suggestion, rank: Int) -> JSONValue {
        .object([
            ("rank", .int(Int64(rank))),
            ("score", .double((s.score * 1000).rounded() / 1000)),
            ("tier", .int(Int64(s.tier))),
            ("effective_bpm", .optional(s.tempo?.effectiveBPM)),
            ("tempo_factor", .optional(s.tempo?.factor)),
            ("track", candidate(s.track)),
            ("reasons", .array(s.reasons.map { r in
                .object([("kind", .string(r.kind)), ("weight", .double((r.weight * 1000).rounded() / 1000)), ("detail", .string(r.detail))])
            })),
        ])
    }

    static func queued(_ q: QueuedTrack) -> JSONValue {
        .object([
            ("player", .string(q.player)),
            ("song_id", .int(Int64(q.songID))),
            ("position", .int(Int64(q.position))),
            ("track", candidate(q.track)),
            ("suggestion", q.suggestion.map { suggestion($0, rank: 1) } ?? .null),
            ("tempo", q.tempo.map { tempoPlan($0, state: "rendering") } ?? .null),
        ])
    }

    static func tempoPlan(_ plan: TempoStretch.Plan, state: String) -> JSONValue {
        .object([
            ("state", .string(state)),
            ("ratio", .double((plan.ratio * 10_000).rounded() / 10_000)),
            ("change_percent", .double(((plan.ratio - 1) * 1000).rounded() / 10)),
            ("played_bpm", .double((plan.playedBPM * 10).rounded() / 10)),
            ("target_bpm", .double((plan.targetBPM * 10).rounded() / 10)),
        ])
    }

    static func tempoStatus(_ s: TempoStatus) -> JSONValue {
        .object([
            ("enabled", .bool(s.enabled)),
            ("access", .optional(s.access)),
            ("problem", .optional(s.problem)),
            ("max_change", .double(s.maxChange)),
            ("quality", .string(s.quality)),
            ("cache", .object([("copies", .int(Int64(s.cachedCopies))), ("bytes", .int(s.cachedBytes))])),
            ("renders", .array(s.renders.map { r in
                .object([
                    ("uri", .string(r.uri)),
                    ("title", .string(r.title)),
                    ("artist", .optional(r.artist)),
                    ("bpm", .double(r.bpm)),
                    ("state", .string(r.state)),
                    ("reason", .optional(r.reason)),
                    ("reused", .bool(r.reused)),
                    ("ratio", .double((r.plan.ratio * 10_000).rounded() / 10_000)),
                    ("played_bpm", .double((r.plan.playedBPM * 10).rounded() / 10)),
                    ("target_bpm", .double((r.plan.targetBPM * 10).rounded() / 10)),
                    ("render_s", .optional(r.renderSeconds.map { ($0 * 100).rounded() / 100 })),
                    ("asked_at", timestamp(r.askedAt)),
                ])
            })),
        ])
    }
}
