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
    private var dayTotal: [String: Sums] = [:]
    private var yearHour: [YearKey: Sums] = [:]
    /// The last play's day: plays come in time order, so most share the last day's text.
    private var lastDay: (pointer: UnsafeMutablePointer<CChar>?, text: String) = (nil, "")

    mutating func add(_ entities: Entities, local: LocalSlot, counted: Bool, played: Double) {
        let year = local.year
        if lastDay.pointer != local.dayText { lastDay = (local.dayText, String(cString: local.dayText)) }
        dayTotal[lastDay.text, default: Sums()].add(counted: counted, played: played)
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
        try write(artistTotal.map { (nil, $0.key, $0.value) }, table: "rollup_artist_total", keys: ["artist_id"], in: db)
        try write(artistYear.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_year_artist", keys: ["year", "artist_id"], in: db)
        try write(albumTotal.map { (nil, $0.key, $0.value) }, table: "rollup_album_total", keys: ["album_id"], in: db)
        try write(albumYear.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_year_album", keys: ["year", "album_id"], in: db)
        try write(artistMonth.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_month_artist", keys: ["month", "artist_id"], in: db)
        try write(albumMonth.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_month_album", keys: ["month", "album_id"], in: db)
        try write(yearTotal.map { ($0.key, nil, $0.value) }, table: "rollup_year_total", keys: ["year"], in: db)
        try write(monthTotal.map { ($0.key, nil, $0.value) }, table: "rollup_month_total", keys: ["month"], in: db)
        try write(yearHour.map { ($0.key.year, $0.key.id, $0.value) }, table: "rollup_year_hour", keys: ["year", "hour"], in: db)
        let upsert = try RawStatement(db, """
            INSERT INTO rollup_day_total (day, plays, skips, played_s) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (day) DO UPDATE SET \(EntityRollups.upsert)
            """)
        for (day, sums) in dayTotal.sorted(by: { $0.key < $1.key }) {
            upsert.bind(1, day as String?)
            upsert.bind(2, sums.plays)
            upsert.bind(3, sums.skips)
            upsert.bind(4, sums.seconds)
            _ = try upsert.step()
        }
    }

    /// One upsert per key, in key order (each B-tree appended to rather than written all over).
    private func write(_ rows: [(year: Int32?, id: Int64?, sums: Sums)], table: String, keys: [String], in db: Database) throws {
        guard !rows.isEmpty else { return }
        let n = keys.count
        let upsert = try RawStatement(db, """
            INSERT INTO \(table) (\(keys.joined(separator: ", ")), plays, skips, played_s)
            VALUES (\((1...n).map { "?\($0)" }.joined(separator: ", ")), ?\(n + 1), ?\(n + 2), ?\(n + 3))
            ON CONFLICT (\(keys.joined(separator: ", "))) DO UPDATE SET \(EntityRollups.upsert)
            """)
        for row in rows.sorted(by: { ($0.year ?? 0, $0.id ?? 0) < ($1.year ?? 0, $1.id ?? 0) }) {
            var i: Int32 = 1
            if let period = row.year {
                // A year, or a month as YYYYMM.
                upsert.bind(i, (keys[0] == "month" ? LocalSlot.monthText(period) : String(period)) as String?)
                i += 1
            }
            if let id = row.id {
                upsert.bind(i, id)
                i += 1
            }
            upsert.bind(i, row.sums.plays)
            upsert.bind(i + 1, row.sums.skips)
            upsert.bind(i + 2, row.sums.seconds)
            _ = try upsert.step()
        }
    }
}
