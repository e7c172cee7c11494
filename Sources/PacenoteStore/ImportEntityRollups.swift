import Foundation
import GRDB

/// The artist, album, year and month rollups of a batch of new plays (`EntityRollups`), summed per
/// key in memory and written once per key, as the bulk import writes the track rollups.
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

    struct YearKey: Hashable {
        var year: Int32
        var id: Int64
    }

    private var artistTotal: [Int64: Sums] = [:]
    private var artistYear: [YearKey: Sums] = [:]
    private var albumTotal: [Int64: Sums] = [:]
    private var albumYear: [YearKey: Sums] = [:]
    /// By month (`YYYYMM` in `year`).
    private var artistMonth: [YearKey: Sums] = [:]
    private var albumMonth: [YearKey: Sums] = [:]
    private var monthTotal: [Int32: Sums] = [:]
    private var yearTotal: [Int32: Sums] = [:]
    /// By local day number, with the day's text (owned by the import session).
    private var dayTotal: [Int32: (text: UnsafeMutablePointer<CChar>, sums: Sums)] = [:]
    private var yearHour: [YearKey: Sums] = [:]

    mutating func add(_ entities: Entities, local: LocalSlot, counted: Bool, played: Double) {
        let year = local.year
        dayTotal[local.dayNumber, default: (local.dayText, Sums())].sums.add(counted: counted, played: played)
        yearHour[YearKey(year: year, id: Int64(local.hour)), default: Sums()].add(counted: counted, played: played)
        for artist in entities.artists {
            artistTotal[artist, default: Sums()].add(counted: counted, played: played)
            artistYear[YearKey(year: year, id: artist), default: Sums()].add(counted: counted, played: played)
            artistMonth[YearKey(year: local.month, id: artist), default: Sums()].add(counted: counted, played: played)
        }
        if let album = entities.album {
            albumTotal[album, default: Sums()].add(counted: counted, played: played)
            albumYear[YearKey(year: year, id: album), default: Sums()].add(counted: counted, played: played)
            albumMonth[YearKey(year: local.month, id: album), default: Sums()].add(counted: counted, played: played)
        }
        yearTotal[year, default: Sums()].add(counted: counted, played: played)
        monthTotal[local.month, default: Sums()].add(counted: counted, played: played)
    }

    func write(in db: Database) throws {
        // The periods' texts, bound as C strings (freed once the statements are done with them).
        var texts: [String: UnsafeMutablePointer<CChar>] = [:]
        defer { for text in texts.values { free(text) } }
        func text(_ string: String) -> UnsafeMutablePointer<CChar> {
            if let known = texts[string] { return known }
            let copy = strdup(string)!
            texts[string] = copy
            return copy
        }
        func period(_ value: Int32, month: Bool) -> UnsafeMutablePointer<CChar> {
            text(month ? LocalSlot.monthText(value) : String(value))
        }
        try write(artistTotal.map { (nil, $0.key, $0.value) }, table: "rollup_artist_total", keys: ["artist_id"], in: db, text: period)
        try write(artistYear.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_year_artist", keys: ["year", "artist_id"], in: db, text: period)
        try write(albumTotal.map { (nil, $0.key, $0.value) }, table: "rollup_album_total", keys: ["album_id"], in: db, text: period)
        try write(albumYear.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_year_album", keys: ["year", "album_id"], in: db, text: period)
        try write(artistMonth.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_month_artist", keys: ["month", "artist_id"], in: db, text: period)
        try write(albumMonth.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_month_album", keys: ["month", "album_id"], in: db, text: period)
        try write(yearTotal.map { ($0.key, nil, $0.value) }, table: "rollup_year_total", keys: ["year"], in: db, text: period)
        try write(monthTotal.map { ($0.key, nil, $0.value) }, table: "rollup_month_total", keys: ["month"], in: db, text: period)
        try write(yearHour.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_year_hour", keys: ["year", "hour"], in: db, text: period)
        var days = Self.bulk(table: "rollup_day_total", keys: ["day"], in: db)
        // Day numbers sort as the days' texts do.
        for (_, day) in dayTotal.sorted(by: { $0.key < $1.key }) {
            days.append(day.text)
            days.append(day.sums.plays)
            days.append(day.sums.skips)
            days.append(day.sums.seconds)
            try days.endRow()
        }
        try days.finish()
    }

    /// One upsert of a key's sums, many keys to a statement.
    private static func bulk(table: String, keys: [String], in db: Database) -> BulkInsert {
        BulkInsert(db, columns: keys.count + 3) { values in
            """
            INSERT INTO \(table) (\(keys.joined(separator: ", ")), plays, skips, played_s) VALUES \(values)
            ON CONFLICT (\(keys.joined(separator: ", "))) DO UPDATE SET \(EntityRollups.upsert)
            """
        }
    }

    /// One upsert per key, in key order (each B-tree appended to rather than written all over).
    /// `text(period, month)`: a year's or month's (`YYYYMM`) text as a C string.
    private func write(_ rows: [(year: Int32?, id: Int64?, sums: Sums)], table: String, keys: [String], in db: Database,
                       text: (Int32, Bool) -> UnsafeMutablePointer<CChar>) throws {
        guard !rows.isEmpty else { return }
        var upsert = Self.bulk(table: table, keys: keys, in: db)
        for row in rows.sorted(by: { ($0.year ?? 0, $0.id ?? 0) < ($1.year ?? 0, $1.id ?? 0) }) {
            if let period = row.year { upsert.append(text(period, keys[0] == "month")) }
            if let id = row.id { upsert.append(id) }
            upsert.append(row.sums.plays)
            upsert.append(row.sums.skips)
            upsert.append(row.sums.seconds)
            try upsert.endRow()
        }
        try upsert.finish()
    }
}
