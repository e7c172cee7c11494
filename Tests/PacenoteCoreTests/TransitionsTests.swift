import Testing
@testable import PacenoteCore

/// The compact transition rows give the same counts and totals as a plain dictionary of
/// dictionaries, through merges, before them (recent pairs) and with counts past one byte.
@Suite struct TransitionsTests {
    @Test func sameCountsAsADictionaryThroughMerges() {
        var transitions = Transitions()
        var expected: [Int32: [Int32: Float]] = [:]
        var rng = SystemRandomNumberGenerator()
        // Skewed pairs: a few rows and successors are common (counts past 255), most are rare.
        for step in 0..<60_000 {
            let from = Int32(Int.random(in: 0..<400, using: &rng) % (step % 7 == 0 ? 3 : 400))
            let to = Int32(Int.random(in: 0..<2_000, using: &rng) % (step % 5 == 0 ? 2 : 2_000))
            transitions.add(from: from, to: to)
            expected[from, default: [:]][to, default: 0] += 1
            if step % 9_999 == 0 {
                for row in [0, 1, 2, 57, 399, 400] as [Int32] {
                    #expect(transitions.successors(of: row) == (expected[row] ?? [:]))
                }
            }
        }
        #expect(transitions.mergedPairs > 0)
        transitions.merge(ifMoreThan: 0)
        for row in Int32(0)...400 {
            #expect(transitions.successors(of: row) == (expected[row] ?? [:]))
            #expect(transitions.total(from: row) == (expected[row] ?? [:]).values.reduce(0, +))
        }
        #expect((expected[0]?[0] ?? 0) > 255)
    }

    /// Artist transitions are the track transitions summed by artist: the pairs recorded in
    /// a session, across the merge, with tracks without an artist left out.
    @Test func artistSuccessorsSumTheTracks() {
        var model = ListeningModel()
        let artists: [String?] = ["A", "A", "B", "B", "C", nil]
        for (n, artist) in artists.enumerated() {
            model.upsert(.init(id: Int64(n + 1), uri: "t\(n).flac", title: "T\(n)", artist: artist, bpm: nil, inLibrary: true))
        }
        var expected: [String: [String: Float]] = [:]
        var last: Int?
        var at: Int64 = 0
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let track = Int.random(in: 0..<artists.count, using: &rng)
            at += 200_000
            model.record(.init(trackID: Int64(track + 1), startedAtMs: at, endedAtMs: at + 180_000, counted: true, zone: nil))
            if let last, last != track, let from = artists[last], let to = artists[track] {
                expected[from, default: [:]][to, default: 0] += 1
            }
            last = track
        }
        func named(_ artist: String) -> [String: Float] {
            let id = model.artistOf[model.slot(of: Int64(artists.firstIndex(of: artist)! + 1))!]
            let names = Dictionary(uniqueKeysWithValues: artists.indices.compactMap { i in
                artists[i].map { (model.artistOf[i], $0) } }.map { ($0.0, $0.1) }.reduce(into: [Int32: String]()) { $0[$1.0] = $1.1 }.map { ($0, $1) })
            return Dictionary(uniqueKeysWithValues: model.successors(ofArtist: id).map { (names[$0]!, $1) })
        }
        for artist in ["A", "B", "C"] { #expect(named(artist) == expected[artist] ?? [:]) }
        model.settle()
        for artist in ["A", "B", "C"] { #expect(named(artist) == expected[artist] ?? [:]) }
    }
}

/// Rows kept by another storage read the same, a row at a time; a storage whose writes
/// fail (a full disk) loses nothing: that merge's rows stay in memory.
@Suite struct TransitionStorageTests {
    /// Rows in memory behind a storage of the test's own: its `failing`th writer and later
    /// ones throw on their second chunk; every read's length is kept; while `unreadable`,
    /// every read fails.
    final class Flaky: TransitionStorage, @unchecked Sendable {
        let failing: Int
        var writers = 0
        var reads: [Int] = []
        var unreadable = false
        init(failing: Int) { self.failing = failing }

        func makeWriter(capacity: Int) throws -> any TransitionWriter {
            writers += 1
            return Writer(storage: self, fails: writers >= failing)
        }

        struct Failure: Error {}

        struct Writer: TransitionWriter {
            let storage: Flaky
            let fails: Bool
            var bytes: [UInt8] = []
            var chunks = 0
            mutating func append(_ more: UnsafeBufferPointer<UInt8>) throws {
                chunks += 1
                if fails, chunks > 1 { throw Failure() }
                bytes.append(contentsOf: more)
            }
            mutating func finish() throws -> any TransitionBytes {
                if fails { throw Failure() }
                return Rows(storage: storage, bytes: bytes)
            }
        }

        final class Rows: TransitionBytes, @unchecked Sendable {
            let storage: Flaky
            let bytes: [UInt8]
            init(storage: Flaky, bytes: [UInt8]) { (self.storage, self.bytes) = (storage, bytes) }
            var count: Int { bytes.count }
            func withBytes<R>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>?) -> R) -> R {
                if storage.unreadable { return body(nil) }
                storage.reads.append(range.count)
                return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
            }
        }
    }

    @Test func anotherStorageAndAFailingOneKeepEveryCount() {
        for failing in [1, 3, 1_000] {
            let storage = Flaky(failing: failing)
            var transitions = Transitions(storage: storage)
            var expected: [Int32: [Int32: Float]] = [:]
            var rng = Xorshift(seed: UInt64(failing))
            for step in 0..<200_000 {
                let from = Int32.random(in: 0..<3_000, using: &rng) % (step % 4 == 0 ? 5 : 3_000)
                let to = Int32.random(in: 0..<3_000, using: &rng) % (step % 6 == 0 ? 3 : 3_000)
                transitions.add(from: from, to: to)
                expected[from, default: [:]][to, default: 0] += 1
            }
            transitions.merge(ifMoreThan: 0)
            #expect(storage.writers > 3)
            #expect(transitions.rowBytes > 64 << 10)
            storage.reads = []
            for row in Int32(0)..<3_000 {
                #expect(transitions.successors(of: row) == (expected[row] ?? [:]))
                #expect(transitions.total(from: row) == (expected[row] ?? [:]).values.reduce(0, +))
            }
            // Read from the storage a row at a time, unless the last merge failed (its rows
            // are in memory).
            if failing == 1_000 {
                // Each row's bytes once a call, and nothing else.
                #expect(storage.reads.count == 2 * expected.count)
                #expect(storage.reads.reduce(0, +) == 2 * transitions.rowBytes)
            } else {
                #expect(storage.reads.isEmpty)
            }
        }
    }

    /// Rows that cannot be read give no pairs (never made-up ones), and merges meanwhile
    /// keep the old rows and the recent pairs: once reads work again, every count is there.
    @Test func unreadableRowsGiveNothingAndLoseNothing() {
        let storage = Flaky(failing: .max)
        var transitions = Transitions(storage: storage)
        var expected: [Int32: [Int32: Float]] = [:]
        var rng = Xorshift(seed: 11)
        func add(_ n: Int) {
            for step in 0..<n {
                let from = Int32.random(in: 0..<500, using: &rng) % (step % 4 == 0 ? 3 : 500)
                let to = Int32.random(in: 0..<3_000, using: &rng)
                transitions.add(from: from, to: to)
                expected[from, default: [:]][to, default: 0] += 1
            }
        }
        add(100_000)
        transitions.merge(ifMoreThan: 0)
        let rowsBefore = transitions.rowBytes
        storage.unreadable = true
        // Only the pairs since the last merge, which are in memory.
        #expect(transitions.successors(of: 0).values.reduce(0, +) == transitions.total(from: 0))
        #expect(transitions.total(from: 0) < (expected[0] ?? [:]).values.reduce(0, +))
        let writers = storage.writers
        add(100_000)
        transitions.merge(ifMoreThan: 0)
        // Merges were tried (a writer each) and given up: the rows are the old ones.
        #expect(storage.writers > writers)
        #expect(transitions.rowBytes == rowsBefore)
        storage.unreadable = false
        for row in Int32(0)..<500 {
            #expect(transitions.successors(of: row) == (expected[row] ?? [:]))
        }
        transitions.merge(ifMoreThan: 0)
        #expect(transitions.rowBytes > rowsBefore)
        for row in Int32(0)..<500 {
            #expect(transitions.successors(of: row) == (expected[row] ?? [:]))
            #expect(transitions.total(from: row) == (expected[row] ?? [:]).values.reduce(0, +))
        }
    }
}

/// xorshift64*: the same pairs in every run.
struct Xorshift: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = (seed &+ 1) &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// Successors far apart (gaps of one to four varint bytes) and near each other keep their
/// counts through merges, as in a plain dictionary.
@Suite struct TransitionsEncodingTests {
    @Test func wideAndNarrowGapsRoundTrip() {
        var transitions = Transitions()
        var expected: [Int32: [Int32: Float]] = [:]
        var rng = SystemRandomNumberGenerator()
        let spans: [Int32] = [1, 100, 20_000, 3_000_000, Int32.max - 1]
        for step in 0..<50_000 {
            let from = step % 13 == 0 ? 0 : Int32.random(in: 0..<50, using: &rng)
            let span = spans[step % spans.count]
            let to = step % 13 == 0 ? 0 : Int32.random(in: 0...span, using: &rng)
            transitions.add(from: from, to: to)
            expected[from, default: [:]][to, default: 0] += 1
        }
        transitions.merge(ifMoreThan: 0)
        #expect(transitions.mergedPairs == expected.values.reduce(0) { $0 + $1.count })
        for row in Int32(0)...50 {
            #expect(transitions.successors(of: row) == (expected[row] ?? [:]))
            var previous: Int32 = -1
            transitions.forEach(from: row) { to, _ in
                #expect(to > previous)
                previous = to
            }
        }
        #expect(transitions.successors(of: 0)[0]! > 255)
    }
}

/// The song keys' interner gives each hash one id, in the order they came, as a dictionary
/// would: through the table's growth, with hashes that share their low or high bits.
@Suite struct HashInternerTests {
    @Test func sameIdsAsADictionary() {
        var interner = HashInterner()
        var expected: [UInt64: Int32] = [:]
        var rng = SystemRandomNumberGenerator()
        for step in 0..<200_000 {
            let hash: UInt64 = switch step % 4 {
            case 0: UInt64.random(in: 0...UInt64.max, using: &rng)
            case 1: UInt64(step) << 40  // low bits all zero
            case 2: UInt64(step % 5_000)  // high bits all zero, many repeats
            default: SongKey.hash("song \(step % 30_000)")
            }
            let want = expected[hash] ?? Int32(expected.count)
            let got = interner.intern(hash)
            #expect(got.id == want && got.isNew == (expected[hash] == nil))
            expected[hash] = want
        }
        #expect(interner.count == expected.count)
        for (hash, id) in expected { #expect(interner.id(of: hash) == id && interner.hashes[Int(id)] == hash) }
        #expect(interner.id(of: 0xDEAD_BEEF_0000_0001) == nil || expected[0xDEAD_BEEF_0000_0001] != nil)
        #expect(HashInterner().id(of: 7) == nil)
    }
}
