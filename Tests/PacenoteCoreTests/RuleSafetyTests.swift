import Foundation
import PacenoteCore
import Testing

/// Rules on text strangers choose (issue 51, point 2): patterns run on `LinearRegex`, see at
/// most `matchedLength` characters, and a pattern over its step budget counts as not
/// matching, reported, while the other rules still apply.
@Suite struct RuleSafetyTests {
    static func track(title: String) -> Track {
        Track(uri: "x.flac", title: title, artist: "Artist", album: "Album", durationSeconds: 200,
              musicBrainz: MusicBrainzIDs(recording: "rec"))
    }

    static func rule(_ action: CurationRule.Action, _ value: String, _ replacement: String? = nil, id: Int64) -> CurationRule {
        CurationRule(id: id, action: action, field: .title, match: .regex, value: value, replacement: replacement)
    }

    /// The `(a+)+$` that held ICU for 66.8 s finishes, and the play is kept as it is.
    @Test func theStallingRuleFinishesAndLeavesThePlay() {
        let track = Self.track(title: String(repeating: "a", count: 100) + "!")
        let rules = RuleSet([Self.rule(.rewrite, "(a+)+$", "x", id: 1)])
        let outcome = rules.evaluate(track, playedSeconds: 200, uri: track.uri)
        #expect(outcome == RuleOutcome(decision: .keep(track), overruns: []))
        // And it still rewrites what it matches.
        let plain = Self.track(title: "Song aaaa")
        #expect(rules.apply(to: plain, playedSeconds: 200, uri: nil).track?.title == "Song x")
    }

    /// A pattern large enough to pass the budget on long text: its rule is skipped for that
    /// play (reported with its id and field), the next rule applies.
    @Test func aRuleOverItsBudgetIsSkippedAndReported() throws {
        let slow = "(a{1,50}){1,10}$"
        let track = Self.track(title: String(repeating: "a", count: 1_023) + "!")
        let rules = RuleSet([Self.rule(.rewrite, slow, "", id: 7), Self.rule(.rewrite, "!$", "?", id: 8),
                             Self.rule(.ignore, slow, id: 9)])
        let outcome = rules.evaluate(track, playedSeconds: 200, uri: track.uri)
        #expect(outcome.overruns.map(\.ruleID) == [7, 9])
        #expect(outcome.overruns.allSatisfy { $0.field == .title && $0.steps > CurationRule.stepBudget })
        #expect(outcome.decision.track?.title == String(repeating: "a", count: 1_023) + "?")
        // On short text the same rules take little, and match.
        let short = Self.track(title: "aaa")
        #expect(rules.evaluate(short, playedSeconds: 200, uri: nil) == RuleOutcome(decision: .ignore(ruleID: 9), overruns: []))
    }

    /// Many slow rules do not add up: the play's patterns share `stepBudgetPerPlay`, and
    /// those left when it is spent are skipped and reported without running long.
    @Test func slowRulesShareOneBudgetPerPlay() {
        let track = Self.track(title: String(repeating: "a", count: 1_023) + "!")
        let rules = RuleSet((1...12).map { Self.rule(.ignore, "(a{1,50}){1,10}$", id: Int64($0)) } + [Self.rule(.hide, "!$", id: 13)])
        let outcome = rules.evaluate(track, playedSeconds: 200, uri: nil)
        // The budget is spent before the last: it too is skipped, and the play kept.
        #expect(outcome.overruns.map(\.ruleID) == (1...13).map { Int64($0) })
        #expect(outcome.decision == .keep(track))
        let total = outcome.overruns.map(\.steps).reduce(0, +)
        #expect(total > CurationRule.stepBudgetPerPlay - CurationRule.stepBudget && total < CurationRule.stepBudgetPerPlay + 100_000, "\(total)")
        // Alone, the last rule decides.
        #expect(RuleSet([Self.rule(.hide, "!$", id: 13)]).evaluate(track, playedSeconds: 200, uri: nil).decision == .hide(track, ruleID: 13))
    }

    @Test func aLongFieldIsMatchedOnItsFirstCharacters() {
        let tail = String(repeating: "b", count: 2_000) + " - Remastered 2011"
        let track = Self.track(title: "Remastered " + tail)
        let rules = RuleSet([Self.rule(.rewrite, " - Remastered \\d{4}$", "", id: 1), Self.rule(.rewrite, "^Remastered ", "", id: 2)])
        // The end is past the cap: `$` does not match there; the start is rewritten, the rest kept.
        #expect(rules.apply(to: track, playedSeconds: 200, uri: nil).track?.title == tail)
        #expect(CurationRule.matchedLength == 1_024)
    }

    /// A rule stored before this engine, with what it refuses: skipped and flagged, never a crash.
    @Test func aStoredRuleTheEngineRefusesIsSkippedWithItsReason() {
        let legacy = Self.rule(.ignore, "^(?!Live).*", id: 3)
        #expect(legacy.problem?.contains("lookahead") == true)
        #expect(legacy.problem?.contains("backtracking") == true)
        let track = Self.track(title: "Studio")
        #expect(RuleSet([legacy]).apply(to: track, playedSeconds: 200, uri: nil) == .keep(track))
        #expect(RuleStress.of(legacy) == nil)
    }

    @Test func savingTriesPathologicalSamples() throws {
        let samples = RuleStress.samples(for: "(a+)+$")
        #expect(samples.contains(String(repeating: "a", count: 1_023) + "!"))
        #expect(samples.allSatisfy { $0.unicodeScalars.count == CurationRule.matchedLength })
        // The 66.8 s case is cheap now: no warning.
        let stalling = try #require(RuleStress.of(Self.rule(.rewrite, "(a+)+$", "", id: 1)))
        #expect(stalling.warning == nil && stalling.steps > 0)
        #expect(RuleStress.of(Self.rule(.rewrite, " - Remastered \\d{4}", "", id: 1))?.warning == nil)
        // A large program on long text comes near (or over) the budget: the owner is told.
        let slow = try #require(RuleStress.of(Self.rule(.ignore, "(a{1,50}){1,10}$", id: 1)))
        #expect(slow.steps > CurationRule.stepBudget)
        #expect(slow.warning?.contains("skipped and reported") == true)
        let near = try #require(RuleStress.of(Self.rule(.ignore, "[a-z]{1,100}x", id: 1)))
        #expect(near.share > RuleStress.warningShare && near.share < 1)
        #expect(near.warning?.contains("% of its budget") == true)
    }
}
