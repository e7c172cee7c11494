import Foundation
import GRDB
import PacenoteCore

/// Bulk import of listens from other services' exports.
///
/// Each batch is one transaction: an interrupted import keeps the batches it committed,
/// and running it again skips them as duplicates. A listen is a duplicate when a play of
/// the same normalised track (`tracks.match_key`) starts within `duplicateWindowMs` of it —
/// the same file imported twice, or the same play already logged by MPD (milliseconds)
/// and exported by ListenBrainz (whole seconds). Two plays of one song back to back start
/// a song's length apart and are both kept.
///
/// Rollups: the per-row trigger costs ~60 µs a play (four upserts), which would cap an
/// import at ~15,000 plays/s. Inside each batch's transaction the insert trigger is
/// dropped, the batch's rollup rows are written once per key, and the trigger is created
/// again before the commit — no other connection ever sees the schema without it. Each
/// key's sums are added in the same order the trigger would have added them, so the
/// rollups are bit-for-bit those the trigger gives (tested).
public final class ListenImportSession {
    public static let duplicateWindowMs: Int64 = 10_000

    let store: Store
    let source: String
    /// Track ids by the export's own artist and title text (its match key is the same
    /// whenever the text is): most rows of an export repeat a known track.
    private var tracks: [String: TrackRef] = [:]
    /// Local day and hour by UTC quarter hour: every zone offset in use is a multiple of
    /// 15 minutes, so one quarter hour is in one local day and hour.
    private var localTimes: [Int64: (day: String, hour: Int)] = [:]
    private var triggerSQL: String?

    struct TrackRef {
        var id: Int64
        /// More than one stored track has this match key (two files of one song): the
        /// duplicate check looks at the plays of all of them.
        var shared: Bool
        var matchKey: String
    }

    public init(store: Store, source: String) {
        self.store = store
        self.source = source
    }

    /// Stores a batch in one transaction. Returns how many were new and how many were
    /// duplicates.
    public func insert(_ listens: [ImportedListen], now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        guard !listens.isEmpty else { return (0, 0) }
        let added = tracks.count
        do {
            return try store.write { db in try insert(listens, now: now, in: db) }
        } catch {
            // Tracks added in the rolled-back transaction no longer exist.
            if tracks.count != added { tracks.removeAll() }
            throw error
        }
    }

    private func insert(_ listens: [ImportedListen], now: Date, in db: Database) throws -> (imported: Int, duplicates: Int) {
        if triggerSQL == nil {
            triggerSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'plays_rollup_insert'")
        }
        guard let triggerSQL else { throw StoreError.sqlite("the trigger plays_rollup_insert is missing") }
        try db.execute(sql: "DROP TRIGGER plays_rollup_insert")

        let window = Self.duplicateWindowMs
        let insertOne = try db.cachedStatement(sql: """
            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, local_day, local_hour)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
            WHERE NOT EXISTS (SELECT 1 FROM plays WHERE track_id = ?1 AND started_at_ms BETWEEN ?2 - \(window) AND ?2 + \(window))
            """)
        let insertShared = try db.cachedStatement(sql: """
            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, local_day, local_hour)
            SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
            WHERE NOT EXISTS (SELECT 1 FROM plays WHERE track_id IN (SELECT id FROM tracks WHERE match_key = ?10)
                                AND started_at_ms BETWEEN ?2 - \(window) AND ?2 + \(window))
            """)
        var rows: [Rollups.Row] = []
        rows.reserveCapacity(listens.count)
        var duplicates = 0
        for listen in listens {
            let track = try trackRef(for: listen, now: now, in: db)
            let (day, hour) = localTime(listen.startedAtMs)
            var arguments: StatementArguments = [
                track.id, listen.startedAtMs, listen.endedAtMs, listen.playedSeconds, listen.counted, source,
                listen.player, day, hour,
            ]
            if track.shared {
                arguments += [track.matchKey]
                insertShared.setUncheckedArguments(arguments)
                try insertShared.execute()
            } else {
                insertOne.setUncheckedArguments(arguments)
                try insertOne.execute()
            }
            if db.changesCount == 1 {
                rows.append(Rollups.Row(trackID: track.id, day: day, hour: hour, counted: listen.counted, played: listen.playedSeconds))
            } else {
                duplicates += 1
            }
        }
        try Rollups.add(rows, in: db)
        try db.execute(sql: triggerSQL)
        return (rows.count, duplicates)
    }

    private func trackRef(for listen: ImportedListen, now: Date, in db: Database) throws -> TrackRef {
        let text = (listen.track.artist ?? "") + "\u{1F}" + listen.track.title
        if let known = tracks[text] { return known }
        let matchKey = listen.track.matchKey
        let ids = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT id FROM tracks WHERE match_key = ? ORDER BY uri IS NULL, in_library DESC, id
            """), arguments: [matchKey])
        let ref: TrackRef
        if let first = ids.first {
            ref = TrackRef(id: first, shared: ids.count > 1, matchKey: matchKey)
        } else {
            var track = listen.track
            track.uri = nil
            let id = try Store.saveTrack(track, at: now, in: db)
            if let credit = listen.credit {
                try Store.saveCredit(credit, trackID: id, in: db)
            }
            ref = TrackRef(id: id, shared: false, matchKey: matchKey)
        }
        tracks[text] = ref
        return ref
    }

    private func localTime(_ ms: Int64) -> (day: String, hour: Int) {
        let quarter = ms >= 0 ? ms / 900_000 : (ms - 899_999) / 900_000
        if let known = localTimes[quarter] { return known }
        let date = Date(timeIntervalSince1970: Double(quarter * 900_000) / 1000)
        let value = (store.localTime.day(of: date), store.localTime.hour(of: date))
        if localTimes.count > 200_000 { localTimes.removeAll(keepingCapacity: true) }
        localTimes[quarter] = value
        return value
    }
}

/// The rollup rows of a batch of new plays, written as the `plays_rollup_insert`
/// trigger (Schema.rollupStatements) would write them one play at a time.
enum Rollups {
    struct Row {
        var trackID: Int64
        var day: String
        var hour: Int
        var counted: Bool
        var played: Double
    }

    struct Sum {
        var plays = 0
        var skips = 0
        /// The plays' seconds in insertion order: they are added to a stored sum one by
        /// one, as the trigger does, so that floating-point results are identical.
        var played: [Double] = []

        mutating func add(_ row: Row) {
            if row.counted { plays += 1 } else { skips += 1 }
            played.append(row.played)
        }
    }

    struct DayTrack: Hashable { var day: String; var track: Int64 }
    struct DayHour: Hashable { var day: String; var hour: Int }

    static func add(_ rows: [Row], in db: Database) throws {
        guard !rows.isEmpty else { return }
        var dayTrack: [DayTrack: Sum] = [:]
        var dayHour: [DayHour: Sum] = [:]
        var yearTrack: [DayTrack: Sum] = [:]
        var total: [Int64: Sum] = [:]
        for row in rows {
            dayTrack[DayTrack(day: row.day, track: row.trackID), default: Sum()].add(row)
            dayHour[DayHour(day: row.day, hour: row.hour), default: Sum()].add(row)
            yearTrack[DayTrack(day: String(row.day.prefix(4)), track: row.trackID), default: Sum()].add(row)
            total[row.trackID, default: Sum()].add(row)
        }
        try write(dayTrack.map { ([$0.key.day, $0.key.track], $0.value) }, table: "rollup_day_track", keys: ["day", "track_id"], in: db)
        try write(dayHour.map { ([$0.key.day, $0.key.hour], $0.value) }, table: "rollup_day_hour", keys: ["day", "hour"], in: db)
        try write(yearTrack.map { ([$0.key.day, $0.key.track], $0.value) }, table: "rollup_year_track", keys: ["year", "track_id"], in: db)
        try write(total.map { ([$0.key], $0.value) }, table: "rollup_track_total", keys: ["track_id"], in: db)
    }

    private static func write(_ sums: [([any DatabaseValueConvertible], Sum)], table: String, keys: [String], in db: Database) throws {
        let columns = keys.joined(separator: ", ")
        let placeholders = keys.map { _ in "?" }.joined(separator: ", ")
        let match = keys.enumerated().map { "\($0.element) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        // A new key: its row as the trigger's INSERT would leave it after these plays.
        let insert = try db.cachedStatement(sql: """
            INSERT INTO \(table) (\(columns), plays, skips, played_s) VALUES (\(placeholders), ?, ?, ?)
            ON CONFLICT (\(columns)) DO NOTHING
            """)
        let select = try db.cachedStatement(sql: "SELECT played_s FROM \(table) WHERE \(match)")
        let update = try db.cachedStatement(sql: """
            UPDATE \(table) SET plays = plays + ?\(keys.count + 1), skips = skips + ?\(keys.count + 2), played_s = ?\(keys.count + 3)
            WHERE \(match)
            """)
        for (key, sum) in sums {
            var fresh = sum.played[0]
            for value in sum.played.dropFirst() { fresh += value }
            insert.setUncheckedArguments(StatementArguments(key + [sum.plays, sum.skips, fresh]))
            try insert.execute()
            if db.changesCount == 0 {
                var stored = try Double.fetchOne(select, arguments: StatementArguments(key)) ?? 0
                for value in sum.played { stored += value }
                update.setUncheckedArguments(StatementArguments(key + [sum.plays, sum.skips, stored]))
                try update.execute()
            }
        }
    }
}

extension Store {
    /// Records who a track is credited to (`track_artists`), replacing what was there.
    static func saveCredit(_ credit: ArtistCredit, trackID: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM track_artists WHERE track_id = ?", arguments: [trackID])
        let insert = try db.cachedStatement(sql: "INSERT INTO track_artists (track_id, position, name, role) VALUES (?, ?, ?, ?)")
        for (position, name) in ([credit.primary] + credit.featured).enumerated() {
            try insert.execute(arguments: [trackID, position, name, position == 0 ? "primary" : "featured"])
        }
    }

    /// The artists a track is credited to, primary first.
    public func credit(trackID: Int64) throws(StoreError) -> ArtistCredit? {
        try read { db in
            let names = try String.fetchAll(db, sql: "SELECT name FROM track_artists WHERE track_id = ? ORDER BY position",
                                            arguments: [trackID])
            guard let first = names.first else { return nil }
            return ArtistCredit(primary: first, featured: Array(names.dropFirst()))
        }
    }

    /// Every play that started in [`from`, `to`), oldest first, with its track, handed to
    /// `body` one at a time (an export of years of plays is never held in memory).
    public func forEachPlay(from: Date? = nil, to: Date? = nil, _ body: (PlayWithTrack) throws -> Void) throws(StoreError) {
        try read { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.id AS play_id, p.track_id, p.started_at_ms, p.ended_at_ms, p.played_s, p.counted,
                       p.source, p.player, p.hr_avg, p.hr_max, p.zone, p.workout_id, t.*
                FROM plays p JOIN tracks t ON t.id = p.track_id
                WHERE (?1 IS NULL OR p.started_at_ms >= ?1) AND (?2 IS NULL OR p.started_at_ms < ?2)
                ORDER BY p.started_at_ms, p.id
                """, arguments: [from.map(Store.milliseconds), to.map(Store.milliseconds)])
            while let row = try rows.next() {
                try body(PlayWithTrack(
                    play: Play(
                        id: row["play_id"], trackID: row["track_id"],
                        startedAt: Store.date(milliseconds: row["started_at_ms"]),
                        endedAt: Store.date(milliseconds: row["ended_at_ms"]),
                        playedSeconds: row["played_s"], counted: row["counted"], source: row["source"],
                        player: row["player"], heartRateAverage: row["hr_avg"], heartRateMax: row["hr_max"],
                        zone: (row["zone"] as Int?).flatMap(Zone.init(rawValue:)), workoutID: row["workout_id"]),
                    track: Store.track(from: row)))
            }
        }
    }
}
