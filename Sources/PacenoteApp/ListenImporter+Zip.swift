import Foundation
import PacenoteCore

// Zip files: ListenBrainz's export (listens/YYYY/M.jsonl, plus user.json and feedback.jsonl),
// or any zip of exports Pacenote reads.

extension ListenImporter {
    /// The zip's directory, read and checked (`ZipArchive`); a refusal is a `FileError`.
    static func zip(size: Int64, readAt: @escaping (Int64, UnsafeMutableRawBufferPointer) throws -> Int) throws(FileError) -> ZipArchive {
        do {
            return try ZipArchive(size: size, readAt: readAt)
        } catch {
            throw FileError(description: error.description)
        }
    }

    /// Imports the zip's `.jsonl` and `.json` entries, in the order of their names, then its
    /// `feedback.jsonl` (likes and dislikes, once the listens' tracks exist); other entries
    /// that are not listens (the user record) are passed over.
    ///
    /// The zip is checked whole before its first row is stored, so a bomb or a damaged zip
    /// stores nothing: the directory's sizes (`ZipArchive.check`), then each entry inflated
    /// once without being kept (its size, CRC-32 and the end of its stream). Inflating
    /// costs a tenth or so of what storing the rows does.
    func importZip(_ archive: ZipArchive, name: String) throws -> ImportSummary {
        let chosen = archive.entries
            .filter { !$0.isDirectory && ($0.name.hasSuffix(".jsonl") || $0.name.hasSuffix(".json")) }
            .sorted { $0.name < $1.name }
        do {
            try archive.check(chosen)
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
            defer { scratch.deallocate() }
            for entry in chosen {
                let reader = archive.reader(for: entry)
                while try reader.read(into: scratch) > 0 {}
            }
        } catch let refusal as ZipArchive.Refusal {
            throw FileError(description: refusal.description)
        }
        var summary = ImportSummary()
        var found = false
        let isFeedback = { (entry: ZipArchive.Entry) in entry.name == "feedback.jsonl" || entry.name.hasSuffix("/feedback.jsonl") }
        func source(_ entry: ZipArchive.Entry) -> ByteSource {
            let reader = archive.reader(for: entry)
            return ByteSource(read: { try reader.read(into: $0) })
        }
        do {
            // The entries of listens, by format (ListenBrainz's: a file per month), each
            // format's one import; then `feedback.jsonl`, once the listens' tracks exist.
            var listens: [(entry: ZipArchive.Entry, kind: ImportFileKind)] = []
            // A CSV is no part of an export's zip (which holds JSON): one there is passed over.
            for entry in chosen where !isFeedback(entry) {
                let head = try source(entry).peek(65_536)
                guard let kind = ImportFileKind.detect(head: head, forced: nil), kind.format != nil, kind != .lastFMCSV else { continue }
                listens.append((entry, kind))
            }
            var formats: [String] = []
            for (_, kind) in listens where !formats.contains(kind.format!.source) { formats.append(kind.format!.source) }
            for format in formats {
                found = true
                var pending = listens.filter { $0.kind.format!.source == format }[...]
                summary.add(try importParts(source: format, name: name, size: nil, before: summary) {
                    guard let (entry, kind) = pending.popFirst() else { return nil }
                    return ImportPart(source: source(entry), kind: kind, name: "\(name):\(entry.printableName)")
                })
            }
            for entry in chosen where isFeedback(entry) {
                let entrySource = source(entry)
                let head = try entrySource.peek(65_536)
                if ListenBrainzFeedback.isFeedback(head: head) {
                    summary.add(try importFeedback(entrySource, name: "\(name):\(entry.printableName)"))
                    found = true
                } else if let kind = ImportFileKind.detect(head: head, forced: nil), kind.format != nil, kind != .lastFMCSV {
                    found = true
                    summary.add(try importStream(entrySource, kind: kind, name: "\(name):\(entry.printableName)", size: nil, before: summary))
                }
            }
        } catch let refusal as ZipArchive.Refusal {
            // Only when the file changed since the check: what was stored stays.
            throw FileError(description: refusal.description + " (the entries before it were stored)")
        }
        guard found else { throw FileError(description: "the zip has no listens (.jsonl or .json files of an export)") }
        return summary
    }
}
