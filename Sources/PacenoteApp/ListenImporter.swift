import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Imports listening history exports into the store: reads files (or an uploaded body),
/// tells their format from the content, reads rows with PacenoteCore's readers and stores
/// them in batches of `batchSize`, one transaction each.
///
/// Memory stays bounded for JSON lines (the ListenBrainz export, the largest by far): they
/// are read in 1 MiB chunks. JSON arrays and CSV files are read whole (a Spotify file is
/// ~12 MB). Zip files (ListenBrainz's export) are read entry by entry through `unzip -p`.
public final class ListenImporter {
    public struct Progress: Sendable {
        public var file: String
        public var bytesRead: Int64
        public var bytesTotal: Int64?
        public var summary: ImportSummary
    }

    /// A file that cannot be imported at all (nothing of it was stored).
    public struct FileError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Batches are stored through the one write path, which announces them.
    let operations: Operations
    let forced: ImportFormat?
    let batchSize: Int
    let progress: ((Progress) -> Void)?

    /// `events`: where a daemon's caches and recommender hear of the imported plays (nil
    /// for `pacenote import`, a process of its own).
    public init(store: Store, events: EventBus? = nil, format: ImportFormat? = nil, batchSize: Int = 100_000,
                progress: ((Progress) -> Void)? = nil) {
        self.operations = Operations(store: store, events: events)
        self.forced = format
        self.batchSize = max(1, batchSize)
        self.progress = progress
    }

    /// The kind of the file at `path`, from its first 64 KiB (nil: none Pacenote reads).
    public static func kind(ofFileAt path: String, forced: ImportFormat? = nil) throws(FileError) -> ImportFileKind? {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw FileError(description: "cannot read the file") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 65_536)) ?? Data()
        return ImportFileKind.detect(head: Array(head), forced: forced)
    }

    /// Imports one file. Rows that cannot be read are in the summary with their line.
    public func importFile(at path: String, name: String? = nil) throws -> ImportSummary {
        let name = name ?? path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FileError(description: "cannot read the file: \(String(cString: strerror(errno)))") }
        var info = stat()
        let size: Int64? = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        let source = ByteSource(fd: fd, closeOnEnd: true)
        let head = source.peek(65_536)
        guard let kind = ImportFileKind.detect(head: head, forced: forced) else {
            source.close()
            throw FileError(description: "not a TCX or GPX file, nor a ListenBrainz, Last.fm, Spotify or Maloja export")
        }
        if kind == .zip {
            source.close()
            return try importZip(at: path, name: name)
        }
        defer { source.close() }
        return try importStream(source, kind: kind, name: name, size: size)
    }

    /// Imports an uploaded file (`POST /api/v1/import`).
    public func importBytes(_ bytes: [UInt8], name: String) throws -> ImportSummary {
        guard let kind = ImportFileKind.detect(head: Array(bytes.prefix(65_536)), forced: forced) else {
            throw FileError(description: "not a ListenBrainz, Last.fm, Spotify or Maloja export")
        }
        switch kind {
        case .zip:
            // unzip needs a seekable file.
            let path = NSTemporaryDirectory() + "pacenote-import-\(UUID().uuidString).zip"
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw FileError(description: "cannot write a temporary file for the zip")
            }
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try importZip(at: path, name: name)
        case .tcx, .gpx:
            throw FileError(description: "workout files are imported with `pacenote import`, not here")
        default:
            return try importStream(ByteSource(bytes: bytes), kind: kind, name: name, size: Int64(bytes.count))
        }
    }

    // MARK: Zip (ListenBrainz's export: listens/YYYY/M.jsonl, plus user.json and feedback.jsonl)

    func importZip(at path: String, name: String) throws -> ImportSummary {
        let listing = try Self.unzip(["-Z1", path])
        let entries = String(decoding: listing, as: UTF8.self).split(separator: "\n").map(String.init)
            .filter { ($0.hasSuffix(".jsonl") || $0.hasSuffix(".json")) && !$0.hasSuffix("/") }
            .sorted()
        var summary = ImportSummary()
        var found = false
        for entry in entries {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try Self.unzipPath())
            process.arguments = ["-p", path, entry]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            try process.run()
            let source = ByteSource(fd: pipe.fileHandleForReading.fileDescriptor, closeOnEnd: false)
            defer {
                try? pipe.fileHandleForReading.close()
                process.waitUntilExit()
            }
            // Entries that are not listens (the user record, feedback) are passed over.
            guard let kind = ImportFileKind.detect(head: source.peek(65_536), forced: nil), kind.format != nil else { continue }
            found = true
            let part = try importStream(source, kind: kind, name: "\(name):\(entry)", size: nil, before: summary)
            summary.add(part)
        }
        guard found else { throw FileError(description: "the zip has no listens (.jsonl or .json files of an export)") }
        return summary
    }

    static func unzipPath() throws(FileError) -> String {
        for dir in ["/usr/bin", "/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/unzip") {
            return dir + "/unzip"
        }
        throw FileError(description: "reading a zip needs `unzip` (apt-get install unzip)")
    }

    static func unzip(_ arguments: [String]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try unzipPath())
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FileError(description: "not a readable zip file") }
        return Array(data)
    }

    // MARK: Rows

    /// Rows read since the last chunk: the listens to store and the counts of the others.
    struct Chunk: Sendable {
        var batch = ImportBatch()
        var summary = ImportSummary()
        var consumed: Int64 = 0
    }

    /// Reads every row of one file or zip entry and stores the listens in batches. Reading
    /// and parsing run on a thread of their own, a batch ahead of the store: the two halves
    /// take about as long as each other, and the machine has more than one core.
    /// `before`: what earlier parts of the same upload gave, for the progress line.
    func importStream(_ source: ByteSource, kind: ImportFileKind, name: String, size: Int64?,
                      before: ImportSummary = ImportSummary()) throws -> ImportSummary {
        guard let format = kind.format else { throw FileError(description: "not a listen export") }
        let session = operations.importListens(source: format.source)
        defer { session.finish() }
        let handoff = Handoff<Chunk>(capacity: 1)
        let reader = UncheckedBox(source)
        let batchSize = self.batchSize
        let thread = Thread {
            do {
                try Self.readRows(reader.value, kind: kind, name: name, batchSize: batchSize) { chunk in
                    guard handoff.put(.item(chunk)) else { throw CancellationError() }
                }
                _ = handoff.put(.end)
            } catch {
                _ = handoff.put(.failed(UncheckedBox(error)))
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
        defer {
            // Stop the reader (if the store failed) and wait until it has let go of the source.
            handoff.cancel()
            handoff.waitForProducer()
        }
        var summary = ImportSummary()
        while true {
            switch handoff.take() {
            case .item(let chunk):
                let result = try session.insert(chunk.batch)
                summary.add(chunk.summary)
                summary.imported += result.imported
                summary.duplicates += result.duplicates
                if let progress {
                    var total = before
                    total.add(summary)
                    progress(Progress(file: name, bytesRead: chunk.consumed, bytesTotal: size, summary: total))
                }
            case .end:
                return summary
            case .failed(let box):
                throw box.value
            }
        }
    }

    /// Reads the rows of `source` and hands them on in chunks of `batchSize` listens.
    static func readRows(_ source: ByteSource, kind: ImportFileKind, name: String, batchSize: Int,
                         emit: (Chunk) throws -> Void) throws {
        var chunk = Chunk()
        var batcher = ImportBatcher()
        batcher.reserveCapacity(batchSize)
        func take(_ row: ImportRow, line: Int) throws {
            switch row {
            case .listen(let listen):
                chunk.summary.read += 1
                batcher.add(listen)
                if batcher.count >= batchSize {
                    chunk.batch = batcher.take()
                    chunk.consumed = source.consumed
                    try emit(chunk)
                    chunk = Chunk()
                    batcher.reserveCapacity(batchSize)
                }
            case .skipped(let why):
                // A header or an empty line is not a row.
                if why != "header" && why != "empty line" {
                    chunk.summary.read += 1
                    chunk.summary.skipped += 1
                }
            case .error(let message):
                chunk.summary.read += 1
                chunk.summary.report(ImportProblem(file: name, line: line, message: message))
            }
        }

        switch kind {
        case .listenBrainzLines:
            var line = 0
            try source.forEachLine { bytes in
                line += 1
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
                let row: ImportRow
                do {
                    row = ExportRows.listenBrainz(try ImportJSON.parse(bytes))
                } catch let error as ImportJSON.SyntaxError {
                    row = .error("unreadable JSON: \(error.message) (column \(error.offset + 1))")
                } catch {
                    row = .error("unreadable JSON")
                }
                try take(row, line: line)
            }
        case .listenBrainzArray, .spotify, .maloja:
            let bytes = source.readAll()
            try bytes.withUnsafeBufferPointer { buffer in
                var start = 0
                if kind == .maloja {
                    guard let offset = arrayStart(after: "scrobbles", in: buffer) else {
                        throw FileError(description: "no \"scrobbles\" list: not a Maloja export")
                    }
                    start = offset
                }
                let body = UnsafeBufferPointer(rebasing: buffer[start...])
                var reader: ImportJSON.ArrayReader
                do {
                    reader = try ImportJSON.ArrayReader(body)
                } catch {
                    throw FileError(description: "not a JSON array")
                }
                var counter = LineCounter(buffer)
                while true {
                    let element: (value: ImportJSON, offset: Int)?
                    do {
                        element = try reader.next()
                    } catch let error as ImportJSON.SyntaxError {
                        try take(.error("unreadable JSON: \(error.message); the rest of the file is not read"),
                                 line: counter.line(at: start + error.offset))
                        break
                    } catch {
                        throw error
                    }
                    guard let (value, offset) = element else { break }
                    let line = counter.line(at: start + offset)
                    let row: ImportRow = switch kind {
                    case .spotify: ExportRows.spotify(value)
                    case .maloja: ExportRows.maloja(value)
                    default: ExportRows.listenBrainz(value)
                    }
                    try take(row, line: line)
                }
            }
        case .lastFMCSV:
            let bytes = source.readAll()
            try bytes.withUnsafeBufferPointer { buffer in
                var reader = CSVReader(buffer)
                var csv = LastFMCSV()
                while let (record, line) = reader.next() {
                    switch record {
                    case .fields(let fields): try take(csv.row(fields), line: line)
                    case .broken(let message): try take(.error(message), line: line)
                    }
                }
            }
        case .zip, .tcx, .gpx:
            throw FileError(description: "not a listen export")
        }
        chunk.batch = batcher.take()
        chunk.consumed = source.consumed
        try emit(chunk)
    }

    /// The offset of the `[` that opens the array under `"key":` at the top level.
    static func arrayStart(after key: String, in buffer: UnsafeBufferPointer<UInt8>) -> Int? {
        let needle = Array("\"\(key)\"".utf8)
        guard buffer.count >= needle.count else { return nil }
        var i = 0
        outer: while i + needle.count <= buffer.count {
            for j in 0..<needle.count where buffer[i + j] != needle[j] {
                i += 1
                continue outer
            }
            var k = i + needle.count
            while k < buffer.count, [0x20, 0x09, 0x0A, 0x0D].contains(buffer[k]) { k += 1 }
            guard k < buffer.count, buffer[k] == UInt8(ascii: ":") else { i += 1; continue }
            k += 1
            while k < buffer.count, [0x20, 0x09, 0x0A, 0x0D].contains(buffer[k]) { k += 1 }
            return k < buffer.count && buffer[k] == UInt8(ascii: "[") ? k : nil
        }
        return nil
    }
}
