import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

// Likes and dislikes from exports: ListenBrainz's `feedback.jsonl` (alone or in its export
// zip, after the listens so that their tracks exist) and Last.fm loved tracks as CSV
// (`pacenote import --loved`). Each file's feelings are matched to tracks Pacenote has —
// by MusicBrainz recording id, then by a Pacenote msid, then by artist and title without
// regard to case — and set in one operation (source `import`); the ones that name no
// known track are counted as unmatched (no track is made for them).

extension ListenImporter {
    /// The most likes and dislikes one file sets: they are held until all are read (a file
    /// is set in one operation, or not at all), ~250 bytes each.
    public static let maxFeelings = 200_000

    /// A `feedback.jsonl`, read a line at a time (`maxLineBytes`).
    func importFeedback(_ source: ByteSource, name: String) throws -> ImportSummary {
        var summary = ImportSummary()
        var items: [ImportedFeeling] = []
        var line = 0
        // Feedback lines are counted as liked, disliked or unmatched (and errors), not as `read`
        // listens.
        try source.forEachLine(maxLength: Self.maxLineBytes) { text in
            line += 1
            switch text {
            case .tooLong(let length):
                summary.report(ImportProblem(file: name, line: line, message: "a line of \(length) bytes, longer than \(Self.maxLineBytes >> 20) MiB: not read"))
            case .text(let bytes):
                switch ListenBrainzFeedback.parse(line: String(decoding: bytes, as: UTF8.self)) {
                case .success(let item?):
                    guard items.count < Self.maxFeelings else {
                        throw FileError(description: "more than \(Self.maxFeelings) likes and dislikes in one file: none imported")
                    }
                    items.append(item)
                case .success(nil): break
                case .failure(let error): summary.report(ImportProblem(file: name, line: line, message: error.message))
                }
            }
        }
        try setFeelings(items, into: &summary)
        return summary
    }

    /// A CSV of Last.fm loved tracks (`LovedTracksCSV`): every row a like.
    public func importLovedTracks(at path: String, name: String? = nil) throws -> ImportSummary {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(description: FileManager.default.fileExists(atPath: path) ? "cannot read the file" : "no such file")
        }
        guard data.count <= Self.maxWholeFileBytes else { throw FileError(description: "larger than \(Self.maxWholeFileBytes >> 20) MiB") }
        let parsed = LovedTracksCSV.parse(Array(data))
        var summary = ImportSummary()
        for error in parsed.errors { summary.report(ImportProblem(file: name ?? path, line: error.line, message: error.message)) }
        try setFeelings(parsed.feelings, into: &summary)
        return summary
    }

    /// Matches each feeling to a track and sets them all in one operation.
    func setFeelings(_ items: [ImportedFeeling], into summary: inout ImportSummary) throws {
        var changes: [(trackID: Int64, feeling: Feeling)] = []
        for item in items {
            var id: Int64?
            if let mbid = item.recordingMBID { id = try store.trackID(recordingMBID: mbid) }
            if id == nil, let msid = item.recordingMSID, let own = PacenoteMSID.trackID(msid: msid), try store.track(id: own) != nil { id = own }
            if id == nil, let artist = item.artist, let title = item.title { id = try store.trackID(artist: artist, title: title) }
            guard let id else {
                summary.feelingsUnmatched += 1
                continue
            }
            changes.append((id, item.feeling))
            if item.feeling == .like { summary.liked += 1 } else { summary.disliked += 1 }
        }
        try operations.setFeelings(changes, source: "import")
    }
}
