import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// The year in review (issue 22) over the API: `GET /api/v1/review?range=…` (or `from`/`to`)
/// — private like the stats —, and the published reviews (`/api/v1/review/shares`): listing
/// is private, publishing and withdrawing are writes.
extension API {
    /// The week's first day (ISO weekday: 1 Monday … 7 Sunday) for the review's weekdays and
    /// its calendar of songs: `[site] week_starts`.
    var weekStart: Int {
        switch localTime.weekStart {
        case .monday: 1
        case .saturday: 6
        case .sunday: 7
        }
    }

    /// The review period a request asks for: `range` (a year, a month, `year`, `month`, …)
    /// or `from`/`to`; nothing at all is this year so far.
    func reviewPeriod(_ query: [String: String], today: String? = nil) throws(APIError) -> ReviewPeriod {
        var query = query
        if query["range"] == nil && query["from"] == nil && query["to"] == nil { query["range"] = "year" }
        let range = try statsRange(query)
        return ReviewPeriod.of(range, today: today ?? localTime.day(of: context.clock.now()))
    }

    /// The report of a period, kept until the data changes (plays, pins, tempos) or 60 s pass.
    func reviewReport(_ period: ReviewPeriod, limit: Int = 10) throws -> ReviewReport {
        try reviews.kept("\(period.from)|\(period.to)|\(period.end)|\(limit)|\(weekStart)") {
            try context.store.review(period, limit: limit, weekStart: weekStart)
        }
    }

    /// `GET /api/v1/review`.
    func reviewJSON(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 10, in: 1...50)
        return APIJSON.review(try reviewReport(try reviewPeriod(query), limit: limit))
    }

    /// `GET /api/v1/review/shares`.
    func reviewShares(_ request: HTTPRequest) throws -> JSONValue {
        .object([("shares", .array(try context.store.reviewShares().map { reviewShareJSON($0, request) }))])
    }

    /// `POST /api/v1/review/shares`.
    func publishReview(_ request: HTTPRequest) throws -> HTTPResponse {
        let body = try Self.jsonObject(request)
        if let unknown = body.keys.first(where: { !["range", "from", "to", "sections"].contains($0) }) {
            throw APIError.badRequest("unknown field '\(unknown)'", code: "invalid_share")
        }
        var query: [String: String] = [:]
        for key in ["range", "from", "to"] {
            guard let value = body[key] else { continue }
            guard let text = value as? String else { throw APIError.badRequest("'\(key)' must be text", code: "invalid_share") }
            query[key] = text
        }
        let period = try reviewPeriod(query)
        var sections = ReviewSection.defaults
        if let given = body["sections"] {
            guard let names = given as? [Any], names.allSatisfy({ $0 is String }) else {
                throw APIError.badRequest("'sections' must be a list of names: \(ReviewSection.allCases.map(\.rawValue).joined(separator: ", "))",
                                          code: "invalid_sections")
            }
            switch ReviewSection.parse(names.compactMap { $0 as? String }) {
            case .success(let set): sections = set
            case .failure(let error):
                throw APIError.badRequest("'\(error.name)' is not one of \(ReviewSection.allCases.map(\.rawValue).joined(separator: ", "))",
                                          code: "invalid_sections")
            }
        }
        let snapshot = try reviewSnapshot(from: period.from, to: period.end, sections: sections)
        let share = try context.operations.publishReview(from: period.from, to: period.end, sections: sections, snapshot: snapshot)
        return .json(reviewShareJSON(share, request), status: 201)
    }

    /// `DELETE /api/v1/review/shares/{token}` withdraws a share.
    func withdrawReview(_ token: String, _ request: HTTPRequest) throws -> JSONValue {
        reviewShareJSON(try context.operations.withdrawReview(token: token), request)
    }

    /// Takes a new snapshot of a share: the owner's "publish again".
    func republish(_ token: String) throws -> ReviewShare {
        guard ReviewShare.isToken(token), var share = try context.store.reviewShare(token: token) else {
            throw APIError.notFound("no published review \(token)")
        }
        let snapshot = try reviewSnapshot(from: share.from, to: share.to, sections: share.sections)
        try context.operations.republishReview(token: token, snapshot: snapshot)
        share.snapshot = snapshot
        return share
    }

    func reviewSharePath(_ share: ReviewShare) -> String { "/review/shared/\(share.token)" }

    /// Publishes the review of `range` with the default sections, as `POST
    /// /api/v1/review/shares` does (the demo's own published review); returns its page's path.
    public func publishReview(range: String) throws -> String {
        let period = try reviewPeriod(["range": range])
        let snapshot = try reviewSnapshot(from: period.from, to: period.end, sections: ReviewSection.defaults)
        let share = try context.operations.publishReview(from: period.from, to: period.end, sections: ReviewSection.defaults,
                                                         snapshot: snapshot)
        return reviewSharePath(share)
    }

    func reviewShareJSON(_ share: ReviewShare, _ request: HTTPRequest) -> JSONValue {
        .object([
            ("token", .string(share.token)),
            ("from", .string(share.from)),
            ("to", .string(share.to)),
            ("sections", .array(ReviewSection.allCases.filter(share.sections.contains).map { .string($0.rawValue) })),
            ("url", .string(absoluteURL(reviewSharePath(share), request))),
            ("card_url", .string(absoluteURL(reviewSharePath(share) + "/card.png", request))),
            ("created_at", APIJSON.timestamp(share.createdAt)),
            ("snapshot_at", share.snapshot.map { APIJSON.timestamp($0.takenAt) } ?? .null),
        ])
    }
}

extension APIJSON {
    /// The review as documented in docs/API.md ("Year in review").
    static func review(_ r: ReviewReport) -> JSONValue {
        let p = r.period
        func totals(_ t: ReviewReport.Totals) -> JSONValue {
            .object([("plays", .int(Int64(t.plays))), ("skips", .int(Int64(t.skips))), ("listening_s", .double(t.seconds.rounded())),
                     ("days", .int(Int64(t.days))), ("tracks", .int(Int64(t.tracks))), ("artists", .int(Int64(t.artists))),
                     ("albums", .int(Int64(t.albums)))])
        }
        func change(_ now: ReviewReport.Totals, _ before: ReviewReport.Totals?) -> JSONValue {
            guard let before else { return .null }
            func c(_ a: Double, _ b: Double) -> JSONValue { ReviewReport.Totals.change(a, from: b).map { .double(($0 * 10_000).rounded() / 10_000) } ?? .null }
            return .object([("plays", c(Double(now.plays), Double(before.plays))), ("listening_s", c(now.seconds, before.seconds)),
                            ("days", c(Double(now.days), Double(before.days))), ("tracks", c(Double(now.tracks), Double(before.tracks))),
                            ("artists", c(Double(now.artists), Double(before.artists))), ("albums", c(Double(now.albums), Double(before.albums)))])
        }
        func figures(_ i: ReviewReport.Item) -> [(String, JSONValue)] {
            [("plays", .int(Int64(i.plays))), ("listening_s", .double(i.seconds.rounded()))]
        }
        func track(_ i: ReviewReport.Item) -> JSONValue { .object([("track", i.track.map(APIJSON.track) ?? .null)] + figures(i)) }
        func artist(_ i: ReviewReport.Item) -> JSONValue { .object([("id", .int(i.id)), ("artist", .string(i.name))] + figures(i)) }
        func genre(_ i: ReviewReport.Item) -> JSONValue { .object([("id", .int(i.id)), ("genre", .string(i.name))] + figures(i)) }
        func album(_ i: ReviewReport.Item) -> JSONValue {
            .object([("id", .int(i.id)), ("album", .string(i.name)), ("artist", .optional(i.artist))] + figures(i))
        }
        func ranked(_ items: [ReviewReport.Item], _ one: (ReviewReport.Item) -> JSONValue) -> JSONValue {
            .array(items.enumerated().map { n, item in
                guard case .object(let fields) = one(item) else { return .null }
                return .object([("rank", .int(Int64(n + 1)))] + fields)
            })
        }
        func chart(_ r: ReviewReport.Ranked, _ one: (ReviewReport.Item) -> JSONValue) -> JSONValue {
            .object([("by_plays", ranked(r.byPlays, one)), ("by_time", ranked(r.byTime, one))])
        }
        func comeback(_ c: ReviewReport.Comeback, _ one: (ReviewReport.Item) -> JSONValue) -> JSONValue {
            guard case .object(let fields) = one(c.item) else { return .null }
            return .object(fields + [("last_heard", .string(c.lastHeard)), ("plays_before", .int(Int64(c.playsBefore)))])
        }
        let d = r.discoveries
        let range: JSONValue = .object([
            ("name", .string(p.name)), ("kind", .string(p.kind.rawValue)), ("from", .string(p.from)), ("to", .string(p.to)),
            ("end", .string(p.end)), ("final", .bool(p.isFinal)),
            ("previous", p.previous.map { .object([("from", .string($0.from)), ("to", .string($0.to))]) } ?? .null),
        ])
        let comebacks: JSONValue = .object([("tracks", .array(d.comebackTracks.map { comeback($0, track) })),
                                            ("artists", .array(d.comebackArtists.map { comeback($0, artist) }))])
        let discoveries: JSONValue = .object([
            ("new_tracks", .int(Int64(d.newTracks))),
            ("new_track_plays", .int(Int64(d.newTrackPlays))),
            ("new_share", .double((d.newShare(of: r.totals.plays) * 10_000).rounded() / 10_000)),
            ("new_artists", .int(Int64(d.newArtists))),
            ("best_new_find", d.topNewTracks.first.map(track) ?? .null),
            ("top_new_tracks", ranked(d.topNewTracks, track)),
            ("top_new_artists", ranked(d.topNewArtists, artist)),
            ("comebacks", comebacks),
        ])
        let months: JSONValue = .array(r.months.map { m in
            .object([("month", .string(m.month)), ("plays", .int(Int64(m.plays))), ("number_one", m.top.map(track) ?? .null)])
        })
        var bestDay: JSONValue = .null
        if let b = r.bestDay, case .object(let fields) = track(b.item) { bestDay = .object([("day", .string(b.day))] + fields) }
        var streak: JSONValue = .null
        if let s = r.longestStreak { streak = .object([("from", .string(s.from)), ("to", .string(s.to)), ("days", .int(Int64(s.days)))]) }
        let clock: JSONValue = .array(r.clock.map { .object([("hour", .int(Int64($0.key))), ("plays", .int(Int64($0.plays))),
                                                             ("listening_s", .double($0.seconds.rounded()))]) })
        let weekdays: JSONValue = .array(r.weekdays.map { .object([("weekday", .int(Int64($0.key))), ("name", .string(Weekday.name($0.key))),
                                                                   ("plays", .int(Int64($0.plays))), ("listening_s", .double($0.seconds.rounded()))]) })
        let songs: JSONValue = .array(r.songsOfTheDay.map {
            .object([("day", .string($0.day)), ("track", APIJSON.track($0.track)), ("plays", .int(Int64($0.plays))), ("pinned", .bool($0.pinned))])
        })
        return .object([
            ("range", range),
            ("totals", totals(r.totals)),
            ("previous", r.previous.map(totals) ?? .null),
            ("change", change(r.totals, r.previous)),
            ("discoveries", discoveries),
            ("top_tracks", chart(r.topTracks, track)),
            ("top_artists", chart(r.topArtists, artist)),
            ("top_albums", chart(r.topAlbums, album)),
            ("top_genres", chart(r.topGenres, genre)),
            ("months", months),
            ("best_day", bestDay),
            ("longest_streak", streak),
            ("clock", clock),
            ("weekdays", weekdays),
            ("week_starts", .string(Weekday.name(r.weekStart).lowercased())),
            ("songs_of_the_day", songs),
            ("heart_rate", r.heartRate.map { heartRate($0, track) } ?? .null),
        ])
    }

    static func heartRate(_ hr: ReviewReport.HeartRate, _ track: (ReviewReport.Item) -> JSONValue) -> JSONValue {
        var hardest: JSONValue = .null
        if let w = hr.hardest {
            hardest = .object([("id", .int(w.id)), ("day", .string(w.day)), ("name", .optional(w.name)), ("sport", .optional(w.sport)),
                               ("duration_s", .double(w.seconds.rounded())), ("hr_avg", .optional(w.heartRateAverage)),
                               ("hr_max", .optional(w.heartRateMax)), ("load", .double((w.load * 10).rounded() / 10))])
        }
        let power: [JSONValue] = hr.powerSongs.map { s in
            .object([("track", s.item.track.map(APIJSON.track) ?? .null), ("lift_bpm", .double((s.lift * 10).rounded() / 10)),
                     ("plays", .int(Int64(s.item.plays)))])
        }
        let faster: [JSONValue] = hr.fasterSongs.map { s in
            .object([("track", s.item.track.map(APIJSON.track) ?? .null)] + APIJSON.paceEffectFields(s.effect))
        }
        let zones: [JSONValue] = hr.zones.map { z in
            let bpm: JSONValue = z.bpm.map { .double(($0 * 10).rounded() / 10) } ?? .null
            let tracks: [JSONValue] = z.tracks.enumerated().map { n, item in
                guard case .object(let fields) = track(item) else { return .null }
                return .object([("rank", .int(Int64(n + 1)))] + fields)
            }
            return .object([("zone", .int(Int64(z.zone))), ("plays", .int(Int64(z.plays))), ("listening_s", .double(z.seconds.rounded())),
                            ("bpm", bpm), ("bpm_plays", .int(Int64(z.bpmPlays))), ("tracks", .array(tracks))])
        }
        return .object([
            ("workouts", .int(Int64(hr.workouts))),
            ("training_s", .double(hr.trainingSeconds.rounded())),
            ("zone_s", .array(hr.zoneSeconds.map { .double($0.rounded()) })),
            ("hardest_workout", hardest),
            ("power_songs", .array(power)),
            ("faster_songs", .array(faster)),
            ("zones", .array(zones)),
        ])
    }
}
