import Foundation
import PacenoteCore
import PacenoteStore
import PacenoteOperations

/// Smart playlists and moods (issue 57): `GET/POST /api/v1/smart-playlists`, `GET/PUT/DELETE
/// /api/v1/smart-playlists/{id}`. The body names the playlist, its kind (`smart` or `mood`)
/// and its rules (`SmartPlaylist.Rules`, snake_case); the answer has the songs the rules
/// choose now. `SmartPlaylistSync` puts them in MPD.
extension API {
    func smartPlaylistsJSON() throws -> JSONValue {
        let states = context.services.smartPlaylists?.states() ?? [:]
        let last = context.services.smartPlaylists?.lastRefresh()
        return .object([
            ("smart_playlists", .array(try context.store.smartPlaylists().map { APIJSON.smartPlaylist($0, state: states[$0.id]) })),
            ("refreshed_at", APIJSON.timestamp(last?.at)),
            ("refresh_ms", .optional(last.map { ($0.seconds * 10_000).rounded() / 10 })),
        ])
    }

    func smartPlaylistJSON(_ id: Int64) throws -> JSONValue {
        guard let playlist = try context.store.smartPlaylist(id: id) else { throw APIError.notFound("no smart playlist \(id)") }
        let songs = try context.store.smartPlaylistSongs(playlist.rules, tempo: context.tempo, now: context.clock.now())
        let tracks = try context.store.tracks(ids: songs.map(\.trackID))
        var object = APIJSON.smartPlaylist(playlist, state: context.services.smartPlaylists?.states()[id])
        if case .object(var fields) = object {
            fields.append(("songs", .array(songs.compactMap { tracks[$0.trackID].map(APIJSON.track) })))
            fields.append(("seconds", .double(songs.reduce(0) { $0 + ($1.durationS ?? 0) })))
            object = .object(fields)
        }
        return object
    }

    func createSmartPlaylist(_ request: HTTPRequest) throws -> HTTPResponse {
        let (name, kind, rules) = try Self.smartPlaylistBody(request.body, partial: false)
        let saved = try defineSmartPlaylist(name: name ?? "", kind: kind ?? .smart, rules: rules ?? .init())
        return .json(try smartPlaylistJSON(saved.id), status: 201)
    }

    /// A new definition, from the API or the site: refused when MPD holds a playlist of that
    /// name (the sync would overwrite it) or cannot say whether it does.
    func defineSmartPlaylist(name raw: String, kind: SmartPlaylist.Kind, rules: SmartPlaylist.Rules) throws -> SmartPlaylist {
        let name = try Operations.playlistName(raw)
        try refuseMPDPlaylist(name)
        return try context.operations.createSmartPlaylist(name: name, kind: kind, rules: rules, now: context.clock.now())
    }

    func updateSmartPlaylist(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        let (raw, _, rules) = try Self.smartPlaylistBody(request.body, partial: true)
        let name = try raw.map(Operations.playlistName)
        if let name, let old = try context.store.smartPlaylist(id: id), old.name != name { try refuseMPDPlaylist(name) }
        _ = try context.operations.updateSmartPlaylist(id: id, name: name, rules: rules, now: context.clock.now())
        return try smartPlaylistJSON(id)
    }

    /// 409 when the first MPD has a stored playlist named `name` that is no smart playlist's;
    /// 503 when it cannot be asked.
    func refuseMPDPlaylist(_ name: String) throws {
        guard let player = context.players().first?.name else { return }
        let stored = try context.services.players.playlists(player: player) ?? []
        if stored.contains(where: { $0.name == name }), try context.store.smartPlaylist(named: name) == nil {
            throw APIError(kind: .conflict, code: "name_taken", message: "MPD has a playlist named '\(name)' already: a smart playlist would overwrite it")
        }
    }

    func deleteSmartPlaylist(_ id: Int64) throws -> JSONValue {
        try context.operations.deleteSmartPlaylist(id: id)
        return .object([("deleted", .int(id))])
    }

    /// `{"name": "Tempo run", "kind": "smart", "rules": {"liked": true, "bpm_min": 120}}`;
    /// `partial` (PUT): any of name and rules.
    static func smartPlaylistBody(_ body: [UInt8], partial: Bool) throws -> (String?, SmartPlaylist.Kind?, SmartPlaylist.Rules?) {
        let object = try jsonObject(body, expected: #"{"name": "Tempo run", "rules": {"liked": true, "bpm_min": 120, "bpm_max": 130}}"#)
        if let unknown = object.keys.sorted().first(where: { !["name", "kind", "rules"].contains($0) }) {
            throw APIError.badRequest("unknown field \(unknown): name, kind, rules", code: "invalid_body")
        }
        var name: String?
        if let raw = object["name"] {
            guard let text = raw as? String else { throw APIError.badRequest("name: text", code: "invalid_name") }
            name = text
        } else if !partial {
            throw APIError.badRequest("name: the playlist's name", code: "invalid_name")
        }
        var kind: SmartPlaylist.Kind?
        if let raw = object["kind"] {
            guard !partial, let text = raw as? String, let parsed = SmartPlaylist.Kind(rawValue: text) else {
                throw APIError.badRequest(partial ? "kind cannot change" : "kind: smart or mood", code: "invalid_kind")
            }
            kind = parsed
        }
        var rules: SmartPlaylist.Rules?
        if let raw = object["rules"] {
            rules = try Self.rules(raw)
        } else if !partial {
            throw APIError.badRequest("rules: an object of rules (\(SmartPlaylist.Rules.names.joined(separator: ", ")))", code: "invalid_rules")
        }
        return (name, kind, rules)
    }

    /// The rules object, each value checked for its type (booleans as JSON booleans).
    static func rules(_ raw: Any) throws(APIError) -> SmartPlaylist.Rules {
        guard let object = raw as? [String: Any] else { throw APIError.badRequest("rules: an object", code: "invalid_rules") }
        if let unknown = object.keys.sorted().first(where: { !SmartPlaylist.Rules.names.contains($0) }) {
            throw APIError.badRequest("unknown rule \(unknown): \(SmartPlaylist.Rules.names.joined(separator: ", "))", code: "invalid_rules")
        }
        for (key, value) in object where value is NSNull { _ = key; throw APIError.badRequest("\(key): leave it out rather than null", code: "invalid_rules") }
        for key in ["liked", "faster"] where object[key] != nil && !isJSONBool(object[key]!) {
            throw APIError.badRequest("\(key): true or false", code: "invalid_rules")
        }
        for (key, value) in object where !["liked", "faster"].contains(key) && isJSONBool(value) {
            throw APIError.badRequest("\(key): not a true/false rule", code: "invalid_rules")
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object),
              let rules = try? JSONDecoder().decode(SmartPlaylist.Rules.self, from: data) else {
            throw APIError.badRequest("rules: numbers for bpm, zones, months, loudness, top, limit and length_s; "
                                      + "dates as YYYY-MM-DD; genres and moods as lists of names; "
                                      + "combine: union or intersection; order: plays, oldest, bpm or random", code: "invalid_rules")
        }
        return rules
    }
}

extension APIJSON {
    static func smartPlaylist(_ p: SmartPlaylist, state: SmartPlaylistState?) -> JSONValue {
        return .object([
            ("id", .int(p.id)),
            ("name", .string(p.name)),
            ("kind", .string(p.kind.rawValue)),
            ("rules", rules(p.rules)),
            ("summary", .string(p.rules.summary)),
            ("updated_at", timestamp(p.updatedAt)),
            ("in_mpd", .object([
                ("songs", .optional(state?.songs)),
                ("seconds", .optional(state.map { $0.seconds.rounded() })),
                ("written_at", timestamp(state?.writtenAt)),
                ("error", .optional(state?.error)),
            ])),
        ])
    }

    /// The rules given, in a fixed order (those not given left out).
    static func rules(_ r: SmartPlaylist.Rules) -> JSONValue {
        var out: [(String, JSONValue)] = []
        func add(_ key: String, _ value: JSONValue?) { if let value { out.append((key, value)) } }
        add("bpm_min", r.bpmMin.map(JSONValue.double))
        add("bpm_max", r.bpmMax.map(JSONValue.double))
        add("zone", r.zone.map { .int(Int64($0)) })
        add("liked", r.liked.map(JSONValue.bool))
        add("genres", r.genres.map { .array($0.map(JSONValue.string)) })
        add("played_from", r.playedFrom.map(JSONValue.string))
        add("played_to", r.playedTo.map(JSONValue.string))
        add("top", r.top.map { .int(Int64($0)) })
        add("not_played_months", r.notPlayedMonths.map { .int(Int64($0)) })
        add("comeback_months", r.comebackMonths.map { .int(Int64($0)) })
        add("power_zone", r.powerZone.map { .int(Int64($0)) })
        add("faster", r.faster.map(JSONValue.bool))
        add("loudness_min", r.loudnessMin.map(JSONValue.double))
        add("loudness_max", r.loudnessMax.map(JSONValue.double))
        add("range_min", r.rangeMin.map(JSONValue.double))
        add("range_max", r.rangeMax.map(JSONValue.double))
        add("moods", r.moods.map { .array($0.map(JSONValue.string)) })
        add("combine", r.combine.map { .string($0.rawValue) })
        add("order", r.order.map { .string($0.rawValue) })
        add("limit", r.limit.map { .int(Int64($0)) })
        add("length_s", r.lengthS.map { .int(Int64($0)) })
        return .object(out)
    }
}
