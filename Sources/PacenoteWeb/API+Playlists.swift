import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// MPD's stored playlists (issue 57), of the first player unless `?player=` names another:
/// listed with the smart playlists and moods Pacenote keeps among them, read (as JSON or
/// JSPF), created, renamed, deleted, edited song by song and played. A smart playlist's songs
/// are its rules': editing them in MPD is refused here (and overwritten when the rules next
/// choose), its rules are changed at `/api/v1/smart-playlists/{id}`.
extension API {
    func playlistPlayer(_ query: [String: String]) throws -> String {
        let players = context.players().map(\.name)
        guard let name = query["player"] ?? players.first else { throw APIError.unavailable("no MPD is followed") }
        guard players.contains(name) else { throw Self.noPlayer(name) }
        return name
    }

    func playlistsJSON(_ query: [String: String]) throws -> JSONValue {
        let player = try playlistPlayer(query)
        guard let stored = try context.services.players.playlists(player: player) else { throw Self.noPlayer(player) }
        let smart = try context.store.smartPlaylists()
        let states = context.services.smartPlaylists?.states() ?? [:]
        var names = Set<String>()
        var rows: [JSONValue] = stored.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }.map { p in
            names.insert(p.name)
            let definition = smart.first { $0.name == p.name }
            return APIJSON.storedPlaylist(p.name, lastModified: p.lastModified, smart: definition, state: definition.flatMap { states[$0.id] })
        }
        // Smart playlists MPD does not hold (yet, or it refused them).
        for s in smart where !names.contains(s.name) {
            rows.append(APIJSON.storedPlaylist(s.name, lastModified: nil, smart: s, state: states[s.id]))
        }
        return .object([("player", .string(player)), ("playlists", .array(rows))])
    }

    /// `GET /api/v1/playlists/{name}` (JSON) or `/api/v1/playlists/{name}.jspf` (JSPF).
    func playlist(_ rawName: String, _ query: [String: String]) throws -> HTTPResponse {
        // The path is decoded already (libmicrohttpd): a name is used as it comes.
        var name = rawName
        let jspf = name.hasSuffix(".jspf")
        if jspf { name.removeLast(5) }
        let player = try playlistPlayer(query)
        guard let songs = try context.services.players.playlistSongs(player: player, name: name) else { throw Self.noPlayer(player) }
        let tracks = try context.store.tracks(uris: songs.map(\.uri))
        let smart = try context.store.smartPlaylist(named: name)
        if jspf {
            let modified = try context.services.players.playlists(player: player)?.first { $0.name == name }?.lastModified
            var response = HTTPResponse.json(APIJSON.jspf(name, songs, tracks: tracks, modified: modified, smart: smart, base: context.publicURL))
            response.headers = response.headers.map { $0.0 == "Content-Type" ? ($0.0, "application/jspf+json") : $0 }
            return response
        }
        return .json(.object([
            ("name", .string(name)),
            ("player", .string(player)),
            ("smart", smart.map { APIJSON.smartPlaylist($0, state: context.services.smartPlaylists?.states()[$0.id]) } ?? .null),
            ("songs", .array(songs.enumerated().map { i, song in
                APIJSON.song(song, track: tracks[song.uri], tempo: context.tempo, extra: [("position", .int(Int64(i)))])
            })),
        ]))
    }

    // MARK: Writes

    /// `POST /api/v1/playlists`: `{"name": "Run", "track_ids": [1, 2]}` (or `album_id`,
    /// `artist_id`, or no songs).
    func createPlaylist(_ request: HTTPRequest) throws -> HTTPResponse {
        var object = try Self.jsonObject(request.body, expected: #"{"name": "Run", "track_ids": [12, 13]}"#)
        let name = try Self.newPlaylistName(object.removeValue(forKey: "name"))
        let player = try playlistPlayer(request.query)
        if try context.store.smartPlaylist(named: name) != nil {
            throw APIError(kind: .conflict, code: "name_taken", message: "a smart playlist is named '\(name)'")
        }
        let uris = object.isEmpty ? [] : try playableURIs(object)
        guard try context.services.players.editPlaylist(player: player, name: name, .create(uris: uris)) else { throw Self.noPlayer(player) }
        return try playlist(name, request.query).with(status: 201)
    }

    func deletePlaylist(_ rawName: String, _ query: [String: String]) throws -> JSONValue {
        let name = try editableName(rawName)
        let player = try playlistPlayer(query)
        guard try context.services.players.editPlaylist(player: player, name: name, .delete) else { throw Self.noPlayer(player) }
        return .object([("deleted", .string(name))])
    }

    /// `POST /api/v1/playlists/{name}/{action}`: `songs` (add), `remove`, `move`, `rename`,
    /// `clear`, `play` (into the queue).
    func editPlaylist(_ rawName: String, action: String, _ request: HTTPRequest) throws -> HTTPResponse {
        let actions = ["songs", "remove", "move", "rename", "clear", "play"]
        guard actions.contains(action) else {
            throw APIError(kind: .notFound, code: "not_found", message: "no action \(action): \(actions.joined(separator: ", "))")
        }
        let name = rawName
        let player = try playlistPlayer(request.query)
        let body = request.body.allSatisfy { [0x20, 0x0a, 0x0d, 0x09].contains($0) } ? [:]
            : try Self.jsonObject(request.body, expected: #"{"track_ids": [12]}"#)
        func position(_ key: String) throws(APIError) -> Int {
            guard let n = HeartRateInput.number(body[key] as Any), n == n.rounded(), n >= 0, n < 1e6 else {
                throw APIError.badRequest("\(key): a position in the playlist, 0 first", code: "invalid_position")
            }
            return Int(n)
        }
        if action == "play" {
            let place = try Self.queuePlace(body["at"])
            guard try context.services.players.editQueue(player: player, .load(playlist: name, place)) else { throw Self.noPlayer(player) }
            return .json(try queueJSON(player))
        }
        _ = try editableName(rawName)
        let edit: StoredPlaylistEdit
        switch action {
        case "songs":
            var songs = body
            var at: Int?
            if songs.removeValue(forKey: "position") != nil { at = try position("position") }
            edit = .add(uris: try playableURIs(songs), at: at)
        case "remove": edit = .remove(position: try position("position"))
        case "move": edit = .move(from: try position("from"), to: try position("to"))
        case "rename":
            let to = try Self.newPlaylistName(body["to"])
            if try context.store.smartPlaylist(named: to) != nil {
                throw APIError(kind: .conflict, code: "name_taken", message: "a smart playlist is named '\(to)'")
            }
            edit = .rename(to: to)
        default: edit = .clear
        }
        guard try context.services.players.editPlaylist(player: player, name: name, edit) else { throw Self.noPlayer(player) }
        if case .rename(let to) = edit { return try playlist(to, request.query) }
        return try playlist(name, request.query)
    }

    /// A stored playlist's name from the path, refused when it is a smart playlist's.
    private func editableName(_ name: String) throws -> String {
        if let smart = try context.store.smartPlaylist(named: name) {
            throw APIError(kind: .conflict, code: "smart_playlist",
                           message: "'\(name)' is a smart playlist: its rules choose its songs (PUT /api/v1/smart-playlists/\(smart.id))")
        }
        return name
    }

    static func newPlaylistName(_ value: Any?) throws -> String {
        guard let text = value as? String else { throw APIError.badRequest("name: the playlist's name", code: "invalid_name") }
        do { return try Operations.playlistName(text) } catch let error as OperationError { throw APIError(error) }
    }
}

extension HTTPResponse {
    func with(status: Int) -> HTTPResponse {
        var copy = self
        copy.status = status
        return copy
    }
}

extension APIJSON {
    static func storedPlaylist(_ name: String, lastModified: Double?, smart: SmartPlaylist?, state: SmartPlaylistState?) -> JSONValue {
        .object([
            ("name", .string(name)),
            ("identifier", .string(PlaylistIdentifier.uuid(name))),
            ("last_modified", timestamp(lastModified.flatMap { $0 > 0 ? Date(timeIntervalSince1970: $0) : nil })),
            ("smart", smart.map { smartPlaylist($0, state: state) } ?? .null),
        ])
    }
}
