import Foundation
import PacenoteCore
import PacenoteStore

/// Rules (issue: curation, rules): kept by the store, applied to every play at ingest
/// (`recordPlayer`, `recordListens`, `importListens`), and to the past on request as one
/// curation log entry. A rule is checked here once, for every caller.
extension Operations {
    /// At most this many rules of the site's: each is checked for every play.
    public static let maxRules = 200

    public func addRule(_ rule: CurationRule) throws -> CurationRule {
        try check(rule)
        if try store.rules().filter({ !$0.fromConfig }).count >= Self.maxRules {
            throw OperationError.invalid("too_many_rules", "at most \(Self.maxRules) rules")
        }
        return try run { () throws(StoreError) in try store.addRule(rule) }
    }

    public func updateRule(_ rule: CurationRule) throws -> CurationRule {
        try check(rule)
        return try run { () throws(StoreError) in try store.updateRule(rule) }
    }

    @discardableResult
    public func deleteRule(id: Int64) throws -> CurationRule {
        try run { () throws(StoreError) in try store.deleteRule(id: id) }
    }

    /// The dry run of applying a rule to the past: exactly the plays `applyRule` changes.
    public func previewRule(id: Int64, limit: Int) throws -> Store.RuleEffect {
        do { return try store.previewRule(id: id, limit: limit) } catch { throw OperationError.from(error) }
    }

    /// Applies a rule to every play logged so far: one curation entry, undone as a whole.
    public func applyRule(id: Int64, limit: Int, source: String = "api") throws -> (entry: CurationEntry, effect: Store.RuleEffect) {
        do {
            let result = try store.applyRule(id: id, limit: limit, request: "{\"apply_rule\":\(id)}", source: source)
            announce(.curated(entryID: result.entry.id, undone: false))
            return result
        } catch {
            throw OperationError.from(error)
        }
    }

    private func check(_ rule: CurationRule) throws {
        if let problem = rule.problem { throw OperationError.invalid("invalid_rule", problem) }
    }

    private func run<T>(_ body: () throws(StoreError) -> T) throws -> T {
        do { return try body() } catch { throw OperationError.from(error) }
    }
}
