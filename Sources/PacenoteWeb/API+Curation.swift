import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Corrections to the history over the API: plays deleted, edited and added, merges, the
/// curation log and its undo. Each handler turns its body into one operation's call.
extension API {
    // MARK: /api/v1/listens/{id}

    func play(_ id: Int64) throws -> JSONValue {
        guard let play = try context.store.play(id: id) else { throw APIError.notFound("no play \(id)") }
        return APIJSON.listen(play)
    }

    func deletePlay(_ id: Int64, source: String) throws -> JSONValue {
        let (entry, deleted) = try context.operations.deletePlays(ids: [id], source: source)
        return .object([("listen", APIJSON.listen(deleted[0])), ("curation", APIJSON.curation(entry, localTime))])
    }

    func editPlay(_ id: Int64, _ request: HTTPRequest, source: String) throws -> JSONValue {
            let body = try Self.jsonObject(request)
            var edit = Store.PlayEdit()
            if let value = body["track_id"] {
                guard let id = Self.positiveInt(value) else { throw APIError.badRequest("'track_id' must be a track's id", code: "invalid_track_id") }
                edit.trackID = id
            }
            if let value = body["track"] { edit.track = try Self.track(value) }
            if let value = body["counted"] {
                guard isJSONBool(value), let number = value as? NSNumber else {
                    throw APIError.badRequest("'counted' must be true or false", code: "invalid_counted")
                }
                edit.counted = number.boolValue
            }
            if edit.trackID != nil && edit.track != nil {
                throw APIError.badRequest("give 'track_id' or 'track', not both", code: "invalid_edit")
            }
            let (entry, play) = try context.operations.editPlay(id: id, edit, request: Self.requestText(["edit": ["listen": id, "with": body]]),
                                                                source: source)
            return .object([("listen", APIJSON.listen(play)), ("curation", APIJSON.curation(entry, localTime))])
    }

    // MARK: POST /api/v1/listens

    func addListens(_ request: HTTPRequest, source: String) throws -> HTTPResponse {
        let body = try Self.jsonObject(request)
        guard let startText = body["started_at"].map({ "\($0)" }), let startedAt = Instant.parse(startText, in: localTime) else {
            throw APIError.badRequest("'started_at' must be an ISO 8601 time with offset, or Unix seconds", code: "invalid_started_at")
        }
        let given = ["track_id", "uri", "track", "album_id"].filter { body[$0] != nil }
        guard given.count == 1 else {
            throw APIError.badRequest("give one of 'track_id', 'uri', 'track' or 'album_id'", code: "invalid_listen")
        }
        let addition: Store.PlayAddition
        switch given[0] {
        case "track_id":
            guard let id = Self.positiveInt(body["track_id"]!) else { throw APIError.badRequest("'track_id' must be a track's id", code: "invalid_track_id") }
            addition = .track(id: id)
        case "album_id":
            guard let id = Self.positiveInt(body["album_id"]!) else { throw APIError.badRequest("'album_id' must be an album's id", code: "invalid_album_id") }
            addition = .album(id: id)
        case "uri":
            guard let uri = body["uri"] as? String, !uri.isEmpty, uri.utf8.count <= 4096 else {
                throw APIError.badRequest("'uri' must be a file of MPD's library", code: "invalid_uri")
            }
            addition = .file(uri: uri)
        default:
            addition = .text(try Self.track(body["track"]!))
        }
        let (entry, added) = try context.operations.addPlays(addition, startedAt: startedAt,
                                                             request: Self.requestText(["add": body]), source: source)
        return .json(.object([("listens", .array(added.map(APIJSON.listen))), ("curation", APIJSON.curation(entry, localTime))]), status: 201)
    }

    // MARK: POST /api/v1/merges

    func merge(_ request: HTTPRequest, source: String) throws -> HTTPResponse {
        let body = try Self.jsonObject(request)
        guard let kindText = body["kind"] as? String, let kind = MergeKind(rawValue: kindText) else {
            throw APIError.badRequest("'kind' must be \"track\", \"artist\", \"album\" or \"genre\"", code: "invalid_kind")
        }
        guard let fromValues = body["from"] as? [Any], !fromValues.isEmpty else {
            throw APIError.badRequest("'from' must be a non-empty array of ids", code: "invalid_from")
        }
        let from = try fromValues.map { value throws(APIError) in try entityID(kind, value, field: "from") }
        guard let intoValue = body["into"] else { throw APIError.badRequest("'into' must be an id", code: "invalid_into") }
        let into = try entityID(kind, intoValue, field: "into")
        let entry = try context.operations.merge(kind, from: from, into: into,
                                                 request: Self.requestText(["merge": ["kind": kind.rawValue, "from": from, "into": into]]),
                                                 source: source)
        retakeReviewSnapshots(after: entry)
        return .json(APIJSON.curation(entry, localTime), status: 201)
    }

    /// An id, or a name: an artist's (as credited), an album's or a track's title. A title
    /// that several albums or tracks have is refused with their ids, to choose from.
    private func entityID(_ kind: MergeKind, _ value: Any, field: String) throws(APIError) -> Int64 {
        if let id = Self.positiveInt(value) { return id }
        guard let name = value as? String, !name.trimmingCharacters(in: .whitespaces).isEmpty, name.utf8.count <= 1000 else {
            throw APIError.badRequest("'\(field)' must hold \(kind.rawValue) ids or names", code: "invalid_\(field)")
        }
        return try mergeEntity(kind, named: name)
    }

    /// The one entity of `kind` a name gives (`Store.mergeCandidates`).
    func mergeEntity(_ kind: MergeKind, named name: String) throws(APIError) -> Int64 {
        let found: [MergeSuggestion.Name]
        do { found = try context.store.mergeCandidates(kind, named: name) } catch { throw APIError(error) }
        let what = kind == .artist || kind == .genre ? "\(kind.rawValue) named" : "\(kind.rawValue) titled"
        guard let first = found.first else { throw APIError.notFound("no \(what) “\(name)”") }
        guard found.count == 1 else {
            throw APIError(kind: .conflict, code: "ambiguous_name",
                           message: "\(found.count) \(kind.rawValue)s are titled “\(name)”: "
                               + found.map { "\($0.name) (id \($0.id))" }.joined(separator: ", ") + "; give the id")
        }
        return first.id
    }

    // MARK: GET /api/v1/merges/suggestions

    func mergeSuggestions(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 50, in: 1...500)
        let suggestions = try context.store.mergeSuggestions(limit: limit)
        return .object([("suggestions", .array(suggestions.map(APIJSON.suggestion)))])
    }

    // MARK: /api/v1/curation

    func curationLog(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 50, in: 1...500)
        let before = try query["before"].map { text throws(APIError) in
            guard let id = Int64(text), id > 0 else { throw APIError.badRequest("'before' must be an entry's id", code: "invalid_before") }
            return id
        }
        let entries = try context.store.curationLog(limit: limit, before: before)
        return .object([("entries", .array(entries.map { APIJSON.curation($0, localTime) }))])
    }

    func undoCuration(_ id: Int64) throws -> JSONValue {
        let entry = try context.operations.undoCuration(id: id)
        retakeReviewSnapshots(after: entry)
        return APIJSON.curation(entry, localTime)
    }

    // MARK: Reading bodies

    static func jsonObject(_ request: HTTPRequest) throws(APIError) -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            throw APIError.badRequest("the body must be a JSON object", code: "invalid_json")
        }
        return object
    }

    static func positiveInt(_ value: Any) -> Int64? {
        guard let number = value as? NSNumber, !isJSONBool(number),
              let id = Int64(exactly: number.doubleValue), id > 0 else { return nil }
        return id
    }

    /// A track given as text: `{"title", "artist"?, "album"?}`.
    static func track(_ value: Any) throws(APIError) -> Track {
        guard let object = value as? [String: Any], let title = object["title"] as? String,
              !title.trimmingCharacters(in: .whitespaces).isEmpty, title.utf8.count <= 1000 else {
            throw APIError.badRequest("'track' must be {\"title\": …, \"artist\": …, \"album\": …} with a title", code: "invalid_track")
        }
        func text(_ key: String) throws(APIError) -> String? {
            guard let value = object[key], !(value is NSNull) else { return nil }
            guard let text = value as? String, text.utf8.count <= 1000 else {
                throw APIError.badRequest("'track.\(key)' must be text", code: "invalid_track")
            }
            return text.isEmpty ? nil : text
        }
        return Track(title: title, artist: try text("artist"), album: try text("album"))
    }

    /// What was asked, for the log: compact JSON with sorted keys.
    static func requestText(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Whether a value from JSONSerialization is a JSON boolean (its `NSNumber` holds a char).
func isJSONBool(_ value: Any) -> Bool {
    guard let number = value as? NSNumber else { return false }
    return String(cString: number.objCType) == "c"
}

extension APIJSON {
    static func curation(_ e: CurationEntry, _ local: LocalTime) -> JSONValue {
        .object([
            ("id", .int(e.id)),
            ("at", timestamp(e.at)),
            ("kind", .string(e.kind.rawValue)),
            ("summary", .string(e.summary(in: local))),
            ("source", .string(e.source)),
            ("request", .string(e.request)),
            ("undone_at", timestamp(e.undoneAt)),
            ("undo", .string("/api/v1/curation/\(e.id)/undo")),
        ])
    }

    static func suggestion(_ s: MergeSuggestion) -> JSONValue {
        .object([
            ("kind", .string(s.kind.rawValue)),
            ("reason", .string(s.reason)),
            ("into", .int(s.into)),
            ("from", .array(s.from.map { .int($0) })),
            ("names", .array(s.names.map { .object([("id", .int($0.id)), ("name", .string($0.name)), ("plays", .int($0.plays))]) })),
        ])
    }
}
