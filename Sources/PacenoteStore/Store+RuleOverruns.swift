import Foundation
import GRDB
import PacenoteCore

/// Rules whose pattern ran out of steps on a play (`RuleOverrun`, issue 51 point 2): the
/// last time, on which field, how many steps and how often, kept in `meta` under
/// `rule_overrun:<id>` until the rule changes, for the Rules page and `/api/v1/rules`.
extension Store {
    public struct RuleOverrunRecord: Equatable, Sendable {
        public var ruleID: Int64
        /// The last time it happened.
        public var at: Date
        public var field: CurationRule.Field
        public var steps: Int
        /// How many times since the rule was saved.
        public var count: Int
    }

    static func overrunKey(_ id: Int64) -> String { "rule_overrun:\(id)" }

    /// Notes overruns in the transaction that stores the plays they were about.
    static func noteRuleOverruns(_ overruns: [RuleOverrun], at now: Date, in db: Database) throws {
        for overrun in overruns {
            guard let id = overrun.ruleID else { continue }
            let key = overrunKey(id)
            let count = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
                .flatMap { overrunRecord(id: id, $0)?.count } ?? 0
            let value = "\(milliseconds(now))|\(overrun.field.rawValue)|\(overrun.steps)|\(count + 1)"
            try db.execute(sql: """
                INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, arguments: [key, value])
        }
    }

    /// Notes overruns found outside a store write of their own (an import's batches).
    public func noteRuleOverruns(_ overruns: [RuleOverrun], at now: Date = Date()) throws(StoreError) {
        guard overruns.contains(where: { $0.ruleID != nil }) else { return }
        try write { db in try Store.noteRuleOverruns(overruns, at: now, in: db) }
    }

    /// The rules that ran out of steps since they were last saved, by rule id.
    public func ruleOverruns() throws(StoreError) -> [Int64: RuleOverrunRecord] {
        try read { db in
            var records: [Int64: RuleOverrunRecord] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, value FROM meta WHERE key LIKE 'rule_overrun:%'") {
                let key: String = row[0]
                guard let id = Int64(key.dropFirst("rule_overrun:".count)), let record = Store.overrunRecord(id: id, row[1]) else { continue }
                records[id] = record
            }
            return records
        }
    }

    static func overrunRecord(id: Int64, _ value: String) -> RuleOverrunRecord? {
        let parts = value.split(separator: "|").map(String.init)
        guard parts.count == 4, let ms = Int64(parts[0]), let field = CurationRule.Field(rawValue: parts[1]),
              let steps = Int(parts[2]), let count = Int(parts[3]) else { return nil }
        return RuleOverrunRecord(ruleID: id, at: date(milliseconds: ms), field: field, steps: steps, count: count)
    }

    /// A changed or deleted rule starts with a clean record.
    static func forgetRuleOverruns(ids: [Int64], in db: Database) throws {
        for id in ids { try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [overrunKey(id)]) }
    }

    /// The rules' outcomes for plays about to be stored, decided before the write lock is
    /// taken: patterns run on text strangers choose, and however long they take, no other
    /// writer waits for them.
    static func decide(_ rules: RuleSet, _ plays: [(track: Track, playedSeconds: Double?, uri: String?)]) -> [RuleOutcome] {
        plays.map { play in
            rules.isEmpty ? RuleOutcome(decision: .keep(play.track), overruns: [])
                : rules.evaluate(play.track, playedSeconds: play.playedSeconds, uri: play.uri)
        }
    }
}
