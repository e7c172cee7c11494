import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Rules over the API: `/api/v1/rules`, one rule, its dry run and applying it to the past.
extension API {
    func rulesJSON() throws -> JSONValue {
        let rules = try context.store.rules()
        let overruns = try context.store.ruleOverruns()
        return .object([
            ("rules", .array(RuleSet.ordered(rules).map { APIJSON.rule($0, overrun: $0.id.flatMap { overruns[$0] }) })),
            ("order", .string("rewrites first, then ignores, then hides; the configuration's rules before the site's")),
            ("limits", .object([
                ("matched_characters", .int(Int64(CurationRule.matchedLength))),
                ("steps_per_match", .int(Int64(CurationRule.stepBudget))),
            ])),
        ])
    }

    func addRule(_ request: HTTPRequest, source: String) throws -> JSONValue {
        let rule = try Self.rule(from: try Self.jsonObject(request), base: nil)
        return APIJSON.savedRule(try context.operations.addRule(rule))
    }

    func rule(_ id: Int64) throws -> JSONValue {
        guard let rule = try context.store.rule(id: id) else { throw APIError.notFound("no rule \(id)") }
        return APIJSON.rule(rule, overrun: try context.store.ruleOverruns()[id])
    }

    func updateRule(_ id: Int64, _ request: HTTPRequest) throws -> JSONValue {
        guard let stored = try context.store.rule(id: id) else { throw APIError.notFound("no rule \(id)") }
        let rule = try Self.rule(from: try Self.jsonObject(request), base: stored)
        return APIJSON.savedRule(try context.operations.updateRule(rule))
    }

    func deleteRule(_ id: Int64) throws -> JSONValue {
        APIJSON.rule(try context.operations.deleteRule(id: id))
    }

    func previewRule(_ id: Int64, _ query: [String: String]) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 100, in: 1...1000)
        return APIJSON.ruleEffect(try context.operations.previewRule(id: id, limit: limit))
    }

    func applyRule(_ id: Int64, _ query: [String: String], source: String) throws -> JSONValue {
        let limit = try Query.int(query, "limit", default: 100, in: 1...1000)
        let (entry, effect) = try context.operations.applyRule(id: id, limit: limit, source: source)
        guard case .object(var fields) = APIJSON.ruleEffect(effect) else { return .null }
        fields.append(("curation", APIJSON.curation(entry, localTime)))
        return .object(fields)
    }

    /// A rule from a JSON body: every field for a new rule; for a change (`base`), the
    /// fields given replace the stored ones.
    static func rule(from body: [String: Any], base: CurationRule?) throws(APIError) -> CurationRule {
        let known: Set<String> = ["action", "field", "match", "value", "replacement", "enabled"]
        if let unknown = body.keys.first(where: { !known.contains($0) }) {
            throw APIError.badRequest("unknown field '\(unknown)'", code: "invalid_rule")
        }
        func choice<T: RawRepresentable & CaseIterable>(_ key: String, _: T.Type, _ current: T?) throws(APIError) -> T where T.RawValue == String {
            guard let value = body[key] else {
                if let current { return current }
                throw APIError.badRequest("'\(key)' is required", code: "invalid_rule")
            }
            guard let text = value as? String, let parsed = T(rawValue: text) else {
                let names = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
                throw APIError.badRequest("'\(key)' must be one of \(names)", code: "invalid_rule")
            }
            return parsed
        }
        let action = try choice("action", CurationRule.Action.self, base?.action)
        let field = try choice("field", CurationRule.Field.self, base?.field)
        let match = try choice("match", CurationRule.Match.self, base?.match ?? CurationRule.defaultMatch(action: action, field: field))
        var value = base?.value
        if let given = body["value"] {
            if let text = given as? String { value = text } else if let number = given as? NSNumber, !isJSONBool(number) {
                value = number.stringValue
            } else {
                throw APIError.badRequest("'value' must be text (or a number of seconds)", code: "invalid_rule")
            }
        }
        guard let value else { throw APIError.badRequest("'value' is required", code: "invalid_rule") }
        var replacement = base?.replacement
        if let given = body["replacement"] {
            if given is NSNull { replacement = nil } else if let text = given as? String { replacement = text } else {
                throw APIError.badRequest("'replacement' must be text", code: "invalid_rule")
            }
        }
        var enabled = base?.enabled ?? true
        if let given = body["enabled"] {
            guard isJSONBool(given), let number = given as? NSNumber else {
                throw APIError.badRequest("'enabled' must be true or false", code: "invalid_rule")
            }
            enabled = number.boolValue
        }
        let rule = CurationRule(id: base?.id, action: action, field: field, match: match, value: value,
                                replacement: replacement, enabled: enabled)
        if let problem = rule.problem { throw APIError.badRequest(problem, code: "invalid_rule") }
        return rule
    }
}

extension APIJSON {
    /// `problem`: why the rule is skipped (a stored pattern the engine refuses, such as a
    /// lookahead); `overrun`: when it last ran out of steps on a play, and was skipped for it.
    static func rule(_ r: CurationRule, overrun: Store.RuleOverrunRecord? = nil) -> JSONValue {
        guard case .object(var fields) = rule(r) else { return .null }
        fields.append(("problem", .optional(r.problem)))
        fields.append(("overrun", overrun.map { o in
            .object([
                ("at", .string(ISO8601.string(o.at))),
                ("field", .string(o.field.rawValue)),
                ("steps", .int(Int64(o.steps))),
                ("count", .int(Int64(o.count))),
            ])
        } ?? .null))
        return .object(fields)
    }

    /// A rule as saved, with `warning` when its pattern comes near its step budget on text
    /// made to be slow (`RuleStress`).
    static func savedRule(_ r: CurationRule) -> JSONValue {
        guard case .object(var fields) = rule(r) else { return .null }
        let stress = RuleStress.of(r)
        fields.append(("stress_steps", .optional(stress?.steps)))
        fields.append(("warning", .optional(stress?.warning)))
        return .object(fields)
    }

    static func rule(_ r: CurationRule) -> JSONValue {
        .object([
            ("id", .optional(r.id)),
            ("action", .string(r.action.rawValue)),
            ("field", .string(r.field.rawValue)),
            ("match", .string(r.match.rawValue)),
            ("value", .string(r.value)),
            ("replacement", .optional(r.replacement)),
            ("enabled", .bool(r.enabled)),
            ("origin", .string(r.fromConfig ? "config" : "site")),
            ("summary", .string(r.summary)),
        ])
    }

    static func ruleEffect(_ e: Store.RuleEffect) -> JSONValue {
        .object([
            ("rule", rule(e.rule)),
            ("total", .int(Int64(e.total))),
            ("changes", .array(e.changes.map { change in
                .object([
                    ("change", .string(e.rule.action == .rewrite ? "rewrite" : e.rule.action == .hide ? "hide" : "delete")),
                    ("listen", listen(change.play)),
                    ("after", change.after.map(track) ?? .null),
                ])
            })),
        ])
    }
}
