import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// `/rules`: the rules in their order of application (the configuration's first, not
/// editable here), a form to add one, and for each rule of the site's a delete button, a
/// dry run and "apply to the past". The most recent hidden plays close the page.
extension API {
    /// The add form as sent, with what is wrong and the field it is about (`value`,
    /// `replacement`; nil: the form as a whole): a refused rule comes back to be fixed, not
    /// typed again (issue 52, row 9).
    struct RuleDraft {
        var action = CurationRule.Action.allCases[0].rawValue
        var field = CurationRule.Field.allCases[0].rawValue
        var match = CurationRule.Match.allCases[0].rawValue
        var value = ""
        var replacement = ""
        var errorKey: String?
        var error: String?
    }

    func rulesPage(_ request: HTTPRequest, mayWrite: Bool, notice: String? = nil,
                   preview: Store.RuleEffect? = nil, draft: RuleDraft = RuleDraft(), status: Int = 200) throws -> HTTPResponse {
        let rules = RuleSet.ordered(try context.store.rules())
        let overruns = try context.store.ruleOverruns()
        let hidden = try context.store.hiddenPlays(limit: 20)
        let f = format
        return html(title: "Rules", request: request, nav: "rules", status: status) {
            Node.el("h1") { "Rules" }
            Node.el("p", ["class": "muted"]) {
                "Applied to every play as it is logged, from MPD, ListenBrainz clients and imports, in this order: "
                "rewrites first, then ignores, then hides; the configuration file's rules before the site's."
            }
            if let notice { Node.el("p", ["role": "status", "class": "card"]) { notice } }
            if let preview { previewSection(preview, f) }
            Node.el("section", ["class": "card"]) {
                Node.el("h2") { "In order of application" }
                if rules.isEmpty { Node.el("p", ["class": "muted"]) { "No rules yet." } }
                Node.el("ol", ["class": "rules"]) {
                    for rule in rules {
                        Node.el("li", ["class": rule.enabled ? "rule" : "rule muted"]) {
                            Node.el("span") { rule.summary }
                            if rule.fromConfig { Node.el("span", ["class": "badge"]) { "from the configuration" } }
                            if !rule.enabled { Node.el("span", ["class": "badge"]) { "off" } }
                            if let problem = rule.problem {
                                Node.el("p", ["class": "error small"]) { "Skipped: \(problem)." }
                            }
                            if let overrun = rule.id.flatMap({ overruns[$0] }) {
                                Node.el("p", ["class": "error small"]) {
                                    "Ran out of steps (\(overrun.steps) of \(CurationRule.stepBudget)) on a play's \(overrun.field.rawValue) "
                                    "\(SiteFormat.plural(overrun.count, "time")), the last \(f.day(localTime.day(of: overrun.at))) \(f.time(overrun.at)): "
                                    "skipped for those plays, which were stored unchanged."
                                }
                            }
                            if mayWrite, let id = rule.id {
                                // Only Delete looks destructive; the others are plain, and apart.
                                Node.el("form", ["method": "post", "action": url("/rules"), "class": "inline rule-actions"]) {
                                    Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
                                    Node.el("button", ["type": "submit", "name": "action", "value": "preview", "class": "secondary"]) { "Preview on the past" }
                                    Node.el("button", ["type": "submit", "name": "action", "value": "apply", "class": "secondary"]) { "Apply to the past" }
                                    if !rule.fromConfig {
                                        Node.el("button", ["type": "submit", "name": "action", "value": "delete", "class": "danger"]) { "Delete" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if mayWrite {
                Node.el("section", ["class": "card"]) {
                    Node.el("h2", ["id": "add-rule"]) { "Add a rule" }
                    Node.el("form", ["method": "post", "action": url("/rules") + "#add-rule", "class": "search"]) {
                        Node.el("input", ["type": "hidden", "name": "action", "value": "add"])
                        Self.select("rule_action", "Action", CurationRule.Action.allCases.map(\.rawValue), selected: draft.action)
                        Self.select("field", "Field", CurationRule.Field.allCases.map(\.rawValue), selected: draft.field)
                        Self.select("match", "Match", CurationRule.Match.allCases.map(\.rawValue), selected: draft.match)
                        Self.textField("value", name: "value", label: "Value", value: draft.value,
                                       error: draft.errorKey == "value" ? draft.error : nil, maxLength: CurationRule.maxValueLength)
                        Self.textField("replacement", name: "replacement", label: "Replacement (rewrites)", value: draft.replacement,
                                       error: draft.errorKey == "replacement" ? draft.error : nil, required: false,
                                       maxLength: CurationRule.maxValueLength)
                        Node.el("button", ["type": "submit"]) { "Add" }
                    }
                    if let error = draft.error, draft.errorKey != "value" && draft.errorKey != "replacement" {
                        Node.el("p", ["class": "error field-error", "role": "alert"]) { error }
                    }
                    Node.el("p", ["class": "muted small"]) {
                        "A rewrite takes a regular expression on the title, artist or album ($1 names a group in the replacement); "
                        "a duration rule takes the match shorter_than and a number of seconds. "
                        "Patterns see the first \(CurationRule.matchedLength) characters of a field and run in time linear in the text: "
                        "no backreferences or lookaround."
                    }
                }
            } else {
                Node.el("p", ["class": "muted small"]) {
                    Node.el("a", ["href": url("/login?next=" + URLText.component("/rules"))]) { "Log in" }
                    " to add or apply rules."
                }
            }
            Node.el("section", ["class": "card"]) {
                Node.el("h2") { "Hidden plays" }
                if hidden.isEmpty { Node.el("p", ["class": "muted"]) { "None." } }
                Node.el("ol", ["class": "plays"]) {
                    for p in hidden {
                        Node.el("li", ["class": "play hidden"]) {
                            Node.el("time", ["datetime": ISO8601.string(p.play.startedAt)]) {
                                "\(f.day(localTime.day(of: p.play.startedAt))) \(f.time(p.play.startedAt))"
                            }
                            " "
                            trackLink(p.track)
                            if let artist = p.track.artist { " · \(artist)" }
                            Node.el("span", ["class": "badge"]) { "hidden" }
                            if mayWrite, let id = p.play.id {
                                // A private session's plays, and a hide rule's, are shown again one by one.
                                Node.el("form", ["method": "post", "action": url("/rules"), "class": "inline"]) {
                                    Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
                                    Node.el("button", ["type": "submit", "name": "action", "value": "unhide", "class": "secondary"]) { "Show again" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private func previewSection(_ effect: Store.RuleEffect, _ f: SiteFormat) -> Node {
        Node.el("section", ["class": "card", "id": "preview"]) {
            Node.el("h2") { "Dry run: \(effect.rule.summary)" }
            Node.el("p") { "\(SiteFormat.plural(effect.total, "play")) would change\(effect.total > effect.changes.count ? " (the first \(effect.changes.count) shown)" : "")." }
            Node.el("ol", ["class": "plays"]) {
                for change in effect.changes {
                    Node.el("li", ["class": "play"]) {
                        Node.el("time", ["datetime": ISO8601.string(change.play.play.startedAt)]) {
                            "\(f.day(localTime.day(of: change.play.play.startedAt))) \(f.time(change.play.play.startedAt))"
                        }
                        " \(change.play.track.artist ?? "") – \(change.play.track.title)"
                        if let after = change.after {
                            " → \(after.artist ?? "") – \(after.title)\(after.album.map { " (\($0))" } ?? "")"
                        } else {
                            Node.el("span", ["class": "badge"]) { effect.rule.action == .hide ? "hidden" : "removed" }
                        }
                    }
                }
            }
        }
    }

    static func select(_ name: String, _ label: String, _ options: [String], selected: String? = nil) -> Node {
        Node.el("span") {
            Node.el("label", ["for": name]) { label }
            Node.el("select", ["id": name, "name": name]) {
                for option in options { Node.el("option", ["value": option, "selected": option == selected ? "" : nil]) { option } }
            }
        }
    }

    /// The forms of `/rules`: add, delete, preview, apply. A dry run answers with the page
    /// and its list; the others go back to the page.
    func rulesForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let field = { (name: String) in Self.formField(name, in: request.body) }
        let id = field("id").flatMap { Int64($0) }
        switch field("action") ?? "" {
        case "add":
            var body: [String: Any] = [:]
            body["action"] = field("rule_action")
            body["field"] = field("field")
            body["match"] = field("match")
            body["value"] = field("value")
            if body["action"] as? String == "rewrite" { body["replacement"] = field("replacement") ?? "" }
            var draft = RuleDraft()
            draft.action = field("rule_action") ?? draft.action
            draft.field = field("field") ?? draft.field
            draft.match = field("match") ?? draft.match
            draft.value = field("value") ?? ""
            draft.replacement = field("replacement") ?? ""
            // The field a problem is about, to show it there (`rule(from:)` says only what).
            if let action = CurationRule.Action(rawValue: draft.action), let on = CurationRule.Field(rawValue: draft.field),
               let match = CurationRule.Match(rawValue: draft.match),
               let invalid = CurationRule(action: action, field: on, match: match, value: draft.value,
                                          replacement: action == .rewrite ? draft.replacement : nil, enabled: true).invalidity {
                draft.errorKey = invalid.key
                draft.error = Self.sitewise(invalid.message)
                return try rulesPage(request, mayWrite: true, draft: draft, status: 400)
            }
            do {
                let rule = try context.operations.addRule(try Self.rule(from: body.compactMapValues { $0 }, base: nil))
                let warning = RuleStress.of(rule)?.warning.map { " Warning: \($0)." } ?? ""
                return try rulesPage(request, mayWrite: true, notice: "Added: \(rule.summary).\(warning)", status: 200)
            } catch {
                let error = APIError(error)
                draft.error = error.status >= 500 ? "The rule could not be saved this time. Try again in a moment." : Self.sitewise(error.message)
                return try rulesPage(request, mayWrite: true, draft: draft, status: error.status)
            }
        case "delete":
            guard let id else { throw APIError.badRequest("say which rule", code: "invalid_rule") }
            let rule = try context.operations.deleteRule(id: id)
            return try rulesPage(request, mayWrite: true, notice: "Deleted: \(rule.summary).")
        case "preview":
            guard let id else { throw APIError.badRequest("say which rule", code: "invalid_rule") }
            return try rulesPage(request, mayWrite: true, preview: try context.operations.previewRule(id: id, limit: 200))
        case "apply":
            guard let id else { throw APIError.badRequest("say which rule", code: "invalid_rule") }
            let (entry, _) = try context.operations.applyRule(id: id, limit: 1, source: "site")
            return try rulesPage(request, mayWrite: true, notice: "\(entry.summary(in: localTime)). Undo it from the curation log (entry \(entry.id)).")
        case "unhide":
            guard let id else { throw APIError.badRequest("say which hidden play", code: "invalid_play") }
            try context.operations.unhidePlay(id: id)
            return try rulesPage(request, mayWrite: true, notice: "Shown again: the play counts in the charts now.")
        default:
            throw APIError.badRequest("unknown action", code: "invalid_action")
        }
    }

    /// A rule's problem in the words of the form it was typed in: "'value' is not …" (the
    /// API's and the configuration's key) reads "This value is not …" beside the field.
    static func sitewise(_ message: String) -> String {
        for (key, noun) in [("'value' ", "This value "), ("'replacement' ", "This replacement ")] where message.hasPrefix(key) {
            return noun + message.dropFirst(key.count)
        }
        return message.prefix(1).uppercased() + message.dropFirst()
    }
}
