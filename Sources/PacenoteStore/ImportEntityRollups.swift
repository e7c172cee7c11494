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
        var genres: [Int64]

        init(artists: [Int64], album: Int64?, genres: [Int64] = []) {
            self.artists = artists
            self.album = album
            self.genres = genres
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
            let filed = try RawStatement(db, "SELECT genre_id FROM track_genres WHERE track_id = ?1 ORDER BY position")
            filed.bind(1, track)
            genres = []
            while try filed.step() { genres.append(filed.int64(0)) }
        }
    }

    struct Sums {
        var plays: Int64 = 0
        var skips: Int64 = 0
        var seconds = 0.0
        /// The month's first half (`MonthHalves`), summed for a month table only.
        var firstHalfPlays: Int64 = 0
        var firstHalfSeconds = 0.0

        mutating func add(counted: Bool, played: Double) {
            if counted { plays += 1 } else { skips += 1 }
            seconds += played
        }

        mutating func addFirstHalf(counted: Bool, played: Double) {
            if counted { firstHalfPlays += 1 }
            firstHalfSeconds += played
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
    ///
    /// The sums are computed on a thread of their own, up to five blocks of rows ahead of the
    /// writer (`RowPipe`): summing in Swift took about as long as SQLite storing the sums
    /// (perf, 5M plays), and one core did both in turn while the other waited. The rows come
    /// in the same order, so the tables end the same. If no thread can be started, the sums
    /// are made first on the writer's own, as before.
    static func write(_ plays: ImportRollups, entities: [Entities?], in db: Database) throws {
        guard plays.count > 0 else { return }
        // The orders by period are sorted here, not on the summing thread: memory a thread
        // takes comes from a malloc arena of its own and stays held there (sorted there, the
        // peak of a 5M-play import was 16 MiB above the one-thread import's; here, 9 MiB).
        let identity = (0..<Int32(plays.count)).map { $0 }
        let input = UncheckedInput(plays: plays, entities: entities, orders: Orders(
            identity: identity,
            byYear: ImportRollups.sorted(identity, by: plays.yearOf, buckets: plays.years.count),
            byMonth: ImportRollups.sorted(identity, by: plays.monthOf, buckets: plays.months.count),
            byDay: ImportRollups.sorted(identity, by: plays.dayOf, buckets: plays.days.count)))
        var pipe = RowPipe()
        let done = DispatchSemaphore(value: 0)
        let started = startThread { [pipe] in
            sum(input.plays, entities: input.entities, orders: input.orders, into: pipe)
            pipe.end()
            done.signal()
        }
        if !started {
            pipe = RowPipe(capacity: .max)
            sum(plays, entities: entities, orders: input.orders, into: pipe)
            pipe.end()
            done.signal()
        }
        var upsert: BulkInsert?
        // Stops the summing (if a write failed) and waits for it; its texts are freed once
        // no statement binds them.
        defer {
            pipe.cancel()
            done.wait()
            upsert?.forgetBindings()
            pipe.freeTexts()
        }
        var current = -1
        while let block = pipe.take() {
            if block.table.number != current {
                try upsert?.finish()
                current = block.table.number
                let table = block.table
                upsert = BulkInsert(db, columns: table.columns) { values in
                    """
                    INSERT INTO \(table.name) (\(table.keys.joined(separator: ", ")), plays, skips, played_s\(
                      table.halves ? ", " + MonthHalves.columns : "")) VALUES \(values)
                    ON CONFLICT (\(table.keys.joined(separator: ", "))) DO UPDATE SET \(EntityRollups.upsert(halves: table.halves))
                    """
                }
            }
            let columns = block.table.columns
            var v = 0
            while v < block.values.count {
                for c in 0..<columns { upsert!.append(block.values[v + c]) }
                try upsert!.endRow()
                v += columns
            }
        }
        try upsert?.finish()
    }

    /// Runs `body` on a new thread (1 MiB of stack); false if none could be started
    /// (Foundation's `Thread` does not say so: the writer would wait for ever).
    static func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
        guard !refusesThreads else { return false }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 1 << 20)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let box = Unmanaged.passRetained(ThreadBody(body))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { argument in
            let body = Unmanaged<ThreadBody>.fromOpaque(argument!).takeRetainedValue()
            body.run()
            return nil
        }, box.toOpaque())
        if result != 0 { box.release() }
        return result == 0
    }

    /// Tests: as if no thread could be started.
    @TaskLocal static var refusesThreads = false

    private final class ThreadBody: @unchecked Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// The plays and their tracks' entities, read (never changed) by the summing thread.
    private final class UncheckedInput: @unchecked Sendable {
        let plays: ImportRollups
        let entities: [Entities?]
        let orders: Orders
        init(plays: ImportRollups, entities: [Entities?], orders: Orders) {
            self.plays = plays
            self.entities = entities
            self.orders = orders
        }
    }

    /// The plays in the order they came, and stably sorted by year, month and day.
    private struct Orders {
        let identity, byYear, byMonth, byDay: [Int32]
    }

    /// A table written: its place in the sequence, name and key columns (then plays, skips,
    /// played_s, and a month table's halves: `MonthHalves`).
    struct Table {
        let number: Int
        let name: String
        let keys: [String]
        var halves = false
        var columns: Int { keys.count + (halves ? 5 : 3) }
    }

    /// Sums the plays' rows, table after table, into `pipe`. Stops early if it is cancelled.
    private static func sum(_ plays: ImportRollups, entities: [Entities?], orders: Orders, into pipe: RowPipe) {
        var artists = Numbering(tracks: entities.count)
        var albums = Numbering(tracks: entities.count)
        var genres = Numbering(tracks: entities.count)
        for i in 0..<plays.count {
            let ref = Int(plays.refs[i])
            guard artists.start[ref] < 0, let of = entities[ref] else { continue }
            artists.add(ref: ref, of.artists)
            albums.add(ref: ref, of.album.map { [$0] } ?? [])
            genres.add(ref: ref, of.genres)
        }
        // The periods' texts, bound as C strings (freed once the writer is done with them).
        var texts: [String: UnsafeMutablePointer<CChar>] = [:]
        func text(_ string: String) -> BulkInsert.Value {
            if let known = texts[string] { return .text(known) }
            let copy = strdup(string)!
            texts[string] = copy
            pipe.keep(copy)
            return .text(copy)
        }
        let (identity, byYear, byMonth, byDay) = (orders.identity, orders.byYear, orders.byMonth, orders.byDay)
        let year = { (i: Int) in text(String(plays.years[Int(plays.yearOf[i])])) }
        let month = { (i: Int) in text(LocalSlot.monthText(plays.months[Int(plays.monthOf[i])])) }
        let day = { (i: Int) in BulkInsert.Value.text(plays.days[Int(plays.dayOf[i])].dayText) }
        let firstHalf = { (i: Int) in plays.firstHalfOfDay[Int(plays.dayOf[i])] }
        // The tables in their declared order (`Rollup.Batch.batchSums`), each numbered (`Table.number`).
        for (number, rollup) in Rollups.all.filter({ $0.batch == .batchSums }).enumerated() {
            let order: [Int32], groups: [Int32]?, period: ((Int) -> BulkInsert.Value)?
            switch rollup.period {
            case .year?: (order, groups, period) = (byYear, plays.yearOf, year)
            case .month?: (order, groups, period) = (byMonth, plays.monthOf, month)
            case .day?: (order, groups, period) = (byDay, plays.dayOf, day)
            case nil: (order, groups, period) = (identity, nil, nil)
            }
            let numbering: Numbering?
            switch rollup.subject {
            case .artist?: numbering = artists
            case .album?: numbering = albums
            case .genre?: numbering = genres
            case .hour?, nil: numbering = nil
            case .track?: preconditionFailure("\(rollup.table): the bulk import sums a batch by artist, album, genre, hour or none only")
            }
            guard !pipe.isCancelled,
                  sum(plays, order: order, groups: groups, period: period, entities: numbering, hours: rollup.subject == .hour,
                      firstHalf: rollup.halves ? firstHalf : nil,
                      table: Table(number: number, name: rollup.table, keys: rollup.keys, halves: rollup.halves), into: pipe) else { return }
        }
    }

    /// One table's rows, one per key, handed to `pipe` in blocks. `order`: the plays, grouped
    /// by period (`groups[i]`, or one group) and in the order they came within it. The
    /// entities of a play are its track's run in `entities`, its hour (`hours`), or none (the
    /// period alone). False: cancelled.
    /// `firstHalf(i)`: whether play i is in its month's first half, for a table with halves.
    private static func sum(_ plays: ImportRollups, order: [Int32], groups: [Int32]?, period: ((Int) -> BulkInsert.Value)?,
                            entities: Numbering?, hours: Bool = false, firstHalf: ((Int) -> Bool)? = nil,
                            table: Table, into pipe: RowPipe) -> Bool {
        let slots = entities?.ids.count ?? (hours ? 24 : 1)
        var sums = [Sums](repeating: Sums(), count: slots)
        var touched: [Int32] = []
        var block: [BulkInsert.Value] = []
        block.reserveCapacity(RowPipe.rowsPerBlock * table.columns)
        var g = 0
        while g < order.count {
            let first = Int(order[g])
            var end = g + 1
            if let groups { while end < order.count, groups[Int(order[end])] == groups[first] { end += 1 } } else { end = order.count }
            for j in g..<end {
                let i = Int(order[j])
                let counted = plays.counted[i], played = plays.played[i]
                let inFirstHalf = firstHalf?(i) ?? false
                func add(_ slot: Int32) {
                    if sums[Int(slot)].plays == 0 && sums[Int(slot)].skips == 0 { touched.append(slot) }
                    sums[Int(slot)].add(counted: counted, played: played)
                    if inFirstHalf { sums[Int(slot)].addFirstHalf(counted: counted, played: played) }
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
            let periodValue = touched.isEmpty ? nil : period?(first)
            for slot in touched {
                if let periodValue { block.append(periodValue) }
                if let entities { block.append(.int(entities.ids[Int(slot)])) } else if hours { block.append(.int(Int64(slot))) }
                block.append(.int(sums[Int(slot)].plays))
                block.append(.int(sums[Int(slot)].skips))
                block.append(.real(sums[Int(slot)].seconds))
                if table.halves {
                    block.append(.int(sums[Int(slot)].firstHalfPlays))
                    block.append(.real(sums[Int(slot)].firstHalfSeconds))
                }
                sums[Int(slot)] = Sums()
                if block.count >= RowPipe.rowsPerBlock * table.columns {
                    guard pipe.put(RowPipe.Block(table: table, values: block)) else { return false }
                    block.removeAll(keepingCapacity: true)
                }
            }
            touched.removeAll(keepingCapacity: true)
            g = end
        }
        return block.isEmpty || pipe.put(RowPipe.Block(table: table, values: block))
    }
}

/// Blocks of rows from the thread that sums them to the writer, a few at a time: the
/// summing runs ahead of the writer by at most `capacity` blocks waiting, and the one it is
/// filling (memory stays small).
final class RowPipe: @unchecked Sendable {
    struct Block {
        let table: ImportEntityRollups.Table
        /// `table.columns` values a row.
        let values: [BulkInsert.Value]
    }

    static let rowsPerBlock = 4096
    static let defaultCapacity = 4

    /// The most blocks waiting for the writer.
    let capacity: Int

    init(capacity: Int = RowPipe.defaultCapacity) {
        self.capacity = capacity
    }

    private let condition = NSCondition()
    private var blocks: [Block] = []
    private var ended = false
    private var cancelled = false
    /// The C strings bound in the blocks, freed once both sides are done.
    private var texts: [UnsafeMutablePointer<CChar>] = []

    /// Waits for room; false if the writer gave up.
    func put(_ block: Block) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while blocks.count >= capacity && !cancelled { condition.wait() }
        guard !cancelled else { return false }
        blocks.append(block)
        condition.broadcast()
        return true
    }

    /// No more blocks.
    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// The writer stops taking: the summing thread stops at its next block.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the writer gave up.
    var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// The next block, in order; nil at the end.
    func take() -> Block? {
        condition.lock()
        defer { condition.unlock() }
        while blocks.isEmpty && !ended { condition.wait() }
        guard !blocks.isEmpty else { return nil }
        let block = blocks.removeFirst()
        condition.broadcast()
        return block
    }

    func keep(_ text: UnsafeMutablePointer<CChar>) {
        condition.lock()
        texts.append(text)
        condition.unlock()
    }

    /// Frees the texts: only once the summing thread has ended and no statement binds them.
    func freeTexts() {
        condition.lock()
        for text in texts { free(text) }
        texts = []
        condition.unlock()
    }
}
