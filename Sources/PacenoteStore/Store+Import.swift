import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore

/// Bulk import of listens from other services' exports.
///
/// Each batch is one transaction: an interrupted import keeps the batches it committed,
/// and running it again skips them as duplicates. A listen is a duplicate when a play of
/// the same normalised track (`tracks.match_key`) starts close to it (`DuplicatePlay`, in
/// Core) — the same file imported twice, or the same play already logged by MPD
/// (milliseconds) and exported by ListenBrainz (whole seconds). Two plays of one song back
/// to back start a song's length apart and are both kept.
///
/// Rollups: the per-row trigger costs ~60 µs a play (four upserts), which would cap an
/// import at ~15,000 plays/s. Inside each batch's transaction the insert trigger is
/// dropped, the batch's rollup rows are written once per key, and the trigger is created
/// again before the commit — no other connection ever sees the schema without it. Each
/// key's sums are added in the same order the trigger would have added them, so the
/// rollups are bit-for-bit those the trigger gives (tested).
public final class ListenImportSession {
    /// The writer's page cache while importing (the store's default is 1 MiB).
    static let cacheKiB = 32_768

    let store: Store
    let source: String
    /// Keys for artist and title texts, when the caller gives none (see `insert`).
    private var textKeys: [TrackText: Int32] = [:]
    /// The track of each text key (an index into `trackRefs`), -1 until looked up.
    private var refOfKey: [Int32] = []
    /// The tracks this import's listens go to, one per track id.
    private var trackRefs: [TrackRef] = []
    private var refOfTrackID: [Int64: Int32] = [:]
    private var failed = false

    struct TrackText: Hashable {
        var artist: String?
        var title: String
    }
    /// Local day and hour by UTC quarter hour: every zone offset in use is a multiple of
    /// 15 minutes, so one quarter hour is in one local day and hour.
    private var localTimes: [Int64: LocalSlot] = [:]
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
    ///
    /// `textKeys`, one per listen: equal keys for equal artist and title texts, numbered
    /// from 0 in order of first appearance over the whole session. A reader that hashes the
    /// texts on its own thread saves the store's thread that work; without them the session
    /// numbers the texts itself. Only the first listen with a key is read for its track:
    /// later ones may carry any track.
    ///
    /// After a failed batch (rolled back) the session refuses further batches: the tracks
    /// it knew may have gone with the rollback. Running the import again is safe.
    public func insert(_ listens: [ImportedListen], textKeys keys: [Int32]? = nil,
                       now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        guard !listens.isEmpty else { return (0, 0) }
        let keys = keys ?? listens.map { listen in
            let text = TrackText(artist: listen.track.artist, title: listen.track.title)
            if let known = textKeys[text] { return known }
            let key = Int32(textKeys.count)
            textKeys[text] = key
            return key
        }
        precondition(keys.count == listens.count, "one text key per listen")
        guard !failed else { throw StoreError.sqlite("an earlier batch of this import failed; run the import again") }
        do {
            return try store.write { db in try insert(listens, keys: keys, now: now, in: db) }
        } catch {
            failed = true
            throw error
        }
    }

    /// Gives the writer connection its usual page cache back.
    public func finish() {
        guard triggerSQL != nil else { return }
        try? store.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -1024")
        }
    }

    private func insert(_ listens: [ImportedListen], keys: [Int32], now: Date, in db: Database) throws -> (imported: Int, duplicates: Int) {
        if triggerSQL == nil {
            triggerSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'plays_rollup_insert'")
            // A large batch touches more pages than the usual 1 MiB cache holds: SQLite would
            // spill them to the WAL mid-transaction and write them again. `finish()` restores it.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
        }
        guard let triggerSQL else { throw StoreError.sqlite("the trigger plays_rollup_insert is missing") }
        try db.execute(sql: "DROP TRIGGER plays_rollup_insert")

        // Tracks first, then the plays already stored around the batch's times, so that the
        // duplicate check is a look-up in memory rather than a query per listen.
        var refs: [Int32] = []
        refs.reserveCapacity(listens.count)
        var earliest = Int64.max, latest = Int64.min
        for (listen, key) in zip(listens, keys) {
            let k = Int(key)
            if k >= refOfKey.count { refOfKey += Array(repeating: -1, count: k + 1 - refOfKey.count) }
            if refOfKey[k] < 0 { refOfKey[k] = try trackRef(for: listen, now: now, in: db) }
            refs.append(refOfKey[k])
            earliest = min(earliest, listen.startedAtMs)
            latest = max(latest, listen.startedAtMs)
        }
        let window = DuplicatePlay.windowMs
        // The starts of the plays of each track (by its index in trackRefs) around this batch.
        var starts: [[Int64]] = Array(repeating: [], count: trackRefs.count)
        let existing = try RawStatement(db, "SELECT track_id, started_at_ms FROM plays WHERE started_at_ms BETWEEN ?1 AND ?2")
        existing.bind(1, earliest - window)
        existing.bind(2, latest + window + 60_000)  // minute-precision starts
        while try existing.step() {
            let trackID = existing.int64(0)
            if let ref = refOfTrackID[aliases[trackID] ?? trackID] { starts[Int(ref)].append(existing.int64(1)) }
        }

        let insertPlay = try RawStatement(db, """
            INSERT INTO plays (track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, local_day, local_hour)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            """)
        let sourceText = cString(source)
        var rollups = Rollups(capacity: listens.count)
        var duplicates = 0
        for (listen, ref) in zip(listens, refs) {
            let start = listen.startedAtMs
            if DuplicatePlay.isDuplicate(start: start, precisionMs: listen.startPrecisionMs, of: starts[Int(ref)]) {
                duplicates += 1
                continue
            }
            starts[Int(ref)].append(start)
            let track = trackRefs[Int(ref)]
            let local = localTime(start)
            insertPlay.bind(1, track.id)
            insertPlay.bind(2, start)
            insertPlay.bind(3, listen.endedAtMs)
            insertPlay.bind(4, listen.playedSeconds)
            insertPlay.bind(5, Int64(listen.counted ? 1 : 0))
            insertPlay.bindStatic(6, sourceText)
            if let player = listen.player { insertPlay.bindStatic(7, cString(player)) } else { insertPlay.bindNull(7) }
            insertPlay.bindStatic(8, local.dayText)
            insertPlay.bind(9, Int64(local.hour))
            _ = try insertPlay.step()
            rollups.add(trackID: track.id, local: local, counted: listen.counted, played: listen.playedSeconds)
        }
        try rollups.write(in: db)
        try db.execute(sql: triggerSQL)
        return (rollups.count, duplicates)
    }

    /// Texts bound to every insert (the source, local days, players), copied once as C
    /// strings that live as long as the session, so that SQLite need not copy them per row.
    private var cStrings: [String: UnsafeMutablePointer<CChar>] = [:]

    func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        if let known = cStrings[text] { return known }
        let copy = strdup(text)!
        cStrings[text] = copy
        return copy
    }

    deinit {
        for pointer in cStrings.values { free(pointer) }
    }

    /// Other tracks with a match key this import uses -> the track its listens go to.
    private var aliases: [Int64: Int64] = [:]

    /// The index in `trackRefs` of the track a listen goes to: found by match key, or added.
    private func trackRef(for listen: ImportedListen, now: Date, in db: Database) throws -> Int32 {
        let matchKey = listen.track.matchKey
        let ids = try Int64.fetchAll(db.cachedStatement(sql: """
            SELECT id FROM tracks WHERE match_key = ? ORDER BY uri IS NULL, in_library DESC, id
            """), arguments: [matchKey])
        let ref: TrackRef
        if let first = ids.first {
            ref = TrackRef(id: first, shared: ids.count > 1, matchKey: matchKey)
            for other in ids.dropFirst() { aliases[other] = first }
        } else {
            var track = listen.track
            track.uri = nil
            let id = try Store.saveTrack(track, at: now, in: db)
            if let credit = listen.credit {
                try Store.saveCredit(credit, trackID: id, in: db)
            }
            ref = TrackRef(id: id, shared: false, matchKey: matchKey)
        }
        if let known = refOfTrackID[ref.id] { return known }
        let index = Int32(trackRefs.count)
        trackRefs.append(ref)
        refOfTrackID[ref.id] = index
        return index
    }

    private var lastQuarter = Int64.min
    private var lastSlot: LocalSlot?

    private func localTime(_ ms: Int64) -> LocalSlot {
        let quarter = ms >= 0 ? ms / 900_000 : (ms - 899_999) / 900_000
        // Exports are in time order: the listen before was most likely in the same quarter hour.
        if quarter == lastQuarter, let lastSlot { return lastSlot }
        lastQuarter = quarter
        if let known = localTimes[quarter] {
            lastSlot = known
            return known
        }
        let date = Date(timeIntervalSince1970: Double(quarter * 900_000) / 1000)
        let day = store.localTime.day(of: date)
        let digits = day.split(separator: "-").map { Int($0) ?? 0 }
        let value = LocalSlot(day: day, dayText: cString(day), dayNumber: Int32(CivilDate.days(year: digits[0], month: digits[1], day: digits[2])),
                              year: Int32(digits[0]), hour: Int32(store.localTime.hour(of: date)))
        if localTimes.count > 200_000 { localTimes.removeAll(keepingCapacity: true) }
        localTimes[quarter] = value
        lastSlot = value
        return value
    }
}

/// The local day and hour of a quarter hour.
struct LocalSlot {
    var day: String
    /// `day` as a C string owned by the import session.
    var dayText: UnsafeMutablePointer<CChar>
    var dayNumber: Int32
    var year: Int32
    var hour: Int32
}

/// A prepared statement driven through SQLite's C API: binding through GRDB's
/// `StatementArguments` boxes every value, which costs more than the insert itself when
/// a million rows go in. The GRDB `Statement` owns (and finalizes) the handle.
struct RawStatement {
    let statement: Statement
    let handle: OpaquePointer
    let db: Database

    init(_ db: Database, _ sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        self.db = db
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ index: Int32, _ value: Int64) { sqlite3_bind_int64(handle, index, value) }
    func bindNull(_ index: Int32) { sqlite3_bind_null(handle, index) }
    /// Text that stays valid until the statement is reset (SQLITE_STATIC: not copied).
    func bindStatic(_ index: Int32, _ text: UnsafePointer<CChar>) { sqlite3_bind_text(handle, index, text, -1, nil) }
    func bind(_ index: Int32, _ value: Double) { sqlite3_bind_double(handle, index, value) }
    func bind(_ index: Int32, _ value: String?) {
        guard var text = value else { sqlite3_bind_null(handle, index); return }
        text.withUTF8 { bytes in
            _ = bytes.withMemoryRebound(to: CChar.self) { chars in
                sqlite3_bind_text(handle, index, chars.baseAddress, Int32(chars.count), rawTransient)
            }
        }
    }

    /// Runs one step: true when a row is there to read, false when done (and reset for the next use).
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(handle)
        if code == SQLITE_DONE { return false }
        throw DatabaseError(resultCode: ResultCode(rawValue: code),
                            message: db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }, sql: statement.sql)
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
}

/// SQLITE_TRANSIENT (a macro Swift cannot see): SQLite copies the bound text.
private let rawTransient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The rollup rows of a batch of new plays, written as the `plays_rollup_insert`
/// trigger (Schema.rollupStatements) would write them one play at a time.
struct Rollups {
    /// One key's plays: counts, and the seconds summed from the first play on (what a new
    /// row gets). A stored row gets the plays' seconds added one by one, in order, as the
    /// trigger adds them, so that floating-point results are identical.
    struct Sum {
        var plays: Int32 = 0
        var skips: Int32 = 0
        var played = 0.0
        var first: Int32
        var last: Int32
    }

    struct DayTrack: Hashable, Comparable {
        var day: Int32
        var track: Int64
        static func < (a: Self, b: Self) -> Bool { (a.day, a.track) < (b.day, b.track) }
    }

    /// The batch's new plays: track, local slot (index into `slots`), counted, seconds.
    private var trackIDs: [Int64] = []
    private var slotOf: [Int32] = []
    private var counted: [Bool] = []
    private var played: [Double] = []
    /// For each rollup table, the next play with the same key (-1: none).
    private var next: [[Int32]] = [[], [], [], []]
    private var slots: [LocalSlot] = []
    private var slotIndex: [Int32: Int32] = [:]  // day number * 24 + hour -> index in slots
    private var dayTrack: [DayTrack: Sum] = [:]
    private var dayHour: [Int32: Sum] = [:]
    private var yearTrack: [DayTrack: Sum] = [:]
    private var total: [Int64: Sum] = [:]

    init(capacity: Int) {
        trackIDs.reserveCapacity(capacity)
        slotOf.reserveCapacity(capacity)
        counted.reserveCapacity(capacity)
        played.reserveCapacity(capacity)
        for t in 0..<4 { next[t].reserveCapacity(capacity) }
    }

    var count: Int { trackIDs.count }

    mutating func add(trackID: Int64, local: LocalSlot, counted isCounted: Bool, played seconds: Double) {
        let index = Int32(trackIDs.count)
        let hourKey = local.dayNumber * 24 + local.hour
        let slot: Int32
        if let known = slotIndex[hourKey] {
            slot = known
        } else {
            slot = Int32(slots.count)
            slots.append(local)
            slotIndex[hourKey] = slot
        }
        trackIDs.append(trackID)
        slotOf.append(slot)
        counted.append(isCounted)
        played.append(seconds)
        for t in 0..<4 { next[t].append(-1) }
        Self.link(&dayTrack, DayTrack(day: local.dayNumber, track: trackID), table: 0, index, isCounted, seconds, &next)
        Self.link(&dayHour, hourKey, table: 1, index, isCounted, seconds, &next)
        Self.link(&yearTrack, DayTrack(day: local.year, track: trackID), table: 2, index, isCounted, seconds, &next)
        Self.link(&total, trackID, table: 3, index, isCounted, seconds, &next)
    }

    private static func link<K: Hashable>(_ sums: inout [K: Sum], _ key: K, table: Int, _ index: Int32, _ counted: Bool,
                                          _ seconds: Double, _ next: inout [[Int32]]) {
        if let i = sums.index(forKey: key) {
            let last = sums.values[i].last
            next[table][Int(last)] = index
            sums.values[i].last = index
            if counted { sums.values[i].plays += 1 } else { sums.values[i].skips += 1 }
            sums.values[i].played += seconds
        } else {
            sums[key] = Sum(plays: counted ? 1 : 0, skips: counted ? 0 : 1, played: seconds, first: index, last: index)
        }
    }

    func write(in db: Database) throws {
        guard count > 0 else { return }
        // Keys in order: each table's B-tree is appended to rather than written all over.
        try write(dayTrack.sorted { $0.key < $1.key }.map(\.value), table: 0, name: "rollup_day_track", keys: ["day", "track_id"], in: db) { s, i in
            s.bindStatic(1, slots[Int(slotOf[i])].dayText)
            s.bind(2, trackIDs[i])
        }
        try write(dayHour.sorted { $0.key < $1.key }.map(\.value), table: 1, name: "rollup_day_hour", keys: ["day", "hour"], in: db) { s, i in
            s.bindStatic(1, slots[Int(slotOf[i])].dayText)
            s.bind(2, Int64(slots[Int(slotOf[i])].hour))
        }
        try write(yearTrack.sorted { $0.key < $1.key }.map(\.value), table: 2, name: "rollup_year_track", keys: ["year", "track_id"], in: db) { s, i in
            s.bind(1, String(slots[Int(slotOf[i])].year) as String?)
            s.bind(2, trackIDs[i])
        }
        try write(total.sorted { $0.key < $1.key }.map(\.value), table: 3, name: "rollup_track_total", keys: ["track_id"], in: db) { s, i in
            s.bind(1, trackIDs[i])
        }
    }

    private func write(_ sums: [Sum], table: Int, name: String, keys: [String], in db: Database,
                       bindKey: (RawStatement, Int) -> Void) throws {
        let n = Int32(keys.count)
        let columns = keys.joined(separator: ", ")
        let placeholders = (1...keys.count).map { "?\($0)" }.joined(separator: ", ")
        let match = keys.enumerated().map { "\($0.element) = ?\($0.offset + 1)" }.joined(separator: " AND ")
        // A key with few plays in the batch: one upsert. A new row gets the batch's sums (as
        // the trigger's INSERT and updates would leave it); a stored row gets each play's
        // seconds added in order — SQL's + is left-associative, and unused addends are 0.0,
        // which adds nothing.
        let addends = Self.addends
        let sums8 = (1...addends).map { " + ?\(n + 3 + Int32($0))" }.joined()
        let upsert = try RawStatement(db, """
            INSERT INTO \(name) (\(columns), plays, skips, played_s) VALUES (\(placeholders), ?\(n + 1), ?\(n + 2), ?\(n + 3))
            ON CONFLICT (\(columns)) DO UPDATE SET plays = plays + excluded.plays, skips = skips + excluded.skips,
              played_s = played_s\(sums8)
            """)
        // More plays: a new row as above, or the stored seconds read and the plays added one by one.
        let insert = try RawStatement(db, """
            INSERT INTO \(name) (\(columns), plays, skips, played_s) VALUES (\(placeholders), ?\(n + 1), ?\(n + 2), ?\(n + 3))
            ON CONFLICT (\(columns)) DO NOTHING
            """)
        let select = try RawStatement(db, "SELECT played_s FROM \(name) WHERE \(match)")
        let update = try RawStatement(db, """
            UPDATE \(name) SET plays = plays + ?\(n + 1), skips = skips + ?\(n + 2), played_s = ?\(n + 3) WHERE \(match)
            """)
        for sum in sums {
            let first = Int(sum.first)
            if sum.plays + sum.skips <= addends {
                bindKey(upsert, first)
                upsert.bind(n + 1, Int64(sum.plays))
                upsert.bind(n + 2, Int64(sum.skips))
                upsert.bind(n + 3, sum.played)
                var i = sum.first
                for k in 1...Int32(addends) {
                    upsert.bind(n + 3 + k, i >= 0 ? played[Int(i)] : 0.0)
                    if i >= 0 { i = next[table][Int(i)] }
                }
                _ = try upsert.step()
                continue
            }
            bindKey(insert, first)
            insert.bind(n + 1, Int64(sum.plays))
            insert.bind(n + 2, Int64(sum.skips))
            insert.bind(n + 3, sum.played)
            _ = try insert.step()
            guard sqlite3_changes(db.sqliteConnection) == 0 else { continue }
            bindKey(select, first)
            var stored = try select.step() ? select.double(0) : 0
            sqlite3_reset(select.handle)
            var i = sum.first
            while i >= 0 {
                stored += played[Int(i)]
                i = next[table][Int(i)]
            }
            bindKey(update, first)
            update.bind(n + 1, Int64(sum.plays))
            update.bind(n + 2, Int64(sum.skips))
            update.bind(n + 3, stored)
            _ = try update.step()
        }
    }

    /// Plays of one key that one upsert adds.
    static let addends: Int32 = 8
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
            var conditions: [String] = []
            var arguments: StatementArguments = []
            Store.startedBetween(from, to, &conditions, &arguments)
            let rows = try Row.fetchCursor(db, sql: """
                SELECT \(Store.playWithTrackColumns) FROM plays p JOIN tracks t ON t.id = p.track_id
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY p.started_at_ms, p.id
                """, arguments: arguments)
            while let row = try rows.next() {
                try body(Store.playWithTrack(from: row))
            }
        }
    }
}
