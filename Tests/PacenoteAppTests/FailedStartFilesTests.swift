import Foundation
@testable import PacenoteApp
import PacenoteTestSupport
import Testing

/// What a start that failed removes (`InstanceFiles.removeCreated`): what it made, never
/// what was there, and never a log with content.
@Suite struct FailedStartFilesTests {
    func make(_ path: String, _ bytes: Int = 0) {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(count: bytes)))
    }

    @Test func aNewDatabaseGoesWithEverythingMadeBesideIt() throws {
        let dir = try TemporaryDirectory()
        let files = InstanceFiles(databasePath: dir.file("data/p.sqlite"))
        let before = files.existing()
        #expect(before.isEmpty)
        try FileManager.default.createDirectory(atPath: files.directory, withIntermediateDirectories: false)
        for path in [files.database, files.databaseWAL, files.databaseSHM, files.apiKey, files.spool, files.lock] { make(path, 10) }
        try FileManager.default.createDirectory(atPath: files.temporary, withIntermediateDirectories: false)
        make(files.temporary + "/upload")
        files.removeCreated(since: before)
        files.removeCreatedFolder(since: before)
        #expect(!FileManager.default.fileExists(atPath: files.directory), "\((try? FileManager.default.contentsOfDirectory(atPath: files.directory)) ?? [])")
    }

    @Test func anExistingDatabaseKeepsItsLogAndWhatWasThere() throws {
        let dir = try TemporaryDirectory()
        let files = InstanceFiles(databasePath: dir.file("p.sqlite"))
        make(files.database, 4096)
        make(files.apiKey, 40)
        let before = files.existing()
        // The start made a -wal with content and a -shm (both stay: the log is the database's),
        // a spool and a lock (both go).
        make(files.databaseWAL, 4096)
        make(files.databaseSHM, 32768)
        make(files.spool, 100)
        make(files.lock)
        files.removeCreated(since: before)
        files.removeCreatedFolder(since: before)
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        #expect(left == ["api-key", "p.sqlite", "p.sqlite-shm", "p.sqlite-wal"])
        // An empty log and its index go.
        try FileManager.default.removeItem(atPath: files.databaseWAL)
        make(files.databaseWAL)
        files.removeCreated(since: before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["api-key", "p.sqlite"])
    }
}
