import Foundation
import PacenoteCore
import Testing

/// Rules (issue 19, point 3): each field and match, the order of application, rewrites
/// with groups, lengths, and the rules that cannot be used.
@Suite struct RuleSetTests {
    static let song = Track(uri: "Podcasts/Show/ep1.mp3", title: "Wonderwall - Remastered 2014", artist: "Oasis",
                            album: "(What's the Story) Morning Glory?", genre: "Britpop", durationSeconds: 258,
                            musicBrainz: MusicBrainzIDs(recording: "rec", release: "rel", artist: "art"))

    static func rule(_ action: CurationRule.Action, _ field: CurationRule.Field, _ match: CurationRule.Match, _ value: String,
                     _ replacement: String? = nil, id: Int64 = 1) -> CurationRule {
        CurationRule(id: id, action: action, field: field, match: match, value: value, replacement: replacement)
    }

    @Test func anEmptySetKeepsEveryPlayAsItIs() {
        #expect(RuleSet.empty.apply(to: Self.song, playedSeconds: 10, uri: Self.song.uri) == .keep(Self.song))
    }

    @Test(arguments: [
        (CurationRule.Field.artist, CurationRule.Match.equals, "OASIS", true),
        (.artist, .equals, "Oasis ", true),
        (.artist, .equals, "Oasi", false),
        (.title, .contains, "remastered", true),
        (.title, .prefix, "wonder", true),
        (.title, .prefix, "wall", false),
        (.album, .regex, "^\\(What's", true),
        (.album, .regex, "^what", false),
        (.genre, .equals, "britpop", true),
        (.genre, .equals, "pop", false),
        (.path, .prefix, "Podcasts/", true),
        (.path, .prefix, "Music/", false),
        (.stream, .prefix, "Podcasts/", false),
    ])
    func eachFieldAndMatch(field: CurationRule.Field, match: CurationRule.Match, value: String, matches: Bool) {
        let rules = RuleSet([Self.rule(.ignore, field, match, value)])
        let decision = rules.apply(to: Self.song, playedSeconds: 200, uri: Self.song.uri)
        #expect(decision == (matches ? .ignore(ruleID: 1) : .keep(Self.song)))
    }

    @Test func accentsAndWidthAreFoldedInEquals() {
        let track = Track(title: "Halo", artist: "Beyoncé")
        #expect(RuleSet([Self.rule(.hide, .artist, .equals, "beyonce")]).apply(to: track, playedSeconds: nil, uri: nil)
            == .hide(track, ruleID: 1))
    }

    @Test func aStreamURLIsAStreamNotAPath() {
        let radio = Track(uri: "http://radio.example/white-noise", title: "Rain")
        let stream = RuleSet([Self.rule(.hide, .stream, .prefix, "http://radio.example/")])
        let path = RuleSet([Self.rule(.hide, .path, .prefix, "http://radio.example/")])
        #expect(stream.apply(to: radio, playedSeconds: 60, uri: radio.uri) == .hide(radio, ruleID: 1))
        #expect(path.apply(to: radio, playedSeconds: 60, uri: radio.uri) == .keep(radio))
    }

    @Test func playsShorterThanNSecondsButNotPlaysOfUnknownLength() {
        let rules = RuleSet([Self.rule(.ignore, .duration, .shorterThan, "30")])
        #expect(rules.apply(to: Self.song, playedSeconds: 29.9, uri: nil) == .ignore(ruleID: 1))
        #expect(rules.apply(to: Self.song, playedSeconds: 30, uri: nil) == .keep(Self.song))
        #expect(rules.apply(to: Self.song, playedSeconds: nil, uri: nil) == .keep(Self.song))
    }

    @Test func aRewriteStripsASuffixAndFilesTheTrackByItsNewText() {
        let rules = RuleSet([Self.rule(.rewrite, .title, .regex, " - Remastered \\d{4}$", "")])
        guard case .keep(let track) = rules.apply(to: Self.song, playedSeconds: 200, uri: Self.song.uri) else {
            Issue.record("not kept"); return
        }
        #expect(track.title == "Wonderwall")
        #expect(track.uri == nil)  // the file names the remaster
        #expect(track.musicBrainz.recording == nil)
        #expect(track.musicBrainz.release == "rel")
        #expect(track.artist == "Oasis" && track.album == Self.song.album)
    }

    @Test func aRewriteTakesGroupsInItsReplacement() {
        let rules = RuleSet([Self.rule(.rewrite, .artist, .regex, "^(.+), The$", "The $1")])
        let track = Track(title: "Friday I'm in Love", artist: "Cure, The")
        #expect(rules.apply(to: track, playedSeconds: nil, uri: nil).track?.artist == "The Cure")
    }

    @Test func aRewriteThatChangesNothingLeavesTheTrackAlone() {
        let rules = RuleSet([Self.rule(.rewrite, .title, .regex, " \\(Live\\)$", "")])
        #expect(rules.apply(to: Self.song, playedSeconds: 1, uri: Self.song.uri) == .keep(Self.song))
    }

    @Test func rewritesComeFirstThenIgnoresThenHidesWhateverTheListOrder() {
        // Listed hide, ignore, rewrite: the rewrite runs first, so the ignore sees its text.
        let rules = RuleSet([
            Self.rule(.hide, .title, .equals, "Wonderwall", id: 1),
            Self.rule(.ignore, .title, .equals, "Wonderwall", id: 2),
            Self.rule(.rewrite, .title, .regex, " - Remastered \\d{4}", "", id: 3),
        ])
        #expect(rules.apply(to: Self.song, playedSeconds: 200, uri: nil) == .ignore(ruleID: 2))
        #expect(RuleSet.ordered(rules.rules).map(\.id) == [3, 2, 1])
        // Two rewrites in list order: the second sees the first's result.
        let chained = RuleSet([
            Self.rule(.rewrite, .title, .regex, " - Remastered \\d{4}", "", id: 1),
            Self.rule(.rewrite, .title, .regex, "^Wonderwall$", "Wonderwall (Oasis)", id: 2),
        ])
        #expect(chained.apply(to: Self.song, playedSeconds: nil, uri: nil).track?.title == "Wonderwall (Oasis)")
    }

    @Test func disabledRulesDoNothing() {
        var rule = Self.rule(.ignore, .artist, .equals, "Oasis")
        rule.enabled = false
        #expect(RuleSet([rule]).apply(to: Self.song, playedSeconds: 1, uri: nil) == .keep(Self.song))
    }

    @Test func rulesThatCannotBeUsedSayWhy() {
        #expect(Self.rule(.ignore, .title, .regex, "([unclosed").problem?.contains("regular expression") == true)
        #expect(Self.rule(.ignore, .title, .equals, "").problem != nil)
        #expect(Self.rule(.ignore, .title, .equals, String(repeating: "x", count: 501)).problem != nil)
        #expect(Self.rule(.ignore, .duration, .equals, "30").problem != nil)
        #expect(Self.rule(.ignore, .duration, .shorterThan, "soon").problem != nil)
        #expect(Self.rule(.ignore, .title, .shorterThan, "30").problem != nil)
        #expect(Self.rule(.rewrite, .genre, .regex, "x", "").problem != nil)
        #expect(Self.rule(.rewrite, .title, .equals, "x", "").problem != nil)
        #expect(Self.rule(.rewrite, .title, .regex, "x").problem != nil)  // no replacement
        #expect(Self.rule(.ignore, .title, .equals, "x", "y").problem != nil)
        #expect(Self.rule(.rewrite, .title, .regex, " - Remastered \\d{4}", "").problem == nil)
        // A broken rule in the set is left out rather than stopping every play.
        let set = RuleSet([Self.rule(.ignore, .title, .regex, "([unclosed")])
        #expect(set.isEmpty)
    }
}
