import Foundation
import GRDB
import PacenoteCore

/// The length of the periods listening activity is counted in (`Store.countedPlays(per:…)`).
public enum ActivityStep: Sendable {
    case day, month, year
}

/// Reads for the other services' statistics and look-ups (ListenBrainz's listening and daily
/// activity and metadata look-up, Last.fm's `user.*` and `track.*` reads): from the rollups
/// where a period is counted, never a scan of the plays.
extension Store {
    /// Counted plays per local day (`YYYY-MM-DD`), month (`YYYY-MM`) or year (`YYYY`) of the
    /// days `fromDay`…`toDay`, from the period's total rollup; periods without plays are absent.
    public func countedPlays(per step: ActivityStep, fromDay: String, toDay: String) throws(StoreError) -> [String: Int] {
        let (table, key, length) = switch step {
        case .day: ("rollup_day_total", "day", 10)
        case .month: ("rollup_month_total", "month", 7)
        case .year: ("rollup_year_total", "year", 4)
        }
        return try read { db in
            var out: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT \(key), plays FROM \(table) WHERE \(key) BETWEEN ? AND ? AND plays > 0
                """, arguments: [String(fromDay.prefix(length)), String(toDay.prefix(length))]) {
                out[row[0]] = row[1]
            }
            return out
        }
    }

    /// Counted plays per weekday (0 Sunday … 6 Saturday) and local hour of the days
    /// `fromDay`…`toDay`, from `rollup_day_hour` (local days and hours in the rollups' time zone).
    public func countedPlaysByWeekdayAndHour(fromDay: String, toDay: String) throws(StoreError) -> [(weekday: Int, hour: Int, plays: Int)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT CAST(strftime('%w', day) AS INTEGER) AS weekday, hour, SUM(plays) FROM rollup_day_hour
                WHERE day BETWEEN ? AND ? GROUP BY weekday, hour HAVING SUM(plays) > 0
                """, arguments: [fromDay, toDay]).map { ($0[0], $0[1], $0[2]) }
        }
    }

    /// How many counted plays began in [`from`, `to`) (either bound may be missing).
    public func countedPlayCount(from: Date?, to: Date?) throws(StoreError) -> Int {
        if from == nil && to == nil { return try countedPlays() }
        var conditions = ["p.counted = 1"]
        var arguments: StatementArguments = []
        Store.startedBetween(from, to, &conditions, &arguments)
        return try read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM plays p WHERE \(conditions.joined(separator: " AND "))", arguments: arguments) ?? 0
        }
    }

    /// Counted plays that began in [`from`, `to`), newest first, `limit` of them after the
    /// first `offset`: a page of Last.fm's recent tracks.
    public func countedPlays(from: Date?, to: Date?, limit: Int, offset: Int) throws(StoreError) -> [PlayWithTrack] {
        var conditions = ["p.counted = 1"]
        var arguments: StatementArguments = []
        Store.startedBetween(from, to, &conditions, &arguments)
        arguments += [limit, offset]
        return try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY p.started_at_ms DESC, p.id DESC LIMIT ? OFFSET ?
                """, arguments: arguments).map(Store.playWithTrack(from:))
        }
    }

    /// The stored tracks of a song, its artist and title as `MatchKey` folds them (merged
    /// ones left out): those of the library first, then those with a MusicBrainz recording,
    /// then those on `album` (case-insensitively) when it is given.
    public func songTracks(artist: String, title: String, album: String? = nil) throws(StoreError) -> [Track] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")) FROM tracks t
                WHERE t.match_key = ? AND t.merged_into IS NULL
                ORDER BY (? IS NOT NULL AND t.album = ? COLLATE NOCASE) DESC, t.mb_recording_id IS NULL, t.in_library DESC, t.id
                """, arguments: [MatchKey.make(artist: artist, title: title), album, album]).map { Store.track(from: $0) }
        }
    }

    /// The stored tracks with this MusicBrainz recording id (merged ones left out).
    public func tracks(recordingMBID: String) throws(StoreError) -> [Track] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Store.trackColumns("t")) FROM tracks t
                WHERE t.mb_recording_id = ? COLLATE NOCASE AND t.merged_into IS NULL ORDER BY t.in_library DESC, t.id
                """, arguments: [recordingMBID]).map { Store.track(from: $0) }
        }
    }

    /// Counted plays of these tracks, all time (`rollup_track_total`).
    public func countedPlays(trackIDs: [Int64]) throws(StoreError) -> Int {
        guard !trackIDs.isEmpty else { return 0 }
        return try read { db in
            try Int.fetchOne(db, sql: """
                SELECT COALESCE(SUM(plays), 0) FROM rollup_track_total WHERE track_id IN (\(trackIDs.map { _ in "?" }.joined(separator: ",")))
                """, arguments: StatementArguments(trackIDs)) ?? 0
        }
    }

    /// How many tracks have this feeling.
    public func feelingCount(_ feeling: Feeling) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM track_feelings WHERE feeling = ?", arguments: [feeling.rawValue]) ?? 0
        }
    }
}
