import Foundation

/// Trying a rule's pattern on text made to be slow, when the rule is saved (issue 51,
/// point 2): the owner learns then, not from a skipped play, that a pattern comes near its
/// step budget on long text.
public struct RuleStress: Equatable, Sendable {
    /// The most steps one sample took (all matches, for a rewrite).
    public var steps: Int
    /// The sample that took them, shortened for people (`aaaa…a!`).
    public var sample: String

    /// The share of `CurationRule.stepBudget` above which saving a rule warns.
    public static let warningShare = 0.10

    public var share: Double { Double(steps) / Double(CurationRule.stepBudget) }

    /// Words for the owner when the pattern took more than `warningShare` of the budget; nil otherwise.
    public var warning: String? {
        guard share > Self.warningShare else { return nil }
        let percent = Int((share * 100).rounded())
        let verdict = steps > CurationRule.stepBudget
            ? "more than its budget of \(CurationRule.stepBudget) steps: on text like this the rule is skipped and reported"
            : "\(percent) % of its budget of \(CurationRule.stepBudget) steps"
        return "on \(CurationRule.matchedLength) characters such as “\(sample)” the pattern took \(steps) steps, \(verdict); "
            + "a simpler pattern (fewer nested or counted repetitions) keeps it well inside"
    }

    /// The samples: each of a few characters, and the pattern's own letters, repeated to
    /// `matchedLength` and ended with a character that makes the pattern fail late
    /// (`(a+)+$` against `aaa…a!`, the case that stalled the server for 66.8 s).
    public static func samples(for pattern: String) -> [String] {
        let length = CurationRule.matchedLength - 1
        var seeds: [String] = ["a", "0", " ", "ab", "a a"]
        let own = String(String.UnicodeScalarView(pattern.unicodeScalars.filter { $0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == " " }))
        if !own.isEmpty { seeds.append(String(own.prefix(32))) }
        var samples: [String] = []
        for seed in seeds {
            let scalars = Array(seed.unicodeScalars)
            var text = String.UnicodeScalarView()
            for i in 0..<length { text.append(scalars[i % scalars.count]) }
            samples.append(String(text) + "!")
        }
        return samples
    }

    /// The worst sample for a rule (nil for a rule that is not a pattern or does not compile).
    public static func of(_ rule: CurationRule) -> RuleStress? {
        guard rule.match == .regex, let regex = try? LinearRegex(rule.value) else { return nil }
        var worst: RuleStress?
        for sample in samples(for: rule.value) where worst.map({ $0.steps <= CurationRule.stepBudget }) ?? true {
            var budget = LinearRegex.Budget(steps: CurationRule.stepBudget)
            let input = LinearRegex.Input(sample, limit: CurationRule.matchedLength)
            if rule.action == .rewrite {
                _ = try? regex.replacingMatches(in: sample, input: input, with: rule.replacement ?? "", budget: &budget)
            } else {
                _ = try? regex.firstMatch(in: input, budget: &budget)
            }
            if budget.used > worst?.steps ?? -1 {
                worst = RuleStress(steps: budget.used, sample: shortened(sample))
            }
        }
        return worst
    }

    static func shortened(_ sample: String) -> String {
        let scalars = Array(sample.unicodeScalars)
        let shown = String(String.UnicodeScalarView(scalars.prefix(12))) + "…" + String(String.UnicodeScalarView(scalars.suffix(1)))
        return shown.replacingOccurrences(of: "\n", with: "\\n")
    }
}
