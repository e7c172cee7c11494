import Foundation
import PacenoteCore
import PacenoteStore
import Synchronization

extension API {
    /// The range of days a stats request asks for (`range`, or `from`/`to`).
    func statsRange(_ query: [String: String]) throws(APIError) -> StatsRange {
        do {
            return try StatsRange.resolve(range: query["range"], from: query["from"], to: query["to"], today: context.clock.now(), in: localTime)
        } catch .unknownRange(let text) {
            throw APIError.badRequest(
                "range: '\(text)' is not one of \(StatsRange.names.joined(separator: ", ")), a year (2026), a month (2026-11) or a day",
                code: "invalid_range")
        } catch .invalidDay(let day) {
            throw APIError.badRequest("'\(day)' is not a day (YYYY-MM-DD)", code: "invalid_day")
        } catch {
            throw APIError.badRequest("'from' must not be after 'to'", code: "invalid_range")
        }
    }

    /// `order`: `plays` (the default) or `time` (listening time).
    func chartOrder(_ query: [String: String]) throws(APIError) -> ChartOrder {
        guard let text = query["order"] else { return .plays }
        guard let order = ChartOrder(rawValue: text) else {
            throw APIError.badRequest("order: 'plays' or 'time'", code: "invalid_order")
        }
        return order
    }

    /// `GET /api/v1/stats`: totals and the top tracks, artists and albums of a range of
    /// local days, from the rollups, ranked by `order` (plays or time).
    /// `by=genre`: the totals and the top genres only (a play counts for each genre of its
    /// track: MPD's several `Genre` values, a text split by `GenreTags`).
    func stats(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 10, in: 1...100)
        let range = try statsRange(query)
        let order = try chartOrder(query)
        let byGenre: Bool
        switch query["by"] {
        case nil: byGenre = false
        case "genre"?: byGenre = true
        case let other?: throw APIError.badRequest("by: '\(other)' is not 'genre' (leave it out for tracks, artists and albums)", code: "invalid_by")
        }
        let key = "\(range.from)|\(range.to)|\(limit)|\(order.rawValue)\(byGenre ? "|genre" : "")"
        let body = try charts.kept(key) { () throws -> [(String, JSONValue)] in
            let store = context.store
            func ranked(_ entries: [ChartEntry], _ item: (ChartEntry) -> [(String, JSONValue)]) -> JSONValue {
                .array(entries.enumerated().map { i, e in
                    .object([("rank", .int(Int64(i + 1)))] + item(e) + [("plays", .int(Int64(e.plays))), ("listening_s", .double(e.seconds.rounded()))])
                })
            }
            if byGenre {
                let (totals, genres) = try store.rangeGenres(fromDay: range.from, toDay: range.to, limit: limit, by: order)
                return [
                    ("totals", .object([("plays", .int(Int64(totals.plays))), ("skips", .int(Int64(totals.skips))),
                                        ("listening_s", .double(totals.seconds.rounded()))])),
                    ("top_genres", ranked(genres) { [("id", .optional($0.genreID)), ("genre", .optional($0.genre))] }),
                ]
            }
            let stats = try store.rangeStats(fromDay: range.from, toDay: range.to, limit: limit, by: order)
            let totals = stats.totals
            return [
                ("totals", .object([("plays", .int(Int64(totals.plays))), ("skips", .int(Int64(totals.skips))),
                                    ("listening_s", .double(totals.seconds.rounded()))])),
                ("top_tracks", ranked(stats.tracks) { [("track", APIJSON.track($0.track!))] }),
                ("top_artists", ranked(stats.artists) {
                    [("id", .optional($0.artistID)), ("artist", .optional($0.artist))]
                }),
                ("top_albums", ranked(stats.albums) {
                    [("id", .optional($0.albumID)), ("album", .optional($0.album)), ("artist", .optional($0.artist))]
                }),
            ]
        }
        return Self.rangeHeader(range, body)
    }

    /// `GET /api/v1/stats/zones?by=genre`: each heart-rate zone's counted plays in a range
    /// and its top genres with their share of the zone's plays ("Z4 is 60 % drum and bass").
    /// `by` is `genre` (the default, and for now the only one).
    func zoneStats(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 5, in: 1...100)
        let range = try statsRange(query)
        if let by = query["by"], by != "genre" {
            throw APIError.badRequest("by: '\(by)' is not 'genre'", code: "invalid_by")
        }
        let key = "zones|\(range.from)|\(range.to)|\(limit)"
        let body = try charts.kept(key) { () throws -> [(String, JSONValue)] in
            let zones = try context.store.genresByZone(fromDay: range.from, toDay: range.to, limit: limit)
            return [("zones", .array(zones.map { z in
                .object([
                    ("zone", .int(Int64(z.zone))), ("plays", .int(Int64(z.plays))),
                    ("genres", .array(z.genres.map { g in
                        .object([("id", .optional(g.genreID)), ("genre", .optional(g.genre)), ("plays", .int(Int64(g.plays))),
                                 ("share", .double((z.share(g) * 1000).rounded() / 1000)), ("listening_s", .double(g.seconds.rounded()))])
                    })),
                ])
            }))]
        }
        return Self.rangeHeader(range, body)
    }

    static func rangeHeader(_ range: StatsRange, _ body: [(String, JSONValue)]) -> JSONValue {
        .object([("range", .object([("name", .string(range.name)), ("from", .string(range.from)), ("to", .string(range.to))]))] + body)
    }
}

/// The API's charts, kept by `CacheSignal`'s rule (following the changes to plays).
typealias ChartCache = CommitCache<[(String, JSONValue)]>
