import Foundation
import PacenoteCore
import PacenoteStore

extension API {
    /// `GET /api/v1/stats`: totals and the top tracks, artists and albums of a range of
    /// local days, from the rollups.
    func stats(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 10, in: 1...100)
        let range: StatsRange
        do {
            range = try StatsRange.resolve(range: query["range"], from: query["from"], to: query["to"], today: Date(), in: localTime)
        } catch .unknownRange(let text) {
            throw APIError.badRequest(
                "range: '\(text)' is not one of \(StatsRange.names.joined(separator: ", ")), a year (2026), a month (2026-11) or a day",
                code: "invalid_range")
        } catch .invalidDay(let day) {
            throw APIError.badRequest("'\(day)' is not a day (YYYY-MM-DD)", code: "invalid_day")
        } catch {
            throw APIError.badRequest("'from' must not be after 'to'", code: "invalid_range")
        }
        let store = context.store
        let totals = try store.totals(fromDay: range.from, toDay: range.to)
        func ranked(_ entries: [ChartEntry], _ item: (ChartEntry) -> [(String, JSONValue)]) -> JSONValue {
            .array(entries.enumerated().map { i, e in
                .object([("rank", .int(Int64(i + 1)))] + item(e) + [("plays", .int(Int64(e.plays))), ("listening_s", .double(e.seconds.rounded()))])
            })
        }
        return .object([
            ("range", .object([("name", .string(range.name)), ("from", .string(range.from)), ("to", .string(range.to))])),
            ("totals", .object([("plays", .int(Int64(totals.plays))), ("skips", .int(Int64(totals.skips))),
                                ("listening_s", .double(totals.seconds.rounded()))])),
            ("top_tracks", ranked(try store.topTracks(fromDay: range.from, toDay: range.to, limit: limit)) { [("track", APIJSON.track($0.track!))] }),
            ("top_artists", ranked(try store.topArtists(fromDay: range.from, toDay: range.to, limit: limit)) { [("artist", .optional($0.artist))] }),
            ("top_albums", ranked(try store.topAlbums(fromDay: range.from, toDay: range.to, limit: limit)) {
                [("album", .optional($0.album)), ("artist", .optional($0.artist))]
            }),
        ])
    }
}
