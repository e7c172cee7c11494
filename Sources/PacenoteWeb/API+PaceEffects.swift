import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    // MARK: /api/v1/faster-songs

    /// The songs that made you faster (`PaceEffect`): over every run, or the runs between
    /// `from` and `to`; `track_id` asks for one song's effect, shown or not yet.
    func fasterSongsJSON(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 20, in: 1...100)
        let method: [(String, JSONValue)] = [
            ("before_s", .double(PaceEffect.before)),
            ("min_plays", .int(Int64(PaceEffect.minimumPlays))),
            ("min_runs", .int(Int64(PaceEffect.minimumRuns))),
        ]
        if let raw = query["track_id"] {
            guard let id = Int64(raw), id > 0 else {
                throw APIError.badRequest("'track_id' must be a track's id", code: "invalid_track_id")
            }
            guard let track = try context.store.track(id: id) else { throw APIError.notFound("There is no track \(id).") }
            let songs: [JSONValue] = try context.store.paceEffect(trackID: id).map { effect in
                [.object([("track", APIJSON.track(track))] + APIJSON.paceEffectFields(effect))]
            } ?? []
            return .object(method + [("songs", .array(songs))])
        }
        let from = try Query.instant(query, "from", localTime)
        let to = try Query.instant(query, "to", localTime, endOfDay: true)
        guard (from == nil) == (to == nil) else {
            throw APIError.badRequest("'from' and 'to' go together", code: from == nil ? "invalid_from" : "invalid_to")
        }
        let songs: [FasterSong]
        if let from, let to {
            guard from < to else { throw APIError.badRequest("'from' must be before 'to'", code: "invalid_from") }
            songs = try context.store.fasterSongs(from: localTime.day(of: from), to: localTime.day(of: to), limit: limit)
        } else {
            songs = try fasterSongs(limit: limit)
        }
        return .object(method + [("songs", .array(songs.map { s in
            .object([("track", APIJSON.track(s.track))] + APIJSON.paceEffectFields(s.effect))
        }))])
    }
}
