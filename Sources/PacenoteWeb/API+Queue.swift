import Foundation
import PacenoteCore
import PacenoteStore

/// A player's queue (issue 57): `GET /api/v1/players/{name}/queue` with each song's BPM and
/// zone fit, `POST` to add tracks, an album, an artist or a stored playlist now, next or at
/// the end, `DELETE` to clear, and one song removed, moved or played by MPD's song id.
extension API {
    func queueJSON(_ player: String) throws -> JSONValue {
        guard let queue = try context.services.players.queue(player: player) else { throw Self.noPlayer(player) }
        return try APIJSON.queue(player, queue, tracks: context.store.tracks(uris: queue.entries.map(\.song.uri)), tempo: context.tempo)
    }

    // MARK: POST /api/v1/players/{name}/queue

    func addToQueue(_ player: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let object = try Self.jsonObject(request.body, expected: #"{"track_ids": [12, 13], "at": "next"}"#)
        let place = try Self.queuePlace(object["at"])
        let edit: QueueEdit
        if let playlist = object["playlist"] {
            guard object.count == (object["at"] == nil ? 1 : 2) else {
                throw APIError.badRequest("playlist: a stored playlist's name, alone", code: "invalid_body")
            }
            edit = .load(playlist: try Self.newPlaylistName(playlist), place)
        } else {
            let uris = try playableURIs(object)
            edit = .add(uris: uris, place)
        }
        guard try context.services.players.editQueue(player: player, edit) else { throw Self.noPlayer(player) }
        return .json(try queueJSON(player), status: 201)
    }

    /// The files of `track_ids`, `album_id` or `artist_id` (one of them), refused when none
    /// of them is in the library.
    func playableURIs(_ object: [String: Any]) throws -> [String] {
        let given = ["track_ids", "album_id", "artist_id"].filter { object[$0] != nil }
        guard given.count == 1 else {
            throw APIError.badRequest("give one of track_ids, album_id and artist_id", code: "invalid_body")
        }
        func id(_ value: Any?, _ name: String) throws(APIError) -> Int64 {
            guard let n = HeartRateInput.number(value as Any), n == n.rounded(), n > 0, n < 9e15 else {
                throw APIError.badRequest("\(name): an id", code: "invalid_id")
            }
            return Int64(n)
        }
        let what: Store.Playable
        switch given[0] {
        case "track_ids":
            guard let list = object["track_ids"] as? [Any], (1...1000).contains(list.count) else {
                throw APIError.badRequest("track_ids: 1 to 1000 track ids", code: "invalid_id")
            }
            what = .tracks(try list.map { v throws(APIError) in try id(v, "track_ids") })
        case "album_id": what = .album(try id(object["album_id"], "album_id"))
        default: what = .artist(try id(object["artist_id"], "artist_id"))
        }
        let uris = try context.store.libraryURIs(what)
        guard !uris.isEmpty else {
            throw APIError(kind: .conflict, code: "not_in_library", message: "none of these tracks is in the player's library")
        }
        return uris
    }

    static func queuePlace(_ value: Any?) throws(APIError) -> QueuePlace {
        guard let value else { return .end }
        guard let text = value as? String, let place = QueuePlace(rawValue: text) else {
            throw APIError.badRequest("at: now, next or end", code: "invalid_place")
        }
        return place
    }

    static func jsonObject(_ body: [UInt8], expected: String) throws(APIError) -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw APIError.badRequest("body: a JSON object, e.g. \(expected)", code: "invalid_body")
        }
        return object
    }

    // MARK: DELETE /api/v1/players/{name}/queue, …/queue/{id}, POST …/queue/{id}/{action}

    func clearQueue(_ player: String) throws -> JSONValue {
        guard try context.services.players.editQueue(player: player, .clear) else { throw Self.noPlayer(player) }
        return try queueJSON(player)
    }

    func editQueueSong(_ player: String, id raw: String, action: String, _ request: HTTPRequest) throws -> JSONValue {
        guard let id = Int(raw), (0...Int(UInt32.max)).contains(id) else { throw APIError.notFound("no song \(raw) in the queue") }
        let edit: QueueEdit
        switch action {
        case "delete": edit = .remove(id: id)
        case "play": edit = .play(id: id)
        case "move":
            let object = try Self.jsonObject(request.body, expected: #"{"position": 0}"#)
            guard object.count == 1, let n = HeartRateInput.number(object["position"] as Any), n == n.rounded(), n >= 0, n < 1e6 else {
                throw APIError.badRequest("position: where the song goes, 0 first", code: "invalid_position")
            }
            edit = .move(id: id, to: Int(n))
        default: throw APIError.notFound("no action \(action): move, play")
        }
        guard try context.services.players.editQueue(player: player, edit) else { throw Self.noPlayer(player) }
        return try queueJSON(player)
    }
}

extension APIJSON {
    static func queue(_ player: String, _ queue: PlayerQueue, tracks: [String: Track], tempo: TempoTable) -> JSONValue {
        .object([
            ("player", .string(player)),
            ("current_id", .optional(queue.currentID)),
            ("songs", .array(queue.entries.map { entry in
                song(entry.song, track: tracks[entry.song.uri], tempo: tempo,
                     extra: [("id", .int(Int64(entry.id))), ("position", .int(Int64(entry.position))),
                             ("current", .bool(entry.id == queue.currentID))])
            })),
        ])
    }

    /// A song of MPD's (the queue's, a playlist's) with what Pacenote knows of it: its stored
    /// track, BPM and the zones its tempo fits (half- and double-time counting).
    static func song(_ song: SongInfo, track: Track?, tempo: TempoTable, extra: [(String, JSONValue)]) -> JSONValue {
        let bpm = track?.bpm?.value
        return .object(extra + [
            ("uri", .string(song.uri)),
            ("title", .string(track?.title ?? song.track.title)),
            ("artist", .optional(track?.artist ?? song.track.artist)),
            ("album", .optional(track?.album ?? song.track.album)),
            ("duration_s", .optional(song.durationSeconds ?? track?.durationSeconds)),
            ("track_id", .optional(track?.id)),
            ("bpm", .optional(bpm)),
            ("zone_fit", .array(zoneFit(bpm, tempo).map { .int(Int64($0)) })),
        ])
    }

    /// The zones whose tempo window a song at `bpm` fits.
    static func zoneFit(_ bpm: Double?, _ tempo: TempoTable) -> [Int] {
        guard let bpm else { return [] }
        return Zone.allCases.filter { $0.rawValue >= 1 && TempoTarget.window(tempo.window(for: $0)).fit(bpm: bpm) != nil }.map(\.rawValue)
    }
}
