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
        // One import per format for the whole zip (ListenBrainz's: a file per month).
        var imports: [String: SharedImport] = [:]
        defer { for shared in imports.values { shared.session.finish() } }
        let isFeedback = { (entry: ZipArchive.Entry) in entry.name == "feedback.jsonl" || entry.name.hasSuffix("/feedback.jsonl") }
        for entry in chosen.filter({ !isFeedback($0) }) + chosen.filter(isFeedback) {
            let reader = archive.reader(for: entry)
            let source = ByteSource(read: { try reader.read(into: $0) })
            do {
                let head = try source.peek(65_536)
                if isFeedback(entry), ListenBrainzFeedback.isFeedback(head: head) {
                    summary.add(try importFeedback(source, name: "\(name):\(entry.printableName)"))
                    found = true
                    continue
                }
                guard let kind = ImportFileKind.detect(head: head, forced: nil), kind.format != nil else { continue }
                found = true
                let format = kind.format!.source
                let shared = imports[format] ?? SharedImport(operations.importListens(source: format))
                imports[format] = shared
                let part = try importStream(source, kind: kind, name: "\(name):\(entry.printableName)", size: nil,
                                            before: summary, shared: shared)
                summary.add(part)
            } catch let refusal as ZipArchive.Refusal {
                // Only when the file changed since the check: what was stored stays.
                throw FileError(description: refusal.description + " (the entries before it were stored)")
            }
        }
        guard found else { throw FileError(description: "the zip has no listens (.jsonl or .json files of an export)") }
        if imports.values.contains(where: \.session.buildsIndexesAtFinish), let progress {
            progress(Progress(file: name, bytesRead: 0, bytesTotal: nil, summary: summary, buildingIndexes: true))
        }
        return summary
    }
}
