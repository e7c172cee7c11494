import Foundation
import Glibc
import Logging
import PacenoteCore
import PacenoteOperations
import PacenoteStore
import PacenoteTestSupport
import Testing
@testable import PacenoteApp

/// The spool file and its replay: plays a full disk kept back land once, in order.
@Suite struct WaitingPlaysTests {
    static func play(_ uri: String, at start: Double, counted: Bool = true) -> FinishedPlay {
        FinishedPlay(song: SongInfo(uri: uri, tags: ["Title": uri, "Artist": "Tester"], durationSeconds: 100),
                     startedAt: Date(timeIntervalSince1970: start), endedAt: Date(timeIntervalSince1970: start + 60),
                     playedSeconds: 60, counted: counted)
    }

    static func spooled(_ player: String, _ uri: String, at start: Double) -> SpooledPlay {
        SpooledPlay(player: player, play: play(uri, at: start), error: "database or disk is full")
    }

    @Test func theSpoolReservesItsSpaceAtOnce() throws {
        let dir = try TemporaryDirectory()
        let spool = try PlaySpool(path: dir.file("spool.jsonl"))
        var info = stat()
        #expect(stat(spool.path, &info) == 0)
        #expect(Int(info.st_size) == PlaySpool.reservedBytes)
        // Allocated, not a sparse file: writing into it needs no new blocks.
        #expect(Int(info.st_blocks) * 512 >= PlaySpool.reservedBytes)
        #expect(info.st_mode & 0o777 == 0o600)
        #expect(spool.reservationProblem == nil)
        #expect(spool.used == 0)
    }

    @Test func linesAreAppendedKeptAcrossOpensAndCleared() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("spool.jsonl")
        let a = Self.spooled("default", "a.flac", at: 1000), b = Self.spooled("kitchen", "b.flac", at: 2000)
        do {
            let spool = try PlaySpool(path: path)
            #expect(try spool.append([a]))
            #expect(try spool.append([b]))
        }
        let again = try PlaySpool(path: path)
        #expect(again.found.plays == [a, b])
        #expect(PlaySpool.read(path: path)?.plays == [a, b], "what doctor reads")
        try again.clear()
        #expect(try PlaySpool(path: path).found.plays.isEmpty)
        var info = stat()
        stat(path, &info)
        #expect(Int(info.st_size) == PlaySpool.reservedBytes, "clearing keeps the reserved space")
    }

    @Test func aFullSpoolKeepsWhatFitsOldestFirst() throws {
        let dir = try TemporaryDirectory()
        let lineBytes = Self.spooled("default", "a.flac", at: 1000).line.count
        let spool = try PlaySpool(path: dir.file("spool.jsonl"), reserve: lineBytes * 2 + 10)
        let plays = (0..<3).map { Self.spooled("default", "\($0).flac", at: 1000 + Double($0) * 100) }
        #expect(try spool.append(Array(plays.prefix(2))))
        #expect(try spool.append([plays[2]]) == false, "no room: nothing is written")
        #expect(try spool.rewrite(Array(plays.suffix(2))) == 2)
        #expect(try PlaySpool(path: spool.path, reserve: 0).found.plays == Array(plays.suffix(2)))
    }

    @Test func aLineCutShortDoesNotSpoilTheNext() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("spool.jsonl")
        let a = Self.spooled("default", "a.flac", at: 1000), b = Self.spooled("default", "b.flac", at: 2000)
        // A crash while b was written: half a line, then the reserved zeros.
        let torn = a.line + b.line.prefix(30) + [UInt8](repeating: 0, count: 1000)
        FileManager.default.createFile(atPath: path, contents: Data(torn))
        let spool = try PlaySpool(path: path)
        #expect(spool.found.plays == [a])
        #expect(spool.found.damaged == 1)
        let c = Self.spooled("default", "c.flac", at: 3000)
        #expect(try spool.append([c]))
        #expect(try PlaySpool(path: path).found.plays == [a, c])
    }

    /// Plays are unique by (track, start) in the store, so replaying a spool whose first
    /// plays were already stored (a crash between the commit and emptying the spool) stores
    /// the rest once and repeats nothing.
    @Test func replayStoresEachPlayOnceInOrder() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let operations = Operations(store: store, events: EventBus())
        let spoolPath = dir.file("spool.jsonl")
        let entries = [Self.spooled("default", "a.flac", at: 1000.123), Self.spooled("default", "b.flac", at: 2000.456),
                       Self.spooled("kitchen", "c.flac", at: 1500.789), Self.spooled("default", "d.flac", at: 3000)]
        do {
            let spool = try PlaySpool(path: spoolPath)
            #expect(try spool.append(entries))
        }
        // The first one made it before the stop.
        try operations.recordPlayer("default", finished: [entries[0].play], open: .keep)

        let waiting = WaitingPlays(operations: operations, spoolPath: spoolPath, logger: Logger(label: "test"))
        waiting.replaySpool()
        #expect(waiting.summary.count == 0)
        let stored = try store.plays(limit: 10).reversed()
        #expect(stored.map(\.track.title) == ["a.flac", "c.flac", "b.flac", "d.flac"], "each once")
        #expect(stored.map(\.play.player) == ["default", "kitchen", "default", "default"])
        #expect(stored.map { Int64(($0.play.startedAt.timeIntervalSince1970 * 1000).rounded()) } == [1_000_123, 1_500_789, 2_000_456, 3_000_000])
        #expect(PlaySpool.read(path: spoolPath)?.plays.isEmpty == true, "emptied once stored")

        // The same spool replayed again (a crash before it was emptied): nothing new.
        do {
            let spool = try PlaySpool(path: spoolPath)
            #expect(try spool.append(entries))
        }
        WaitingPlays(operations: operations, spoolPath: spoolPath, logger: Logger(label: "test")).replaySpool()
        #expect(try store.plays(limit: 10).count == 4)
        #expect(PlaySpool.read(path: spoolPath)?.plays.isEmpty == true)
    }

    @Test func aRowTheDatabaseRefusesIsDroppedAloneNotWithTheOthers() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let waiting = WaitingPlays(operations: Operations(store: store, events: nil), spoolPath: dir.file("spool.jsonl"),
                                   logger: Logger(label: "test"))
        var backwards = Self.play("backwards.flac", at: 2000)
        backwards.playedSeconds = -5  // a clock that ran backwards: the database's CHECK refuses it
        let plays = [Self.play("a.flac", at: 1000), backwards, Self.play("c.flac", at: 3000)]
        guard case .stored(let logged, let refused) = waiting.record(player: "default", finished: plays, open: .keep) else {
            Issue.record("not stored")
            return
        }
        #expect(logged.map(\.track.title) == ["a.flac", "c.flac"])
        #expect(refused.map(\.0.song.uri) == ["backwards.flac"])
        #expect(try store.plays(limit: 10).count == 2)
        #expect(waiting.summary.count == 0)
    }

    @Test func playsThatStoreAtOnceNeverTouchTheSpool() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let spoolPath = dir.file("spool.jsonl")
        let waiting = WaitingPlays(operations: Operations(store: store, events: nil), spoolPath: spoolPath, logger: Logger(label: "test"))
        guard case .stored(let logged, _) = waiting.record(player: "default", finished: [Self.play("a.flac", at: 1000)], open: .keep) else {
            Issue.record("not stored")
            return
        }
        #expect(logged.count == 1)
        #expect(waiting.summary == WaitingPlays.Summary(count: 0, lastError: nil, since: nil))
        #expect(PlaySpool.read(path: spoolPath)?.plays.isEmpty == true)
    }
}
