import Foundation
import Testing
@testable import PacenoteCore

/// The pure parts of curation: undo dependencies, the export lines, duplicate keys and
/// suggestions, local times from a browser's form.
@Suite struct CurationCoreTests {
    func entry(_ id: Int64, _ touches: Set<String>, undone: Bool = false) -> CurationEntry {
        CurationEntry(id: id, at: Date(timeIntervalSince1970: 1_767_600_000), kind: .merge, facts: nil, storedSummary: "s", request: "{}", source: "api",
                      undoneAt: undone ? Date() : nil, touches: touches)
    }

    @Test func laterEntriesStillInForceThatTouchTheSameThingsBlockAnUndo() {
        let merge = entry(1, ["track:1", "track:2"])
        let later = [entry(2, ["play:9", "track:2"]), entry(3, ["track:2"], undone: true), entry(4, ["artist:2"]), entry(0, ["track:1"])]
        #expect(CurationEntry.blockers(of: merge, among: later).map(\.id) == [2])
        #expect(CurationEntry.touches(fromText: CurationEntry.touchesText(["track:1", "play:12"])) == ["track:1", "play:12"])
        #expect(CurationEntry.touchesText(["b", "a"]) == " a b ")
    }

    @Test func anExportLineReadsBack() {
        var e = entry(7, [])
        e.request = #"{"merge":{"from":[2],"from_keys":["a"],"into":1,"into_key":"b","kind":"artist"}}"#
        let line = CurationExport.line(e, in: LocalTime(timeZone: .gmt))
        #expect(!line.contains("\n"))
        let back = CurationExport.parse(line)
        #expect(back?.kind == .merge && back?.undone == false && back?.request == e.request)
        e.undoneAt = Date()
        #expect(CurationExport.parse(CurationExport.line(e, in: LocalTime(timeZone: .gmt)))?.undone == true)
        #expect(CurationExport.parse("not json") == nil && CurationExport.parse(#"{"kind": "merge"}"#) == nil)
        #expect(CurationExport.parse(#"{"kind": "nonsense", "request": {}}"#) == nil)
    }

    @Test func aSiteRuleTravelsAsALine() {
        let rule = CurationRule(id: 4, action: .rewrite, field: .title, match: .regex, value: #" - Remastered \d{4}$"#, replacement: "")
        let back = CurationExport.rule(CurationExport.line(rule))
        #expect(back.map { CurationExport.same($0, rule) } == true && back?.id == nil && back?.enabled == true)
        #expect(CurationExport.rule(#"{"rule": {"action": "mute", "field": "title", "match": "equals", "value": "x"}}"#) == nil)
        #expect(CurationExport.rule(CurationExport.line(entry(1, []), in: LocalTime(timeZone: .gmt))) == nil)
    }

    @Test func duplicateKeysFoldWhatPeopleSpellDifferently() {
        #expect(MergeSuggestion.artistKey("Florence + the Machine") == MergeSuggestion.artistKey("Florence and The Machine"))
        #expect(MergeSuggestion.artistKey("Beyoncé") == MergeSuggestion.artistKey("BEYONCE"))
        #expect(MergeSuggestion.artistKey("The Beatles") == MergeSuggestion.artistKey("Beatles"))
        #expect(MergeSuggestion.artistKey("Simon & Garfunkel") == MergeSuggestion.artistKey("Simon and Garfunkel"))
        #expect(MergeSuggestion.artistKey("Air") != MergeSuggestion.artistKey("Heir"))
        #expect(MergeSuggestion.trackKey(artist: "A", title: "Song - Remastered 2011") == MergeSuggestion.trackKey(artist: "a", title: "Song"))
        #expect(MergeSuggestion.trackKey(artist: "A feat. B", title: "Song (feat. C)") == MergeSuggestion.trackKey(artist: "A", title: "Song"))
        #expect(MergeSuggestion.trackKey(artist: "A", title: "Song") != MergeSuggestion.trackKey(artist: "A", title: "Other Song"))
        #expect(MergeSuggestion.albumKey(artist: "A", title: "Record (Deluxe Edition)") == MergeSuggestion.albumKey(artist: "A", title: "Record"))
    }

    @Test func suggestionsKeepTheMostPlayedAndComeMostPlayedFirst() {
        typealias N = MergeSuggestion.Name
        let items: [(name: N, key: String)] = [
            (N(id: 1, name: "Beyonce", plays: 3), "beyonce"), (N(id: 2, name: "Beyoncé", plays: 10), "beyonce"),
            (N(id: 3, name: "Solo", plays: 99), "solo"),
            (N(id: 4, name: "florence + the machine", plays: 20), "florence"), (N(id: 5, name: "Florence and the Machine", plays: 20), "florence"),
        ]
        let groups = MergeSuggestion.group(.artist, items, limit: 10)
        // Equal plays (4 and 5): the fuller spelling, with capitals, is kept.
        #expect(groups.map(\.into) == [5, 2])
        #expect(groups.map(\.from) == [[4], [1]])
        #expect(groups[1].reason == "accents")
        #expect(groups[0].reason == "“&”, “+” or “and”")
        #expect(MergeSuggestion.group(.artist, items, limit: 1).count == 1)
    }

    @Test func aBrowsersLocalTimeIsReadInTheDisplayZone() {
        let berlin = LocalTime(timeZone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(Instant.parse("2026-01-10T20:00", in: berlin) == Date(timeIntervalSince1970: 1_768_071_600))
        #expect(Instant.parse("2026-07-10T20:00:30", in: berlin) == Date(timeIntervalSince1970: 1_783_706_430))
        for bad in ["2026-01-10T25:00", "2026-02-30T10:00", "2026-01-10T10:0x", "2026-01-10X10:00"] {
            #expect(Instant.parse(bad, in: berlin) == nil, "\(bad)")
        }
    }
}
