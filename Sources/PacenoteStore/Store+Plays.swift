import Foundation
import GRDB
import PacenoteCore

/// A play with its track, as the listens API and pages show it.
public struct PlayWithTrack: Equatable, Sendable {
    public var play: Play
    public var track: Track

    public init(play: Play, track: Track) {
        self.play = play
        self.track = track
    }
}

/// Sizes of the main tables, for `/api/v1/status`.
public struct StoreCounts: Equatable, Sendable {
    public var plays: Int
    public var tracks: Int
}

extension Store {
    /// Stores a finished play. The same listen (same track and start) stored twice is kept
    /// once: the second call returns `nil`.
    @discardableResult
    public func insertPlay(_ play: Play) throws(StoreError) -> Int64? {
        try write { db in try Store.insertPlay(play, localTime: localTime, in: db) }
    }

    static func insertPlay(_ p: Play, localTime: LocalTime, in db: Database) throws -> Int64? {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player,
                               hr_avg, hr_max, zone, workout_id, local_day, local_hour, played_bpm, tempo_ratio)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (track_id, started_at_ms) DO NOTHING
            RETURNING id
            """)
        let id = try Int64.fetchOne(statement, arguments: [
            p.trackID, milliseconds(p.startedAt), milliseconds(p.endedAt), p.playedSeconds, p.counted,
            p.source, p.player, p.heartRateAverage, p.heartRateMax, p.zone?.rawValue, p.workoutID,
            localTime.day(of: p.startedAt), localTime.hour(of: p.startedAt), p.playedBPM, p.tempoRatio,
        ])
        if let id, p.counted { try queueForForwarding(playID: id, source: p.source, player: p.player, in: db) }
        return id
    }

    /// Where a page of plays continues: the last play shown (newest-first order).
    public struct PlayCursor: Equatable, Sendable {
        public var startedAtMs: Int64
        public var id: Int64
        public init(startedAtMs: Int64, id: Int64) {
            self.startedAtMs = startedAtMs
            self.id = id
        }
    }

    /// Plays, newest first, with their tracks: those that started in [`from`, `to`), after
    /// `cursor` (exclusive), whose track matches `search` (every word, as a prefix, in its
    /// title, artist or album; accents and case ignored), at most `limit`.
    /// `countedOnly` leaves the skips out (ListenBrainz's listens); `oldestFirst` takes the
    /// oldest plays instead, oldest first (ListenBrainz reads forward from `min_ts` so).
    public func plays(limit: Int, after cursor: PlayCursor? = nil, from: Date? = nil, to: Date? = nil,
                      search: String? = nil, countedOnly: Bool = false,
                      oldestFirst: Bool = false) throws(StoreError) -> [PlayWithTrack] {
        // Only the conditions that apply: "(? IS NULL OR started_at_ms >= ?)" would hide the
        // range from SQLite's planner, which then walks the whole index when few rows match.
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let cursor {
            conditions.append(oldestFirst ? "(p.started_at_ms, p.id) > (?, ?)" : "(p.started_at_ms, p.id) < (?, ?)")
            arguments += [cursor.startedAtMs, cursor.id]
        }
        Store.startedBetween(from, to, &conditions, &arguments)
        if let match = search.flatMap(Store.ftsQuery) {
            conditions.append("p.track_id IN (SELECT rowid FROM tracks_fts WHERE tracks_fts MATCH ?)")
            arguments += [match]
        }
        if countedOnly { conditions.append("p.counted = 1") }
        arguments += [limit]
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let order = oldestFirst ? "ASC" : "DESC"
        return try read { db in
            let rows = try RawStatement(db, """
                SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id
                \(filter)
                ORDER BY p.started_at_ms \(order), p.id \(order)
                LIMIT ?
                """, arguments: arguments)
            var plays: [PlayWithTrack] = []
            plays.reserveCapacity(min(limit, 1000))
            while try rows.step() { plays.append(Store.playWithTrack(from: rows)) }
            return plays
        }
    }

    /// `started_at_ms` in [`from`, `to`): only the bounds that are given, so SQLite's planner
    /// sees the range ("(? IS NULL OR …)" hides it and the whole index is walked).
    static func startedBetween(_ from: Date?, _ to: Date?, _ conditions: inout [String], _ arguments: inout StatementArguments) {
        if let from {
            conditions.append("p.started_at_ms >= ?")
            arguments += [Store.milliseconds(from)]
        }
        if let to {
            conditions.append("p.started_at_ms < ?")
            arguments += [Store.milliseconds(to)]
        }
    }

    /// The columns `playWithTrack(from:)` reads, for `FROM plays p JOIN tracks t`.
    static let playWithTrackColumns = """
        p.id, p.track_id, p.started_at_ms, p.ended_at_ms, p.played_s, p.counted, p.source, p.player, \
        p.hr_avg, p.hr_max, p.zone, p.workout_id, \(trackColumns("t")), p.played_bpm, p.tempo_ratio
        """

    /// Where `o.attempts` and other columns after `playWithTrackColumns` begin.
    static let playWithTrackColumnCount = 14 + trackColumnCount

    /// The same from a statement's current row, read through the C API.
    static func playWithTrack(from row: RawStatement) -> PlayWithTrack {
        PlayWithTrack(
            play: Play(
                id: row.int64(0), trackID: row.int64(1),
                startedAt: Store.date(milliseconds: row.int64(2)), endedAt: Store.date(milliseconds: row.int64(3)),
                playedSeconds: row.double(4), counted: row.int64(5) != 0, source: row.text(6) ?? "", player: row.text(7),
                heartRateAverage: row.optionalDouble(8), heartRateMax: row.optionalInt(9),
                zone: row.optionalInt(10).flatMap(Zone.init(rawValue:)), workoutID: row.optionalInt64(11),
                playedBPM: row.optionalDouble(Int32(12 + trackColumnCount)), tempoRatio: row.optionalDouble(Int32(13 + trackColumnCount))),
            track: Store.track(from: row, at: 12))
    }

    /// A play and its track from a row of `playWithTrackColumns`, read by position.
    static func playWithTrack(from row: Row) -> PlayWithTrack {
        PlayWithTrack(
            play: Play(
                id: row[0], trackID: row[1],
                startedAt: Store.date(milliseconds: row[2]), endedAt: Store.date(milliseconds: row[3]),
                playedSeconds: row[4], counted: row[5], source: row[6], player: row[7],
                heartRateAverage: row[8], heartRateMax: row[9],
                zone: (row[10] as Int?).flatMap(Zone.init(rawValue:)), workoutID: row[11],
                playedBPM: row[12 + trackColumnCount], tempoRatio: row[13 + trackColumnCount]),
            track: Store.track(from: row, at: 12))
    }

    /// A user's search text as an FTS5 query: each word (`SearchWords.searched`: letters and
    /// digits, at most 16) quoted, so no operator syntax leaks through — nor a NUL, which
    /// would cut the query short — and matched as a prefix; nil when there is no word.
    static func ftsQuery(_ text: String) -> String? {
        let words = SearchWords.searched(text).map { "\"" + $0 + "\"*" }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// The newest plays first (a convenience over `plays(limit:)`).
    public func recentPlays(limit: Int) throws(StoreError) -> [PlayWithTrack] {
        try plays(limit: limit)
    }

    public func counts() throws(StoreError) -> StoreCounts {
        try read { db in
            StoreCounts(
                // From the year rollups (a row per year), which hold every play, counted or
                // skipped: counting `plays` walked 5M index entries (~0.2 s) once a second.
                plays: try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(plays + skips), 0) FROM rollup_year_total") ?? 0,
                tracks: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM tracks") ?? 0)
        }
    }

    /// Counted plays, skips and seconds per local day between two days (inclusive), from the rollups.
    public func dailyTotals(from: String, to: String) throws(StoreError) -> [(day: String, plays: Int, skips: Int, seconds: Double)] {
        try read { db in
            try Row.fetchAll(db, sql: """
                SELECT day, plays, skips, played_s FROM rollup_day_total WHERE day BETWEEN ? AND ? ORDER BY day
                """, arguments: [from, to]).map { ($0[0], $0[1], $0[2], $0[3]) }
        }
    }
}

extension Store {
    /// Stores listens that a client reports (ListenBrainz submissions, imports) in one
    /// transaction: each finds or adds its track and is a counted play that began at
    /// `startedAt`. A listen already stored (same track and start) is kept once.
    /// Returns the plays that were new.
    ///
    /// `sameWithin` (scrobbles, which may arrive by two routes): a listen is the play
    /// already stored when a play of the same song (`match_key`) began within that many
    /// seconds of it, unless one of the two ended before the other began (the song played
    /// again, on repeat) — see `Store.isSamePlay`.
    public func recordListens(_ listens: [(track: Track, startedAt: Date, client: String?)], source: String,
                              rules: RuleSet = .empty, sameWithin: TimeInterval = 0,
                              now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        try recordReported(listens.map { ReportedPlay.listen($0.track, startedAt: $0.startedAt, player: $0.client) }, source: source,
                           rules: rules, sameWithin: sameWithin, now: now)
    }

    /// Stores plays that others report and have decided (`ReportedPlay`: counted, or a skip
    /// with the seconds played), as `recordListens` stores listens: one transaction, each
    /// play once however often it is sent, and with `sameWithin` the play already stored by
    /// another route is that play. Returns the plays that were new.
    public func recordReported(_ reported: [ReportedPlay], source: String, rules: RuleSet = .empty, sameWithin: TimeInterval = 0,
                               now: Date = Date()) throws(StoreError) -> [LoggedPlay] {
        // A listen without a duration has no known length: no `shorter_than` rule takes it.
        let outcomes = Store.decide(rules, reported.map { ($0.track, $0.track.durationSeconds, $0.track.uri) })
        return try write { db in
            try Store.noteRuleOverruns(outcomes.flatMap(\.overruns), at: now, in: db)
            var logged: [LoggedPlay] = []
            // A private session hides what it covers, as a `hide` rule would.
            let session = try reported.isEmpty ? nil : Store.privateSession(in: db)
            for (listen, outcome) in zip(reported, outcomes) {
                let played = max(0, listen.playedSeconds)
                let decision = Store.privateDecision(outcome.decision, start: listen.startedAt,
                                                     end: listen.startedAt.addingTimeInterval(played), session: session)
                guard let ruled = decision.track else { continue }
                if sameWithin > 0, try Store.isStored(ruled, startedAt: listen.startedAt,
                                                      duration: listen.track.durationSeconds ?? played, within: sameWithin,
                                                      source: source, in: db) {
                    continue
                }
                let trackID = try Store.saveTrack(ruled, at: now, in: db)
                var play = Play(trackID: trackID, startedAt: listen.startedAt,
                                endedAt: listen.startedAt.addingTimeInterval(played), playedSeconds: played,
                                counted: listen.counted, source: source, player: listen.player)
                if case .hide = decision {
                    try Store.insertHiddenPlay(play, localTime: localTime, in: db)
                    continue
                }
                if let id = try Store.insertPlay(play, localTime: localTime, in: db) {
                    play.id = id
                    var track = ruled
                    track.id = trackID
                    track.albumID = try Store.albumID(ofTrack: trackID, in: db)
                    logged.append(LoggedPlay(id: id, play: play, track: track))
                }
            }
            return logged
        }
    }
}

extension Store {
    /// How many counted plays there are (ListenBrainz's listen count), from the year
    /// rollups: counting `plays` would walk every row.
    public func countedPlays() throws(StoreError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(plays), 0) FROM rollup_year_total") ?? 0 }
    }

    /// When the oldest and the newest counted play began (nil without any): ListenBrainz's
    /// `oldest_listen_ts` and `latest_listen_ts`. Each walks `plays_started` from its end to
    /// the first counted play.
    public func countedPlaysSpan() throws(StoreError) -> (oldest: Date, newest: Date)? {
        try read { db in
            let edge = { (order: String) in
                try Int64.fetchOne(db, sql: """
                    SELECT started_at_ms FROM plays WHERE counted = 1 ORDER BY started_at_ms \(order) LIMIT 1
                    """)
            }
            guard let oldest = try edge("ASC"), let newest = try edge("DESC") else { return nil }
            return (Store.date(milliseconds: oldest), Store.date(milliseconds: newest))
        }
    }

    /// The counted play of a track that began within the second `second` (Unix seconds), as
    /// ListenBrainz names a listen: its `listened_at` and its recording. The earliest if
    /// there are several (`plays_identity` finds them).
    public func countedPlayID(trackID: Int64, startedInSecond second: Int64) throws(StoreError) -> Int64? {
        let (start, overflow) = second.multipliedReportingOverflow(by: 1000)
        guard !overflow, start <= Int64.max - 999 else { return nil }
        return try read { db in
            try Int64.fetchOne(db, sql: """
                SELECT id FROM plays WHERE track_id = ? AND started_at_ms BETWEEN ? AND ? AND counted = 1
                ORDER BY started_at_ms LIMIT 1
                """, arguments: [trackID, start, start + 999])
        }
    }

    /// Deletes one play; the rollup triggers take it out of every sum in the same
    /// transaction. Returns the play as it was, or nil when there is no such play.
    public func deletePlay(id: Int64) throws(StoreError) -> PlayWithTrack? {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id WHERE p.id = ?
                """, arguments: [id]) else { return nil }
            try db.execute(sql: "DELETE FROM plays WHERE id = ?", arguments: [id])
            return Store.playWithTrack(from: row)
        }
    }
}
