import Foundation
import GRDB
import GRDBSQLite

/// The rows of a batch of new plays in the rollups the import adds to play by play
/// (`Rollup.Batch.eachPlay`), written as the `plays_rollup_insert` trigger
/// (`RollupTriggers`) would write them one play at a time.
///
/// Each table's key is a pair of small dense numbers (the batch's day index, the session's
/// track index, the hour, the batch's year index), so the plays are grouped by key with
/// two counting sorts rather than hash tables: linear, and a key's plays stay in the order
/// they came. A new row gets the group's seconds summed from its first play on, as the
/// trigger's insert and updates would leave it; a stored row gets each play's seconds added
/// one by one, in order, as the trigger adds them — the floating-point results are identical.
/// Keys that need no such care — one play in the batch, or a period (or track) later than
/// any stored row's, so surely new — go 64 to a statement (`BulkInsert`); the others keep
/// their statement per key.
struct ImportRollups {
    /// The batch's new plays, in order: track (index into the session's tracks), day (index
    /// into `days`), hour, counted, seconds.
    private(set) var refs: [Int32] = []
    private(set) var dayOf: [Int32] = []
    private(set) var hourOf: [Int32] = []
    private(set) var yearOf: [Int32] = []
    private(set) var monthOf: [Int32] = []
    private(set) var counted: [Bool] = []
    private(set) var played: [Double] = []

    /// The batch's local days and years.
    private(set) var days: [LocalSlot] = []
    private var dayIndex: [Int32: Int32] = [:]
    private var lastDay: (number: Int32, index: Int32) = (.min, -1)
    private(set) var years: [Int32] = []
    private(set) var months: [Int32] = []
    /// The index into `months` of each of `days`.
    private var monthOfDay: [Int32] = []
    /// Whether each of `days` is in its month's first half (`MonthHalves`).
    private(set) var firstHalfOfDay: [Bool] = []

    init(capacity: Int) {
        refs.reserveCapacity(capacity)
        dayOf.reserveCapacity(capacity)
        hourOf.reserveCapacity(capacity)
        yearOf.reserveCapacity(capacity)
        monthOf.reserveCapacity(capacity)
        counted.reserveCapacity(capacity)
        played.reserveCapacity(capacity)
    }

    var count: Int { refs.count }

    mutating func add(ref: Int32, local: LocalSlot, counted isCounted: Bool, played seconds: Double) {
        let day: Int32
        if local.dayNumber == lastDay.number {
            day = lastDay.index
        } else if let known = dayIndex[local.dayNumber] {
            day = known
        } else {
            day = Int32(days.count)
            days.append(local)
            dayIndex[local.dayNumber] = day
            var month = Int32(months.lastIndex(of: local.month) ?? -1)
            if month < 0 {
                month = Int32(months.count)
                months.append(local.month)
            }
            monthOfDay.append(month)
            // `YYYY-MM-DD`: the day of the month is its ninth and tenth characters.
            let dayOfMonth = (Int(local.dayText[8]) - 48) * 10 + Int(local.dayText[9]) - 48
            firstHalfOfDay.append(dayOfMonth <= MonthHalves.lastDayOfFirst)
        }
        lastDay = (local.dayNumber, day)
        var year = Int32(years.firstIndex(of: local.year) ?? -1)
        if year < 0 {
            year = Int32(years.count)
            years.append(local.year)
        }
        let month = monthOfDay[Int(day)]
        refs.append(ref)
        dayOf.append(day)
        hourOf.append(local.hour)
        yearOf.append(year)
        monthOf.append(month)
        counted.append(isCounted)
        played.append(seconds)
    }

    /// Writes the rollups the bulk import adds to play by play (`Rollup.Batch.eachPlay`,
    /// keyed by a period and a track or hour), in their declared order. `trackIDs`: the
    /// session's track ids, by track index.
    func write(trackIDs: [Int64], in db: Database) throws {
        guard count > 0 else { return }
        // The texts of the batch's years and months, bound as C strings (freed after the
        // statements have forgotten them: `write(_:…)` clears its bindings before it returns).
        let yearTexts = years.map { strdup(String($0))! }
        let monthTexts = months.map { strdup(LocalSlot.monthText($0))! }
        defer { for text in yearTexts + monthTexts { free(text) } }
        let identity = (0..<Int32(count)).map { $0 }
        let byTrack = Self.sorted(identity, by: refs, buckets: trackIDs.count)
        var byHour: [Int32]?
        for rollup in Rollups.all where rollup.batch == .eachPlay {
            if rollup.isFirstDay {
                try writeFirstPlays(byTrack, trackIDs: trackIDs, in: db)
                continue
            }
            let subjectOf: [Int32], bySubject: [Int32], subjectKey: (Int) -> Int64
            if rollup.subject == .hour {
                byHour = byHour ?? Self.sorted(identity, by: hourOf, buckets: 24)
                (subjectOf, bySubject, subjectKey) = (hourOf, byHour!, { Int64(hourOf[$0]) })
            } else {
                precondition(rollup.subject == .track, "\(rollup.table): the bulk import adds play by play by track or hour only")
                (subjectOf, bySubject, subjectKey) = (refs, byTrack, { trackIDs[Int(refs[$0])] })
            }
            let subjectValue = { (i: Int) in BulkInsert.Value.int(subjectKey(i)) }
            guard let period = rollup.period else {
                // Keys later than any stored row's (this import's new tracks) have no row.
                let last = try Int64.fetchOne(db, sql: "SELECT max(\(rollup.keys[0])) FROM \(rollup.table)") ?? .min
                try write(bySubject, key: (subjectOf, subjectOf), name: rollup.table, keys: rollup.keys,
                          isNew: { subjectKey($0) > last }, in: db) { i in (subjectValue(i), nil) }
                continue
            }
            // Keys in order: each table's B-tree is appended to rather than written all over.
            let periodOf: [Int32], texts: [String], periodValue: (Int) -> BulkInsert.Value
            switch period {
            case .day: (periodOf, texts, periodValue) = (dayOf, days.map { String(cString: $0.dayText) }, { .text(days[Int(dayOf[$0])].dayText) })
            case .month: (periodOf, texts, periodValue) = (monthOf, months.map(LocalSlot.monthText), { .text(monthTexts[Int(monthOf[$0])]) })
            case .year: (periodOf, texts, periodValue) = (yearOf, years.map { String($0) }, { .text(yearTexts[Int(yearOf[$0])]) })
            }
            let isNew = try Self.after(texts, period.rawValue, of: rollup.table, in: db)
            try write(Self.sorted(bySubject, by: periodOf, buckets: texts.count), key: (periodOf, subjectOf), name: rollup.table,
                      keys: rollup.keys, halves: rollup.halves, isNew: { isNew[Int(periodOf[$0])] }, in: db) { i in
                (periodValue(i), subjectValue(i))
            }
        }
    }

    /// Each track's earliest day with a counted play in the batch, into `rollup_track_first`
    /// where it is earlier than the stored one (as `Schema.firstPlayStatements` would, a play
    /// at a time). `byTrack`: the plays sorted by track.
    private func writeFirstPlays(_ byTrack: [Int32], trackIDs: [Int64], in db: Database) throws {
        var bulk = BulkInsert(db, columns: 2) { values in
            """
            INSERT INTO rollup_track_first (track_id, day) VALUES \(values)
            ON CONFLICT (track_id) DO UPDATE SET day = excluded.day WHERE excluded.day < rollup_track_first.day
            """
        }
        var g = 0
        while g < byTrack.count {
            let ref = refs[Int(byTrack[g])]
            var first: Int32 = -1
            while g < byTrack.count, refs[Int(byTrack[g])] == ref {
                let i = Int(byTrack[g])
                if counted[i], first < 0 || days[Int(dayOf[i])].dayNumber < days[Int(first)].dayNumber { first = dayOf[i] }
                g += 1
            }
            if first >= 0 {
                bulk.append(trackIDs[Int(ref)])
                bulk.append(UnsafePointer(days[Int(first)].dayText))
                try bulk.endRow()
            }
        }
        try bulk.finish()
    }

    /// Which of `periods` come after or before every `column` stored in `table` (so no row
    /// of theirs is stored yet: an export in either time order).
    static func after(_ periods: [String], _ column: String, of table: String, in db: Database) throws -> [Bool] {
        // Two subqueries: SQLite reads a min() or a max() off the index only when it is alone.
        guard let row = try Row.fetchOne(db, sql: "SELECT (SELECT min(\(column)) FROM \(table)), (SELECT max(\(column)) FROM \(table))"),
              let first: String = row[0], let last: String = row[1] else {
            return periods.map { _ in true }
        }
        return periods.map { $0 > last || $0 < first }
    }

    /// `order` stably sorted by `key[i]` (a counting sort: `key` is in 0..<buckets).
    static func sorted(_ order: [Int32], by key: [Int32], buckets: Int) -> [Int32] {
        var start = [Int32](repeating: 0, count: buckets + 1)
        for i in order { start[Int(key[Int(i)]) + 1] += 1 }
        for b in 0..<buckets { start[b + 1] += start[b] }
        var out = [Int32](repeating: 0, count: order.count)
        for i in order {
            let k = Int(key[Int(i)])
            out[Int(start[k])] = i
            start[k] += 1
        }
        return out
    }

    /// Writes one table: `order` has the plays sorted by `key`, each key's plays in the
    /// order they came. `isNew(i)`: no row with play i's key is stored (its period is
    /// later than any stored). `keyValues(i)`: play i's key. `halves`: the table is
    /// `rollup_month_track`, whose rows hold their month's first half too (`MonthHalves`):
    /// its plays and seconds, summed as the trigger sums them (a second half's play adds 0).
    private func write(_ order: [Int32], key: ([Int32], [Int32]), name: String, keys: [String], halves: Bool = false,
                       isNew: (Int) -> Bool, in db: Database, keyValues: (Int) -> (BulkInsert.Value, BulkInsert.Value?)) throws {
        let n = Int32(keys.count)
        let columns = keys.joined(separator: ", ")
        let halfColumns = halves ? ", " + MonthHalves.columns : ""
        let isFirst = { (i: Int) in firstHalfOfDay[Int(dayOf[i])] }
        let placeholders = (1...keys.count).map { "?\($0)" }.joined(separator: ", ")
        let match = keys.enumerated().map { "\($0.element) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        func bindKey(_ statement: RawStatement, _ i: Int) {
            let (first, second) = keyValues(i)
            statement.bind(1, first)
            if let second { statement.bind(2, second) }
        }
        // A key with one play, or whose row is new: many rows to a statement (`BulkInsert`).
        // A new row gets the batch's sums; a stored row gets its one play's seconds added.
        var bulk = BulkInsert(db, columns: keys.count + (halves ? 5 : 3)) { values in
            """
            INSERT INTO \(name) (\(columns), plays, skips, played_s\(halfColumns)) VALUES \(values)
            ON CONFLICT (\(columns)) DO UPDATE SET \(EntityRollups.upsert(halves: halves))
            """
        }
        // A key with a few plays in the batch that may be stored: one upsert. A new row gets
        // the batch's sums; a stored row gets each play's seconds added in order — SQL's + is
        // left-associative, and unused addends are 0.0, which adds nothing.
        // (The halves' values follow: first-half plays ?h, its seconds ?h+1, then their addends.)
        let addends = Self.addends
        let sums = (1...addends).map { " + ?\(n + 3 + Int32($0))" }.joined()
        let h = n + 4 + addends
        let halfValues = halves ? ", ?\(h), ?\(h + 1)" : ""
        let halfSums = (1...addends).map { " + ?\(h + 1 + Int32($0))" }.joined()
        let halfUpsert = halves
            ? ", first_half_plays = first_half_plays + excluded.first_half_plays, first_half_played_s = first_half_played_s\(halfSums)" : ""
        let upsert = try RawStatement(db, """
            INSERT INTO \(name) (\(columns), plays, skips, played_s\(halfColumns))
              VALUES (\(placeholders), ?\(n + 1), ?\(n + 2), ?\(n + 3)\(halfValues))
            ON CONFLICT (\(columns)) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips,
              played_s = played_s\(sums)\(halfUpsert)
            """)
        // More plays: a new row as above, or the stored seconds read and the plays added one by one.
        let insert = try RawStatement(db, """
            INSERT INTO \(name) (\(columns), plays, skips, played_s\(halfColumns))
              VALUES (\(placeholders), ?\(n + 1), ?\(n + 2), ?\(n + 3)\(halfValues))
            ON CONFLICT (\(columns)) DO NOTHING
            """)
        let select = try RawStatement(db, "SELECT played_s\(halves ? ", first_half_played_s" : "") FROM \(name) WHERE \(match)")
        let halfUpdate = halves ? ", first_half_plays = first_half_plays + ?\(h), first_half_played_s = ?\(h + 1)" : ""
        let update = try RawStatement(db, """
            UPDATE \(name) SET plays = plays + ?\(n + 1), skips = skips + ?\(n + 2), played_s = ?\(n + 3)\(halfUpdate) WHERE \(match)
            """)
        // The statements stay in GRDB's cache: they must not keep pointers to the day texts.
        defer { for statement in [upsert, insert, select, update] { statement.clearBindings() } }
        let (major, minor) = key
        var g = 0
        while g < order.count {
            // The group of plays with the key of order[g].
            let first = Int(order[g])
            var end = g + 1
            while end < order.count, major[Int(order[end])] == major[first], minor[Int(order[end])] == minor[first] { end += 1 }
            var plays: Int64 = 0, seconds = 0.0
            // The first half's: a trigger's first play sets 0 or its seconds, each next adds 0 or its.
            var firstPlays: Int64 = 0, firstSeconds = 0.0
            for j in g..<end {
                let i = Int(order[j])
                if counted[i] { plays += 1 }
                seconds = j == g ? played[i] : seconds + played[i]
                if halves && isFirst(i) {
                    if counted[i] { firstPlays += 1 }
                    firstSeconds += played[i]
                }
            }
            let skips = Int64(end - g) - plays
            if end - g == 1 || isNew(first) {
                let (k1, k2) = keyValues(first)
                bulk.append(k1)
                if let k2 { bulk.append(k2) }
                bulk.append(plays)
                bulk.append(skips)
                bulk.append(seconds)
                if halves {
                    bulk.append(firstPlays)
                    bulk.append(firstSeconds)
                }
                try bulk.endRow()
            } else if end - g <= Int(addends) {
                bindKey(upsert, first)
                upsert.bind(n + 1, plays)
                upsert.bind(n + 2, skips)
                upsert.bind(n + 3, seconds)
                for k in 0..<Int(addends) {
                    upsert.bind(n + 4 + Int32(k), g + k < end ? played[Int(order[g + k])] : 0.0)
                }
                if halves {
                    upsert.bind(h, firstPlays)
                    upsert.bind(h + 1, firstSeconds)
                    for k in 0..<Int(addends) {
                        let i = g + k < end ? Int(order[g + k]) : -1
                        upsert.bind(h + 2 + Int32(k), i >= 0 && isFirst(i) ? played[i] : 0.0)
                    }
                }
                _ = try upsert.step()
            } else {
                bindKey(insert, first)
                insert.bind(n + 1, plays)
                insert.bind(n + 2, skips)
                insert.bind(n + 3, seconds)
                if halves {
                    insert.bind(h, firstPlays)
                    insert.bind(h + 1, firstSeconds)
                }
                _ = try insert.step()
                if sqlite3_changes(db.sqliteConnection) == 0 {
                    bindKey(select, first)
                    let found = try select.step()
                    var stored = found ? select.double(0) : 0
                    var storedFirst = found && halves ? select.double(1) : 0
                    select.reset()
                    for j in g..<end {
                        let i = Int(order[j])
                        stored += played[i]
                        if halves { storedFirst += isFirst(i) ? played[i] : 0.0 }
                    }
                    bindKey(update, first)
                    update.bind(n + 1, plays)
                    update.bind(n + 2, skips)
                    update.bind(n + 3, stored)
                    if halves {
                        update.bind(h, firstPlays)
                        update.bind(h + 1, storedFirst)
                    }
                    _ = try update.step()
                }
            }
            g = end
        }
        try bulk.finish()
    }

    /// Plays of one key that one upsert adds.
    static let addends: Int32 = 8
}
