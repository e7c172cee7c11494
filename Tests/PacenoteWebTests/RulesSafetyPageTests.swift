import Foundation
import PacenoteCore
import PacenoteStore
import Testing
@testable import PacenoteWeb

/// The Rules page and `/api/v1/rules` on rules that cannot stall anything (issue 51,
/// point 2): saving a slow pattern warns on the page, a stored pattern the engine refuses
/// is shown as skipped with its reason, an overrun is shown with its field and count.
@Suite struct RulesSafetyPageTests {
    @Test func savingASlowPatternWarnsAndAFastOneDoesNot() throws {
        let f = try RulesAPITests.Fixture()
        let slow = f.send("POST", "/rules", body: "action=add&rule_action=ignore&field=title&match=regex&value=%28a%7B1%2C50%7D%29%7B1%2C10%7D%24",
                          form: true)
        #expect(slow.status == 200 && slow.text.contains("Warning: on 1024 characters"), "\(slow.text)")
        #expect(slow.text.contains("skipped and reported"))
        let fast = f.send("POST", "/rules", body: "action=add&rule_action=rewrite&field=title&match=regex&value=%28a%2B%29%2B%24&replacement=",
                          form: true)
        #expect(fast.status == 200 && fast.text.contains("Added: ") && !fast.text.contains("Warning:"), "\(fast.text)")
        // The API says the same when a rule is saved.
        let added = f.json(f.send("POST", "/api/v1/rules", body: #"{"action": "hide", "field": "album", "match": "regex", "value": "[a-z]{1,100}x"}"#))
        #expect((added["warning"] as? String)?.contains("% of its budget") == true, "\(added)")
        #expect((added["stress_steps"] as? Int ?? 0) > CurationRule.stepBudget / 10)
    }

    @Test func refusedAndOverrunRulesAreShownOnThePageAndInTheAPI() throws {
        let f = try RulesAPITests.Fixture()
        // As an older version stored it: the store takes what it is given.
        let legacy = try f.store.addRule(CurationRule(action: .ignore, field: .title, match: .regex, value: "^(?!Live)"))
        let slow = try f.store.addRule(CurationRule(action: .rewrite, field: .title, match: .regex, value: "(a{1,50}){1,10}$", replacement: ""))
        try f.store.noteRuleOverruns([RuleOverrun(ruleID: slow.id, field: .title, steps: 1_000_123)],
                                     at: Date(timeIntervalSince1970: 1_767_225_600))
        try f.store.noteRuleOverruns([RuleOverrun(ruleID: slow.id, field: .title, steps: 1_000_456)],
                                     at: Date(timeIntervalSince1970: 1_767_229_200))
        let page = f.send("GET", "/rules").text
        #expect(page.contains("Skipped: &#39;value&#39; is not a valid regular expression for rules: a negative lookahead")
                || page.contains("Skipped: 'value' is not a valid regular expression for rules: a negative lookahead"), "\(page)")
        #expect(page.contains("Ran out of steps (1000456 of 1000000) on a play&#39;s title 2 times")
                || page.contains("Ran out of steps (1000456 of 1000000) on a play's title 2 times"), "\(page)")
        let rules = try #require(f.json(f.send("GET", "/api/v1/rules"))["rules"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: rules.map { ($0["id"] as? Int ?? 0, $0) })
        #expect((byID[Int(legacy.id!)]?["problem"] as? String)?.contains("lookahead") == true)
        let overrun = try #require(byID[Int(slow.id!)]?["overrun"] as? [String: Any])
        #expect(overrun["count"] as? Int == 2 && overrun["steps"] as? Int == 1_000_456 && overrun["field"] as? String == "title")
        #expect(overrun["at"] as? String == "2026-01-01T01:00:00.000Z")
        // Deleting the rule clears its record.
        #expect(f.send("DELETE", "/api/v1/rules/\(slow.id!)").status == 200)
        #expect(try f.store.ruleOverruns().isEmpty)
    }
}
