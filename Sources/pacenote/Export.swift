import ArgumentParser
import Foundation
import PacenoteApp
import PacenoteCore
import PacenoteStore

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write plays as ListenBrainz JSON lines or CSV.",
        discussion: """
            listenbrainz: one listen per line, as ListenBrainz exports them (importable into ListenBrainz and \
            back into Pacenote, exactly). csv: Last.fm exporter columns plus Pacenote's own. Without --format, the \
            --output file's extension tells it (.jsonl or .ndjson: listenbrainz; .csv: csv). --from and --to are \
            days (YYYY-MM-DD, in the display time zone; --to is included) or ISO 8601 times. --feedback FILE             also writes the likes and dislikes as ListenBrainz's feedback.jsonl (which `pacenote import` reads back).
            """)

    @OptionGroup var storage: StorageOptions

    @Option(help: ArgumentHelp("listenbrainz or csv. Default: told by the --output file's extension (.jsonl, .csv).", valueName: "format"))
    var format: String?

    @Option(help: ArgumentHelp("First day or time.", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("Last day (included) or time (excluded).", valueName: "date"))
    var to: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "file"))
    var output: String?

    @Option(help: ArgumentHelp("Also write likes and dislikes to this file, as ListenBrainz's feedback.jsonl.", valueName: "file"))
    var feedback: String?

    @Option(help: ArgumentHelp("Also write the curation log (corrections and merges) to this file, as JSON lines that `pacenote import --curation` replays.",
                               valueName: "file"))
    var curation: String?

    func run() throws {
        let config = try storage.loadConfig()
        let exportFormat = try Self.format(format, output: output)
        // Days in the display time zone, as the API reads `from` and `to`; `--to` a day
        // means up to the end of that day.
        let local = LocalTime(timeZone: config.timeZone)
        let fromDate = try Self.instant(from, in: local, endOfDay: false)
        let toDate = try Self.instant(to, in: local, endOfDay: true)
        let handle = try openOutput()
        var writer = LineWriter(handle: handle)
        var count = 0
        let store = try PacenoteServer.openStore(config: config)
        defer { try? store.close() }
        if exportFormat == .csv { writer.write(ListenExport.csvHeader) }
        try store.forEachPlay(from: fromDate, to: toDate) { item in
            count += 1
            writer.write(exportFormat == .csv ? ListenExport.csvLine(play: item.play, track: item.track)
                                              : ListenExport.listenBrainzLine(play: item.play, track: item.track))
        }
        writer.flush()
        if let feedback { try writeFeedback(store: store, to: feedback) }
        if let curation { try writeCuration(store: store, to: curation) }
        if let output {
            try handle.close()
            FileHandle.standardError.write(Data("\(output): \(counted(count, "play"))\n".utf8))
        }
    }

    /// The format asked for, else the one the output file's extension names (issue 52:
    /// `--output plays.jsonl` alone was "Missing expected argument '--format'").
    static func format(_ given: String?, output: String?) throws -> ListenExport.Format {
        if let given {
            guard let format = ListenExport.Format(rawValue: given) else {
                throw Failure("--format: '\(given)' is not one of listenbrainz, csv")
            }
            return format
        }
        let choose = "give --format listenbrainz (JSON lines) or --format csv"
        guard let output else { throw Failure("--format: \(choose) (standard output has no file extension to tell it)") }
        switch (output as NSString).pathExtension.lowercased() {
        case "jsonl", "ndjson": return .listenbrainz
        case "csv": return .csv
        case "": throw Failure("--format: \(output) has no extension to tell the format: name it .jsonl or .csv, or \(choose)")
        case let other:
            throw Failure("--format: .\(other) (\(output)) is not a format export writes: name it .jsonl (ListenBrainz JSON lines) "
                          + "or .csv, or \(choose)")
        }
    }

    /// The curation log, oldest first, one JSON object a line (0600): the plays exported
    /// already show its deletes, edits and additions; its merges, replayed after an import,
    /// make their aliases again.
    private func writeCuration(store: Store, to path: String) throws {
        let handle: FileHandle
        do { handle = try PrivateFile.openForWriting(path) } catch { throw Failure(error.description) }
        var writer = LineWriter(handle: handle)
        let entries = try store.curationLog(limit: Int.max).reversed()
        for entry in entries { writer.write(CurationExport.line(entry, in: store.localTime)) }
        // The site's rules too (the configuration file's travel with the file).
        let rules = try store.rules().filter { !$0.fromConfig }
        for rule in rules { writer.write(CurationExport.line(rule)) }
        writer.flush()
        try handle.close()
        FileHandle.standardError.write(Data("\(path): \(entries.count) curation entr\(entries.count == 1 ? "y" : "ies"), \(counted(rules.count, "rule"))\n".utf8))
    }

    /// Every like and dislike, newest first, one ListenBrainz feedback line each (0600).
    private func writeFeedback(store: Store, to path: String) throws {
        let handle: FileHandle
        do { handle = try PrivateFile.openForWriting(path) } catch { throw Failure(error.description) }
        var writer = LineWriter(handle: handle)
        let all = try store.feelingTracks()
        for item in all {
            writer.write(ListenBrainzFeedback.line(track: item.track, feeling: item.feeling, createdAt: item.updatedAt))
        }
        writer.flush()
        try handle.close()
        FileHandle.standardError.write(Data("\(path): \(all.count == 1 ? "1 like or dislike" : "\(all.count) likes and dislikes")\n".utf8))
    }

    static func instant(_ text: String?, in local: LocalTime, endOfDay: Bool) throws -> Date? {
        guard let text else { return nil }
        guard let date = Instant.parse(text, in: local, endOfDay: endOfDay) else {
            throw Failure("'\(text)' is not a day (YYYY-MM-DD) or an ISO 8601 time")
        }
        return date
    }

    /// `--output` (a new file is created with mode 0600: plays are personal; an existing
    /// one is emptied and keeps its mode), or standard output.
    private func openOutput() throws -> FileHandle {
        guard let output else { return FileHandle.standardOutput }
        do {
            return try PrivateFile.openForWriting(output)
        } catch {
            throw Failure(error.description)
        }
    }
}

/// Lines written in blocks of 64 KiB rather than one write each.
private struct LineWriter {
    let handle: FileHandle
    var pending = ""

    mutating func write(_ line: String) {
        pending += line
        pending += "\n"
        if pending.utf8.count > 1 << 16 { flush() }
    }

    mutating func flush() {
        handle.write(Data(pending.utf8))
        pending = ""
    }
}
