import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

extension API {
    /// `GET /api/v1/sotd/YYYY-MM-DD`. A stranger's GET gets what the share page shows
    /// (`publicSOTD`), nothing more.
    func songOfTheDay(_ day: String, mayReadPrivate: Bool) throws -> HTTPResponse {
        try checkDay(day)
        guard let body = try mayReadPrivate ? sotd(day) : publicSOTD(day) else {
            throw APIError.notFound("no song of the day for \(day): nothing was played")
        }
        return .json(body)
    }

    /// `PUT /api/v1/sotd/YYYY-MM-DD` (`{"track_id": 12, "note": "…"}`): pins the day's song.
    func pinSong(_ day: String, _ request: HTTPRequest, mayReadPrivate: Bool) throws -> HTTPResponse {
        try checkDay(day)
        guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
            throw APIError.badRequest("body: expected {\"track_id\": 12, \"note\": \"…\"}", code: "invalid_body")
        }
        guard let id = HeartRateInput.number(object["track_id"]), id == id.rounded(), id > 0, id < 9e18 else {
            throw APIError.badRequest("track_id: a track's id", code: "invalid_track_id")
        }
        var note: String?
        if let raw = object["note"], !(raw is NSNull) {
            guard let text = raw as? String else { throw APIError.badRequest("note: a text", code: "invalid_note") }
            note = text
        }
        try context.operations.pin(day: day, trackID: Int64(id), note: note)
        return try songOfTheDay(day, mayReadPrivate: mayReadPrivate)
    }

    /// `DELETE /api/v1/sotd/YYYY-MM-DD`: unpins the day's song.
    func unpinSong(_ day: String, mayReadPrivate: Bool) throws -> HTTPResponse {
        try checkDay(day)
        guard try context.operations.unpin(day: day) else { throw APIError.notFound("\(day) has no pinned song") }
        return try songOfTheDay(day, mayReadPrivate: mayReadPrivate)
    }

    private func checkDay(_ day: String) throws(APIError) {
        guard localTime.startOfDay(day) != nil, day.count == 10 else {
            throw APIError.badRequest("'\(day)' is not a day (YYYY-MM-DD)", code: "invalid_day")
        }
    }

    /// What the share page `/sotd/DAY` shows a stranger: the day, the song's title, artist
    /// and album, how often it played that day (null until the day is over), the note and
    /// the cover's address. No file path, track id, tempo or listening time.
    func publicSOTD(_ day: String) throws -> JSONValue? {
        guard let sotd = try songOfDay(day) else { return nil }
        return .object([
            ("day", .string(day)),
            ("note", .optional(sotd.note)),
            ("plays", isOver(day) ? .int(Int64(sotd.plays)) : .null),
            ("track", .object([
                ("title", .string(sotd.track.title)),
                ("artist", .optional(sotd.track.artist)),
                ("album", .optional(sotd.track.album)),
            ])),
            ("cover", .string(url("/sotd/\(day)/cover"))),
            ("share_url", .string(url("/sotd/\(day)"))),
        ])
    }

    /// The song of one day, or nil when nothing was played and nothing pinned.
    func sotd(_ day: String) throws -> JSONValue? {
        guard let sotd = try songOfDay(day) else { return nil }
        return .object([
            ("day", .string(day)),
            ("pinned", .bool(sotd.pinned)),
            ("note", .optional(sotd.note)),
            ("plays", .int(Int64(sotd.plays))),
            ("listening_s", .double(sotd.seconds.rounded())),
            ("track", APIJSON.track(sotd.track)),
        ])
    }

    /// `GET /api/v1/sotd?month=YYYY-MM` (private): every day of the month that has one.
    func songsOfTheMonth(_ query: [String: String]) throws -> JSONValue {
        let month = query["month"] ?? String(localTime.day(of: context.clock.now()).prefix(7))
        guard month.count == 7, let first = localTime.startOfDay(month + "-01") else {
            throw APIError.badRequest("month: YYYY-MM", code: "invalid_month")
        }
        var days: [JSONValue] = []
        var date = first
        while localTime.day(of: date).hasPrefix(month) {
            if let entry = try sotd(localTime.day(of: date)) { days.append(entry) }
            guard let next = localTime.startOfDay(after: date) else { break }
            date = next
        }
        return .object([("month", .string(month)), ("days", .array(days))])
    }

    /// Whether a local day has ended here. Until then its count of plays is not public: it
    /// would move as the owner plays the song again (issue 51, point 3).
    func isOver(_ day: String) -> Bool { day < localTime.day(of: context.clock.now()) }
}
