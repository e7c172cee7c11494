import Foundation
import PacenoteCore
import PacenoteStore

/// What ListenBrainz's user statistics rank (`/1/stats/user/{name}/…`).
public enum ListenBrainzStatsEntity: String, CaseIterable, Equatable, Sendable {
    case artists, recordings, releases

    /// The chart that answers it: artists by entity (a play counts for each credited
    /// artist), tracks, albums.
    var chart: Store.ChartEntity {
        switch self {
        case .artists: .artist
        case .recordings: .track
        case .releases: .album
        }
    }

    /// The payload's key for the length of the whole chart.
    var totalKey: String {
        switch self {
        case .artists: "total_artist_count"
        case .recordings: "total_recording_count"
        case .releases: "total_release_count"
        }
    }
}

/// ListenBrainz's statistics of a user's top artists, recordings and releases
/// (https://listenbrainz.readthedocs.io/en/latest/users/api/statistics.html), answered from
/// the same rollups as Pacenote's charts (`Store.topArtists`, `topTracks`, `topAlbums`):
/// liblistenbrainz's `get_user_artists`, `get_user_recordings` and `get_user_releases`.
/// Ranked by counted plays (`listen_count`), as ListenBrainz counts listens. Private like
/// the history; Pacenote has one user, and any user name answers and is echoed back.
extension API {
    /// ListenBrainz's `MAX_ITEMS_PER_GET` caps `count` (`_process_user_entity`).
    static let listenBrainzStatsMaxCount = listenBrainzMaxCount

    /// The deepest a ListenBrainz chart is read (a page far past every chart's end reads
    /// no deeper): more tracks than any library holds.
    static let maxChartDepth = 1 << 24

    /// `GET …/1/stats/user/{name}/{artists|recordings|releases}?range=&count=&offset=`: the
    /// chart of a ListenBrainz range (`StatsRange.listenBrainz`, default `all_time`), `count`
    /// entries (default 25, at most 1000) after the first `offset`. 204 without a body when
    /// nothing was played in the range, as ListenBrainz answers when it has no statistics;
    /// 400 for another range, or a count or offset that is no whole number from 0.
    func listenBrainzStats(user: String, _ entity: ListenBrainzStatsEntity, _ query: [String: String]) throws -> HTTPResponse {
        let name = query["range"] ?? "all_time"
        guard let range = StatsRange.listenBrainz(name, now: context.clock.now(), in: localTime) else {
            throw APIError.badRequest("Invalid range: \(name)", code: "invalid_range").inListenBrainzStyle
        }
        let offset = try Self.nonNegative(query, "offset", default: 0)
        let count = min(try Self.nonNegative(query, "count", default: Self.listenBrainzDefaultCount), Self.listenBrainzStatsMaxCount)
        // The chart is read to 100 entries, or 200, 400, … past the page: paging through it
        // reads it a few times, not once a page (a hundred entries cost about what 25 do).
        // At most `maxChartDepth`: no chart is longer, and a page beyond it is empty.
        let wanted = offset.addingReportingOverflow(count)
        var depth = 100
        while depth < Self.maxChartDepth, wanted.overflow || depth < wanted.partialValue { depth *= 2 }
        depth = min(depth, Self.maxChartDepth)
        let chart = try listenBrainzChart(entity, range, depth: depth)
        guard chart.total > 0 else { return HTTPResponse(status: 204) }
        let page = offset < chart.items.count ? Array(chart.items[offset..<min(chart.items.count, offset + count)]) : []
        let (from, to) = try range.instants(in: localTime).map { ($0.from, $0.to) }
            ?? context.store.countedPlaysSpan().map { ($0.oldest, $0.newest) } ?? (chart.updated, chart.updated)
        return .json(.object([("payload", .object([
            ("count", .int(Int64(page.count))),
            (entity.rawValue, .array(page)),
            ("from_ts", .int(ListenBrainzJSON.seconds(from))),
            ("last_updated", .int(ListenBrainzJSON.seconds(chart.updated))),
            ("offset", .int(Int64(offset))),
            ("range", .string(name)),
            ("to_ts", .int(ListenBrainzJSON.seconds(to))),
            (entity.totalKey, .int(Int64(chart.total))),
            ("user_id", .string(user)),
        ]))]))
    }

    /// The range's chart to `depth` entries as ListenBrainz's items, how many entries the
    /// whole chart has, and when it was read; kept in the chart cache until plays change.
    /// The chart and its length are read together (`Store.countedChart`): a range of days
    /// sums its rows once for both.
    func listenBrainzChart(_ entity: ListenBrainzStatsEntity, _ range: StatsRange,
                           depth: Int) throws -> (items: [JSONValue], total: Int, updated: Date) {
        let store = context.store
        let cached = try charts.kept("lb|\(entity.rawValue)|\(range.from)|\(range.to)|\(depth)") {
            let chart = try store.countedChart(entity.chart, fromDay: range.from, toDay: range.to, limit: depth)
            return [("items", .array(try listenBrainzItems(entity, chart.entries))), ("total", .int(Int64(chart.total))),
                    ("updated", .double(context.clock.now().timeIntervalSince1970))]
        }
        guard case .array(let items) = cached[0].1, case .int(let total) = cached[1].1, case .double(let updated) = cached[2].1,
              total > 0 else { return ([], 0, context.clock.now()) }
        return (items, Int(total), Date(timeIntervalSince1970: updated))
    }

    /// A chart's entries (`Store.countedChart`'s) in ListenBrainz's shapes (`ArtistRecord`,
    /// `RecordingRecord`, `ReleaseRecord`): the fields ListenBrainz may leave empty are null
    /// (or `[]`) when Pacenote has nothing for them; `caa_id` and `artists` are always null.
    func listenBrainzItems(_ entity: ListenBrainzStatsEntity, _ entries: [ChartEntry]) throws -> [JSONValue] {
        let store = context.store
        func mbids(_ id: String?) -> JSONValue { .array(id.map { [.string($0)] } ?? []) }
        switch entity {
        case .artists:
            let known = try store.artistMBIDs(entries.compactMap(\.artistID))
            return entries.map { e in
                let mbid = e.artistID.flatMap { known[$0] }
                // ListenBrainz's artist records have had `artist_mbids` and, since it ranks
                // credited artists one by one as Pacenote does, `artist_mbid`: both are given.
                return .object([
                    ("artist_mbid", .optional(mbid)), ("artist_mbids", mbids(mbid)),
                    ("artist_name", .string(e.artist ?? "")), ("listen_count", .int(Int64(e.plays))),
                ])
            }
        case .recordings:
            return entries.map { e in
                let t = e.track!
                return .object([
                    ("artist_mbids", mbids(t.musicBrainz.artist)), ("artist_name", .string(t.artist ?? t.albumArtist ?? "")),
                    ("artists", .null), ("caa_id", .null), ("caa_release_mbid", .null),
                    ("listen_count", .int(Int64(e.plays))), ("recording_mbid", .optional(t.musicBrainz.recording)),
                    // Pacenote's msid of the track, as its listens carry: what feedback takes.
                    ("recording_msid", .optional(t.id.map(PacenoteMSID.msid))),
                    ("release_mbid", .optional(t.musicBrainz.release)), ("release_name", .optional(t.album)),
                    ("track_name", .string(t.title)),
                ])
            }
        case .releases:
            let artists = try store.artistMBIDs(entries.compactMap(\.artistID))
            let releases = try store.releaseMBIDs(entries.compactMap(\.albumID))
            return entries.map { e in
                .object([
                    ("artist_mbids", mbids(e.artistID.flatMap { artists[$0] })), ("artist_name", .string(e.artist ?? "")),
                    ("artists", .null), ("caa_id", .null), ("caa_release_mbid", .null),
                    ("listen_count", .int(Int64(e.plays))), ("release_mbid", .optional(e.albumID.flatMap { releases[$0] })),
                    ("release_name", .string(e.album ?? "")),
                ])
            }
        }
    }

    /// ListenBrainz's `get_non_negative_param`: a whole number from 0, else 400 in its words.
    static func nonNegative(_ query: [String: String], _ name: String, default value: Int) throws(APIError) -> Int {
        guard let text = query[name] else { return value }
        guard let n = Int(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
            throw APIError.badRequest("'\(name)' should be a non-negative integer", code: "invalid_\(name)").inListenBrainzStyle
        }
        return n
    }
}
