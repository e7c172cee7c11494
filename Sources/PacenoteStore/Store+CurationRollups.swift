/// Rollups summed again from the plays after a curation (tracks', first plays', artists' and albums'), and the plays' update triggers set aside.

import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// Runs `body` with the plays' update triggers dropped, and creates them again as they
    /// were (in the same transaction: nothing else sees them missing).
    static func withoutPlayUpdateTriggers(in db: Database, _ body: () throws -> Void) throws {
        let triggers = try Row.fetchAll(db, sql: """
            SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'plays'
              AND name IN ('plays_rollup_update', 'plays_entity_rollup_update')
            """)
        for row in triggers { try db.execute(sql: "DROP TRIGGER \(row[0] as String)") }
        try body()
        for row in triggers { try db.execute(sql: row[1] as String) }
    }

    /// The rollups of some tracks (by day, month, year and all time) summed again from their
    /// plays. Rows are found through the periods that have plays (the totals' keys), as the
    /// rollups are keyed by period first.
    static func recomputeTrackRollups(_ tracks: [Int64], in db: Database) throws {
        let list = tracks.map(String.init).joined(separator: ",")
        for rollup in Rollups.all where rollup.subject == .track {
            let periods = rollup.period.map { "\($0.rawValue) IN (SELECT \($0.rawValue) FROM \($0.totalTable)) AND " } ?? ""
            try rollup.recompute(where: "p.track_id IN (\(list))", rows: "\(periods)track_id IN (\(list))", in: db)
        }
    }

    /// A bulk import caches tracks' entities between batches: a change of credits or albums
    /// tells it to read them again (as `EntityRollups.move` does).
    static func bumpEntityGeneration(in db: Database) throws {
        try db.execute(sql: """
            INSERT INTO meta (key, value) VALUES ('entity_generation', '1')
            ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
            """)
    }

    /// The rollups of some artists or albums, summed again from their tracks' plays (all
    /// time, per year, per month, per day): one read of those plays by track, summed by day
    /// and the days' sums added up into their months, years and all time.
    static func recomputeEntityRollups(entity: String, ids: [Int64], in db: Database) throws {
        guard !ids.isEmpty else { return }
        let list = ids.map(String.init).joined(separator: ",")
        let tables = EntityRollups.tables.filter { $0.entity == entity }
        for table in tables {
            // A period's rows are found by naming its periods (each one a seek of the key):
            // the tables have no index by the entity, and a day's has a row per play or so.
            let periods = table.period.map { "\($0.rawValue) IN (SELECT \($0.rawValue) FROM \($0.totalTable)) AND " } ?? ""
            try db.execute(sql: "DELETE FROM \(table.name) WHERE \(periods)\(table.keys.last!) IN (\(list))")
        }
        let (join, idColumn) = switch entity {
        case "artist": ("track_artists e JOIN plays p ON p.track_id = e.track_id WHERE e.artist_id IN (\(list))", "e.artist_id")
        case "genre": ("track_genres e JOIN plays p ON p.track_id = e.track_id WHERE e.genre_id IN (\(list))", "e.genre_id")
        default: ("tracks e JOIN plays p ON p.track_id = e.id WHERE e.album_id IN (\(list))", "e.album_id")
        }
        let days = try Row.fetchAll(db, sql: """
            SELECT \(idColumn), p.local_day, SUM(p.counted), SUM(1 - p.counted), SUM(p.played_s)
            FROM \(join) GROUP BY 1, 2
            """)
        struct Sum { var plays: Int64 = 0, skips: Int64 = 0, played: Double = 0, firstHalfPlays: Int64 = 0, firstHalfPlayed: Double = 0 }
        for table in tables {
            // Each row of the table: its period's prefix of the day (none for all time) and the id.
            var sums: [String: [Int64: Sum]] = [:]
            let halves = table.period == .month
            for row in days {
                let id: Int64 = row[0], day: String = row[1]
                let key = table.period.map { String(day.prefix($0.length)) } ?? ""
                sums[key, default: [:]][id, default: Sum()].plays += row[2]
                sums[key, default: [:]][id, default: Sum()].skips += row[3]
                sums[key, default: [:]][id, default: Sum()].played += row[4]
                if halves && MonthHalves.isFirst(day: day) {
                    sums[key]![id]!.firstHalfPlays += row[2]
                    sums[key]![id]!.firstHalfPlayed += row[4]
                }
            }
            let insert = try db.makeStatement(sql: """
                INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s\(halves ? ", " + MonthHalves.columns : ""))
                VALUES (\(Array(repeating: "?", count: table.keys.count + (halves ? 5 : 3)).joined(separator: ", ")))
                """)
            for (key, byID) in sums {
                for (id, sum) in byID {
                    var values: [DatabaseValueConvertible] = [id, sum.plays, sum.skips, sum.played]
                    if halves { values += [sum.firstHalfPlays, sum.firstHalfPlayed] }
                    try insert.execute(arguments: StatementArguments(table.period == nil ? values : [key] + values))
                }
            }
        }
    }
}
