import Foundation
import PacenoteCore
import PacenoteStore

/// Likes and dislikes: Pacenote's own `PUT /api/v1/tracks/{id}/feeling`, ListenBrainz's
/// feedback endpoints as its clients call them, and "not now" on a suggestion. Every
/// change goes through `Operations.setFeeling`.
extension API {
    /// `PUT /api/v1/tracks/{id}/feeling` with `{"feeling": "like" | "dislike" | "none"}`.
    func setTrackFeeling(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
              let text = object["feeling"] as? String, let feeling = Feeling(rawValue: text) else {
            throw APIError.badRequest("body: expected {\"feeling\": \"like\"}, \"dislike\" or \"none\"", code: "invalid_feeling")
        }
        try context.operations.setFeeling(trackID: id, feeling, source: "api")
        return .object([("track_id", .int(id)), ("feeling", .string(feeling.rawValue))])
    }

    /// `POST /api/v1/recommendations/not-now` with `{"track_id": 42}`: the track is lowered
    /// in suggestions for a while (`RecommenderService.notNowMs`, in memory).
    func notNow(_ request: HTTPRequest) throws -> JSONValue {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
              let id = (object["track_id"] as? NSNumber)?.int64Value, id > 0 else {
            throw APIError.badRequest("body: expected {\"track_id\": 42}", code: "invalid_track_id")
        }
        guard let recommender = context.recommender else { throw APIError.unavailable("the recommender is not running") }
        try recommender.notNow(trackID: id)
        return .object([("track_id", .int(id)), ("not_now", .bool(true))])
    }

    /// `POST …/1/feedback/recording-feedback`: `{"recording_mbid" | "recording_msid": …,
    /// "score": 1 | -1 | 0}`. A `recording_msid` is one Pacenote gave out (`PacenoteMSID`);
    /// a `recording_mbid` names the track with that MusicBrainz recording id.
    func listenBrainzFeedback(_ request: HTTPRequest) throws -> JSONValue {
        func bad(_ message: String) -> APIError { APIError.badRequest(message, code: "invalid_feedback").inListenBrainzStyle }
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            throw bad("Cannot parse JSON document.")
        }
        guard let number = object["score"] as? NSNumber, let score = Int(exactly: number.doubleValue),
              let feeling = Feeling(listenBrainzScore: score) else {
            throw bad("Score can have a value of 1, 0 or -1.")
        }
        let msid = (object["recording_msid"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let mbid = (object["recording_mbid"] as? String).flatMap { $0.isEmpty ? nil : $0 }
        let trackID: Int64
        if let msid {
            guard let id = PacenoteMSID.trackID(msid: msid) else {
                throw APIError.notFound("recording_msid \(msid) is not one of Pacenote's").inListenBrainzStyle
            }
            trackID = id
        } else if let mbid {
            guard UUID(uuidString: mbid) != nil else { throw bad("recording_mbid: \(mbid) is not a valid UUID.") }
            guard let id = try context.store.trackID(recordingMBID: mbid) else {
                throw APIError.notFound("no track has the recording_mbid \(mbid)").inListenBrainzStyle
            }
            trackID = id
        } else {
            throw bad("JSON document must contain either recording_msid or recording_mbid, and score top level keys")
        }
        do {
            try context.operations.setFeeling(trackID: trackID, feeling, source: "listenbrainz")
        } catch {
            throw APIError(error).inListenBrainzStyle
        }
        return .object([("status", .string("ok"))])
    }

    /// `GET …/1/feedback/user/{name}/get-feedback` in ListenBrainz's shape: `score` (1 or
    /// -1) filters, `count` (at most 1000) and `offset` page, `metadata=true` adds each
    /// track's metadata. Pacenote has one user: any name answers.
    func listenBrainzGetFeedback(user: String, _ query: [String: String]) throws -> JSONValue {
        let count = try Query.int(query, "count", default: 100, in: 0...1000)
        let offset = try Query.int(query, "offset", default: 0, in: 0...Int(Int32.max))
        var filter: Feeling?
        if let text = query["score"] {
            guard let n = Int(text), n != 0, let feeling = Feeling(listenBrainzScore: n) else {
                throw APIError.badRequest("Score can have a value of 1 or -1.", code: "invalid_score")
            }
            filter = feeling
        }
        let metadata = query["metadata"]?.lowercased() == "true"
        let all = try context.store.feelingTracks(filter)
        let page = all.dropFirst(offset).prefix(count)
        return .object([
            ("count", .int(Int64(page.count))),
            ("feedback", .array(page.map { f in
                JSONValue.object([
                    ("created", .int(Int64(f.updatedAt.timeIntervalSince1970))),
                    ("recording_mbid", .optional(f.track.musicBrainz.recording)),
                    ("recording_msid", .string(PacenoteMSID.msid(trackID: f.track.id ?? 0))),
                    ("score", .int(Int64(f.feeling.listenBrainzScore))),
                    ("track_metadata", metadata ? .object([
                        ("artist_name", .optional(f.track.artist)),
                        ("track_name", .string(f.track.title)),
                        ("release_name", .optional(f.track.album)),
                        ("additional_info", .object([("track_id", .optional(f.track.id))])),
                    ]) : .null),
                    ("user_id", .string(user)),
                ])
            })),
            ("offset", .int(Int64(offset))),
            ("total_count", .int(Int64(all.count))),
        ])
    }
}
