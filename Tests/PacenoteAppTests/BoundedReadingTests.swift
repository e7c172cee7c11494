import Foundation
@testable import PacenoteApp
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Synchronization
import Testing

/// The import's byte source: lines bounded and read in one pass, whole reads bounded.
@Suite struct BoundedReadingTests {
    enum Seen: Equatable {
        case text(String)
        case tooLong(Int64)
    }

    /// A source that hands out `bytes` at most `piece` bytes a read, counting its reads.
    final class Pieces {
        let bytes: [UInt8]
        let piece: Int
        var offset = 0
        var reads = 0

        init(_ bytes: [UInt8], piece: Int) {
            self.bytes = bytes
            self.piece = piece
        }

        func source() -> ByteSource {
            ByteSource(read: { [self] target in
                reads += 1
                let n = min(piece, target.count, bytes.count - offset)
                bytes.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<(offset + n)])) }
                offset += n
                return n
            })
        }
    }

    static func lines(_ source: ByteSource, maxLength: Int) throws -> [Seen] {
        var seen: [Seen] = []
        try source.forEachLine(maxLength: maxLength) { line in
            switch line {
            case .text(let bytes): seen.append(.text(String(decoding: bytes, as: UTF8.self)))
            case .tooLong(let length): seen.append(.tooLong(length))
            }
        }
        return seen
    }

    @Test func linesWithAndWithoutAFinalLineFeed() throws {
        for piece in [1, 3, 7, 1 << 20] {
            let text = Array("a\n\nbc\nlast".utf8)
            #expect(try Self.lines(Pieces(text, piece: piece).source(), maxLength: 10) == [.text("a"), .text(""), .text("bc"), .text("last")])
            #expect(try Self.lines(Pieces(Array("a\n".utf8), piece: piece).source(), maxLength: 10) == [.text("a")])
            #expect(try Self.lines(Pieces([], piece: piece).source(), maxLength: 10) == [])
        }
        #expect(try Self.lines(ByteSource(bytes: Array("x\ny".utf8)), maxLength: 10) == [.text("x"), .text("y")])
    }

    @Test func aLineOfExactlyTheLimitIsReadAndOneByteMoreIsNot() throws {
        for piece in [2, 5, 1 << 20] {
            let text = Array("12345\n123456\n1234567".utf8)
            #expect(try Self.lines(Pieces(text, piece: piece).source(), maxLength: 5)
                    == [.text("12345"), .tooLong(6), .tooLong(7)])
        }
        #expect(try Self.lines(ByteSource(bytes: Array("123456\nok".utf8)), maxLength: 5) == [.tooLong(6), .text("ok")])
    }

    /// 64 MiB without a line feed between two lines, limit 1 MiB: the lines on either side
    /// are read, the long one is given with its length, every byte is read once (64 reads
    /// of 1 MiB and a few more), and the source never holds the long line.
    @Test func anOverlongLineIsPassedOverInOnePass() throws {
        var bytes = Array("first\n".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 20)
        bytes += Array("\nlast\n".utf8)
        let pieces = Pieces(bytes, piece: 1 << 20)
        let started = Date()
        #expect(try Self.lines(pieces.source(), maxLength: 1 << 20) == [.text("first"), .tooLong(64 << 20), .text("last")])
        #expect(pieces.reads <= 68, "\(pieces.reads) reads")
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test func consumedCountsEveryByte() throws {
        let source = Pieces(Array("ab\n1234567\nc".utf8), piece: 3).source()
        _ = try Self.lines(source, maxLength: 4)
        #expect(source.consumed == 12)
    }

    @Test func readAllIsBounded() throws {
        let bytes = [UInt8](repeating: 7, count: 3 << 20)
        #expect(try Pieces(bytes, piece: 1 << 20).source().readAll(limit: 3 << 20) == bytes)
        #expect(throws: ListenImporter.FileError.self) { try Pieces(bytes, piece: 1 << 20).source().readAll(limit: (3 << 20) - 1) }
        // The head is still there to read after a peek.
        let source = Pieces(Array("[1, 2]".utf8), piece: 2).source()
        #expect(try source.peek(3) == Array("[1,".utf8))
        #expect(try source.readAll(limit: 100) == Array("[1, 2]".utf8))
    }

    /// The elements of the array `key` names (nil: the input's own), as "line:text".
    static func elements(_ source: ByteSource, under key: String? = nil, maxLength: Int = 100) throws -> [String] {
        guard try source.enterArray(under: key) else { return ["no array"] }
        var seen: [String] = []
        try source.forEachArrayElement(maxLength: maxLength) { element in
            switch element {
            case .text(let bytes, let line):
                seen.append("\(line):" + String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            case .tooLong(let length, let line): seen.append("\(line):too long \(length)")
            case .broken(let message, let line): seen.append("\(line):broken: \(message)")
            }
        }
        return seen
    }

    @Test func arrayElementsOneAtATime() throws {
        for piece in [1, 3, 7, 1 << 20] {
            func read(_ text: String, under key: String? = nil, maxLength: Int = 100) throws -> [String] {
                try Self.elements(Pieces(Array(text.utf8), piece: piece).source(), under: key, maxLength: maxLength)
            }
            // Commas and brackets in strings (escaped quotes too) and nested values do not count.
            #expect(try read(#"[ {"a": "x,]}\"}"}, [1,2],"# + "\n  3 ]") == [#"1:{"a": "x,]}\"}"}"#, "1:[1,2]", "2:3"])
            #expect(try read(#"["b\\", 2]"#) == [#"1:"b\\""#, "1:2"])
            #expect(try read("[]") == [] && read(" \n[ \n ]") == [])
            // A truncated file, a missing comma: what came before is read, then the reason.
            #expect(try read("[1,\n{\"a\":") == ["1:1", "2:broken: the file ends inside the array"])
            #expect(try read("[1} 2]") == ["1:1", "1:broken: expected ',' or ']'"])
            #expect(try read("[") == ["1:broken: the file ends inside the array"])
            // An element over the limit is passed over, not held.
            #expect(try read("[1, \"" + String(repeating: "x", count: 200) + "\", 2]") == ["1:1", "1:too long 202", "1:2"])
            // A Maloja export's list, under its name.
            #expect(try read(#"{"maloja": {"v": "scrobbles"}, "scrobbles" : [1, 2]}"#, under: "scrobbles") == ["1:1", "1:2"])
            #expect(try read(#"{"maloja": 1}"#, under: "scrobbles") == ["no array"])
            #expect(try read(#"{"a": 1}"#) == ["no array"])
        }
    }

    /// A 64 MiB element between two small ones: read in one pass, holding a few MiB.
    @Test func anOverlongElementIsPassedOverWithoutBeingHeld() throws {
        var bytes = Array("[1, \"".utf8)
        bytes += [UInt8](repeating: UInt8(ascii: "x"), count: 64 << 20)
        bytes += Array("\", 2]".utf8)
        let source = Pieces(bytes, piece: 1 << 20).source()
        #expect(try Self.elements(source, maxLength: 1 << 20) == ["1:1", "1:too long \((64 << 20) + 2)", "1:2"])
        #expect(source.storage.count <= 4 << 20, "\(source.storage.count) bytes held")
    }

    /// CSV records one at a time are the records `CSVReader` reads from the whole text.
    @Test func csvRecordsOneAtATimeAreTheWholeFilesRecords() throws {
        func whole(_ text: String) -> [String] {
            Array(text.utf8).withUnsafeBufferPointer { buffer in
                var reader = CSVReader(buffer)
                var out: [String] = []
                while let (record, line) = reader.next() { out.append("\(line): \(record)") }
                return out
            }
        }
        let texts = [
            "artist,album,track,date\nA,B,C,01 Jan 2024 10:00\n",
            "\u{FEFF}\"quoted, with comma\",\"a \"\"quote\"\"\nand a line\",x\r\nlast,no,line feed",
            "a\"b,\"c\"d\n\"\"\"\n\",e\n\n,\n",
            "\"never closed,\nstill\nopen",
        ]
        for text in texts {
            for piece in [1, 2, 5, 1 << 20] {
                var seen: [String] = []
                try Pieces(Array(text.utf8), piece: piece).source().forEachCSVRecord(maxLength: 100) { record in
                    guard case .text(let bytes, let line) = record else {
                        seen.append("too long")
                        return .whole
                    }
                    var reader = CSVReader(bytes)
                    while let (record, offset) = reader.next() { seen.append("\(line + offset - 1): \(record)") }
                    return .whole
                }
                #expect(seen == whole(text), "\(text.debugDescription), pieces of \(piece)")
            }
        }
        var long: [String] = []
        try Pieces(Array(("a\n\"" + String(repeating: "x\n", count: 100) + "\"\nb\n").utf8), piece: 7).source()
            .forEachCSVRecord(maxLength: 100) { record in
                switch record {
                case .text(let bytes, let line): long.append("\(line): " + String(decoding: bytes, as: UTF8.self))
                case .tooLong(let length, let line): long.append("\(line): too long \(length)")
                case .runaway(let line): long.append("\(line): runaway")
                }
                return .whole
            }
        // A record over the limit and over several lines is a quote that never closed: its
        // first line is given as such, and reading goes on at the next line (issue 52).
        #expect(long == ["1: a\n", "2: runaway"] + (3...101).map { "\($0): x\n" } + ["102: \"\nb\n"])
        // One line over the limit is passed over as before.
        var single: [String] = []
        try Pieces(Array(("a\n" + String(repeating: "y", count: 150) + "\nb\n").utf8), piece: 7).source()
            .forEachCSVRecord(maxLength: 100) { record in
                switch record {
                case .text(let bytes, let line): single.append("\(line): " + String(decoding: bytes, as: UTF8.self))
                case .tooLong(let length, let line): single.append("\(line): too long \(length)")
                case .runaway(let line): single.append("\(line): runaway")
                }
                return .whole
            }
        #expect(single == ["1: a\n", "2: too long 151", "3: b\n"])
    }

    @Test func zipNamesAreShownWithoutControlCharacters() {
        #expect(ZipArchive.printable("listens/2024/1.jsonl") == "listens/2024/1.jsonl")
        #expect(ZipArchive.printable("a\nb\"c") == "a\\u{a}b\\u{22}c")
    }
}

/// Private files (`PrivateFile`) and `InstanceFiles.temporary`, emptied by the daemon at start.
@Suite struct TemporaryFilesTests {
    static func mode(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_mode & 0o7777) : -1
    }

    @Test func whatACrashLeftInTheTemporaryFolderIsRemoved() throws {
        let dir = try TemporaryDirectory()
        let files = InstanceFiles(databasePath: dir.file("pacenote.sqlite"))
        try PrivateFile.makeDirectory(files.temporary)
        try PrivateFile.create(files.temporary + "/upload-1").close()
        try PrivateFile.makeDirectory(files.temporary + "/half-written")
        #expect(Self.mode(files.temporary) == 0o700 && Self.mode(files.temporary + "/upload-1") == 0o600)
        files.removeStaleTemporaryFiles()
        #expect(try FileManager.default.contentsOfDirectory(atPath: files.temporary).isEmpty)
    }

    @Test func privateFilesAreCreatedExclusively() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("a")
        let handle = try PrivateFile.create(path)
        try handle.close()
        #expect(Self.mode(path) == 0o600)
        #expect(throws: PrivateFile.Failure.self) { try PrivateFile.create(path) }
        // A planted link is not followed.
        #expect(symlink(dir.file("target"), dir.file("link")) == 0)
        #expect(throws: PrivateFile.Failure.self) { try PrivateFile.create(dir.file("link")) }
        #expect(!FileManager.default.fileExists(atPath: dir.file("target")))
        try PrivateFile.write(Data("x".utf8), atomicallyTo: dir.file("b"))
        #expect(Self.mode(dir.file("b")) == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["a", "b", "link"])
    }
}

/// The zip reader refuses directories that point anywhere, without trapping on the sums.
@Suite struct ZipDirectoryBoundsTests {
    static func le(_ value: UInt64, _ bytes: Int) -> [UInt8] { (0..<bytes).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    @Test func aZip64DirectoryOffsetNearTheTopIsRefusedNotATrap() throws {
        // A zip64 record (56 bytes) whose directory offset is 2^63-1 and size 16, its locator
        // (20 bytes), then the classic end record saying "see zip64" (22 bytes).
        var zip: [UInt8] = []
        zip += Self.le(0x0606_4B50, 4) + Self.le(44, 8) + Self.le(45, 2) + Self.le(45, 2) + Self.le(0, 4) + Self.le(0, 4)
        zip += Self.le(1, 8) + Self.le(1, 8) + Self.le(16, 8) + Self.le(UInt64(Int64.max), 8)
        zip += Self.le(0x0706_4B50, 4) + Self.le(0, 4) + Self.le(0, 8) + Self.le(1, 4)
        zip += Self.le(0x0605_4B50, 4) + Self.le(0, 4) + Self.le(0xFFFF, 2) + Self.le(0xFFFF, 2)
            + Self.le(0xFFFF_FFFF, 4) + Self.le(0xFFFF_FFFF, 4) + Self.le(0, 2)
        let bytes = zip
        #expect(throws: ZipArchive.Refusal.self) {
            _ = try ZipArchive(size: Int64(bytes.count)) { offset, buffer in
                let start = Int(offset), n = min(buffer.count, bytes.count - start)
                guard n > 0 else { return 0 }
                bytes.withUnsafeBytes { source in
                    buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + n)]))
                }
                return n
            }
        }
    }
}

/// Stopping the daemon ends an upload's import between two batches: the batches before are
/// whole and kept, and importing the file again adds the rest.
@Suite struct ImportCancellationTests {
    @Test func anImportStopsBetweenBatchesAndContinuesWhenRunAgain() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let lines = (0..<6).map { i in
            #"{"listened_at": \#(1_700_000_000 + i * 600), "track_metadata": {"artist_name": "Band", "track_name": "Song \#(i)"}}"#
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir.file("listens.jsonl"), atomically: true, encoding: .utf8)
        let asked = Mutex(0)
        let stopping = ListenImporter(store: store, batchSize: 2, cancelled: { asked.withLock { $0 += 1; return $0 > 1 } })
        #expect(throws: ListenImporter.FileError.self) { _ = try stopping.importFile(at: dir.file("listens.jsonl")) }
        #expect(try store.counts().plays == 2, "the first batch, whole")
        let again = try ListenImporter(store: store, batchSize: 2).importFile(at: dir.file("listens.jsonl"))
        #expect(again.imported == 4 && again.duplicates == 2)
        #expect(try store.counts().plays == 6)
    }
}

/// A `feedback.jsonl` is read a line at a time, and its feelings are held until all are
/// read (one operation): past `maxFeelings` the file is refused whole.
@Suite struct FeedbackLimitTests {
    @Test func tooManyFeelingsAreRefusedWhole() throws {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        let line = #"{"recording_mbid": "5b11f4ce-a62d-471e-81fc-a69a8278c7da", "score": 1}"# + "\n"
        try String(repeating: line, count: ListenImporter.maxFeelings + 1).write(toFile: dir.file("feedback.jsonl"), atomically: true, encoding: .utf8)
        do {
            _ = try ListenImporter(store: store).importFile(at: dir.file("feedback.jsonl"))
            Issue.record("imported")
        } catch let error as ListenImporter.FileError {
            #expect(error.description == "more than 200000 likes and dislikes in one file: none imported")
        }
        // A few are read (naming no track Pacenote has: unmatched).
        try String(repeating: line, count: 3).write(toFile: dir.file("few.jsonl"), atomically: true, encoding: .utf8)
        let few = try ListenImporter(store: store).importFile(at: dir.file("few.jsonl"))
        #expect(few.feelingsUnmatched == 3 && few.errors == 0)
    }
}
