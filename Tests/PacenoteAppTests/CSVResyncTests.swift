import Foundation
@testable import PacenoteApp
import PacenoteCore
import PacenoteStore
import PacenoteTestSupport
import Testing

/// A CSV row whose quote never closes is one unreadable row, reported at its line, and the
/// import goes on at the next line that reads as a row (issue 52: it swallowed the rest of
/// the file, "read 2, imported 1 … errors 1").
@Suite struct CSVResyncTests {
    static let rows = [
        "Band,Album,Song 1,01 Jan 2024 10:00",
        "Band,\"Album,Song 2,01 Jan 2024 10:05",
        "Band,Album,Song 3,01 Jan 2024 10:10",
        "Band,Album,Song 4,01 Jan 2024 10:15",
        "Band,Album,Song 5,01 Jan 2024 10:20",
        "Band,Album,Song 6,01 Jan 2024 10:25",
    ]

    func imported(_ text: String) throws -> (ImportSummary, [String]) {
        let dir = try TemporaryDirectory()
        let store = try Store.open(path: dir.file("p.sqlite"), timeZone: TimeZone(identifier: "UTC")!)
        defer { try? store.close() }
        try text.write(toFile: dir.file("scrobbles.csv"), atomically: true, encoding: .utf8)
        // Read from the file (a chunk at a time) and from memory (an upload): the same.
        let summary = try ListenImporter(store: store).importFile(at: dir.file("scrobbles.csv"), name: "scrobbles.csv")
        let again = try ListenImporter(store: store).importBytes(Array(text.utf8), name: "scrobbles.csv")
        #expect(again.read == summary.read && again.errors == summary.errors && again.problems == summary.problems)
        #expect(again.duplicates == summary.imported)
        let titles = try store.recentPlays(limit: 100).map(\.track.title).sorted()
        return (summary, titles)
    }

    @Test func anUnclosedQuoteIsOneRowInError() throws {
        let (summary, titles) = try imported(Self.rows.joined(separator: "\n") + "\n")
        #expect(summary.line == "read 6, imported 5, duplicates 0, skipped 0, errors 1")
        #expect(summary.problems.map(\.description) == ["scrobbles.csv:2: \(ListenImporter.unclosedQuoteMessage)"])
        #expect(titles == ["Song 1", "Song 3", "Song 4", "Song 5", "Song 6"])
    }

    @Test func withAHeaderAndCRLFAndInTheLastRow() throws {
        var rows = ["artist,album,track,date"] + Self.rows
        rows[6] = "Band,Album,\"Song 6,01 Jan 2024 10:25"
        let (summary, titles) = try imported(rows.joined(separator: "\r\n"))
        #expect(summary.read == 6 && summary.imported == 4 && summary.errors == 2, "\(summary.line)")
        #expect(summary.problems.map(\.line) == [3, 7], "\(summary.problems)")
        #expect(titles == ["Song 1", "Song 3", "Song 4", "Song 5"])
    }

    /// RFC 4180 lets a quoted field hold line breaks: a record over two lines whose row reads
    /// is one row, not an error.
    @Test func aQuotedLineBreakThatReadsStaysOneRow() throws {
        let text = "Band,\"Album\nPart Two\",Song 1,01 Jan 2024 10:00\nBand,Album,Song 2,01 Jan 2024 10:05\n"
        let (summary, titles) = try imported(text)
        #expect(summary.line == "read 2, imported 2, duplicates 0, skipped 0, errors 0")
        #expect(titles == ["Song 1", "Song 2"])
    }

    /// Two unclosed quotes in a row: each is its own error, and the rows around them import.
    @Test func everyUnclosedQuoteIsReportedOnItsOwnLine() throws {
        var rows = Self.rows
        rows[3] = "Band,Album,\"Song 4,01 Jan 2024 10:15"
        let (summary, titles) = try imported(rows.joined(separator: "\n") + "\n")
        #expect(summary.read == 6 && summary.imported == 4 && summary.errors == 2, "\(summary.line)")
        #expect(summary.problems.map(\.line) == [2, 4])
        #expect(titles == ["Song 1", "Song 3", "Song 5", "Song 6"])
    }
}
