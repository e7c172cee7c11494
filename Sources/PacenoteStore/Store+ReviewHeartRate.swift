/// The year in review's heart-rate part: the period's workouts, its zoned plays and its power songs.

import Foundation
import GRDB
import PacenoteCore

extension Store {
    /// The heart-rate part: the workouts that began in the period (and ended), the plays in
    /// it that have a zone (`plays_zoned_by_day`), and the lift of each play of a workout.
    static func reviewHeartRate(from: String, to: String, limit: Int, local: LocalTime,
                                in db: Database) throws -> ReviewReport.HeartRate? {
        let slack: Int64 = 14 * 3_600_000
        let fromMs = Int64(CivilDate.days(of: from) ?? 0) * 86_400_000 - slack
        let toMs = Int64((CivilDate.days(of: to) ?? 0) + 1) * 86_400_000 + slack
        var workouts: [ReviewReport.WorkoutItem] = []
        var zoneSeconds = [Double](repeating: 0, count: 6)
        var training = 0.0
        var loadByZone: [Double] = []
        for row in try Row.fetchAll(db, sql: """
            SELECT id, started_at_ms, ended_at_ms, name, sport, hr_avg, hr_max, z0_s, z1_s, z2_s, z3_s, z4_s, z5_s, trimp_zones FROM workouts
            WHERE started_at_ms BETWEEN ? AND ? AND ended_at_ms IS NOT NULL ORDER BY started_at_ms, id
            """, arguments: [fromMs, toMs]) {
            let start: Int64 = row[1], end: Int64 = row[2]
            let day = local.day(of: Store.date(milliseconds: start))
            guard day >= from, day <= to else { continue }
            let zones: [Double] = (0..<6).map { row[7 + $0] }
            for z in 0..<6 { zoneSeconds[z] += zones[z] }
            if let load = row[13] as String? {
                loadByZone = zip(loadByZone.isEmpty ? Array(repeating: 0, count: 6) : loadByZone, Store.zones(load)).map(+)
            }
            let seconds = Double(end - start) / 1000
            training += seconds
            workouts.append(ReviewReport.WorkoutItem(id: row[0], day: day, name: row[3], sport: row[4], seconds: seconds,
                                                     heartRateAverage: row[5], heartRateMax: row[6],
                                                     load: ReviewReport.HeartRate.load(zoneSeconds: zones)))
        }
        // The hardest: the highest load, then the longest, then the first.
        let hardest = workouts.max { a, b in (a.load, a.seconds) != (b.load, b.seconds) ? (a.load, a.seconds) < (b.load, b.seconds) : a.id > b.id }

        // Each zone's plays, by track.
        var zones = (0..<6).map { _ in (plays: 0, seconds: 0.0, tracks: [Int64: (plays: Int, seconds: Double)]()) }
        var zoned = 0
        let rows = try RawStatement(db, """
            SELECT zone, track_id, counted, played_s FROM plays INDEXED BY plays_zoned_by_day
            WHERE zone IS NOT NULL AND local_day BETWEEN ? AND ?
            """, arguments: [from, to])
        while try rows.step() {
            let zone = Int(rows.int64(0))
            guard zones.indices.contains(zone) else { continue }
            zoned += 1
            let track = rows.int64(1), counted = Int(rows.int64(2)), seconds = rows.double(3)
            zones[zone].plays += counted
            zones[zone].seconds += seconds
            let known = zones[zone].tracks[track] ?? (0, 0)
            zones[zone].tracks[track] = (known.plays + counted, known.seconds + seconds)
        }
        guard !workouts.isEmpty || zoned > 0 else { return nil }
        let zoneTracks = Array(Set(zones.flatMap { $0.tracks.keys }))
        var bpm: [Int64: Double] = [:]
        for chunk in stride(from: 0, to: zoneTracks.count, by: 500) {
            let ids = zoneTracks[chunk..<min(chunk + 500, zoneTracks.count)]
            for row in try Row.fetchAll(db, sql: """
                SELECT id, bpm FROM tracks WHERE bpm IS NOT NULL AND id IN (\(Array(repeating: "?", count: ids.count).joined(separator: ", ")))
                """, arguments: StatementArguments(Array(ids))) {
                bpm[row[0]] = row[1]
            }
        }
        var music: [ReviewReport.ZoneMusic] = []
        for (zone, z) in zones.enumerated() {
            var tempo = 0.0, counted = 0
            for (track, sum) in z.tracks.sorted(by: { $0.key < $1.key }) where sum.plays > 0 {
                if let b = bpm[track] {
                    tempo += b * Double(sum.plays)
                    counted += sum.plays
                }
            }
            let entries = z.tracks.map { RankedSum.Entry(id: $0.key, plays: $0.value.plays, seconds: $0.value.seconds) }
            music.append(ReviewReport.ZoneMusic(zone: zone, plays: z.plays, seconds: z.seconds,
                                                tracks: try trackItems(entries, limit: min(limit, 5), in: db),
                                                bpm: counted > 0 ? tempo / Double(counted) : nil, bpmPlays: counted))
        }
        return ReviewReport.HeartRate(workouts: workouts.count, trainingSeconds: training, zoneSeconds: zoneSeconds, hardest: hardest,
                                      powerSongs: try powerSongs(from: from, to: to, limit: limit, in: db), zones: music,
                                      loadByZone: loadByZone,
                                      fasterSongs: try fasterSongs(from: from, to: to, limit: limit, in: db).map {
                                          ReviewReport.FasterSong(item: .track($0.track, plays: $0.effect.plays, seconds: 0), effect: $0.effect)
                                      })
    }

    /// The tracks whose plays in the period's workouts lifted the heart rate most on average
    /// (`HeartRateLift`: the mean during the play less the mean of the 30 s before), among
    /// those with a positive lift: by lift, then plays measured, then title.
    static func powerSongs(from: String, to: String, limit: Int, in db: Database) throws -> [ReviewReport.PowerSong] {
        let plays = try Row.fetchAll(db, sql: """
            SELECT track_id, started_at_ms, ended_at_ms FROM plays INDEXED BY plays_workout
            WHERE workout_id IS NOT NULL AND local_day BETWEEN ? AND ? ORDER BY started_at_ms, id
            """, arguments: [from, to]).map { (track: $0[0] as Int64, start: $0[1] as Int64, end: $0[2] as Int64) }
        guard !plays.isEmpty else { return [] }
        let before: Int64 = 30_000
        var lifts: [Int64: [Double]] = [:]
        let samples = try db.cachedStatement(sql: "SELECT at_ms, bpm FROM hr_samples WHERE at_ms BETWEEN ? AND ? ORDER BY at_ms")
        // The plays' windows merged into spans, each span's samples read once.
        var i = 0
        while i < plays.count {
            var j = i, spanEnd = plays[i].end
            while j + 1 < plays.count, plays[j + 1].start - before <= spanEnd { j += 1; spanEnd = max(spanEnd, plays[j].end) }
            let span = try Row.fetchAll(samples, arguments: [plays[i].start - before, spanEnd]).map {
                HeartRateSample(at: Store.date(milliseconds: $0[0]), bpm: $0[1])
            }
            for p in plays[i...j] {
                if let lift = HeartRateLift.lift(samples: span, start: Store.date(milliseconds: p.start), end: Store.date(milliseconds: p.end)) {
                    lifts[p.track, default: []].append(lift)
                }
            }
            i = j + 1
        }
        let ranked = lifts.map { (track: $0.key, lift: $0.value.reduce(0, +) / Double($0.value.count), plays: $0.value.count) }
            .filter { $0.lift > 0 }
        let names = try tracks(ids: ranked.map(\.track), in: db)
        return ranked.compactMap { r in names[r.track].map { (r, $0) } }
            .sorted { a, b in
                if a.0.lift != b.0.lift { return a.0.lift > b.0.lift }
                if a.0.plays != b.0.plays { return a.0.plays > b.0.plays }
                if !a.1.title.utf8.elementsEqual(b.1.title.utf8) { return a.1.title.utf8.lexicographicallyPrecedes(b.1.title.utf8) }
                return a.0.track < b.0.track
            }
            .prefix(limit)
            .map { ReviewReport.PowerSong(item: .track($0.1, plays: $0.0.plays, seconds: 0), lift: $0.0.lift) }
    }
}
