import Foundation
import GRDB
import GRDBSQLite
import PacenoteCore

/// Bulk import of listens from other services' exports.
///
/// Each transaction (`insert(now:batches:)`, several batches from the reader) commits on its
/// own: an interrupted import keeps the transactions it committed, and running it again
/// skips them as duplicates. A listen is a duplicate when a play of the same normalised
/// track (`tracks.match_key`) starts close to it (`DuplicatePlay`, in Core) — the same file
/// imported twice, or the same play already logged by MPD (milliseconds) and exported by
/// ListenBrainz (whole seconds). Two plays of one song back to back start a song's length
/// apart and are both kept.
///
/// Rollups: the per-row trigger costs ~60 µs a play (four upserts), which would cap an
/// import at ~15,000 plays/s. Inside each transaction the insert triggers are dropped, its
/// rollup rows are written once per key at its end (`ImportRollups`, `ImportEntityRollups`),
/// and the triggers are created again before the commit — no other connection ever sees the
/// schema without them. Each track rollup key's sums are added in the same order the
/// trigger would have added them, so those rollups are bit-for-bit what the trigger gives
/// (tested). The search index's trigger on `tracks` is handled the same way. Checkpoints
/// run beside the writer (`WALCheckpointer`). An import large beside the stored history
/// drops the rollups' ranking indexes (and two of the tracks' own) and builds them again at
/// `finish()` (`DeferredIndexes`).
public final class ListenImportSession {
    /// The writer's page cache while importing (the store's default is `Store.cacheKiB`).
    static let cacheKiB = 32_768

    let store: Store
    let source: String
    /// Numbers the tracks of listens given as `ImportedListen`s.
    private var batcher: ImportBatcher
    /// The separators credit text is split with (`Store.creditSeparators`), for the
    /// reader that builds this session's batches.
    public let separators: [String]
    /// The curation rules the batches are made with (`makeBatcher`).
    public let rules: RuleSet
    /// The track of each key (an index into `trackIDs`), -1 until looked up.
    var refOfKey: [Int32] = []
    /// The tracks this import's listens go to, one per track id.
    var trackIDs: [Int64] = []
    var refOfTrackID: [Int64: Int32] = [:]
    private var failed = false

    /// Local days and hours of the listens' starts.
    private var walker: LocalTime.Walker
    /// Each local day's text (a C string owned by the session), year and month (`YYYYMM`), by day number.
    private var days: [Int32: (text: UnsafeMutablePointer<CChar>, year: Int32, month: Int32)] = [:]
    private var triggerSQL: String?

    /// `rules`: the curation rules in force, applied by the batcher as it reads
    /// (`makeBatcher`), before anything reaches the session.
    public init(store: Store, source: String, rules: RuleSet = .empty) {
        self.store = store
        self.source = source
        self.walker = LocalTime.Walker(timeZone: store.localTime.timeZone)
        // A database that cannot be read here fails the first batch with its error.
        self.separators = (try? store.creditSeparators()) ?? []
        self.rules = rules
        self.batcher = ImportBatcher(separators: separators, rules: rules)
    }

    /// A batcher for this session's batches (the reader's, on its own thread): its
    /// separators and rules. Its keys are the session's: one batcher per session.
    public func makeBatcher() -> ImportBatcher { ImportBatcher(separators: separators, rules: rules) }

    /// Stores listens in one transaction (see `insert(_: ImportBatch)`).
    public func insert(_ listens: [ImportedListen], now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        for listen in listens { batcher.add(listen) }
        return try insert(batcher.take(), now: now)
    }

    /// Stores a batch in one transaction (see `insert(now:batches:)`).
    public func insert(_ batch: ImportBatch, now: Date = Date()) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var batches = CollectionOfOne(batch).makeIterator()
        return try insert(now: now) { batches.next() }
    }

    /// Stores the batches `next` gives, until it gives nil, in one transaction. Returns how
    /// many plays were new and how many were duplicates. A session takes the batches of one
    /// `ImportBatcher`, in order: a key's track comes with the first batch that uses it.
    ///
    /// One transaction of several batches: the reader hands over small batches (what is in
    /// flight stays small), while the rows every transaction rewrites — each played track's,
    /// artist's and album's totals and years, and the pages of the indexes that go by track —
    /// are written once per transaction, not once per batch. The rollups are summed over the
    /// whole transaction, so they are those a single batch of all its plays gives.
    ///
    /// After a failed transaction (rolled back) the session refuses further batches: the
    /// tracks it knew may have gone with the rollback. Running the import again is safe.
    public func insert(now: Date = Date(), batches next: () -> ImportBatch?) throws(StoreError) -> (imported: Int, duplicates: Int) {
        var first: ImportBatch?
        while first == nil, let batch = next() {
            if !batch.isEmpty { first = batch }
        }
        guard let first else { return (0, 0) }
        guard !failed else { throw StoreError.sqlite("an earlier batch of this import failed; run the import again") }
        // The last commit's pages copied first: a transaction that begins with the WAL wholly
        // copied writes it from its start again. Begun while the copy ran, it would append, and
        // the WAL would grow by every transaction (1.7 GB for 5M plays), each write a new block.
        checkpointer.caughtUp()
        do {
            let result = try store.writeWithoutForeignKeyChecks { db in
                var transaction = try begin(capacity: first.plays.count, in: db)
                // Known at once: if the transaction then fails, `finish()` finds no record
                // (rolled back) or its own (committed, and a later step failed), and builds it.
                if try dropRankingIndexesIfWorthIt(in: db) { droppedIndexes = true }
                var batch: ImportBatch? = first
                while let current = batch {
                    try add(current, now: now, to: &transaction, in: db)
                    batch = next()
                }
                return try end(transaction, now: now, in: db)
            }
            imported += result.imported
            checkpointer.committed()
            return result
        } catch {
            failed = true
            throw error
        }
    }

    /// Builds again the ranking indexes the import dropped, and gives the writer connection
    /// its usual page cache and checkpoints back.
    public func finish() {
        guard triggerSQL != nil else { return }
        if droppedIndexes {
            droppedIndexes = false
            // A failure (a full disk) leaves them recorded: the next open builds them
            // (`DeferredIndexes`). Only this process's record: another's is its own to build.
            try? DeferredIndexes.build(in: store.pool, only: { $0 == DeferredIndexes.owner[...] }, afterEach: {
                checkpointer.committed()
                checkpointer.caughtUp()
            })
        }
        checkpointer.finish()
        try? store.pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = -\(Store.cacheKiB); PRAGMA wal_autocheckpoint = \(Self.autocheckpointPages)")
        }
    }

    /// Whether this session dropped the rollups' ranking indexes (`DeferredIndexes`), to
    /// build them again at `finish()`; whether it decided not to; what it has imported; the
    /// plays stored when it began (roughly: the highest play id).
    private var droppedIndexes = false
    /// Whether `finish()` builds the rollups' ranking indexes again.
    public var buildsIndexesAtFinish: Bool { droppedIndexes }
    private var keepsIndexes = false
    private var imported = 0
    private var storedAtStart: Int64?

    /// Drops the ranking indexes and the others `DeferredIndexes` names (in the transaction
    /// under way) if what the import writes is large beside what is stored: building them
    /// again reads every rollup row and every track, once.
    private func dropRankingIndexesIfWorthIt(in db: Database) throws -> Bool {
        guard !droppedIndexes, !keepsIndexes else { return false }
        if storedAtStart == nil { storedAtStart = try Int64.fetchOne(db, sql: "SELECT max(id) FROM plays") ?? 0 }
        let stored = storedAtStart!
        guard stored < DeferredIndexes.fewPlays || Int64(imported) >= stored else { return false }
        if try DeferredIndexes.drop(in: db) { return true }
        keepsIndexes = true
        return false
    }

    /// SQLite's default threshold for the automatic checkpoint, in pages.
    static let autocheckpointPages = 1000
    private(set) lazy var checkpointer = WALCheckpointer(path: store.path)

    /// What one transaction has written so far, for its rollups and search index.
    private struct Transaction {
        /// Its new plays, for every rollup (`ImportRollups`, `ImportEntityRollups`).
        var rollups: ImportRollups
        /// The ids of the tracks it added (their search index rows are written at its end).
        var addedTracks: ClosedRange<Int64>?
        var duplicates = 0
        /// Its plays the rules hid, written at its end (`writeHidden`).
        var hidden: [ImportBatch.HiddenPlay] = []
        /// Artists and albums met by its new tracks (ids cannot change while it holds the lock).
        let entityIDs = EntityIDCache()
        /// The plays' ids before it (its plays come after) and the span of its batches' plays:
        /// the runs its plays fall in are measured again (`markPacesStale(afterPlay:)`).
        var playsBefore: Int64 = 0
        var span: ClosedRange<Int64>?
    }

    private func begin(capacity: Int, in db: Database) throws -> Transaction {
        if triggerSQL == nil {
            triggerSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'plays_rollup_insert'")
            // A large transaction touches more pages than the usual cache holds: SQLite would
            // spill them to the WAL mid-transaction and write them again. `finish()` restores it.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
            // Checkpoints on a thread of their own (`WALCheckpointer`), not in the writer's commits.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        guard triggerSQL != nil else { throw StoreError.sqlite("the trigger plays_rollup_insert is missing") }
        // Whether every stored track is still one this session added or found (see
        // `knowsEveryTrack`): nothing was committed since its last transaction, by another
        // connection (SQLite's data version) or through this one (its change count).
        let mark = try Row.fetchOne(db, sql: "SELECT total_changes(), (SELECT data_version FROM pragma_data_version)")!
        let now = (changes: mark[0] as Int64, version: mark[1] as Int64)
        if knowsEveryTrack == nil {
            knowsEveryTrack = try !(Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tracks)") ?? true)
        } else if let last = lastMark, last != now {
            knowsEveryTrack = false
        }
        if entityTriggerSQL == nil {
            entityTriggerSQL = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'plays_entity_rollup_insert'")
        }
        guard entityTriggerSQL != nil else { throw StoreError.sqlite("the trigger plays_entity_rollup_insert is missing") }
        let generation = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'entity_generation'")
        if generation != entityGeneration {
            entityOf = Array(repeating: nil, count: entityOf.count)
            entityGeneration = generation
        }
        try db.execute(sql: "DROP TRIGGER plays_rollup_insert; DROP TRIGGER plays_entity_rollup_insert")
        // The year rollups' counts (v22, `YearChartLengths`) are counted again at the end,
        // for the years written: their triggers would fire for every year row written.
        if yearCountTriggers == nil {
            yearCountTriggers = try Row.fetchAll(db, sql: """
                SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'rollup\\_year\\_%\\_charted\\_%' ESCAPE '\\'
                ORDER BY name
                """).map { (name: $0[0] as String, sql: $0[1] as String) }
        }
        for trigger in yearCountTriggers! { try db.execute(sql: "DROP TRIGGER \(trigger.name)") }
        var transaction = Transaction(rollups: ImportRollups(capacity: capacity))
        transaction.playsBefore = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM plays") ?? 0
        return transaction
    }

    /// Writes the transaction's rollups and search index rows, and creates the triggers again.
    private func end(_ transaction: Transaction, now: Date, in db: Database) throws -> (imported: Int, duplicates: Int) {
        try Rollups.write(transaction.rollups, trackIDs: trackIDs, entities: entityOf, in: db)
        try db.execute(sql: triggerSQL!)
        try db.execute(sql: entityTriggerSQL!)
        try YearChartLengths.recount(years: transaction.rollups.years.map { String($0) }, in: db)
        for trigger in yearCountTriggers! { try db.execute(sql: trigger.sql) }
        if let addedTracks = transaction.addedTracks {
            // The search index's rows for the new tracks, in one statement, after the plays:
            // once the index takes part in a transaction, SQLite has it open and close a
            // savepoint around every later statement.
            try db.execute(sql: """
                INSERT INTO tracks_fts (rowid, title, artist, album)
                SELECT id, title, artist, album FROM tracks WHERE id BETWEEN ? AND ?
                """, arguments: [addedTracks.lowerBound, addedTracks.upperBound])
            try db.execute(sql: ftsTriggerSQL!)
        }
        // With every trigger back: a hidden play's track is filed as any other write's.
        try writeHidden(transaction.hidden, now: now, in: db)
        if let span = transaction.span {
            try Store.markPacesStale(afterPlay: transaction.playsBefore, fromMs: span.lowerBound, toMs: span.upperBound, in: db)
        }
        let mark = try Row.fetchOne(db, sql: "SELECT total_changes(), (SELECT data_version FROM pragma_data_version)")!
        lastMark = (mark[0] as Int64, mark[1] as Int64)
        return (transaction.rollups.count, transaction.duplicates)
    }

    /// Whether every track stored is one this session added or found: the database had none
    /// when the session began, and nothing else has been committed since (checked at each
    /// transaction's beginning against `lastMark`). A new identity whose match key and
    /// recording no stored track can have (`mayBeStored`) is then a new track without a
    /// look-up, as a first import of a library's history has one for nearly every listen.
    /// Once false, false for the session. nil before its first transaction.
    var knowsEveryTrack: Bool?
    /// The hashes of the match keys and recordings of every track this session added or
    /// found: a hash not among them is no stored track's (while `knowsEveryTrack`). Numbers,
    /// not texts: a first import of many tracks holds 8 bytes a track here.
    var matchKeyHashes: Set<Int> = []
    var recordingHashes: Set<Int> = []
    /// The connection's change count and SQLite's data version as the last transaction ended.
    private var lastMark: (changes: Int64, version: Int64)?
    /// How many identities this session has looked up in `tracks` (for tests).
    public internal(set) var trackLookUps = 0

    /// Stores one batch's tracks and plays; their rollups are summed into the transaction's.
    private func add(_ batch: ImportBatch, now: Date, to transaction: inout Transaction, in db: Database) throws {
        transaction.hidden += batch.hidden
        // Tracks first, then the plays already stored around the batch's times, so that the
        // duplicate check is a look-up in memory rather than a query per listen.
        if let added = try resolveTracks(batch.tracks, now: now, dropping: transaction.addedTracks == nil, entityIDs: transaction.entityIDs, in: db) {
            transaction.addedTracks = transaction.addedTracks.map { min($0.lowerBound, added.lowerBound)...max($0.upperBound, added.upperBound) } ?? added
        }
        guard !batch.plays.isEmpty else { return }
        var earliest = Int64.max, latest = Int64.min, lastEnd = Int64.min
        for play in batch.plays {
            earliest = min(earliest, play.startedAtMs)
            latest = max(latest, play.startedAtMs)
            lastEnd = max(lastEnd, play.endedAtMs)
        }
        transaction.span = transaction.span.map { min($0.lowerBound, earliest)...max($0.upperBound, lastEnd) } ?? (earliest...max(earliest, lastEnd))
        let window = DuplicatePlay.windowMs
        // The starts of the plays of each track (by its index in trackIDs) around this batch.
        var starts: [[Int64]] = Array(repeating: [], count: trackIDs.count)
        // Whether a track's starts are out of order (a file not in time order): then scanned.
        var unordered = [Bool](repeating: false, count: trackIDs.count)
        let existing = try RawStatement(db, "SELECT track_id, started_at_ms FROM plays WHERE started_at_ms BETWEEN ?1 AND ?2")
        existing.bind(1, earliest - window)
        existing.bind(2, latest + window + 60_000)  // minute-precision starts
        while try existing.step() {
            let trackID = existing.int64(0)
            if let ref = refOfTrackID[aliases[trackID] ?? trackID].map(Int.init) {
                let start = existing.int64(1)
                if let last = starts[ref].last, start < last { unordered[ref] = true }
                starts[ref].append(start)
            }
        }

        // OR IGNORE: a statement of many rows that may abort needs a statement journal, a copy
        // of every page it changes; one ignored row (a constraint broken) fails the batch instead.
        var insertPlays = BulkInsert(db, columns: 9, everyRowChanges: true) { values in
            "INSERT OR IGNORE INTO plays (\(Self.playColumns)) VALUES \(values)"
        }
        let sourceText = cString(source)
        let players = batch.players.map(cString)
        // The new plays (by their index in the batch) with their local day and hour.
        var kept: [(index: Int32, trackID: Int64, day: UnsafeMutablePointer<CChar>, hour: Int32)] = []
        kept.reserveCapacity(batch.plays.count)
        for (index, play) in batch.plays.enumerated() {
            let ref = Int(refOfKey[Int(play.key)])
            let start = play.startedAtMs
            let precision = Int64(play.startPrecisionMs)
            if unordered[ref] ? DuplicatePlay.isDuplicate(start: start, precisionMs: precision, of: starts[ref])
                              : DuplicatePlay.isDuplicate(start: start, precisionMs: precision, ofAscending: starts[ref]) {
                transaction.duplicates += 1
                continue
            }
            if let last = starts[ref].last, start < last { unordered[ref] = true }
            starts[ref].append(start)
            let trackID = trackIDs[ref]
            let local = localTime(start)
            kept.append((Int32(index), trackID, local.dayText, local.hour))
            // The rollups in the order the plays came (as the trigger would add them, a play
            // at a time in time order).
            transaction.rollups.add(ref: Int32(ref), local: local, counted: play.counted, played: play.playedSeconds)
            if entityOf[ref] == nil { entityOf[ref] = try ImportEntityRollups.Entities(track: trackID, in: db) }
        }
        // The rows by track: `plays_identity` (track, start) is the one index written all
        // over (a batch's plays are spread over every track); in its order, consecutive rows
        // land on the same pages instead of one page each. The ids still say nothing of time
        // (an export of older plays imported later gets higher ids anyway).
        kept.sort { ($0.trackID, $0.index) < ($1.trackID, $1.index) }
        for row in kept {
            let play = batch.plays[Int(row.index)]
            insertPlays.append(row.trackID)
            insertPlays.append(play.startedAtMs)
            insertPlays.append(play.endedAtMs)
            insertPlays.append(play.playedSeconds)
            insertPlays.append(Int64(play.counted ? 1 : 0))
            insertPlays.append(sourceText)
            insertPlays.append(play.player >= 0 ? .text(players[Int(play.player)]) : .null)
            insertPlays.append(row.day)
            insertPlays.append(Int64(row.hour))
            try insertPlays.endRow()
        }
        try insertPlays.finish()
    }

    static let playColumns = "track_id, started_at_ms, ended_at_ms, played_s, counted, source, player, local_day, local_hour"

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

    private var entityTriggerSQL: String?
    /// The year rollups' count triggers (v22), dropped during each transaction.
    private var yearCountTriggers: [(name: String, sql: String)]?
    /// The artists and album of each of `trackIDs`, for the entity rollups; nil until read.
    /// Forgotten when a track moved to other entities between two batches (another
    /// connection's library mirror, a change of separators: `meta.entity_generation`).
    var entityOf: [ImportEntityRollups.Entities?] = []
    private var entityGeneration: String?

    /// Other tracks with a match key this import uses -> the track its listens go to.
    var aliases: [Int64: Int64] = [:]

    /// What decides a listen's track: its recording id when it has one, else its match key.
    /// A track's identity, hashed by the hashes the reader computed (`ImportBatch.NewTrack`):
    /// the writer compares its texts only when the hashes meet.
    struct Identity: Hashable {
        var matchKey: String
        var recording: String?
        var hashes: (matchKey: Int, recording: Int?)

        func hash(into hasher: inout Hasher) {
            hasher.combine(hashes.matchKey)
            hasher.combine(hashes.recording)
        }

        static func == (a: Identity, b: Identity) -> Bool { a.matchKey == b.matchKey && a.recording == b.recording }
    }

    /// The track of each identity this session has met (an index into `trackIDs`), up to
    /// `rememberedIdentities`: then it is emptied, and an identity met again is found in the
    /// store (`mayBeStored`), so that what the session holds of the tracks' texts is bounded
    /// whatever the file. (The reader gives a text once, until it forgets it:
    /// `ImportBatcher.rememberedBytesLimit`; a new key of an identity met is rare.)
    var refOfIdentity: [Identity: Int32] = [:]
    var rememberedIdentities = 50_000
    var ftsTriggerSQL: String?

    private func localTime(_ ms: Int64) -> LocalSlot {
        let (dayNumber, hour) = walker.slot(ms: ms)
        let number = Int32(dayNumber)
        if let day = days[number] {
            return LocalSlot(dayText: day.text, dayNumber: number, year: day.year, month: day.month, hour: Int32(hour))
        }
        let (year, month, dayOfMonth) = CivilDate.civil(days: dayNumber)
        let text = cString(LocalTime.format(year: year, month: month, day: dayOfMonth))
        let yearMonth = Int32(year * 100 + month)
        days[number] = (text, Int32(year), yearMonth)
        return LocalSlot(dayText: text, dayNumber: number, year: Int32(year), month: yearMonth, hour: Int32(hour))
    }
}

/// The local day and hour of a play.
struct LocalSlot {
    /// The local day (`YYYY-MM-DD`), a C string owned by the import session.
    var dayText: UnsafeMutablePointer<CChar>
    var dayNumber: Int32
    var year: Int32
    /// The local month as `YYYYMM`.
    var month: Int32
    var hour: Int32

    /// `YYYYMM` as the rollups write a month: `YYYY-MM`.
    static func monthText(_ month: Int32) -> String {
        let m = month % 100
        return "\(month / 100)-\(m < 10 ? "0" : "")\(m)"
    }
}
