import Foundation
import PacenoteCore
import PacenoteStore

/// A plan's pre-run playlist over the API (issue 55, point 3): built, swapped and rebalanced,
/// saved to MPD as `Pacenote: PLAN` or queued. The playlist lives in the client (the page's
/// form, an app): each call sends it back as track ids, so nothing is kept half-made here.
extension API {
    /// POST: no body builds it; `{"tracks": [ids…], "swap": {"index": i, "track_id": id | null}}`
    /// swaps (or, with a null track, takes out) the song at `index` and rebalances the rest.
    func planPlaylistJSON(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        guard let stored = try context.store.plan(id: id) else { throw APIError.notFound("no plan \(id)") }
        var current: [Int64]?
        var swap: PlaylistSwap?
        if !request.body.isEmpty {
            let body = try Self.jsonObject(request)
            current = try Self.trackIDs(body["tracks"])
            if let change = body["swap"] {
                guard let change = change as? [String: Any], let index = (change["index"] as? NSNumber).flatMap({ Int(exactly: $0.doubleValue) }),
                      !isJSONBool(change["index"] as Any) else {
                    throw APIError.badRequest("'swap' must be {\"index\": n, \"track_id\": id or null}", code: "invalid_swap")
                }
                let track = change["track_id"].flatMap { $0 is NSNull ? nil : $0 }
                guard track == nil || Self.positiveInt(track!) != nil else {
                    throw APIError.badRequest("'swap.track_id' must be a track id or null", code: "invalid_swap")
                }
                swap = PlaylistSwap(index: index, trackID: track.flatMap(Self.positiveInt))
            }
        }
        let answer = try recommender.planPlaylist(stored.plan, current: current, swap: swap)
        return APIJSON.planPlaylist(answer, plan: stored.plan)
    }

    /// POST `{"tracks": [ids…], "queue": false}`: saved as MPD's stored playlist
    /// `Pacenote: PLAN` (replacing it), or with `"queue": true` added at the queue's end.
    func savePlanPlaylist(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        guard let stored = try context.store.plan(id: id) else { throw APIError.notFound("no plan \(id)") }
        let body = try Self.jsonObject(request)
        guard let tracks = try Self.trackIDs(body["tracks"]), !tracks.isEmpty else {
            throw APIError.badRequest("'tracks' must list the playlist's track ids", code: "invalid_tracks")
        }
        let queue = body["queue"] as? Bool ?? false
        let name = "Pacenote: \(stored.plan.name)"
        let count = try recommender.savePlaylist(tracks, name: name, queue: queue)
        return .object([("saved", .int(Int64(count))), ("playlist", queue ? .null : .string(name)), ("queued", .bool(queue))])
    }

    static func trackIDs(_ value: Any?) throws(APIError) -> [Int64]? {
        guard let value, !(value is NSNull) else { return nil }
        guard let list = value as? [Any], list.count <= 10_000 else {
            throw APIError.badRequest("'tracks' must be a list of track ids (at most 10,000)", code: "invalid_tracks")
        }
        var ids: [Int64] = []
        for item in list {
            guard let id = positiveInt(item) else { throw APIError.badRequest("'tracks' must be a list of track ids", code: "invalid_tracks") }
            ids.append(id)
        }
        return ids
    }
}

extension APIJSON {
    static func planPlaylist(_ answer: PlanPlaylistAnswer, plan: WorkoutPlan) -> JSONValue {
        let timeline = plan.timeline()
        let playlist = answer.playlist
        return .object([
            ("plan_seconds", .int(Int64(playlist.planSeconds))),
            ("seconds", .int(Int64(playlist.seconds))),
            ("library", .int(Int64(answer.librarySize))),
            ("short", .optional(playlist.short?.description)),
            ("entries", .array(playlist.entries.enumerated().map { i, e in
                let texts = answer.texts[e.trackID]
                return .object([
                    ("index", .int(Int64(i))),
                    ("track_id", .int(e.trackID)),
                    ("title", .optional(texts?.title)),
                    ("artist", .optional(texts?.artist)),
                    ("uri", .optional(texts?.uri)),
                    ("start_s", .int(Int64(e.start))),
                    ("seconds", .int(Int64(e.seconds))),
                    ("segment", .int(Int64(e.segment))),
                    ("target_text", .optional(e.segment < timeline.count ? timeline[e.segment].target.text : nil)),
                    ("bpm", .optional(e.tempo.map { ($0.effectiveBPM / $0.factor * 10).rounded() / 10 })),
                    ("effective_bpm", .optional(e.tempo.map { ($0.effectiveBPM * 10).rounded() / 10 })),
                    ("fit", .optional(e.tempo.map { ($0.fit * 100).rounded() / 100 })),
                    ("reason", .string(e.reason.rawValue)),
                ])
            })),
        ])
    }
}
