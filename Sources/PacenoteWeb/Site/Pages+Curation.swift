import Foundation
import PacenoteCore
import PacenoteOperations
import PacenoteStore

/// Corrections on the site: delete, edit and add plays from the history page, the
/// corrections page with the log (each entry undoable) and likely duplicates to merge in
/// one click. Forms post with the site's session (same origin), as the SOTD pin does; each
/// answers with a redirect back, whose `done` names the entry just made for its undo.
extension API {
    // MARK: The history page's controls

    /// An edit or an addition as sent, with what went wrong beside its field (`title`,
    /// `started_at`, `album_id`; nil: the form as a whole): the history comes back with that
    /// form open and filled in (issue 52, row 9).
    struct PlayDraft {
        /// `edit` (of `playID`) or `add`.
        var action: String
        var playID: Int64?
        var title = "", artist = "", album = "", albumID = "", startedAt = ""
        var counted = true
        var field: String?
        var error: String?
    }

    /// Delete and edit buttons of one play (a logged-in browser); `draft`: an edit of this
    /// play that was refused.
    func playControls(_ p: PlayWithTrack, back: String, draft: PlayDraft? = nil) -> Node {
        guard let id = p.play.id else { return .empty }
        let draft = draft.flatMap { $0.action == "edit" && $0.playID == id ? $0 : nil }
        let prefix = "edit-\(id)-"
        func error(_ field: String?) -> String? { draft?.field == field ? draft?.error : nil }
        return .el("span", ["class": "controls"]) {
            Node.el("form", ["method": "post", "action": url("/history"), "class": "inline"]) {
                Node.el("input", ["type": "hidden", "name": "action", "value": "delete"])
                Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
                Node.el("input", ["type": "hidden", "name": "back", "value": back])
                Node.el("button", ["type": "submit", "class": "small", "title": "Delete this play (undoable)"]) { "Delete" }
            }
            Node.el("details", ["class": "edit", "open": draft == nil ? nil : ""]) {
                Node.el("summary", ["title": "Correct this play"]) { "Edit" }
                Node.el("form", ["method": "post", "action": url("/history"), "class": "stacked"]) {
                    Node.el("input", ["type": "hidden", "name": "action", "value": "edit"])
                    Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
                    Node.el("input", ["type": "hidden", "name": "back", "value": back])
                    Self.textField(prefix + "title", name: "title", label: "Title", value: draft?.title ?? p.track.title, error: error("title"))
                    Self.textField(prefix + "artist", name: "artist", label: "Artist", value: draft?.artist ?? p.track.artist ?? "",
                                   error: nil, required: false)
                    Self.textField(prefix + "album", name: "album", label: "Album", value: draft?.album ?? p.track.album ?? "",
                                   error: nil, required: false)
                    Node.el("label") {
                        Node.el("input", ["type": "checkbox", "name": "counted", "value": "1", "checked": (draft?.counted ?? p.play.counted) ? "" : nil])
                        " counted (not a skip)"
                    }
                    if let message = error(nil) { Node.el("p", ["class": "error field-error", "role": "alert"]) { message } }
                    Node.el("button", ["type": "submit"]) { "Save" }
                }
            }
        }
    }

    /// The form that adds a play that was never logged; `draft`: an addition that was refused.
    func addPlayForm(back: String, draft: PlayDraft? = nil) -> Node {
        let draft = draft.flatMap { $0.action == "add" ? $0 : nil }
        func error(_ field: String?) -> String? { draft?.field == field ? draft?.error : nil }
        return .el("details", ["class": "card add-play", "open": draft == nil ? nil : ""]) {
            Node.el("summary") { "Add a play that was not logged" }
            Node.el("form", ["method": "post", "action": url("/history"), "class": "stacked"]) {
                Node.el("input", ["type": "hidden", "name": "action", "value": "add"])
                Node.el("input", ["type": "hidden", "name": "back", "value": back])
                Self.textField("add-title", name: "title", label: "Title", value: draft?.title ?? "", error: error("title"), required: false)
                Self.textField("add-artist", name: "artist", label: "Artist", value: draft?.artist ?? "", error: nil, required: false)
                Self.textField("add-album", name: "album", label: "Album", value: draft?.album ?? "", error: nil, required: false)
                Self.textField("add-album-id", name: "album_id", label: "or a whole album, by its id", value: draft?.albumID ?? "",
                               error: error("album_id"), required: false, maxLength: 20)
                Self.textField("add-started-at", name: "started_at", label: "Started at", value: draft?.startedAt ?? "",
                               error: error("started_at"), type: "datetime-local")
                if let message = error(nil) { Node.el("p", ["class": "error field-error", "role": "alert"]) { message } }
                Node.el("button", ["type": "submit"]) { "Add" }
            }
        }
    }

    /// What was just done, with its undo (the `done` of a form's redirect).
    func curationNotice(_ request: HTTPRequest, mayWrite: Bool) throws -> Node {
        guard let text = request.query["done"], let id = Int64(text), let entry = try context.store.curationEntry(id: id) else { return .empty }
        return .el("div", ["class": "notice", "role": "status"]) {
            entry.undoneAt == nil ? entry.summary(in: localTime) + ". " : "Undone: " + entry.summary(in: localTime) + ". "
            if mayWrite && entry.undoneAt == nil { undoButton(entry.id, back: request.path) }
        }
    }

    func undoButton(_ id: Int64, back: String) -> Node {
        .el("form", ["method": "post", "action": url("/curation"), "class": "inline"]) {
            Node.el("input", ["type": "hidden", "name": "action", "value": "undo"])
            Node.el("input", ["type": "hidden", "name": "id", "value": String(id)])
            Node.el("input", ["type": "hidden", "name": "back", "value": back])
            Node.el("button", ["type": "submit", "class": "small"]) { "Undo" }
        }
    }

    /// `POST /history`: delete, edit or add, then back with the entry for its undo. A
    /// refused edit or addition answers with the history, that form as sent and the reason
    /// beside its field, under the error's status.
    func historyForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let field = { (name: String) in Self.formField(name, in: request.body) }
        guard ["edit", "add"].contains(field("action") ?? "") else { return try historyChange(request, field) }
        var draft = PlayDraft(action: field("action") ?? "", playID: field("id").flatMap(Int64.init),
                              title: field("title") ?? "", artist: field("artist") ?? "", album: field("album") ?? "",
                              albumID: field("album_id") ?? "", startedAt: field("started_at") ?? "", counted: field("counted") != nil)
        do {
            return try historyChange(request, field)
        } catch {
            let error = APIError(error)
            draft.field = switch error.code {
            case "invalid_started_at": "started_at"
            case "invalid_track": "title"
            case "empty_album", "unknown_duration": "album_id"
            case "not_found" where draft.action == "add" && !draft.albumID.isEmpty: "album_id"
            default: nil
            }
            draft.error = error.status >= 500 ? "The server could not save it this time. Try again in a moment."
                : error.message.prefix(1).uppercased() + error.message.dropFirst()
            return try historyPage(request, mayWrite: true, draft: draft, status: error.status)
        }
    }

    private func historyChange(_ request: HTTPRequest, _ field: (String) -> String?) throws -> HTTPResponse {
        let entry: CurationEntry
        switch field("action") {
        case "delete":
            guard let id = field("id").flatMap(Int64.init) else { throw APIError.badRequest("which play?", code: "invalid_id") }
            entry = try context.operations.deletePlays(ids: [id], source: "site").entry
        case "edit":
            guard let id = field("id").flatMap(Int64.init) else { throw APIError.badRequest("which play?", code: "invalid_id") }
            guard let play = try context.store.play(id: id) else { throw APIError.notFound("There is no play \(id).") }
            let title = field("title")?.trimmingCharacters(in: .whitespaces) ?? ""
            let artist = field("artist").flatMap { $0.isEmpty ? nil : $0 }
            let album = field("album").flatMap { $0.isEmpty ? nil : $0 }
            var edit = Store.PlayEdit(counted: field("counted") != nil)
            if title != play.track.title || artist != play.track.artist || album != play.track.album {
                edit.track = Track(title: title, artist: artist, album: album)
            }
            let request = Self.requestText(["edit": ["listen": id, "with": ["title": title, "artist": artist.map { $0 as Any } ?? NSNull(), "album": album.map { $0 as Any } ?? NSNull(),
                                                                               "counted": edit.counted ?? true]]])
            entry = try context.operations.editPlay(id: id, edit, request: request, source: "site").entry
        case "add":
            guard let start = field("started_at").flatMap({ Instant.parse($0, in: localTime) }) else {
                throw APIError.badRequest("when did it start?", code: "invalid_started_at")
            }
            let addition: Store.PlayAddition
            var asked: [String: Any] = ["started_at": ISO8601.string(start)]
            if let album = field("album_id").flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }) {
                addition = .album(id: album)
                asked["album_id"] = album
            } else {
                let title = field("title")?.trimmingCharacters(in: .whitespaces) ?? ""
                let track = Track(title: title, artist: field("artist").flatMap { $0.isEmpty ? nil : $0 },
                                  album: field("album").flatMap { $0.isEmpty ? nil : $0 })
                addition = .text(track)
                asked["track"] = ["title": title, "artist": track.artist.map { $0 as Any } ?? NSNull(), "album": track.album.map { $0 as Any } ?? NSNull()]
            }
            entry = try context.operations.addPlays(addition, startedAt: start, request: Self.requestText(["add": asked]), source: "site").entry
        default:
            throw APIError.badRequest("action: delete, edit or add", code: "invalid_action")
        }
        return redirect(back: field("back"), fallback: "/history", done: entry.id)
    }

    /// Back to a path of this site (never another host), with `done` for the notice.
    func redirect(back: String?, fallback: String, done: Int64) -> HTTPResponse {
        var back = back ?? fallback
        if !back.hasPrefix("/") || back.hasPrefix("//") || back.contains("\\") || back.count > 2000 { back = fallback }
        let kept = back.split(separator: "?", maxSplits: 1)
        let query = kept.count > 1 ? kept[1].split(separator: "&").filter { !$0.hasPrefix("done=") }.joined(separator: "&") : ""
        let target = String(kept[0]) + "?" + (query.isEmpty ? "" : query + "&") + "done=\(done)"
        return HTTPResponse(status: 303, headers: [("Location", url(target)), ("Cache-Control", "no-store")])
    }

    // MARK: /curation

    /// A merge by name as typed, with what went wrong beside its field: the page comes back
    /// with the form as it was sent (issue 52, row 9).
    struct MergeDraft {
        var kind: MergeKind = .artist
        var from = ""
        var into = ""
        /// The field the error is about (`from`, `into`), or nil for the form as a whole.
        var field: String?
        var error: String?
        /// The draft is the merge by ids' (or a suggestion's button), not the one by names.
        var byID = false
    }

    func curationPage(_ request: HTTPRequest, mayWrite: Bool, draft: MergeDraft = MergeDraft(), status: Int = 200) throws -> HTTPResponse {
        let entries = try context.store.curationLog(limit: 100)
        let suggestions = try context.store.mergeSuggestions(limit: 30)
        let f = format
        let notice = try curationNotice(request, mayWrite: mayWrite)
        return html(title: "Corrections", request: request, nav: "curation", status: status) {
            Node.el("h1") { "Corrections" }
            notice
            Node.el("section", ["class": "card", "aria-labelledby": "dup-h"]) {
                Node.el("h2", ["id": "dup-h"]) { "Likely duplicates" }
                if suggestions.isEmpty { Node.el("p", ["class": "muted"]) { "Nothing looks like a duplicate." } }
                Node.el("ul", ["class": "plain suggestions"]) {
                    for s in suggestions {
                        Node.el("li") {
                            Node.el("span", ["class": "badge"]) { s.kind.rawValue }
                            " "
                            Node.el("strong") { s.names[0].name }
                            Node.el("span", ["class": "muted small"]) { " (\(SiteFormat.plural(Int(s.names[0].plays), "play")))" }
                            " ← "
                            s.names.dropFirst().map { "\($0.name) (\(SiteFormat.plural(Int($0.plays), "play")))" }.joined(separator: ", ")
                            Node.el("span", ["class": "muted small"]) { " · \(s.reason)" }
                            // One button per name: any of them can be the one kept (the first is
                            // the suggestion, `MergeSuggestion.keepsBefore`).
                            if mayWrite {
                                for keep in s.names {
                                    Node.el("form", ["method": "post", "action": url("/curation"), "class": "inline"]) {
                                        Node.el("input", ["type": "hidden", "name": "action", "value": "merge"])
                                        Node.el("input", ["type": "hidden", "name": "kind", "value": s.kind.rawValue])
                                        Node.el("input", ["type": "hidden", "name": "from",
                                                          "value": s.names.filter { $0.id != keep.id }.map { String($0.id) }.joined(separator: ",")])
                                        Node.el("input", ["type": "hidden", "name": "into", "value": String(keep.id)])
                                        Node.el("button", ["type": "submit", "class": "small", "data-keep": keep.name]) { "Keep “\(keep.name)”" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if mayWrite { mergeByNameForm(draft.byID ? MergeDraft() : draft) }
            if mayWrite {
                let byID = draft.byID ? draft : MergeDraft()
                Node.el("details", ["class": "card", "id": "merge-ids", "open": draft.byID ? "" : nil]) {
                    Node.el("summary") { "Merge by id" }
                    Node.el("form", ["method": "post", "action": url("/curation"), "class": "stacked"]) {
                        Node.el("input", ["type": "hidden", "name": "action", "value": "merge"])
                        Node.el("label") {
                            "What "
                            Node.el("select", ["name": "kind"]) {
                                for kind in MergeKind.allCases {
                                    Node.el("option", ["value": kind.rawValue, "selected": draft.byID && kind == byID.kind ? "" : nil]) { kind.rawValue }
                                }
                            }
                        }
                        Self.textField("merge-ids-from", name: "from", label: "Merge these ids (comma-separated)", value: byID.from,
                                       error: byID.field == "from" ? byID.error : nil)
                        Self.textField("merge-ids-into", name: "into", label: "into this id", value: byID.into,
                                       error: byID.field == "into" ? byID.error : nil)
                        if byID.field == nil, let error = byID.error { Node.el("p", ["class": "error field-error", "role": "alert"]) { error } }
                        Node.el("button", ["type": "submit"]) { "Merge" }
                    }
                }
            }
            Node.el("section", ["class": "card", "aria-labelledby": "log-h"]) {
                Node.el("h2", ["id": "log-h"]) { "What was changed" }
                if entries.isEmpty { Node.el("p", ["class": "muted"]) { "Nothing has been corrected yet." } }
                Node.el("ol", ["class": "plain curation-log"]) {
                    for e in entries {
                        Node.el("li", ["class": e.undoneAt == nil ? nil : "undone"]) {
                            Node.el("time", ["datetime": ISO8601.string(e.at)]) { f.day(localTime.day(of: e.at)) + " " + f.time(e.at) }
                            " "
                            e.summary(in: localTime)
                            Node.el("span", ["class": "muted small"]) { " · \(e.source)" + (e.undoneAt == nil ? "" : " · undone") }
                            if mayWrite && e.undoneAt == nil { undoButton(e.id, back: "/curation") }
                        }
                    }
                }
            }
        }
    }

    /// `POST /curation`: undo an entry, or merge (by ids, or by names).
    func curationForm(_ request: HTTPRequest) throws -> HTTPResponse {
        let field = { (name: String) in Self.formField(name, in: request.body) }
        switch field("action") {
        case "undo":
            guard let id = field("id").flatMap(Int64.init) else { throw APIError.badRequest("which change?", code: "invalid_id") }
            let entry = try context.operations.undoCuration(id: id)
            retakeReviewSnapshots(after: entry)
            return redirect(back: field("back"), fallback: "/curation", done: entry.id)
        case "merge":
            // By ids, or a suggestion's button: a refusal comes back on the page, not on an
            // error page (the button's merge can meet one made meanwhile).
            var draft = MergeDraft(kind: field("kind").flatMap(MergeKind.init(rawValue:)) ?? .artist,
                                   from: field("from") ?? "", into: field("into") ?? "", byID: true)
            let ids = (field("from") ?? "").split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) }
            let into = field("into").flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            if ids.isEmpty || ids.contains(nil) { draft.field = "from"; draft.error = "Give the ids to merge, separated by commas." }
            if draft.error == nil && into == nil { draft.field = "into"; draft.error = "Give the id of the one to keep." }
            if draft.error != nil { return try curationPage(request, mayWrite: true, draft: draft, status: 400) }
            let from = ids.compactMap { $0 }
            do {
                let entry = try context.operations.merge(draft.kind, from: from, into: into!,
                                                         request: Self.requestText(["merge": ["kind": draft.kind.rawValue, "from": from, "into": into!]]),
                                                         source: "site")
                retakeReviewSnapshots(after: entry)
                return redirect(back: "/curation", fallback: "/curation", done: entry.id)
            } catch {
                let error = APIError(error)
                draft.error = error.status >= 500 ? "The server could not merge them this time. Try again in a moment."
                    : error.message.prefix(1).uppercased() + error.message.dropFirst()
                return try curationPage(request, mayWrite: true, draft: draft, status: error.status)
            }
        case "merge_names":
            return try mergeByName(request, field)
        default:
            throw APIError.badRequest("action: undo, merge or merge_names", code: "invalid_action")
        }
    }
}
