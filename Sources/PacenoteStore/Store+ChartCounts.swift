import GRDB
import PacenoteCore

/// What ListenBrainz's statistics add to a chart: how long the whole chart is, and the
/// MusicBrainz ids of its artists and albums. From the same rollups as the charts.
extension Store {
    /// How many tracks (artists, albums) were played in the local days `fromDay`…`toDay`
    /// (counted plays; ListenBrainz's `total_…_count`): the rows with plays of the range's
    /// rollup when one answers it whole, else of its pieces' (`RangePieces`) told apart by
    /// id — what those pieces hold, never the plays.
    public func chartedCount(_ entity: ChartEntity, fromDay: String, toDay: String) throws(StoreError) -> Int {
        try read { db in try Store.chartedCount(entity, Store.rangeSource(fromDay: fromDay, toDay: toDay, in: db), fromDay: fromDay, toDay: toDay, in: db) }
    }

    /// `chartedCount` in a read, of the range as `rangeSource` gave it.
    static func chartedCount(_ entity: ChartEntity, _ source: RangeSource?, fromDay: String, toDay: String, in db: Database) throws -> Int {
        var selects: [String] = []
        var arguments: [DatabaseValueConvertible] = []
        switch source {
        case .whole(let whole)?:
            let table = whole.table(entity.rawValue)
            if case .all = whole {
                // Every row but those of skips only. A whole table's COUNT(*) is SQLite's
                // count of its b-tree pages' cells (no row is read), and the skip-only
                // rows are a range of the index by plays (`…_top`): 0.34 ms at 150k tracks,
                // where reading every row for `plays > 0` took 7.3 ms.
                return try Int.fetchOne(db, sql: """
                    SELECT (SELECT COUNT(*) FROM \(table.name)) - (SELECT COUNT(*) FROM \(table.name) WHERE plays <= 0)
                    """) ?? 0
            }
            // A year's: its count (v22, `YearChartLengths`). Counting its rows less its
            // skip-only ones read them all: ~15,000 artists of a year at 5M plays.
            guard case .year(let year) = whole else { return 0 }
            return try YearChartLengths.charted(entity.rawValue, year: year, in: db)
        case .pieces(let pieces)?:
            for (period, keys) in [(EntityRollups.Period.year, pieces.years), (.month, pieces.months)] where !keys.isEmpty {
                selects.append("""
                    SELECT \(entity.idColumn) AS id FROM \(entity.table(period))
                    WHERE \(period.rawValue) IN (\(Array(repeating: "?", count: keys.count).joined(separator: ", "))) AND plays > 0
                    """)
                arguments += keys as [DatabaseValueConvertible]
            }
            for run in pieces.days {
                selects.append("SELECT id FROM (\(entity.daysSource)) WHERE plays > 0")
                arguments += [run.from, run.to]
            }
        case nil:
            selects.append("SELECT id FROM (\(entity.daysSource)) WHERE plays > 0")
            arguments += [fromDay, toDay]
        }
        guard !selects.isEmpty else { return 0 }
        // An artist has a row per track of it on a day: ids are told apart over every
        // piece, in memory (SQLite's COUNT(DISTINCT) over the pieces' UNION ALL sorted
        // every row first: half a year's albums at 5M plays, 43,000 rows, took 15 ms).
        var distinct = DistinctIDs()
        let statement = try RawStatement(db, selects.joined(separator: " UNION ALL "), arguments: StatementArguments(arguments))
        while try statement.step() { distinct.insert(statement.int64(0)) }
        return distinct.count
    }

    /// Ids told apart: a bit per id while they are small (row ids of tracks, artists and
    /// albums), a set past that.
    struct DistinctIDs {
        private var bits: [UInt64] = []
        private var large: Set<Int64> = []
        private(set) var count = 0

        /// Ids up to this go in the bits (at most 8 MiB of them).
        static let bitLimit: Int64 = 1 << 26

        mutating func insert(_ id: Int64) {
            guard id >= 0, id < Self.bitLimit else {
                if large.insert(id).inserted { count += 1 }
                return
            }
            let word = Int(id >> 6), bit = UInt64(1) << UInt64(id & 63)
            if word >= bits.count { bits += repeatElement(0, count: max(word + 1, bits.count * 2) - bits.count) }
            if bits[word] & bit == 0 {
                bits[word] |= bit
                count += 1
            }
        }
    }

    /// The position of each id in an array being summed, by open addressing with a
    /// multiplicative (Fibonacci) hash: the ids a run of days sums are row ids, and Swift's
    /// Dictionary hashes each with SipHash — a fifth of summing a week's rows at 5M plays
    /// (perf, DWARF call graphs).
    struct IDPositions {
        private var keys: [Int64]
        private var positions: [Int32]
        private var shift: UInt64
        private(set) var count = 0

        /// Room for `capacity` ids before it grows.
        init(capacity: Int = 0) {
            var bits: UInt64 = 4
            while (1 << bits) < max(16, capacity * 2) { bits += 1 }
            keys = [Int64](repeating: 0, count: 1 << bits)
            positions = [Int32](repeating: -1, count: 1 << bits)
            shift = 64 - bits
        }

        private func slot(_ id: Int64) -> Int {
            Int(truncatingIfNeeded: (UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> shift)
        }

        /// The position of `id`, or `next` given to it (then `inserted`).
        mutating func position(of id: Int64, orInsert next: Int) -> (position: Int, inserted: Bool) {
            let mask = keys.count - 1
            var i = slot(id)
            while positions[i] >= 0 {
                if keys[i] == id { return (Int(positions[i]), false) }
                i = (i + 1) & mask
            }
            keys[i] = id
            positions[i] = Int32(truncatingIfNeeded: next)
            count += 1
            if count * 2 > keys.count { grow() }
            return (next, true)
        }

        private mutating func grow() {
            let (oldKeys, oldPositions) = (keys, positions)
            self = IDPositions(capacity: keys.count)
            for (key, position) in zip(oldKeys, oldPositions) where position >= 0 {
                var i = slot(key)
                while positions[i] >= 0 { i = (i + 1) & (keys.count - 1) }
                keys[i] = key
                positions[i] = position
                count += 1
            }
        }
    }

    /// The MusicBrainz artist ids of artists (by entity id) that have one.
    public func artistMBIDs(_ ids: [Int64]) throws(StoreError) -> [Int64: String] {
        try mbids("SELECT id, mbid FROM artists WHERE mbid IS NOT NULL AND id IN", ids)
    }

    /// The MusicBrainz release ids of albums (by entity id) that have one.
    public func releaseMBIDs(_ ids: [Int64]) throws(StoreError) -> [Int64: String] {
        try mbids("SELECT id, mb_release_id FROM albums WHERE mb_release_id IS NOT NULL AND id IN", ids)
    }

    private func mbids(_ select: String, _ ids: [Int64]) throws(StoreError) -> [Int64: String] {
        let ids = Array(Set(ids))
        guard !ids.isEmpty else { return [:] }
        return try read { db in
            var out: [Int64: String] = [:]
            for chunk in stride(from: 0, to: ids.count, by: 500) {
                let part = Array(ids[chunk..<min(chunk + 500, ids.count)])
                for row in try Row.fetchAll(db, sql: "\(select) (\(Array(repeating: "?", count: part.count).joined(separator: ", ")))",
                                            arguments: StatementArguments(part)) {
                    out[row[0]] = row[1]
                }
            }
            return out
        }
    }
}

/// How many tracks, artists and albums each year has with counted plays (v22): the length of
/// a year's chart, ListenBrainz's `total_…_count` of this year or a past one, as rows of
/// `rollup_year_charted` kept by triggers on the year rollups (a row's plays becoming
/// positive or not). Counting a year's rows read each of them: ~15,000 artists of a year at
/// 5M plays, most of "this year's artists" there (1.4–1.8 ms p50 against 0.8–0.9 at 100k).
///
/// A bulk import sets the triggers aside with the plays' own and counts again the years it
/// wrote (`recount`): firing for each of the ~1.4M year rows 5M plays write would cost it
/// seconds.
enum YearChartLengths {
    static let entities = ["track", "artist", "album"]

    /// The counts of `years` (all when nil) counted again from the year rollups.
    static func recount(years: [String]?, in db: Database) throws {
        let marks = years.map { Array(repeating: "?", count: $0.count).joined(separator: ", ") }
        let only = marks.map { " AND year IN (\($0))" } ?? ""
        let arguments = StatementArguments(years ?? [])
        try db.execute(sql: "DELETE FROM rollup_year_charted WHERE true\(only)", arguments: arguments)
        for entity in entities {
            try db.execute(sql: """
                INSERT INTO rollup_year_charted (year, entity, charted)
                SELECT year, '\(entity)', COUNT(*) FROM rollup_year_\(entity) WHERE plays > 0\(only) GROUP BY year
                """, arguments: arguments)
        }
    }

    /// The length of `entity`'s chart of `year`.
    static func charted(_ entity: String, year: String, in db: Database) throws -> Int {
        let statement = try RawStatement(db, "SELECT charted FROM rollup_year_charted WHERE year = ?1 AND entity = ?2")
        statement.bind(1, year)
        statement.bind(2, entity)
        guard try statement.step() else { return 0 }
        defer { statement.reset() }
        return Int(statement.int64(0))
    }
}
