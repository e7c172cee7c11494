import Foundation
import PacenoteCore
import Testing

/// The curation log stores facts; the line people read is made from them when shown, in the
/// reader's time zone (issue 53, point 3: no user-facing text inside a transaction).
@Suite struct CurationFactsTests {
    let utc = LocalTime(timeZone: TimeZone(identifier: "UTC")!)
    let paris = LocalTime(timeZone: TimeZone(identifier: "Europe/Paris")!)
    /// 2026-01-05 11:30 UTC.
    let at = Date(timeIntervalSince1970: 1_767_612_600)

    @Test func eachKindReadsAsTheLineTheLogAlwaysShowed() {
        #expect(CurationFacts.deleted(plays: 1, title: "Clair", startedAt: at).summary(in: utc)
            == "Deleted the play of “Clair” at 2026-01-05 11:30")
        #expect(CurationFacts.deleted(plays: 3, title: nil, startedAt: nil).summary(in: utc) == "Deleted 3 plays")
        #expect(CurationFacts.edited(startedAt: at, titleBefore: "A", titleAfter: "B", counted: false).summary(in: utc)
            == "Edited the play of 2026-01-05 11:30: “A” → “B”, a skip")
        #expect(CurationFacts.edited(startedAt: at, titleBefore: nil, titleAfter: nil, counted: nil).summary(in: utc)
            == "Edited the play of 2026-01-05 11:30")
        #expect(CurationFacts.added(plays: 1, title: "Clair", startedAt: at).summary(in: utc)
            == "Added a play of “Clair” at 2026-01-05 11:30")
        #expect(CurationFacts.added(plays: 12, title: nil, startedAt: at).summary(in: utc) == "Added 12 plays from 2026-01-05 11:30")
        #expect(CurationFacts.merged(kind: "artist", names: ["Florence + the Machine", "florence"], into: "Florence and the Machine", albums: 1)
            .summary(in: utc) == "Merged artist “Florence + the Machine”, “florence” into “Florence and the Machine”, and 1 album of the same title")
        #expect(CurationFacts.merged(kind: "track", names: ["x"], into: "y", albums: 0).summary(in: utc) == "Merged track “x” into “y”")
        let rule = CurationRule(action: .ignore, field: .artist, match: .equals, value: "Podcast")
        #expect(CurationFacts.rule(rule, plays: 1).summary(in: utc) == "Ignore plays whose artist is “Podcast”: 1 play")
        #expect(CurationFacts.rule(rule, plays: 4).summary(in: utc) == "Ignore plays whose artist is “Podcast”: 4 plays")
    }

    @Test func timesReadInTheZoneOfTheReaderNotTheWriter() {
        let facts = CurationFacts.added(plays: 1, title: "Clair", startedAt: at)
        #expect(facts.summary(in: paris) == "Added a play of “Clair” at 2026-01-05 12:30")
    }

    @Test func theStoredFormRoundTripsAndAnOldEntryKeepsItsLine() throws {
        let all: [CurationFacts] = [
            .deleted(plays: 1, title: "“quoted” <b>", startedAt: at), .edited(startedAt: at, titleBefore: nil, titleAfter: nil, counted: true),
            .added(plays: 2, title: nil, startedAt: at), .merged(kind: "album", names: ["a", "b"], into: "c", albums: 0),
            .rule(action: "rewrite", field: "title", match: "regex", value: "(a+)$", replacement: "[$1]", plays: 2),
        ]
        for facts in all { #expect(CurationFacts(json: facts.json) == facts, "\(facts.json)") }
        #expect(CurationFacts(json: "{\"nonsense\": 1}") == nil)
        let old = CurationEntry(id: 1, at: at, kind: .delete, facts: nil, storedSummary: "Deleted 2 plays", request: "{}",
                                source: "api", undoneAt: nil, touches: [])
        #expect(old.summary(in: paris) == "Deleted 2 plays")
    }
}
