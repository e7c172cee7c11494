import Foundation
import Logging
@testable import PacenoteCore
import PacenoteTestSupport
import Synchronization
import Testing
@testable import PacenoteApp

/// The daemon's transition rows, in unnamed files read a row at a time, give the model the
/// same successors and totals as rows in memory; every merge's file goes with the model
/// that read it; a folder that cannot take them leaves the rows in memory, logged once.
@Suite struct TransitionFileStorageTests {
    /// Log lines at error level, kept for the test to read.
    final class Lines: LogHandler, @unchecked Sendable {
        let lines = Mutex<[String]>([])
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            if event.level >= .error { lines.withLock { $0.append("\(event.message)") } }
        }
    }

    /// A model of 3,000 tracks after `plays` plays in sessions (most pairs seen once, a few
    /// often), in `storage`.
    static func model(_ storage: any TransitionStorage, plays: Int) -> ListeningModel {
        var model = ListeningModel(transitions: storage)
        for id in 1...3_000 {
            model.upsert(.init(id: Int64(id), uri: "\(id).flac", title: "T\(id)", artist: "A\(id % 97)", bpm: nil,
                               inLibrary: true))
        }
        var rng = SeededRandom(seed: 7)
        var at: Int64 = 1_700_000_000_000
        for n in 0..<plays {
            let popular = n % 3 == 0
            let id = Int64(popular ? Int(rng.next() % 20) + 1 : Int(rng.next() % 3_000) + 1)
            at += 200_000
            model.record(.init(trackID: id, startedAtMs: at, endedAtMs: at + 180_000, counted: n % 11 != 0, zone: nil))
        }
        model.settle()
        return model
    }

    static func expectSame(_ a: ListeningModel, _ b: ListeningModel) {
        var differing = 0
        for slot in Int32(0)..<Int32(a.trackCount) {
            if a.successors(ofTrack: slot) != b.successors(ofTrack: slot) { differing += 1 }
            if a.transitions(fromTrack: slot) != b.transitions(fromTrack: slot) { differing += 1 }
        }
        for artist in Int32(0)..<97 where a.successors(ofArtist: artist) != b.successors(ofArtist: artist) { differing += 1 }
        #expect(differing == 0)
    }

    /// The open files that are this folder's (unnamed ones show as `<folder>/#<inode> (deleted)`).
    static func openFiles(in folder: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)")) ?? "").hasPrefix(folder + "/")
        }.count
    }

    @Test func rowsInFilesReadAsRowsInMemory() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.file("tmp")
        let lines = Lines()
        let storage = TransitionFileStorage(directory: folder, logger: Logger(label: "test") { _ in lines })
        var inFiles = Self.model(storage, plays: 120_000)
        let inMemory = Self.model(InMemoryTransitionStorage(), plays: 120_000)
        #expect(inFiles.trackNext.rowBytes > 100_000)
        Self.expectSame(inFiles, inMemory)
        // Unnamed: nothing to see in the folder, one file open (the last merge's).
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
        #expect(try Self.openFiles(in: folder) == 1)
        // A copy shares the rows; a merge in one leaves the other's as they were.
        let copy = inFiles
        for n in 0..<5_000 {
            let at = 1_800_000_000_000 + Int64(n) * 200_000
            inFiles.record(.init(trackID: Int64(n % 3_000 + 1), startedAtMs: at, endedAtMs: at + 180_000, counted: true, zone: nil))
        }
        inFiles.settle()
        #expect(try Self.openFiles(in: folder) == 2)
        Self.expectSame(copy, inMemory)
        #expect(inFiles.transitions(fromTrack: 0) > copy.transitions(fromTrack: 0))
        #expect(lines.lines.withLock { $0 } == [])
        #expect(storage.readFailures.load(ordering: .relaxed) == 0)
    }

    /// Each file is closed with the last model that reads it.
    @Test func theFilesGoWithTheirModels() throws {
        let dir = try TemporaryDirectory()
        let folder = dir.file("tmp")
        let storage = TransitionFileStorage(directory: folder, logger: Logger(label: "test"))
        do {
            let model = Self.model(storage, plays: 50_000)
            #expect(model.trackNext.rowBytes > 0)
            #expect(try Self.openFiles(in: folder) == 1)
        }
        #expect(try Self.openFiles(in: folder) == 0)
    }

    @Test func aFolderThatCannotTakeThemLeavesTheRowsInMemory() throws {
        let dir = try TemporaryDirectory()
        // A regular file where the folder should be.
        FileManager.default.createFile(atPath: dir.file("blocked"), contents: Data("x".utf8))
        let lines = Lines()
        let storage = TransitionFileStorage(directory: dir.file("blocked") + "/tmp", logger: Logger(label: "test") { _ in lines })
        let model = Self.model(storage, plays: 60_000)
        Self.expectSame(model, Self.model(InMemoryTransitionStorage(), plays: 60_000))
        let logged = lines.lines.withLock { $0 }
        #expect(logged.count == 1)
        #expect(logged.first?.contains("kept in memory") == true)
        #expect(logged.first?.contains("blocked/tmp") == true)
    }
}

/// xorshift64*: the same plays in every run and in both models of a test.
struct SeededRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }
    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}
