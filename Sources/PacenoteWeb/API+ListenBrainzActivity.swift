import Foundation
import PacenoteCore
import PacenoteStore

/// ListenBrainz's other reads that clients call (https://listenbrainz.readthedocs.io/en/latest/users/api/):
/// listening and daily activity (statistics, answered from the rollups), whom the user follows
/// and who follows them (social), and the metadata look-up that fills in MusicBrainz ids
/// (answered offline from the library's own tags). Pacenote has one user: any user name
/// answers and is echoed back.
extension API {
    /// `GET …/1/stats/user/{name}/listening-activity?range=`: counted plays per day, month or
    /// year of the range and the period before it (`ListeningActivity`), each piece with its
    /// `from_ts`, `to_ts` (its last second, as ListenBrainz gives it), `time_range` label and
    /// `listen_count`. 204 when nothing was played in them, as ListenBrainz answers without
    /// statistics; 400 for a range that is not ListenBrainz's.
    func listenBrainzListeningActivity(user: String, _ query: [String: String]) throws -> HTTPResponse {
        let name = query["range"] ?? "all_time"
        let now = context.clock.now()
        guard let activity = ListeningActivity.pieces(name, now: now, in: localTime) else {
            throw APIError.badRequest("Invalid range: \(name)", code: "invalid_range").inListenBrainzStyle
        }
        let (step, planned) = activity
        let store = context.store
        var pieces = planned
        let counts: [String: Int]
        switch step {
        case .year:
            counts = try store.countedPlays(per: .year, fromDay: "0000-01-01", toDay: "9999-12-31")
            pieces = ListeningActivity.years(Array(counts.keys))
        case .month:
            counts = try store.countedPlays(per: .month, fromDay: pieces.first?.firstDay ?? "", toDay: pieces.last?.lastDay ?? "")
        case .day:
            counts = try store.countedPlays(per: .day, fromDay: pieces.first?.firstDay ?? "", toDay: pieces.last?.lastDay ?? "")
        }
        guard let first = pieces.first, let last = pieces.last, pieces.contains(where: { (counts[$0.key] ?? 0) > 0 }) else {
            return HTTPResponse(status: 204)
        }
        func start(_ day: String) -> Int64 { localTime.startOfDay(day).map(ListenBrainzJSON.seconds) ?? 0 }
        func after(_ day: String) -> Int64 {
            localTime.startOfDay(day).flatMap { localTime.startOfDay(after: $0) }.map(ListenBrainzJSON.seconds) ?? 0
        }
        return .json(.object([("payload", .object([
            ("from_ts", .int(start(first.firstDay))),
            ("last_updated", .int(ListenBrainzJSON.seconds(now))),
            ("listening_activity", .array(pieces.map { p in
                .object([
                    ("from_ts", .int(start(p.firstDay))), ("listen_count", .int(Int64(counts[p.key] ?? 0))),
                    ("time_range", .string(p.label)), ("to_ts", .int(after(p.lastDay) - 1)),
                ])
            })),
            ("range", .string(name)),
            ("to_ts", .int(after(last.lastDay))),
            ("user_id", .string(user)),
        ]))]))
    }

    /// `GET …/1/stats/user/{name}/daily-activity?range=`: counted plays of the range by
    /// weekday and hour, in Pacenote's time zone (`display.timezone`; ListenBrainz's are
    /// UTC's), every weekday Monday to Sunday with its 24 hours, from `rollup_day_hour`.
    /// 204 when nothing was played in the range.
    func listenBrainzDailyActivity(user: String, _ query: [String: String]) throws -> HTTPResponse {
        let name = query["range"] ?? "all_time"
        let now = context.clock.now()
        guard let range = StatsRange.listenBrainz(name, now: now, in: localTime) else {
            throw APIError.badRequest("Invalid range: \(name)", code: "invalid_range").inListenBrainzStyle
        }
        let cells = try context.store.countedPlaysByWeekdayAndHour(fromDay: range.from, toDay: range.to)
        guard !cells.isEmpty else { return HTTPResponse(status: 204) }
        var grid = Array(repeating: Array(repeating: 0, count: 24), count: 7)
        for cell in cells where (0..<7).contains(cell.weekday) && (0..<24).contains(cell.hour) { grid[cell.weekday][cell.hour] = cell.plays }
        let (from, to) = try range.instants(in: localTime).map { ($0.from, $0.to) }
            ?? context.store.countedPlaysSpan().map { ($0.oldest, $0.newest) } ?? (now, now)
        // Python's calendar.day_name order, as ListenBrainz lists them: Monday first.
        let days = [1, 2, 3, 4, 5, 6, 0].map { weekday in
            (ListeningActivity.weekdayNames[weekday], JSONValue.array((0..<24).map { hour in
                .object([("hour", .int(Int64(hour))), ("listen_count", .int(Int64(grid[weekday][hour])))])
            }))
        }
        return .json(.object([("payload", .object([
            ("daily_activity", .object(days)),
            ("from_ts", .int(ListenBrainzJSON.seconds(from))),
            ("last_updated", .int(ListenBrainzJSON.seconds(now))),
            ("range", .string(name)),
            ("to_ts", .int(ListenBrainzJSON.seconds(to))),
            ("user_id", .string(user)),
        ]))]))
    }

    /// `GET …/1/user/{name}/following`: the friends this Pacenote follows (`[[friends]]` and
    /// those added on the site), by the names given them.
    func listenBrainzFollowing(user: String) throws -> JSONValue {
        .object([("following", .array(try context.store.friends().map { .string($0.name) })), ("user", .string(user))])
    }

    /// `GET …/1/user/{name}/followers`: always empty. A friend reads this Pacenote's public
    /// feed without saying so; Pacenote knows whom it follows, not who follows it.
    func listenBrainzFollowers(user: String) -> JSONValue {
        .object([("followers", .array([])), ("user", .string(user))])
    }

    /// ListenBrainz's `MAX_MAPPING_QUERY_LENGTH`: the names together, in characters.
    static let listenBrainzLookupMaxLength = 250

    /// `GET …/1/metadata/lookup/?artist_name=&recording_name=[&release_name=]`: the MusicBrainz
    /// ids of a song from the library's own tags (Picard's, as MPD reports them), offline:
    /// the stored track of that artist and title (`MatchKey`: case, accents and a leading
    /// "The" aside) that has a recording id, one on `release_name` first. ListenBrainz's
    /// shape (`recording_mbid`, `release_mbid`, `artist_mbids`, `recording_name`,
    /// `release_name`, `artist_credit_name`, the names as the tags give them); `{}` with 200
    /// when no track has ids, as ListenBrainz answers when it finds nothing. `metadata=true`
    /// adds an empty `metadata`: Pacenote has no further MusicBrainz data offline.
    func listenBrainzMetadataLookup(_ query: [String: String]) throws -> JSONValue {
        func bad(_ message: String) -> APIError { APIError.badRequest(message, code: "invalid_lookup").inListenBrainzStyle }
        guard let artist = query["artist_name"], !artist.isEmpty else { throw bad("artist_name is invalid or not present in arguments") }
        guard let title = query["recording_name"], !title.isEmpty else { throw bad("recording_name is invalid or not present in arguments") }
        let release = query["release_name"].flatMap { $0.isEmpty ? nil : $0 }
        guard artist.count + title.count + (release?.count ?? 0) <= Self.listenBrainzLookupMaxLength else {
            throw bad("total number of characters in artist_name, recording_name and release_name arguments must be less than "
                + "\(Self.listenBrainzLookupMaxLength)")
        }
        let tracks = try context.store.songTracks(artist: artist, title: title, album: release)
        guard let track = tracks.first(where: { $0.musicBrainz.recording != nil }), let recording = track.musicBrainz.recording else {
            return .object([])
        }
        var fields: [(String, JSONValue)] = [
            ("artist_credit_name", .string(track.artist ?? track.albumArtist ?? artist)),
            ("artist_mbids", .array(Self.mbids(track.musicBrainz.artist).map(JSONValue.string))),
            ("recording_mbid", .string(recording.lowercased())),
            ("recording_name", .string(track.title)),
            ("release_mbid", .optional(track.musicBrainz.release?.lowercased())),
            ("release_name", .optional(track.album)),
        ]
        if query["metadata"]?.lowercased() == "true" { fields.append(("metadata", .object([]))) }
        return .object(fields)
    }

    /// The MusicBrainz ids in a tag that may hold several (`;`, `/`, `,` or spaces between
    /// them, as taggers write multi-valued ids in one text), lower-cased; what is no UUID is
    /// left out.
    static func mbids(_ text: String?) -> [String] {
        guard let text else { return [] }
        return text.split(whereSeparator: { $0 == ";" || $0 == "/" || $0 == "," || $0.isWhitespace })
            .map { $0.lowercased() }
            .filter { UUID(uuidString: $0) != nil }
    }
}
