import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Imports listening history exports into the store: reads files (or an uploaded body),
/// tells their format from the content, reads rows with PacenoteCore's readers and stores
/// them in batches of `batchSize`, one transaction each.
///
/// Everything read is bounded, for files from strangers (`POST /api/v1/import`): JSON lines
/// (the ListenBrainz export, the largest by far) are read in 1 MiB chunks in one pass, and a
/// line over `maxLineBytes` is an unreadable row, passed over without being held; JSON arrays
/// likewise an element at a time (`maxElementBytes`), and CSV files a record at a time (a
/// record over `maxLineBytes` is passed over; never from a zip: an export's zip holds JSON); zip
/// files (ListenBrainz's export) are read entry by entry as streams (`ZipArchive`, its
/// limits in `ZipArchive.Limits`), checked whole before their first row is stored.
public final class ListenImporter {
    public struct Progress: Sendable {
        public var file: String
        public var bytesRead: Int64
        public var bytesTotal: Int64?
        public var summary: ImportSummary
        /// The charts' indexes are being built again (a big import's last step, also when it
        /// was stopped or failed: `ListenImportSession.buildsIndexesAtFinish`).
        public var buildingIndexes = false
        /// Every row read was stored: the import was neither stopped nor failed.
        public var storedWhole = true
    }

    /// A file that cannot be imported at all (nothing of it was stored), or an import stopped
    /// part way (`stopped`: what it read and stored until then, its unreadable rows too).
    public struct FileError: Error, CustomStringConvertible, Sendable {
        public var description: String
        public var stopped: ImportSummary?

        public init(description: String, stopped: ImportSummary? = nil) {
            self.description = description
            self.stopped = stopped
        }
    }

    /// The longest line of a JSON lines file that is read (a listen is well under 4 KiB).
    public static let maxLineBytes = 1 << 20
    /// The most new tracks in one batch: a new track (with its texts, credit and album) takes
    /// ~1 KB on its way to the store, against ~40 bytes for a play, and two batches are held at
    /// once (200,000 plays of new tracks peaked at 330 MiB in batches of 100,000).
    public static let maxNewTracks = 10_000
    /// The most plays the reader hands the store at once. A transaction (`batchSize` plays)
    /// takes several such chunks: what is in flight stays small, whatever the batch size.
    public static let chunkSize = 50_000
    /// Plays per transaction, unless told otherwise (`pacenote import --batch-size`).
    public static let defaultBatchSize = 500_000
    /// A transaction takes no more chunks after this long (its rollups are then written, a
    /// second or so at most): the daemon's writes wait for the lock for up to `Store`'s busy
    /// timeout, 10 s. Shorter transactions cost speed: at 2 s, 5M plays took 65 s, not 54.
    public static let transactionSeconds = 4.0
    /// The largest file that is read whole into memory (`pacenote import --loved`'s CSV).
    public static let maxWholeFileBytes = 256 << 20
    /// The longest element of a JSON array that is read (a listen is well under 4 KiB); the
    /// array itself is read an element at a time (`ByteSource.forEachArrayElement`).
    public static let maxElementBytes = 1 << 20

    /// Batches are stored through the one write path, which announces them.
    let operations: Operations
    /// For reads (matching feelings to tracks); every write goes through `operations`.
    let store: Store
    let forced: ImportFormat?
    let batchSize: Int
    let progress: ((Progress) -> Void)?
    let cancelled: () -> Bool

    /// `events`: where a daemon's caches and recommender hear of the imported plays (nil
    /// for `pacenote import`, a process of its own). `cancelled`: asked before each batch;
    /// true ends the import there (the batches before stay: importing again continues).
    public init(store: Store, events: EventBus? = nil, format: ImportFormat? = nil, batchSize: Int = ListenImporter.defaultBatchSize,
                cancelled: @escaping () -> Bool = { false }, progress: ((Progress) -> Void)? = nil) {
        self.operations = Operations(store: store, events: events)
        self.store = store
        self.cancelled = cancelled
        self.forced = format
        self.batchSize = max(1, batchSize)
        self.progress = progress
    }

    /// The kind of the file at `path`, from its first 64 KiB (nil: none Pacenote reads).
    public static func kind(ofFileAt path: String, forced: ImportFormat? = nil) throws(FileError) -> ImportFileKind? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(description: cannotOpen(errno)) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 65_536)) ?? Data()
        return ImportFileKind.detect(head: Array(head), forced: forced)
    }

    /// Why a file did not open, in the words of `ls` and `cat`: "no such file" first.
    static func cannotOpen(_ code: Int32) -> String {
        code == ENOENT ? "no such file" : "cannot read the file: \(String(cString: strerror(code)))"
    }

    /// Imports one file. Rows that cannot be read are in the summary with their line.
    public func importFile(at path: String, name: String? = nil) throws -> ImportSummary {
        let name = name ?? path
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError(description: Self.cannotOpen(errno)) }
        var info = stat()
        let size: Int64? = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
        let source = ByteSource(fd: fd, closeOnEnd: true)
        defer { source.close() }
        let head = try source.peek(65_536)
        if forced == nil, ListenBrainzFeedback.isFeedback(head: head) { return try importFeedback(source, name: name) }
        guard let kind = ImportFileKind.detect(head: head, forced: forced) else {
            throw FileError(description: "not a TCX, GPX or FIT file, nor a ListenBrainz, Last.fm, Spotify or Maloja export")
        }
        if kind == .zip {
            guard let size else { throw FileError(description: "a zip is read from a file, not a pipe") }
            let archive = try Self.zip(size: size) { offset, target in
                var n: Int
                repeat { n = pread(fd, target.baseAddress!, target.count, off_t(offset)) } while n < 0 && errno == EINTR
                guard n >= 0 else { throw FileError(description: "cannot read the file: \(String(cString: strerror(errno)))") }
                return n
            }
            return try importZip(archive, name: name)
        }
        return try importStream(source, kind: kind, name: name, size: size)
    }

    /// Imports an uploaded file (`POST /api/v1/import`).
    public func importBytes(_ bytes: [UInt8], name: String) throws -> ImportSummary {
        if forced == nil, ListenBrainzFeedback.isFeedback(head: Array(bytes.prefix(65_536))) {
            return try importFeedback(ByteSource(bytes: bytes), name: name)
        }
        guard let kind = ImportFileKind.detect(head: Array(bytes.prefix(65_536)), forced: forced) else {
            throw FileError(description: "not a ListenBrainz, Last.fm, Spotify or Maloja export")
        }
        switch kind {
        case .zip:
            let archive = try Self.zip(size: Int64(bytes.count)) { offset, target in
                guard offset < bytes.count else { return 0 }
                let n = min(target.count, bytes.count - Int(offset))
                bytes.withUnsafeBytes { target.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(offset)..<(Int(offset) + n)])) }
                return n
            }
            return try importZip(archive, name: name)
        case .tcx, .gpx, .fit:
            throw FileError(description: "workout files are imported with `pacenote import`, not here")
        default:
            return try importStream(ByteSource(bytes: bytes), kind: kind, name: name, size: Int64(bytes.count))
        }
    }

    // MARK: Rows

    /// Rows read since the last chunk: the listens to store and the counts of the others.
    struct Chunk: Sendable {
        var batch = ImportBatch()
        var summary = ImportSummary()
        var consumed: Int64 = 0
    }

    /// One part of an import: a file, or a zip's entry, of a listen export.
    struct ImportPart {
        var source: ByteSource
        var kind: ImportFileKind
        var name: String
    }

    /// Reads every row of one file and stores the listens in batches (`importParts`).
    func importStream(_ source: ByteSource, kind: ImportFileKind, name: String, size: Int64?,
                      before: ImportSummary = ImportSummary()) throws -> ImportSummary {
        guard let format = kind.format else { throw FileError(description: "not a listen export") }
        var given = false
        return try importParts(source: format.source, name: name, size: size, before: before) {
            defer { given = true }
            return given ? nil : ImportPart(source: source, kind: kind, name: name)
        }
    }

    /// Reads every row of the parts `next` gives (files or a zip's entries, all of one
    /// format; called on the reader thread, one part after another) and stores their
    /// listens as one import: one session, whose batcher numbers the tracks' keys across
    /// parts, and transactions that run on from one part into the next — a ListenBrainz
    /// export's file per month is not a transaction per month, nor a setting aside and
    /// building of the charts' indexes per month (`ListenImportSession.buildsIndexesAtFinish`).
    /// Reading and parsing run on a thread of their own, a batch ahead of the store: the two
    /// halves take about as long as each other, and the machine has more than one core.
    /// `before`: what earlier parts of the same upload gave, for the progress line.
    func importParts(source format: String, name: String, size: Int64?, before: ImportSummary,
                     next: @escaping () throws -> ImportPart?) throws -> ImportSummary {
        let session = operations.importListens(source: format)
        defer { session.finish() }
        let handoff = Handoff<Chunk>(capacity: 1)
        let parts = UncheckedBox(next)
        let batchSize = self.batchSize
        // The rules are applied here, on the reader's thread, as each listen is read.
        let batcher = UncheckedBox(session.makeBatcher())
        let thread = Thread {
            do {
                var batcher = batcher.value
                while let part = try parts.value() {
                    try Self.readRows(part.source, kind: part.kind, name: part.name, batchSize: min(batchSize, Self.chunkSize),
                                      batcher: &batcher) { chunk in
                        guard handoff.put(.item(chunk)) else { throw CancellationError() }
                    }
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
        var ended = false
        var stopped = false
        /// How far into the source the stored chunks reach.
        var reached: Int64 = 0
        var failure: (any Error)?
        func report(_ consumed: Int64) {
            guard let progress else { return }
            var total = before
            total.add(summary)
            progress(Progress(file: name, bytesRead: consumed, bytesTotal: size, summary: total))
        }
        // Chunks are stored in transactions of `batchSize` plays (the last may be smaller),
        // or of what came in `transactionSeconds`: the write lock is never held for long.
        while !ended && !stopped {
            var planned = 0
            var consumed: Int64 = 0
            let began = DispatchTime.now().uptimeNanoseconds
            let result = try session.insert {
                guard planned < batchSize, !ended, !stopped,
                      Double(DispatchTime.now().uptimeNanoseconds - began) < Self.transactionSeconds * 1e9 else { return nil }
                switch handoff.take() {
                case .item(let chunk):
                    if cancelled() {
                        stopped = true
                        return nil
                    }
                    planned += chunk.batch.count
                    summary.add(chunk.summary)
                    consumed = chunk.consumed
                    return chunk.batch
                case .end:
                    ended = true
                case .failed(let box):
                    failure = box.value
                    ended = true
                }
                return nil
            }
            summary.imported += result.imported
            summary.duplicates += result.duplicates
            if planned > 0 {
                reached = consumed
                report(consumed)
            }
        }
        if session.buildsIndexesAtFinish, let progress {
            var total = before
            total.add(summary)
            // A stopped import is as far as it got; one that ended has read all of it.
            progress(Progress(file: name, bytesRead: stopped ? reached : size ?? 0, bytesTotal: size, summary: total, buildingIndexes: true,
                              storedWhole: !stopped && failure == nil))
        }
        if let failure { throw failure }
        if stopped {
            throw FileError(description: "stopped after \(summary.imported) new plays (whole batches); importing again continues",
                            stopped: summary)
        }
        return summary
    }

    static let unclosedQuoteMessage = "a quote (\") opened on this line is not closed: the row is not read, and reading goes on at the next line"

    /// Why a CSV record that runs over more than one line is taken for a quote that was
    /// never closed, so that only its first line is an error and the lines it swallowed are
    /// read again (nil: it is read as it is). A quoted field may hold line breaks (RFC 4180),
    /// so such a record stands when its row reads; one that reaches the end of the input
    /// still quoted, or whose row does not read, does not.
    static func unclosedQuote(_ bytes: UnsafeBufferPointer<UInt8>, csv: LastFMCSV) -> String? {
        guard let lineFeed = bytes.firstIndex(of: 0x0A), lineFeed < bytes.count - 1 else { return nil }
        var reader = CSVReader(bytes)
        guard let (record, _) = reader.next() else { return nil }
        switch record {
        case .broken: return unclosedQuoteMessage
        case .fields(let fields):
            var trial = csv
            guard case .error = trial.row(fields) else { return nil }
            return unclosedQuoteMessage
        }
    }

    /// Reads the rows of `source` and hands them on in chunks of `batchSize` listens.
    /// `batcher`: numbers the tracks' keys for the import's session (one per import, over
    /// all its parts); the part's last rows are handed on too.
    static func readRows(_ source: ByteSource, kind: ImportFileKind, name: String, batchSize: Int,
                         batcher: inout ImportBatcher, emit: (Chunk) throws -> Void) throws {
        var chunk = Chunk()
        batcher.reserveCapacity(batchSize)
        func take(_ row: ImportRow, line: Int) throws {
            switch row {
            case .listen(let listen):
                chunk.summary.read += 1
                batcher.add(listen)
                if batcher.count >= batchSize || batcher.batch.tracks.count >= maxNewTracks {
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
            try source.forEachLine(maxLength: maxLineBytes) { text in
                line += 1
                let bytes: UnsafeBufferPointer<UInt8>
                switch text {
                case .text(let line): bytes = line
                case .tooLong(let length):
                    try take(.error("a line of \(length) bytes, longer than \(maxLineBytes >> 20) MiB: not read"), line: line)
                    return
                }
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
            guard try source.enterArray(under: kind == .maloja ? "scrobbles" : nil) else {
                throw FileError(description: kind == .maloja ? "no \"scrobbles\" list: not a Maloja export" : "not a JSON array")
            }
            try source.forEachArrayElement(maxLength: maxElementBytes) { element in
                switch element {
                case .text(let bytes, let line):
                    let row: ImportRow
                    do {
                        let value = try ImportJSON.parse(bytes)
                        row = switch kind {
                        case .spotify: ExportRows.spotify(value)
                        case .maloja: ExportRows.maloja(value)
                        default: ExportRows.listenBrainz(value)
                        }
                    } catch let error as ImportJSON.SyntaxError {
                        row = .error("unreadable JSON: \(error.message)")
                    } catch {
                        row = .error("unreadable JSON")
                    }
                    try take(row, line: line)
                case .tooLong(let length, let line):
                    try take(.error("an element of \(length) bytes, longer than \(maxElementBytes >> 20) MiB: not read"), line: line)
                case .broken(let message, let line):
                    try take(.error("unreadable JSON: \(message); the rest of the file is not read"), line: line)
                }
            }
        case .lastFMCSV:
            var csv = LastFMCSV()
            try source.forEachCSVRecord(maxLength: maxLineBytes) { record in
                switch record {
                case .text(let bytes, let line):
                    // One record: the bytes end at its line feed.
                    if let unclosed = Self.unclosedQuote(bytes, csv: csv) {
                        try take(.error(unclosed), line: line)
                        return .firstLine
                    }
                    var reader = CSVReader(bytes)
                    while let (record, offset) = reader.next() {
                        switch record {
                        case .fields(let fields): try take(csv.row(fields), line: line + offset - 1)
                        case .broken(let message): try take(.error(message), line: line + offset - 1)
                        }
                    }
                case .tooLong(let length, let line):
                    try take(.error("a record of \(length) bytes, longer than \(maxLineBytes >> 20) MiB: not read"), line: line)
                case .runaway(let line):
                    try take(.error(unclosedQuoteMessage), line: line)
                }
                return .whole
            }
        case .zip, .tcx, .gpx, .fit:
            throw FileError(description: "not a listen export")
        }
        chunk.batch = batcher.take()
        chunk.consumed = source.consumed
        try emit(chunk)
    }
}
