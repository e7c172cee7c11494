import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Merging by the names the site shows (issue 52, row 7): "merge Kinks into The Kinks",
/// the second name being the one kept. A form that fails comes back as sent, with the
/// reason beside the field it is about and a 4xx status (row 9), never a page that loses it.
extension API {
    func mergeByNameForm(_ draft: MergeDraft) -> Node {
        .el("section", ["class": "card", "id": "merge-names", "aria-labelledby": "merge-names-h"]) {
            Node.el("h2", ["id": "merge-names-h"]) { "Merge by name" }
            Node.el("form", ["method": "post", "action": url("/curation") + "#merge-names", "class": "stacked"]) {
                Node.el("input", ["type": "hidden", "name": "action", "value": "merge_names"])
                Node.el("label") {
                    "What "
                    Node.el("select", ["name": "kind"]) {
                        for kind in MergeKind.allCases {
                            Node.el("option", ["value": kind.rawValue, "selected": kind == draft.kind ? "" : nil]) { kind.rawValue }
                        }
                    }
                }
                Self.textField("merge-from", name: "from", label: "Merge this name ", value: draft.from,
                               error: draft.field == "from" ? draft.error : nil)
                Self.textField("merge-into", name: "into", label: "into this one, which is kept ", value: draft.into,
                               error: draft.field == "into" ? draft.error : nil)
                if draft.field == nil, let error = draft.error {
                    Node.el("p", ["class": "error field-error", "role": "alert"]) { error }
                }
                Node.el("button", ["type": "submit"]) { "Merge" }
            }
            Node.el("p", ["class": "muted small"]) {
                "An artist by its name; an album or a track by its title. The second name is the one every page shows afterwards; "
                "the merge can be undone below."
            }
        }
    }

    /// A labelled text input holding what was sent, its error (if any) right after it and
    /// tied to it for screen readers.
    static func textField(_ id: String, name: String, label: String, value: String, error: String?,
                          required: Bool = true, maxLength: Int = 1000, type: String? = nil) -> Node {
        var attributes = [Attribute(name: "id", value: id), Attribute(name: "name", value: name), Attribute(name: "value", value: value)]
        if let type { attributes.append(Attribute(name: "type", value: type)) } else {
            attributes.append(Attribute(name: "maxlength", value: String(maxLength)))
        }
        if required { attributes.append(Attribute(name: "required", value: "")) }
        if error != nil {
            attributes += [Attribute(name: "aria-invalid", value: "true"), Attribute(name: "aria-describedby", value: id + "-error")]
        }
        return .el("span", ["class": error == nil ? "field" : "field invalid"]) {
            Node.el("label", ["for": id]) { label }
            Node.el("input", attributes: attributes)
            if let error { Node.el("span", ["class": "error field-error", "id": id + "-error", "role": "alert"]) { error } }
        }
    }

    /// `POST /curation` with `action=merge_names`: both names found (one entity each), then
    /// the merge; any refusal re-renders the page with the form as sent.
    func mergeByName(_ request: HTTPRequest, _ field: (String) -> String?) throws -> HTTPResponse {
        var draft = MergeDraft(kind: field("kind").flatMap(MergeKind.init(rawValue:)) ?? .artist,
                               from: field("from") ?? "", into: field("into") ?? "")
        func failed(_ error: APIError, field: String?) throws -> HTTPResponse {
            draft.field = field
            draft.error = error.status >= 500 ? "The server could not merge them this time. Try again in a moment."
                : error.message.prefix(1).uppercased() + error.message.dropFirst()
            return try curationPage(request, mayWrite: true, draft: draft, status: error.status >= 500 ? error.status : max(400, error.status))
        }
        let blank = { (text: String) in text.trimmingCharacters(in: .whitespaces).isEmpty }
        if blank(draft.from) { return try failed(.badRequest("Name what to merge.", code: "invalid_from"), field: "from") }
        if blank(draft.into) { return try failed(.badRequest("Name the one to keep.", code: "invalid_into"), field: "into") }
        let from: Int64, into: Int64
        do { from = try mergeEntity(draft.kind, named: draft.from) } catch { return try failed(error, field: "from") }
        do { into = try mergeEntity(draft.kind, named: draft.into) } catch { return try failed(error, field: "into") }
        if from == into {
            return try failed(.badRequest("“\(draft.from)” and “\(draft.into)” are one \(draft.kind.rawValue) already.", code: "invalid_merge"),
                              field: "into")
        }
        do {
            let entry = try context.operations.merge(draft.kind, from: [from], into: into,
                                                     request: Self.requestText(["merge": ["kind": draft.kind.rawValue, "from": [from], "into": into]]),
                                                     source: "site")
            retakeReviewSnapshots(after: entry)
            return redirect(back: "/curation", fallback: "/curation", done: entry.id)
        } catch {
            return try failed(APIError(error), field: nil)
        }
    }
}
