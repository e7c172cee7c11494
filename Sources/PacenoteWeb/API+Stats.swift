import Foundation
import PacenoteCore
import PacenoteStore
import Synchronization

extension API {
    /// The range of days a stats request asks for (`range`, or `from`/`to`).
    func statsRange(_ query: [String: String]) throws(APIError) -> StatsRange {
        do {
            return try StatsRange.resolve(range: query["range"], from: query["from"], to: query["to"], today: Date(), in: localTime)
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
    func stats(_ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 10, in: 1...100)
        let range = try statsRange(query)
        let order = try chartOrder(query)
        let key = "\(range.from)|\(range.to)|\(limit)|\(order.rawValue)"
        if let cached = charts.get(key) {
            return Self.rangeHeader(range, cached)
        }
        let generation = charts.generation
        let store = context.store
        let stats = try store.rangeStats(fromDay: range.from, toDay: range.to, limit: limit, by: order)
        let totals = stats.totals
        func ranked(_ entries: [ChartEntry], _ item: (ChartEntry) -> [(String, JSONValue)]) -> JSONValue {
            .array(entries.enumerated().map { i, e in
                .object([("rank", .int(Int64(i + 1)))] + item(e) + [("plays", .int(Int64(e.plays))), ("listening_s", .double(e.seconds.rounded()))])
            })
        }
        let body: [(String, JSONValue)] = [
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
        charts.put(key, body, computedAt: generation)
        return Self.rangeHeader(range, body)
    }

    static func rangeHeader(_ range: StatsRange, _ body: [(String, JSONValue)]) -> JSONValue {
        .object([("range", .object([("name", .string(range.name)), ("from", .string(range.from)), ("to", .string(range.to))]))] + body)
    }
}

typealias ChartCache = ResultCache<[(String, JSONValue)]>

/// Results computed once and kept until the data they come from changes (in this process
/// every change is announced on the event bus by PacenoteOperations) or `maxAge` passes
/// (another process, such as `pacenote import`, wrote): the API's charts, the site's
/// heavier pages.
final class ResultCache<Value: Sendable>: Sendable {
    private let entries = Mutex<(generation: Int, values: [String: (generation: Int, at: Date, body: Value)])>((0, [:]))
    let maxAge: Double

    /// `follows`: the changes that make a kept result stale (by default, those to plays).
    init(bus: EventBus?, maxAge: Double = 60, follows: @escaping @Sendable (DataChange) -> Bool = { $0.touchesPlays }) {
        self.maxAge = maxAge
        bus?.subscribe { [weak self] event in
            if case .changed(let change, _) = event, follows(change) { self?.invalidate() }
        }
    }

    func invalidate() {
        entries.withLock { $0.generation += 1; $0.values.removeAll(keepingCapacity: true) }
    }

    func get(_ key: String) -> Value? {
        entries.withLock { state in
            guard let hit = state.values[key], hit.generation == state.generation,
                  Date().timeIntervalSince(hit.at) < maxAge else { return nil }
            return hit.body
        }
    }

    var generation: Int { entries.withLock { $0.generation } }

    /// Keeps a chart computed from the data of `generation`; if a play was stored
    /// meanwhile, the result may already be stale and is not kept.
    func put(_ key: String, _ body: Value, computedAt generation: Int) {
        entries.withLock { state in
            guard state.generation == generation else { return }
            if state.values.count > 256 { state.values.removeAll(keepingCapacity: true) }
            state.values[key] = (state.generation, Date(), body)
        }
    }
}

extension ResultCache {
    /// The cached value, or `compute()`'s, kept unless the data changed meanwhile.
    func value(_ key: String, _ compute: () throws -> Value) rethrows -> Value {
        if let hit = get(key) { return hit }
        let generation = self.generation
        let value = try compute()
        put(key, value, computedAt: generation)
        return value
    }
}
