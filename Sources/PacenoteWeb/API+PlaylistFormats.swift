import Foundation
import PacenoteCore
import PacenoteStore

/// Playlists for other tools (issue 57): JSPF (`GET /api/v1/playlists/{name}.jspf`) and
/// ListenBrainz's playlist reads (`GET /1/user/{name}/playlists`, `GET /1/playlist/{id}`),
/// private like the history. A playlist's id is `PlaylistIdentifier.uuid` of its name.
extension API {
    func listenBrainzPlaylists(user: String, _ query: [String: String]) throws -> JSONValue {
        let count = try Self.boundedInt(query["count"], name: "count", default: 25, range: 0...100)
        let offset = try Self.boundedInt(query["offset"], name: "offset", default: 0, range: 0...1_000_000)
        let player = try playlistPlayer([:])
        guard let stored = try context.services.players.playlists(player: player) else { throw Self.noPlayer(player) }
        let sorted = stored.sorted { $0.name.localizedCaseInsensitiveCompare($1.name) == .orderedAscending }
        let page = sorted.dropFirst(offset).prefix(count)
        let smart = try context.store.smartPlaylists()
        return .object([
            ("count", .int(Int64(page.count))),
            ("offset", .int(Int64(offset))),
            ("playlist_count", .int(Int64(sorted.count))),
            ("playlists", .array(page.map { p in
                APIJSON.jspf(p.name, [], tracks: [:], modified: p.lastModified, smart: smart.first { $0.name == p.name },
                             base: context.publicURL, creator: user)
            })),
        ])
    }

    func listenBrainzPlaylist(_ id: String) throws -> JSONValue {
        let player = try playlistPlayer([:])
        guard let stored = try context.services.players.playlists(player: player) else { throw Self.noPlayer(player) }
        guard let found = stored.first(where: { PlaylistIdentifier.uuid($0.name) == id.lowercased() }) else {
            throw APIError.notFound("no playlist \(id)")
        }
        guard let songs = try context.services.players.playlistSongs(player: player, name: found.name) else { throw Self.noPlayer(player) }
        return APIJSON.jspf(found.name, songs, tracks: try context.store.tracks(uris: songs.map(\.uri)), modified: found.lastModified,
                            smart: try context.store.smartPlaylist(named: found.name), base: context.publicURL)
    }

    static func boundedInt(_ text: String?, name: String, default value: Int, range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let text else { return value }
        guard let n = Int(text), range.contains(n) else {
            throw APIError.badRequest("\(name): \(range.lowerBound) to \(range.upperBound)", code: "invalid_\(name)")
        }
        return n
    }
}

extension APIJSON {
    /// A playlist as JSPF (XSPF in JSON, https://xspf.org/jspf), with ListenBrainz's
    /// extensions where its clients look for them.
    static func jspf(_ name: String, _ songs: [SongInfo], tracks: [String: Track], modified: Double?, smart: SmartPlaylist?,
                     base: String?, creator: String = "pacenote") -> JSONValue {
        let id = PlaylistIdentifier.uuid(name)
        let root = (base ?? "").hasSuffix("/") ? String((base ?? "").dropLast()) : (base ?? "")
        let date = modified.flatMap { $0 > 0 ? Date(timeIntervalSince1970: $0) : nil }
        var playlist: [(String, JSONValue)] = [
            ("title", .string(name)),
            ("creator", .string(creator)),
            ("identifier", .string("\(root)/1/playlist/\(id)")),
        ]
        if let date { playlist.append(("date", timestamp(date))) }
        if let smart { playlist.append(("annotation", .string(smart.rules.summary))) }
        playlist.append(("extension", .object([("https://musicbrainz.org/doc/jspf#playlist", .object([
            ("creator", .string(creator)),
            ("public", .bool(false)),
            ("last_modified_at", timestamp(date)),
            ("additional_metadata", .object([("pacenote", .object([("smart", .bool(smart != nil)), ("mpd_name", .string(name))]))])),
        ]))])))
        playlist.append(("track", .array(songs.map { song in
            let track = tracks[song.uri]
            var fields: [(String, JSONValue)] = [("title", .string(track?.title ?? song.track.title))]
            if let artist = track?.artist ?? song.track.artist { fields.append(("creator", .string(artist))) }
            if let album = track?.album ?? song.track.album { fields.append(("album", .string(album))) }
            if let seconds = song.durationSeconds ?? track?.durationSeconds { fields.append(("duration", .int(Int64((seconds * 1000).rounded())))) }
            fields.append(("location", .array([.string(song.uri)])))
            if let mbid = track?.musicBrainz.recording {
                fields.append(("identifier", .array([.string("https://musicbrainz.org/recording/\(mbid)")])))
            }
            return .object(fields)
        })))
        return .object([("playlist", .object(playlist))])
    }
}
