import PacenoteCore
import Testing

/// The site's search as words (issue 57's library search): what FTS5's unicode61 tokenizer
/// with diacritics removed makes of a name, and every query word beginning a word of it.
@Suite struct SearchWordsTests {
    @Test func wordsAreFoldedLikeTheIndex() {
        #expect(SearchWords.words("Beyoncé") == ["beyonce"])
        #expect(SearchWords.words("AC/DC") == ["ac", "dc"])
        #expect(SearchWords.words("Jay-Z feat. Beyoncé") == ["jay", "z", "feat", "beyonce"])
        #expect(SearchWords.words("Sigur Rós – Ágætis byrjun") == ["sigur", "ros", "agætis", "byrjun"])
        #expect(SearchWords.words("ＡＢＣ 123") == ["abc", "123"], "full-width letters fold")
        #expect(SearchWords.words(" – … ").isEmpty)
    }

    @Test func everyQueryWordBeginsAWord() {
        #expect(SearchWords.matches("Beyoncé", query: "beyon"))
        #expect(SearchWords.matches("Beyoncé", query: "BEYONCE"))
        #expect(SearchWords.matches("Jay-Z feat. Beyoncé", query: "beyonce jay"), "words in any order")
        #expect(!SearchWords.matches("Jay-Z", query: "beyonce"))
        #expect(!SearchWords.matches("Beyoncé", query: "yonce"), "a word's start, not its middle")
        #expect(!SearchWords.matches("Beyoncé", query: "beyonce knowles"), "every word")
        #expect(SearchWords.matches("AC/DC", query: "ac/dc"))
        #expect(SearchWords.matches("AC/DC", query: "dc"))
        #expect(SearchWords.matches("anything", query: "  "), "no word: no narrowing")
        #expect(SearchWords.matches("अरिजीत सिंह", query: "अर"), "code points, as the index: a vowel sign after the query's end")
    }

    @Test func aSearchCountsSixteenWordsOfLettersAndDigits() {
        #expect(SearchWords.searched("Jay-Z \"feat\" a\u{0}b *") == ["Jay", "Z", "feat", "a", "b"])
        #expect(SearchWords.searched((1...20).map(String.init).joined(separator: " ")).count == SearchWords.most)
    }
}
