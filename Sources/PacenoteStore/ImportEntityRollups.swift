import Foundation
import GRDB

/// The artist, album, period and clock rollups (`EntityRollups`) of a transaction's new
/// plays, summed per key and written once per key, as the bulk import writes the track
/// rollups.
///
/// They are summed from the plays `ImportRollups` holds, at the end of the transaction:
/// the plays are put in order by period with a stable counting sort, so each key's plays
/// are added in the order they came — the sums are those a hash table per key, filled play
/// by play, would give — but into dense arrays indexed by the transaction's own numbering
/// of its artists and albums. No table per key lives through the transaction (a million
/// plays spread over years made a million keys of hash tables, ~190 bytes a play), and no
/// key is hashed per play.
struct ImportEntityRollups {
    /// A track's artists and album.
    struct Entities {
        var artists: [Int64]
        var album: Int64?

        init(artists: [Int64], album: Int64?) {
            self.artists = artists
            self.album = album
        }

        init(track: Int64, in db: Database) throws {
            let credits = try RawStatement(db, "SELECT artist_id FROM track_artists WHERE track_id = ?1 AND artist_id IS NOT NULL")
            credits.bind(1, track)
            artists = []
            while try credits.step() { artists.append(credits.int64(0)) }
            let tracks = try RawStatement(db, "SELECT album_id FROM tracks WHERE id = ?1")
            tracks.bind(1, track)
            album = try tracks.step() ? tracks.optionalInt64(0) : nil
            tracks.reset()
        }
    }

    struct Sums {
        var plays: Int64 = 0
        var skips: Int64 = 0
        var seconds = 0.0

        mutating func add(counted: Bool, played: Double) {
            if counted { plays += 1 } else { skips += 1 }
            seconds += played
        }
    }

    /// The transaction's artists or albums numbered from 0, and each track's (by its index
    /// in the session, `ref`) as a run of those numbers.
    struct Numbering {
        /// Id of each number.
        var ids: [Int64] = []
        var number: [Int64: Int32] = [:]
        /// Where each track's run starts in `runs` (-1: not numbered yet) and its length.
        var start: [Int32]
        var length: [UInt8]
        var runs: [Int32] = []

        init(tracks: Int) {
            start = [Int32](repeating: -1, count: tracks)
            length = [UInt8](repeating: 0, count: tracks)
        }

        mutating func add(ref: Int, _ entityIDs: some Sequence<Int64>) {
            guard start[ref] < 0 else { return }
            start[ref] = Int32(runs.count)
            var n = 0
            for id in entityIDs where n < Int(UInt8.max) {
                let k: Int32
                if let known = number[id] {
                    k = known
                } else {
                    k = Int32(ids.count)
                    ids.append(id)
                    number[id] = k
                }
                runs.append(k)
                n += 1
            }
            length[ref] = UInt8(n)
        }
    }

    /// Writes the twelve tables for the plays of `plays`. `entities`: each track's artists and
    /// album, by its index in the session (set for every track with a play here).
    static func write(_ plays: ImportRollups, entities: [Entities?], in db: Database) throws {
        guard plays.count > 0 else { return }
        var artists = Numbering(tracks: entities.count)
        var albums = Numbering(tracks: entities.count)
        for i in 0..<plays.count {
            let ref = Int(plays.refs[i])
            guard artists.start[ref] < 0, let of = entities[ref] else { continue }
            artists.add(ref: ref, of.artists)
            albums.add(ref: ref, of.album.map { [$0] } ?? [])
        }
        // The periods' texts, bound as C strings (freed once the statements are done with them).
        var texts: [String: UnsafeMutablePointer<CChar>] = [:]
        defer { for text in texts.values { free(text) } }
        func text(_ string: String) -> BulkInsert.Value {
            if let known = texts[string] { return .text(known) }
            let copy = strdup(string)!
            texts[string] = copy
            return .text(copy)
        }
        let identity = (0..<Int32(plays.count)).map { $0 }
        let byYear = ImportRollups.sorted(identity, by: plays.yearOf, buckets: plays.years.count)
        let byMonth = ImportRollups.sorted(identity, by: plays.monthOf, buckets: plays.months.count)
        let byDay = ImportRollups.sorted(identity, by: plays.dayOf, buckets: plays.days.count)
        let year = { (i: Int) in text(String(plays.years[Int(plays.yearOf[i])])) }
        let month = { (i: Int) in text(LocalSlot.monthText(plays.months[Int(plays.monthOf[i])])) }
        let day = { (i: Int) in BulkInsert.Value.text(plays.days[Int(plays.dayOf[i])].dayText) }
        for (numbering, name, column) in [(artists, "artist", "artist_id"), (albums, "album", "album_id")] {
            try write(plays, order: identity, groups: nil, period: nil, entities: numbering,
                      table: "rollup_\(name)_total", keys: [column], in: db)
            try write(plays, order: byYear, groups: plays.yearOf, period: year, entities: numbering,
                      table: "rollup_year_\(name)", keys: ["year", column], in: db)
            try write(plays, order: byMonth, groups: plays.monthOf, period: month, entities: numbering,
                      table: "rollup_month_\(name)", keys: ["month", column], in: db)
            try write(plays, order: byDay, groups: plays.dayOf, period: day, entities: numbering,
                      table: "rollup_day_\(name)", keys: ["day", column], in: db)
        }
        try write(plays, order: byYear, groups: plays.yearOf, period: year, entities: nil,
                  table: "rollup_year_total", keys: ["year"], in: db)
        try write(plays, order: byMonth, groups: plays.monthOf, period: month, entities: nil,
                  table: "rollup_month_total", keys: ["month"], in: db)
        try write(plays, order: byDay, groups: plays.dayOf, period: day,
                  entities: nil, table: "rollup_day_total", keys: ["day"], in: db)
        try write(plays, order: byYear, groups: plays.yearOf, period: year, entities: nil, hours: true,
                  table: "rollup_year_hour", keys: ["year", "hour"], in: db)
    }

    /// One upsert per key, many keys to a statement. `order`: the plays, grouped by period
    /// (`groups[i]`, or one group) and in the order they came within it. The entities of a
    /// play are its track's run in `entities`, its hour (`hours`), or none (the period alone).
    private static func write(_ plays: ImportRollups, order: [Int32], groups: [Int32]?, period: ((Int) -> BulkInsert.Value)?,
                              entities: Numbering?, hours: Bool = false, table: String, keys: [String], in db: Database) throws {
        var upsert = BulkInsert(db, columns: keys.count + 3) { values in
            """
            INSERT INTO \(table) (\(keys.joined(separator: ", ")), plays, skips, played_s) VALUES \(values)
            ON CONFLICT (\(keys.joined(separator: ", "))) DO UPDATE SET \(EntityRollups.upsert)
            """
        }
        let slots = entities?.ids.count ?? (hours ? 24 : 1)
        var sums = [Sums](repeating: Sums(), count: slots)
        var touched: [Int32] = []
        var g = 0
        while g < order.count {
            let first = Int(order[g])
            var end = g + 1
            if let groups { while end < order.count, groups[Int(order[end])] == groups[first] { end += 1 } } else { end = order.count }
            for j in g..<end {
                let i = Int(order[j])
                let counted = plays.counted[i], played = plays.played[i]
                func add(_ slot: Int32) {
                    if sums[Int(slot)].plays == 0 && sums[Int(slot)].skips == 0 { touched.append(slot) }
                    sums[Int(slot)].add(counted: counted, played: played)
                }
                if let entities {
                    let ref = Int(plays.refs[i])
                    let start = Int(entities.start[ref])
                    for k in 0..<Int(entities.length[ref]) { add(entities.runs[start + k]) }
                } else {
                    add(hours ? plays.hourOf[i] : 0)
                }
            }
            // Keys in order: each B-tree appended to rather than written all over.
            if let entities { touched.sort { entities.ids[Int($0)] < entities.ids[Int($1)] } } else { touched.sort() }
            for slot in touched {
                if let period { upsert.append(period(first)) }
                if let entities { upsert.append(entities.ids[Int(slot)]) } else if hours { upsert.append(Int64(slot)) }
                upsert.append(sums[Int(slot)].plays)
                upsert.append(sums[Int(slot)].skips)
                upsert.append(sums[Int(slot)].seconds)
                try upsert.endRow()
                sums[Int(slot)] = Sums()
            }
            touched.removeAll(keepingCapacity: true)
            g = end
        }
        try upsert.finish()
    }
}
