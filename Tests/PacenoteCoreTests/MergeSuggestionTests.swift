import Testing
@testable import PacenoteCore

/// The duplicate finder's words and its choice of the name to keep (issue 52, rows 7 and 8).
struct MergeSuggestionTests {
    typealias N = MergeSuggestion.Name

    @Test func theReasonSaysWhatActuallyDiffers() {
        #expect(MergeSuggestion.reason(["Village", "Village"]) == "identical")
        #expect(MergeSuggestion.reason(["Kinks – Village", "Kinks – Village"]) == "identical")
        #expect(MergeSuggestion.reason(["Daft Punk", "DAFT PUNK"]) == "case")
        #expect(MergeSuggestion.reason(["Beyonce", "Beyoncé"]) == "accents")
        #expect(MergeSuggestion.reason(["Daft Punk", "DAFT PUNK", "Daft-Punk"]) == "case and punctuation")
        #expect(MergeSuggestion.reason(["AC/DC", "AC DC"]) == "punctuation")
        #expect(MergeSuggestion.reason(["The Kinks", "Kinks"]) == "“The”")
        #expect(MergeSuggestion.reason(["The Kinks – Village", "Kinks – Village"]) == "“The”")
        #expect(MergeSuggestion.reason(["The Kinks", "Kinks", "kinks"]) == "case and “The”")
        #expect(MergeSuggestion.reason(["Simon & Garfunkel", "Simon and Garfunkel"]) == "“&”, “+” or “and”")
        #expect(MergeSuggestion.reason(["Song - Remastered 2011", "Song"]) == "spelling, credits or version")
    }

    @Test func aTieKeepsTheFullerSpellingWhicheverComesFirst() {
        func keeper(_ names: [N]) -> String? {
            MergeSuggestion.group(.artist, names.map { ($0, "k") }, limit: 1).first?.names.first?.name
        }
        let kinks = N(id: 1, name: "Kinks", plays: 5), theKinks = N(id: 2, name: "The Kinks", plays: 5)
        #expect(keeper([kinks, theKinks]) == "The Kinks")
        #expect(keeper([theKinks, kinks]) == "The Kinks")
        #expect(keeper([N(id: 1, name: "The Kinks", plays: 5), N(id: 2, name: "Kinks", plays: 5)]) == "The Kinks")
        #expect(keeper([N(id: 1, name: "Beyonce", plays: 2), N(id: 2, name: "Beyoncé", plays: 2)]) == "Beyoncé")
        #expect(keeper([N(id: 1, name: "florence + the machine", plays: 2), N(id: 2, name: "Florence and the Machine", plays: 2)])
            == "Florence and the Machine")
        // More plays still win over spelling; the same spelling falls back to the older id.
        #expect(keeper([N(id: 1, name: "Kinks", plays: 6), theKinks]) == "Kinks")
        #expect(MergeSuggestion.group(.album, [(N(id: 9, name: "Village", plays: 1), "v"), (N(id: 4, name: "Village", plays: 1), "v")],
                                      limit: 1).first?.into == 4)
    }
}
